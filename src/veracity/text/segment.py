"""Split an answer into sentences, each with the citation markers that belong to it.

Markers are blanked out before the sentence splitter runs (so ``dance.[1] They`` splits like
``dance. They``), then each marker goes to the sentence that holds it, or to the sentence
before it when it stands between two sentences: in ``Bees dance. [1] They fly.`` the ``[1]``
cites "Bees dance." and the first sentence's span is widened to cover it. Markers before the
first sentence belong to the first. Sentences are also cut after 。！？, which the English
splitter does not know, and after the underline of a setext heading ("Usage\n-----"), and a
list item's number ("2.") stays with its item.

>>> [(s.span.of(t), s.claim) for t in ["Bees dance. [1] They fly [2]."]
...  for s in segment_answer(t)]
[('Bees dance. [1]', 'Bees dance.'), ('They fly [2].', 'They fly.')]
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from veracity.text.citations import Marker, code_spans, find_markers
from veracity.text.factual import is_factual
from veracity.text.sentences import split_sentences
from veracity.types import Span

__all__ = ["AnswerSentence", "claim_text", "segment_answer"]

_CJK_END = re.compile(r"(?<=[。！？])")
_SPACE = re.compile(r"\s+")
# The line of "=" or "-" under a setext heading ends it: "Usage\n-----\nRun it." is two.
_UNDERLINE = re.compile(r"^[ \t]*(?:={3,}|-{3,})[ \t]*(?=\n)", re.MULTILINE)
# ... unless the line above ends a sentence: then the line is a rule, cut off on its own.
_RULE_AFTER_SENTENCE = re.compile(
    r"(?<=[.!?。！？])[ \t]*\n(?=[ \t]*(?:={3,}|-{3,})[ \t]*(?:\n|$))"
)
_BLANK_LINE = re.compile(r"\n[^\S\n]*\n")
_HEADING = re.compile(r"#{1,6}\s")
_ENUMERATOR = re.compile(r"(?:\d{1,3}|[a-zA-Z]|[ivxIVX]{1,4})[.)]|[-*•+]")
_BULLET = re.compile(r"^(?:[-*•+]|\d+[.)]|#+)\s+")
# Bold marks: "**" anywhere; "__" only in pairs around words with a space between them
# ("__bold text__"), so that "__init__.py" and "__main__" keep their underscores.
_STARS = re.compile(r"\*\*")
_UNDERSCORES = re.compile(r"(?<!\w)__(\S[^_\n]*\s[^_\n]*\S)__(?!\w)")
# "//!", "$?" or a lone "?" is a token, not a sentence's end: the splitter's cut after it is
# undone when the next piece goes on in lower case ("The //! syntax marks ...").
_GLUED_END = re.compile(r"(?:^|[^\w)\]}\"'’”])[!?]$")
# A citation marker stands in for "\0" while its whitespace is tidied (see claim_text).
_MARKER = "\0"
_MARKERS = re.compile(r"\s*\0(?:\s*\0)*")
# Punctuation that closes what goes before it: no space goes before it where a marker stood.
_CLOSING = frozenset(".,;:!?)]}…。，；：！？）」』")


@dataclass(frozen=True, slots=True)
class AnswerSentence:
    """A sentence of an answer: its span (with its markers), markers, and the bare claim.

    ``in_code`` is true when the whole sentence lies inside a code block or inline code, and
    ``heading`` when it starts as a Markdown heading (``# ...``): neither states a claim.
    """

    span: Span
    markers: tuple[Marker, ...]
    claim: str
    in_code: bool
    heading: bool = False

    @property
    def factual(self) -> bool:
        """Whether it states something to verify: not code, not a heading, and its claim is
        factual (:func:`~veracity.text.factual.is_factual`)."""
        return not (self.in_code or self.heading) and bool(self.claim) and is_factual(self.claim)


def claim_text(text: str, markers: Sequence[Marker], *, offset: int = 0) -> str:
    """``text`` without ``markers`` (whose spans start ``offset`` characters before ``text``),
    a list bullet and bold marks, with each run of whitespace made one space: what the verifier
    should check. Nothing else changes: a marker takes the whitespace before it with it (a space
    stays only between two characters it separated, unless the second closes what goes before
    it: ``.,;:!?)``), so "dance [1]." reads "dance." while "the ./.bootstrap script" and "a .gz
    file" keep every space.

    >>> claim_text("- Bees **dance** [1].", find_markers("- Bees **dance** [1]."))
    'Bees dance.'
    >>> text = "Run the ./.bootstrap script [2]."
    >>> claim_text(text, find_markers(text))
    'Run the ./.bootstrap script.'
    """
    parts = []
    position = 0
    for marker in sorted(markers, key=lambda m: m.span.start):
        parts.append(text[position : marker.span.start - offset])
        parts.append(_MARKER)
        position = marker.span.end - offset
    parts.append(text[position:])
    bare = _MARKERS.sub(_marker_gap, "".join(parts))
    bare = _SPACE.sub(" ", bare).strip()
    bare = _UNDERSCORES.sub(r"\1", _STARS.sub("", _BULLET.sub("", bare)))
    return bare.strip()


def _marker_gap(match: re.Match[str]) -> str:
    before = match.string[match.start() - 1 : match.start()]
    after = match.string[match.end() : match.end() + 1]
    joins = before.strip() and after.strip() and after not in _CLOSING
    return " " if joins else ""


def _sentence_spans(text: str) -> list[Span]:
    spans: list[Span] = []
    for span in split_sentences(text):
        piece = span.of(text)
        start = 0
        cuts = [m.end() for pattern in (_CJK_END, _UNDERLINE) for m in pattern.finditer(piece)]
        cuts = sorted(cuts + [m.start() for m in _RULE_AFTER_SENTENCE.finditer(piece)])
        for cut in [cut for cut in cuts if 0 < cut < len(piece)]:
            if piece[start:cut].strip():
                spans.append(_trimmed(text, span.start + start, span.start + cut))
            start = cut
        if piece[start:].strip():
            spans.append(_trimmed(text, span.start + start, span.end))
    # The splitter cuts a list item's "2." off as a sentence of its own, and cuts after the "!"
    # of "//!": join each to what follows it on its paragraph.
    joined: list[Span] = []
    for span in spans:
        last = joined[-1] if joined else None
        if last is not None and _continued(text, last, span):
            joined[-1] = Span(last.start, span.end)
        else:
            joined.append(span)
    return joined


def _continued(text: str, last: Span, span: Span) -> bool:
    if _BLANK_LINE.search(text, last.end, span.start):
        return False
    if _ENUMERATOR.fullmatch(last.of(text)):
        return True
    return bool(_GLUED_END.search(last.of(text))) and span.of(text)[:1].islower()


def _trimmed(text: str, start: int, end: int) -> Span:
    piece = text[start:end]
    lead = len(piece) - len(piece.lstrip())
    trail = len(piece) - len(piece.rstrip())
    return Span(start + lead, end - trail)


def segment_answer(text: str, *, blocks: Sequence[str] | None = None) -> tuple[AnswerSentence, ...]:
    """The sentences of ``text`` in order, each with its markers (see the module docstring).

    ``blocks``: the texts of the numbered blocks the answer was written over (``None`` when it
    came with none; see :func:`~veracity.text.citations.find_markers`).
    """
    markers = find_markers(text, blocks=blocks)
    masked = list(text)
    for marker in markers:
        masked[marker.span.start : marker.span.end] = " " * len(marker.span)
    spans = _sentence_spans("".join(masked))
    if not spans:
        if not text.strip():
            return ()
        spans = [_trimmed(text, 0, len(text))]  # nothing but markers
    owned: list[list[Marker]] = [[] for _ in spans]
    for marker in markers:
        owner = 0
        for i, span in enumerate(spans):
            if span.start <= marker.span.start:
                owner = i
        owned[owner].append(marker)
    code = code_spans(text)
    sentences = []
    for span, mine in zip(spans, owned, strict=True):
        end = max([span.end, *(m.span.end for m in mine)])
        start = min([span.start, *(m.span.start for m in mine)])
        full = Span(start, end)
        in_code = any(c.start <= full.start and full.end <= c.end for c in code)
        claim = claim_text(full.of(text), mine, offset=full.start)
        heading = bool(_HEADING.match(full.of(text)))
        sentences.append(AnswerSentence(full, tuple(mine), claim, in_code, heading))
    return tuple(sentences)
