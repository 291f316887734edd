"""Split an answer into sentences, each with the citation markers that belong to it.

Markers are blanked out before the sentence splitter runs (so ``dance.[1] They`` splits like
``dance. They``), then each marker goes to the sentence that holds it, or to the sentence
before it when it stands between two sentences: in ``Bees dance. [1] They fly.`` the ``[1]``
cites "Bees dance." and the first sentence's span is widened to cover it. Markers before the
first sentence belong to the first. Sentences are also cut after 。！？, which the English
splitter does not know, and a list item's number ("2.") stays with its item.

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
# A space before a dot that starts a token (".gz", ".NET", ".5") is a word boundary: keep it.
_SPACE_BEFORE_PUNCTUATION = re.compile(r"\s+(?=[,;:!?。，；：！？)\]]|\.(?!\w))")
_HEADING = re.compile(r"#{1,6}\s")
_ENUMERATOR = re.compile(r"(?:\d{1,3}|[a-zA-Z]|[ivxIVX]{1,4})[.)]|[-*•+]")
_BULLET = re.compile(r"^(?:[-*•+]|\d+[.)]|#+)\s+")
_EMPHASIS = re.compile(r"\*\*|__")


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
    list bullets and bold marks, with whitespace tidied: what the verifier should check.

    >>> claim_text("- Bees **dance** [1].", find_markers("- Bees **dance** [1]."))
    'Bees dance.'
    """
    parts = []
    position = 0
    for marker in sorted(markers, key=lambda m: m.span.start):
        parts.append(text[position : marker.span.start - offset])
        parts.append(" ")
        position = marker.span.end - offset
    parts.append(text[position:])
    bare = _SPACE.sub(" ", "".join(parts)).strip()
    bare = _SPACE_BEFORE_PUNCTUATION.sub("", bare)
    bare = _EMPHASIS.sub("", _BULLET.sub("", bare))
    return bare.strip()


def _sentence_spans(text: str) -> list[Span]:
    spans: list[Span] = []
    for span in split_sentences(text):
        piece = span.of(text)
        start = 0
        for cut in [m.start() for m in _CJK_END.finditer(piece) if 0 < m.start() < len(piece)]:
            if piece[start:cut].strip():
                spans.append(_trimmed(text, span.start + start, span.start + cut))
            start = cut
        if piece[start:].strip():
            spans.append(_trimmed(text, span.start + start, span.end))
    # The splitter cuts a list item's "2." off as a sentence of its own: join it to its item.
    joined: list[Span] = []
    for span in spans:
        if joined and _ENUMERATOR.fullmatch(joined[-1].of(text)):
            joined[-1] = Span(joined[-1].start, span.end)
        else:
            joined.append(span)
    return joined


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
