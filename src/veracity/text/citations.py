"""Find the ``[n]`` citation markers of an answer, with their spans, and check them.

Two pure functions. :func:`find_markers` reads the markers of a text: ``[1]``, ``[1, 2]``,
``[1,2]``, ``[1; 2]``, ``[1][3]`` (two markers), ``[1-3]`` (a range: 1, 2 and 3; also with
``–``), full-width ``［1］`` and lenticular ``【1】`` brackets, full-width digits ``［１］``, an
optional word before the number (``[Block 2]``, ``[source 1]``) and a footnote caret
(``[^1]``). Left alone: anything inside inline code or a fenced code block, Markdown links
``[1](url)``, and brackets that hold anything but numbers (``[a]``, ``[citation needed]``).

A bracket attached to a word, as in ``heap[5]``, ``argv[1]`` or ``grid[2][3]``, is an index, not
a citation, in an answer that came with no numbered blocks (``blocks=None``, as for ``veracity
verify``). Over numbered blocks (``blocks``: their texts, as for ``veracity ask``) a model may
write ``dance[1]`` for a citation, so there it is one, unless the word and its brackets are
written so in a block: the source's own ``heap[0]``, copied into the answer, stays text. Only
ASCII brackets without a word or caret inside can be indexes (``dance[^1]`` is a footnote), a
number before the bracket is no word (``in 1889[3]`` cites), and neither is a CJK character
(Chinese and Japanese write ``蜜蜂跳舞[1]`` with no space).

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
>>> find_markers("The smallest item is heap[0].")
()
>>> [m.text for m in find_markers("It is heap[0][2].", blocks=["The least is heap[0]."])]
['[2]']
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from veracity import defaults
from veracity.errors import OptionError
from veracity.types import InvalidCitation, Span

__all__ = ["Marker", "MarkerItem", "code_spans", "find_markers", "indexed_word", "resolve_markers"]

_NUMBER = r"\d+"
_ITEM = rf"{_NUMBER}(?:\s*[-–—~～]\s*{_NUMBER})?"
_SEPARATOR = r"\s*[,，;；、]\s*"
_WORD = r"(?:(?:block|source|context|passage|doc(?:ument)?|ref)\s*#?\s*)?"
_MARKER = re.compile(
    rf"[\[［【]\^?\s*{_WORD}(?P<body>{_ITEM}(?:{_SEPARATOR}{_ITEM})*)\s*[\]］】](?!\()",
    re.IGNORECASE,
)
_ITEM_PARTS = re.compile(rf"(?P<first>{_NUMBER})(?:\s*[-–—~～]\s*(?P<last>{_NUMBER}))?")
_FENCE = re.compile(
    r"^[ \t]*(?P<fence>`{3,}|~{3,}).*?(?:^[ \t]*(?P=fence)[ \t]*$|\Z)", re.MULTILINE | re.DOTALL
)
_INLINE_CODE = re.compile(r"(?P<ticks>`+)(?!`).+?(?<!`)(?P=ticks)(?!`)", re.DOTALL)
#: A marker that could be an index: ASCII brackets around numbers only (no word, no caret).
_INDEX_LIKE = re.compile(rf"\[\s*{_ITEM}(?:{_SEPARATOR}{_ITEM})*\s*\]")
#: The word an index is attached to (looked for in a short window before the brackets).
_WORD_BEFORE = re.compile(r"\w+$")
_CJK = re.compile(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uac00-\ud7af]")
_WINDOW = 80


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


def indexed_word(text: str, start: int, end: int) -> str | None:
    """The word and brackets that end at ``end`` when the bracket ``text[start:end]`` is
    attached to a word (``heap[5]``, ``grid[2][3]``), else ``None``.

    >>> indexed_word("grid[2][3] = 1", 7, 10), indexed_word("Bees dance [1][3]", 14, 17)
    ('grid[2][3]', None)
    """
    if not _INDEX_LIKE.fullmatch(text, start, end):
        return None
    chain = start
    while chain > 0 and text[chain - 1] == "]":  # grid[2][3]: the brackets before this one
        opening = text.rfind("[", max(0, chain - _WINDOW), chain - 1)
        if opening < 0 or "\n" in text[opening:chain]:
            return None
        chain = opening
    word = _WORD_BEFORE.search(text[max(0, chain - _WINDOW) : chain])
    if word is None or word.group().isdigit() or _CJK.match(word.group()[-1]):
        return None
    return word.group() + text[chain:end]


def find_markers(text: str, *, blocks: Sequence[str] | None = None) -> tuple[Marker, ...]:
    """Every citation marker of ``text`` outside code, in order (see the module docstring).

    ``blocks`` are the texts of the numbered blocks the answer was written over, ``None`` when
    it came with none: that decides whether ``heap[5]`` is an index or a citation.
    """
    code = code_spans(text)
    markers = []
    for match in _MARKER.finditer(text):
        if _inside(match.start(), code):
            continue
        indexed = indexed_word(text, match.start(), match.end())
        if indexed is not None and (blocks is None or any(indexed in b for b in blocks)):
            continue  # an index such as heap[5]: text, not a citation
        items = tuple(
            MarkerItem(
                part.group(),
                int(part.group("first")),
                int(part.group("last") or part.group("first")),
            )
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
                invalid.append(
                    InvalidCitation(
                        item.text, marker.span, f"out of range: {given} ({missing} do not exist)"
                    )
                )
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
