"""The lines of a batch input, and the key that makes each one appear once in the output.

Each input line is a JSON object ``{id, answer, question?, <sources field>?: [text, ...],
cited?: {n: chunk_id}}``. :func:`parse_line` turns a line into a :class:`BatchItem`, or into a
:class:`BadLine` that says what is wrong with it (the run writes it as an error record and goes
on). Every output record has a key (:func:`record_key`): its ``id``, or, for a line whose id is
missing, unreadable or already taken, its line number. A run that finds a key in the output
does not do that line again.

>>> parse_line('{"id": "q1", "answer": "Bees dance."}', 1).id
'q1'
>>> parse_line('{"answer": "Bees dance."}', 2).reason
'no_id'
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from veracity import defaults

__all__ = ["LINE_REASONS", "BadLine", "BatchItem", "item_key", "parse_line", "record_key"]

#: Why a line has no usable id; such a line's record is keyed by its line number.
LINE_REASONS = ("bad_json", "no_id", "duplicate_id")


@dataclass(frozen=True)
class BatchItem:
    """One answer to verify: its ``id`` and 1-based ``line`` in the input, the answer, the
    question it replies to, the source texts given with it (``sources``, empty when evidence
    comes from an index) and the passages its ``[n]`` markers cite (``cited``: number to
    chunk id)."""

    id: str | int
    line: int
    answer: str
    question: str | None = None
    sources: tuple[str, ...] = ()
    cited: Mapping[int, str] | None = None

    @property
    def key(self) -> str:
        return item_key(self.id)

    def to_dict(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "line": self.line,
            "answer": self.answer,
            "question": self.question,
            "sources": list(self.sources),
            "cited": None if self.cited is None else {str(n): c for n, c in self.cited.items()},
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> BatchItem:
        """The inverse of :meth:`to_dict` (items cross process boundaries as dicts)."""
        cited = data.get("cited")
        return cls(
            id=data["id"],
            line=int(data["line"]),
            answer=data["answer"],
            question=data.get("question"),
            sources=tuple(data.get("sources") or ()),
            cited=None if cited is None else {int(n): c for n, c in cited.items()},
        )


@dataclass(frozen=True)
class BadLine:
    """A line that cannot be verified: its 1-based ``line``, its ``id`` when it has a readable
    one, a short ``reason`` code and a ``message`` that says how to fix it."""

    line: int
    reason: str
    message: str
    id: str | int | None = None

    @property
    def key(self) -> str:
        return (
            line_key(self.line)
            if self.reason in LINE_REASONS or self.id is None
            else item_key(self.id)
        )

    def to_dict(self) -> dict[str, Any]:
        """The error record written for the line."""
        return {
            "id": self.id,
            "line": self.line,
            "error": {"reason": self.reason, "message": self.message},
        }


def item_key(item_id: str | int) -> str:
    """The output key of the line with id ``item_id`` (``1`` and ``"1"`` are the same id)."""
    return f"id:{item_id}"


def line_key(line: int) -> str:
    """The output key of a line that has no usable id."""
    return f"line:{line}"


def record_key(record: Mapping[str, Any]) -> str | None:
    """The key of an output record (see the module docstring); ``None`` when it is not one."""
    error = record.get("error")
    reason = error.get("reason") if isinstance(error, dict) else None
    line = record.get("line")
    item_id = record.get("id")
    if reason in LINE_REASONS or item_id is None:
        return line_key(line) if isinstance(line, int) and not isinstance(line, bool) else None
    if isinstance(item_id, str | int) and not isinstance(item_id, bool):
        return item_key(item_id)
    return None


def parse_line(
    text: str, line: int, *, sources_field: str | None = defaults.BATCH_SOURCES_FIELD
) -> BatchItem | BadLine:
    """The item on input line number ``line`` (1-based), or why it cannot be verified.

    ``sources_field`` names the field holding the line's source texts; ``None`` when evidence
    comes from an index (a line may then still carry ``cited``).
    """
    try:
        data = json.loads(text)
    except ValueError as exc:
        return BadLine(
            line, "bad_json", f"line {line} is not JSON ({exc}); write one JSON object per line"
        )
    if not isinstance(data, dict):
        return BadLine(
            line,
            "bad_json",
            f"line {line} is a JSON {type(data).__name__}, not an "
            'object; write {"id": ..., "answer": ...}',
        )
    item_id = data.get("id")
    if isinstance(item_id, bool) or not isinstance(item_id, str | int) or item_id == "":
        return BadLine(
            line,
            "no_id",
            f"line {line} has no id (a non-empty string or an "
            f"integer), got {item_id!r}; give every line a unique id",
        )
    answer = data.get("answer")
    if not isinstance(answer, str) or not answer.strip():
        return BadLine(
            line,
            "no_answer",
            f'line {line} (id {item_id!r}) has no answer text; give "answer": "..."',
            item_id,
        )
    question = data.get("question")
    if question is not None and not isinstance(question, str):
        return BadLine(
            line,
            "bad_question",
            f"line {line} (id {item_id!r}): question must be "
            f"a string, got {type(question).__name__}",
            item_id,
        )
    sources: tuple[str, ...] = ()
    if sources_field is not None:
        given = data.get(sources_field)
        if not isinstance(given, list) or not all(isinstance(s, str) for s in given):
            return BadLine(
                line,
                "no_sources",
                f"line {line} (id {item_id!r}) has no "
                f"{sources_field!r} list of source texts; give "
                f'"{sources_field}": ["text", ...] or verify against --index DIR',
                item_id,
            )
        sources = tuple(given)
    cited = _cited(data.get("cited"))
    if isinstance(cited, str):
        return BadLine(line, "bad_cited", f"line {line} (id {item_id!r}): {cited}", item_id)
    return BatchItem(item_id, line, answer, question, sources, cited)


def _cited(value: Any) -> dict[int, str] | str | None:
    """``cited`` as numbers to chunk ids, or what is wrong with it."""
    if value is None:
        return None
    fix = 'cited must map citation numbers to chunk ids, e.g. {"1": "notes.md#0"}'
    if not isinstance(value, dict):
        return fix
    cited: dict[int, str] = {}
    for number, chunk_id in value.items():
        if not str(number).isdigit() or not isinstance(chunk_id, str) or not chunk_id:
            return f"{fix}; got {number!r}: {chunk_id!r}"
        cited[int(number)] = chunk_id
    return cited
