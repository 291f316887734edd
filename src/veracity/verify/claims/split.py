"""Split an answer into the sentences to check, each with its citation numbers and, for those
that need no verification, the reason.

It starts from :func:`veracity.text.segment.segment_answer` (Punkt, citation markers kept
with their sentence) and adds two repairs:

- abbreviations: a sentence cut after "e.g.", "i.e.", "etc.", "et al.", "vs.", "approx.",
  "U.S." and the like is joined to the next when that starts with a lower-case letter or a
  digit, and after a title ("Dr.", "Prof.", "St.") whatever follows;
- code: a fenced code block glued to the text around it is cut out as a sentence of its own
  (skipped as ``code``), and the pieces of one code block are one skipped sentence.

>>> [(s.text, s.markers, s.skip) for s in split_answer("Sure! Bees dance, e.g. in spring [1].")]
[('Sure!', (), 'greeting'), ('Bees dance, e.g. in spring.', (1,), None)]
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from veracity.text.citations import Marker, code_spans, resolve_markers
from veracity.text.segment import claim_text, segment_answer
from veracity.types import SkipReason, Span
from veracity.verify.claims.filter import sentence_skip_reason

__all__ = ["ClaimSentence", "split_answer"]

_ABBREVIATION = re.compile(
    r"(?:^|[\s(])(?:e\.g|i\.e|etc|et al|cf|vs|approx|ca|c|no|nos|fig|figs|vol|pp|p|ed|eds|esp"
    r"|incl|dept|est|jan|feb|mar|apr|jun|jul|aug|sep|sept|oct|nov|dec|inc|ltd|co|corp|u\.s"
    r"|u\.k|e\.u|u\.n|a\.m|p\.m|resp|ref|refs|eq|ch|sec)\.$",
    re.IGNORECASE,
)
_TITLE = re.compile(
    r"(?:^|[\s(])(?:dr|mr|mrs|ms|prof|st|mt|gen|gov|sen|rep|sgt|capt|lt|col|rev|hon|pres|sr"
    r"|jr)\.$",
    re.IGNORECASE,
)
_HEADING = re.compile(r"#{1,6}\s")
_FENCE_OPEN = ("```", "~~~")
#: Any block number is valid here: an answer pasted for checking has no numbered context.
_ANY_BLOCK = 10**9


@dataclass(frozen=True, slots=True)
class ClaimSentence:
    """A sentence of the answer: 0-based ``index``, ``span`` (with its citation markers), bare
    ``text`` (markers, bullets and emphasis removed), the citation numbers written on it, and
    ``skip``, the reason it needs no verification (``None`` when it is to be checked)."""

    index: int
    span: Span
    text: str
    markers: tuple[int, ...]
    skip: SkipReason | None


@dataclass(frozen=True, slots=True)
class _Piece:
    span: Span
    markers: tuple[Marker, ...]
    code: bool
    heading: bool
    fence: Span | None = None


def split_answer(answer: str, *, blocks: Sequence[str] | None = None) -> tuple[ClaimSentence, ...]:
    """The sentences of ``answer`` in order (see the module docstring); ``blocks`` are the
    texts of the numbered blocks it was written over, ``None`` when it came with none (then
    ``heap[5]`` is text, not a citation: see :func:`~veracity.text.citations.find_markers`)."""
    fences = [
        span for span in code_spans(answer) if span.of(answer).lstrip(" \t").startswith(_FENCE_OPEN)
    ]
    pieces: list[_Piece] = []
    for sentence in segment_answer(answer, blocks=blocks):
        pieces.extend(
            _cut_code(
                answer, sentence.span, sentence.markers, sentence.in_code, sentence.heading, fences
            )
        )
    pieces = _join_abbreviations(answer, _join_code(pieces))
    result = []
    for index, piece in enumerate(pieces):
        written = piece.span.of(answer)
        bare = claim_text(written, piece.markers, offset=piece.span.start)
        reason = sentence_skip_reason(
            written,
            bare,
            code=piece.code,
            heading=piece.heading,
            own_line=_own_line(answer, piece.span),
        )
        valid, _ = resolve_markers(piece.markers, blocks=_ANY_BLOCK)
        numbers = tuple(dict.fromkeys(number for number, _ in valid))
        result.append(ClaimSentence(index, piece.span, bare, numbers, reason))
    return tuple(result)


def _cut_code(
    answer: str,
    span: Span,
    markers: tuple[Marker, ...],
    in_code: bool,
    heading: bool,
    fences: list[Span],
) -> list[_Piece]:
    """The sentence ``span`` with every fenced block that overlaps it cut out as its own piece."""
    overlapping = [f for f in fences if f.start < span.end and f.end > span.start]
    if in_code or not overlapping:
        fence = overlapping[0] if overlapping else None
        return [_Piece(span, markers, in_code, heading, fence)]
    pieces: list[_Piece] = []
    position = span.start
    for fence in overlapping:
        pieces.extend(_text_piece(answer, position, max(fence.start, span.start), markers))
        code = Span(max(fence.start, span.start), min(fence.end, span.end))
        pieces.append(_Piece(code, (), True, False, fence))
        position = code.end
    pieces.extend(_text_piece(answer, position, span.end, markers))
    return pieces


def _text_piece(answer: str, start: int, end: int, markers: tuple[Marker, ...]) -> list[_Piece]:
    piece = answer[start:end]
    lead = len(piece) - len(piece.lstrip())
    trail = len(piece) - len(piece.rstrip())
    if end - trail <= start + lead:
        return []
    span = Span(start + lead, end - trail)
    mine = tuple(m for m in markers if span.start <= m.span.start < span.end)
    return [_Piece(span, mine, False, bool(_HEADING.match(span.of(answer))))]


def _join_code(pieces: list[_Piece]) -> list[_Piece]:
    """One piece per code block: Punkt may cut a block into several sentences."""
    joined: list[_Piece] = []
    for piece in pieces:
        last = joined[-1] if joined else None
        if (
            last is not None
            and last.code
            and piece.code
            and last.fence is not None
            and last.fence == piece.fence
        ):
            joined[-1] = _Piece(Span(last.span.start, piece.span.end), (), True, False, last.fence)
        else:
            joined.append(piece)
    return joined


def _join_abbreviations(answer: str, pieces: list[_Piece]) -> list[_Piece]:
    joined: list[_Piece] = []
    for piece in pieces:
        last = joined[-1] if joined else None
        if last is not None and _continues(answer, last, piece):
            joined[-1] = _Piece(
                Span(last.span.start, piece.span.end),
                last.markers + piece.markers,
                False,
                last.heading,
            )
        else:
            joined.append(piece)
    return joined


def _continues(answer: str, last: _Piece, piece: _Piece) -> bool:
    """Whether ``piece`` continues ``last``, which the splitter cut after an abbreviation."""
    if last.code or piece.code or piece.heading or last.markers:
        return False
    gap = answer[last.span.end : piece.span.start]
    if gap.count("\n") > 1 or gap.strip():
        return False
    ending = last.span.of(answer)
    following = piece.span.of(answer)[:1]
    if _TITLE.search(ending):
        return True
    return bool(_ABBREVIATION.search(ending)) and (following.islower() or following.isdigit())


def _own_line(answer: str, span: Span) -> bool:
    before = answer[: span.start].rstrip(" \t")
    after = answer[span.end :].lstrip(" \t")
    return (not before or before.endswith("\n")) and (not after or after.startswith("\n"))
