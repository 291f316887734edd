"""Find the ``[n]`` citation markers of an answer, with their spans, and check them.

Two pure functions. :func:`find_markers` reads the markers of a text: ``[1]``, ``[1, 2]``,
``[1,2]``, ``[1; 2]``, ``[1][3]`` (two markers), ``[1-3]`` (a range: 1, 2 and 3; also with
``–``), full-width ``［1］`` and lenticular ``【1】`` brackets, full-width digits ``［１］``, an
optional word before the number (``[Block 2]``, ``[source 1]``) and a footnote caret
(``[^1]``). Left alone: anything inside inline code or a fenced code block, Markdown links
``[1](url)``, and brackets that hold anything but numbers (``[a]``, ``[citation needed]``).

:func:`resolve_markers` checks the numbers against the count of context blocks. A number that
names no block is an invalid citation, never ignored: ``[7]`` when four blocks were given, ``[0]``
(blocks are numbered from 1), a reversed range ``[3-1]``, a range wider than
``defaults.MAX_CITATION_RANGE``. That holds for bracketed years too: ``[2020]`` is reported as
an invalid citation rather than guessed to be a year, because a grounded answer has no reason to
bracket a bare number, and a silently dropped marker would hide a fabricated citation.

>>> [m.span for m in find_markers("Bees dance [1][3]. Not `x[2]`.")]
[Span(start=11, end=14), Span(start=14, end=17)]
>>> valid, invalid = resolve_markers(find_markers("Bees dance [1, 7]."), blocks=4)
>>> [number for number, _ in valid], invalid[0].reason
([1], 'out of range: 4 blocks were given')
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from veracity import defaults
from veracity.errors import OptionError
from veracity.types import InvalidCitation, Span

__all__ = ["Marker", "MarkerItem", "code_spans", "find_markers", "resolve_markers"]

_NUMBER = r"\d+"
_ITEM = rf"{_NUMBER}(?:\s*[-–—~～]\s*{_NUMBER})?"
_SEPARATOR = r"\s*[,，;；、]\s*"
_WORD = r"(?:(?:block|source|context|passage|doc(?:ument)?|ref)\s*#?\s*)?"
_MARKER = re.compile(
    rf"[\[［【]\^?\s*{_WORD}(?P<body>{_ITEM}(?:{_SEPARATOR}{_ITEM})*)\s*[\]］】](?!\()",
    re.IGNORECASE,
)
_ITEM_PARTS = re.compile(rf"(?P<first>{_NUMBER})(?:\s*[-–—~～]\s*(?P<last>{_NUMBER}))?")
_FENCE = re.compile(r"^[ \t]*(?P<fence>`{3,}|~{3,}).*?(?:^[ \t]*(?P=fence)[ \t]*$|\Z)",
                    re.MULTILINE | re.DOTALL)
_INLINE_CODE = re.compile(r"(?P<ticks>`+)(?!`).+?(?<!`)(?P=ticks)(?!`)", re.DOTALL)


@dataclass(frozen=True, slots=True)
class MarkerItem:
    """One number or range inside a marker: ``text`` as written, ``first`` to ``last``."""

    text: str
    first: int
    last: int


@dataclass(frozen=True, slots=True)
class Marker:
    """A citation marker group of a text, e.g. ``[1, 3-4]``, with its span."""

    span: Span
    text: str
    items: tuple[MarkerItem, ...]


def code_spans(text: str) -> list[Span]:
    """Spans of ``text`` inside fenced code blocks (an unclosed fence runs to the end) or
    inline code, in order.

    >>> code_spans("a `b` c")
    [Span(start=2, end=5)]
    """
    spans = [Span(m.start(), m.end()) for m in _FENCE.finditer(text)]
    position = 0
    inline: list[Span] = []
    for fenced in [*spans, Span(len(text), len(text))]:
        for match in _INLINE_CODE.finditer(text, position, fenced.start):
            inline.append(Span(match.start(), match.end()))
        position = fenced.end
    return sorted(spans + inline, key=lambda span: span.start)


def _inside(position: int, spans: Sequence[Span]) -> bool:
    return any(span.start <= position < span.end for span in spans)


def find_markers(text: str) -> tuple[Marker, ...]:
    """Every citation marker of ``text`` outside code, in order (see the module docstring)."""
    code = code_spans(text)
    markers = []
    for match in _MARKER.finditer(text):
        if _inside(match.start(), code):
            continue
        items = tuple(
            MarkerItem(part.group(), int(part.group("first")),
                       int(part.group("last") or part.group("first")))
            for part in _ITEM_PARTS.finditer(match.group("body"))
        )
        markers.append(Marker(Span(match.start(), match.end()), match.group(), items))
    return tuple(markers)


def resolve_markers(
    markers: Sequence[Marker],
    *,
    blocks: int,
    max_range: int = defaults.MAX_CITATION_RANGE,
) -> tuple[list[tuple[int, Marker]], list[InvalidCitation]]:
    """Split the numbers of ``markers`` into valid block numbers and invalid citations.

    Returns ``(valid, invalid)``: ``valid`` lists ``(block number, marker)`` in the order
    written, each number at most once per marker; ``invalid`` has one entry per bad item. The
    valid part of a range that overruns the blocks is kept (``[3-6]`` of four blocks cites 3 and
    4, and ``5-6`` is reported).
    """
    if isinstance(blocks, bool) or not isinstance(blocks, int) or blocks < 0:
        raise OptionError("blocks", blocks, "an integer of 0 or more (the context blocks given)")
    valid: list[tuple[int, Marker]] = []
    invalid: list[InvalidCitation] = []
    given = f"{blocks} block{'s' if blocks != 1 else ''} {'were' if blocks != 1 else 'was'} given"
    for marker in markers:
        seen: set[int] = set()
        for item in marker.items:
            reason = _problem(item, blocks, max_range, given)
            if reason is not None:
                invalid.append(InvalidCitation(item.text, marker.span, reason))
                continue
            for number in range(item.first, min(item.last, blocks) + 1):
                if number not in seen:
                    seen.add(number)
                    valid.append((number, marker))
            if item.last > blocks:  # a range that overruns the blocks: its valid part is kept
                missing = f"{blocks + 1}-{item.last}" if item.last > blocks + 1 else str(item.last)
                invalid.append(InvalidCitation(
                    item.text, marker.span, f"out of range: {given} ({missing} do not exist)"))
    return valid, invalid


def _problem(item: MarkerItem, blocks: int, max_range: int, given: str) -> str | None:
    """Why no number of ``item`` can be cited, or ``None`` when at least its start can."""
    if item.last < item.first:
        return f"reversed range: write [{item.last}-{item.first}]"
    if item.last - item.first + 1 > max_range:
        return f"a range of {item.last - item.first + 1} blocks (at most {max_range} allowed)"
    if item.first < 1:
        return "blocks are numbered from 1"
    if item.first > blocks:
        return f"out of range: {given}"
    return None
