"""Read a finished ``verify-batch`` output, and the fields of its input lines, for the overview.

:func:`read_results` yields the records of an output file one by one, and stops on a line that
is not one: the error names the file, the line and the fix (a torn last line is what a killed
run leaves; running verify-batch again with the same ``--out`` finishes it). :func:`input_fields`
keeps the named fields of each input line under the key its record has in the output (see
:func:`~veracity.batch.items.record_key`), so an overview can break labels down by a field that
only the input holds.

>>> import tempfile, pathlib
>>> path = pathlib.Path(tempfile.mkdtemp()) / "out.jsonl"
>>> _ = path.write_text('{"id": "a", "line": 1, "summary": {"claims": 0}, "claims": []}\\n')
>>> [record["id"] for record in read_results(path)]
['a']
>>> _ = path.write_text('{"id": "a", "line": 1}\\n')
>>> next(read_results(path))  # doctest: +ELLIPSIS
Traceback (most recent call last):
...
veracity.errors.DocumentError: ...out.jsonl:1: not a verify-batch record: ...
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

from veracity.batch.items import item_key, line_key, record_key
from veracity.errors import DocumentError, InputError

__all__ = ["check_record", "field_of", "input_fields", "read_results"]

_FIX = (
    "give the --out file of `veracity verify-batch`, whose lines are "
    '{"id", "line", "summary", "claims", ...} or {"id", "line", "error"}'
)


def check_record(record: Any) -> str | None:
    """What keeps ``record`` from being a verify-batch output record, or ``None``."""
    if not isinstance(record, dict):
        return f"a JSON {type(record).__name__}, not an object"
    if record_key(record) is None:
        return "it has neither a usable id nor a line number"
    if "error" in record:
        return None if isinstance(record["error"], dict) else "its error is not an object"
    if not isinstance(record.get("summary"), dict):
        return "it has no summary object"
    if not isinstance(record.get("claims"), list):
        return "it has no claims list"
    return None


def read_results(path: str | Path) -> Iterator[dict[str, Any]]:
    """The records of the verify-batch output ``path``, in file order (blank lines skipped)."""
    path = Path(path)
    if not path.is_file():
        raise InputError(
            f"the results {path} are not a file; give the JSONL that "
            "`veracity verify-batch --out` wrote"
        )
    with path.open("r", encoding="utf-8", errors="replace", newline="\n") as handle:
        for number, text in enumerate(handle, start=1):
            if not text.strip():
                continue
            try:
                record = json.loads(text)
            except ValueError as exc:
                if not text.endswith("\n"):
                    raise DocumentError(
                        f"{path}:{number}",
                        "torn_line",
                        "the last line is cut short (the run that wrote it "
                        "was stopped); run verify-batch again with the same "
                        "--out to finish it, then build the overview",
                    ) from exc
                raise DocumentError(
                    f"{path}:{number}", "bad_line", f"not JSON ({exc}); {_FIX}"
                ) from exc
            problem = check_record(record)
            if problem is not None:
                raise DocumentError(
                    f"{path}:{number}",
                    "not_a_record",
                    f"not a verify-batch record: {problem}; {_FIX}",
                )
            yield record


def input_fields(path: str | Path, names: Sequence[str]) -> dict[str, dict[str, Any]]:
    """The fields ``names`` of every input line of ``path`` that has one, by output key.

    A line is keyed as verify-batch keys its record: by its id, or by its line number when its
    id is missing, unreadable or taken by an earlier line. Lines that are not JSON objects are
    left out (their records are error records without fields).
    """
    path = Path(path)
    if not path.is_file():
        raise InputError(
            f"the answers {path} are not a file; give the JSONL that verify-batch read"
        )
    found: dict[str, dict[str, Any]] = {}
    seen: set[str] = set()
    with path.open("r", encoding="utf-8", errors="replace", newline="\n") as handle:
        for number, text in enumerate(handle, start=1):
            if not text.strip():
                continue
            try:
                data = json.loads(text)
            except ValueError:
                continue
            if not isinstance(data, dict):
                continue
            item_id = data.get("id")
            key = line_key(number)
            if isinstance(item_id, str | int) and not isinstance(item_id, bool) and item_id != "":
                if item_key(item_id) not in seen:
                    key = item_key(item_id)
                seen.add(item_key(item_id))
            kept = {name: data[name] for name in names if name in data}
            if kept:
                found[key] = kept
    return found


def field_of(
    record: Mapping[str, Any], name: str, inputs: Mapping[str, Mapping[str, Any]] | None
) -> tuple[bool, Any]:
    """Whether the record (or its input line, in ``inputs``) has the field ``name``, and its
    value: the output record's own field first, then the input line's."""
    if name in record:
        return True, record[name]
    if inputs:
        key = record_key(record)
        line = inputs.get(key) if key is not None else None
        if line is not None and name in line:
            return True, line[name]
    return False, None
