"""Frozen result types shared by every stage.

Every span is a pair of character offsets into a named string: a ``Chunk``'s ``start``/``end``
index its document's ``text`` so that ``document.text[chunk.start:chunk.end] == chunk.text``.
"""

from __future__ import annotations

import bisect
import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Literal

__all__ = [
    "Chunk",
    "Confidence",
    "Document",
    "Hit",
    "Label",
    "Page",
    "PairScore",
    "PairScores",
    "SearchResult",
    "Section",
    "Span",
]

MetadataValue = str | int | float | bool | None
#: ``"error"`` marks a pair whose scoring failed (see :attr:`PairScore.error`); it is never a score.
Label = Literal["supported", "contradicted", "neither", "error"]


@dataclass(frozen=True, slots=True)
class Span:
    """Characters ``start`` (inclusive) to ``end`` (exclusive) of a named string."""

    start: int
    end: int

    def __post_init__(self) -> None:
        if not 0 <= self.start <= self.end:
            raise ValueError(f"invalid span [{self.start}, {self.end}): need 0 <= start <= end")

    def of(self, text: str) -> str:
        """The characters of ``text`` this span covers."""
        return text[self.start : self.end]

    def __len__(self) -> int:
        return self.end - self.start


@dataclass(frozen=True, slots=True)
class Section:
    """A heading region of a document: ``path`` is the heading trail, outermost first."""

    start: int
    end: int
    path: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class Page:
    """A page (1-based ``number``) of a paginated document, as a span of its text."""

    number: int
    start: int
    end: int


@dataclass(frozen=True)
class Document:
    """One source document as plain text, with its structure as spans over that text."""

    id: str
    text: str
    title: str = ""
    source: str = ""
    sections: tuple[Section, ...] = ()
    pages: tuple[Page, ...] = ()
    metadata: Mapping[str, MetadataValue] = field(default_factory=dict)

    def section_at(self, offset: int) -> tuple[str, ...]:
        """Heading path of the innermost section that holds ``offset`` (empty if none)."""
        best: tuple[str, ...] = ()
        best_start = -1
        for section in self.sections:
            if section.start <= offset < section.end and section.start >= best_start:
                best, best_start = section.path, section.start
        return best

    def page_at(self, offset: int) -> int | None:
        """Number of the page that holds ``offset``, or ``None`` for unpaginated documents."""
        if not self.pages:
            return None
        starts = [page.start for page in self.pages]
        position = max(bisect.bisect_right(starts, offset) - 1, 0)
        return self.pages[position].number


@dataclass(frozen=True)
class Chunk:
    """A passage of a document with its exact character span and where it sits."""

    id: str
    doc_id: str
    index: int
    text: str
    start: int
    end: int
    title: str = ""
    section: tuple[str, ...] = ()
    page: int | None = None
    page_end: int | None = None
    source: str = ""

    @property
    def span(self) -> Span:
        return Span(self.start, self.end)


@dataclass(frozen=True)
class Confidence:
    """Retrieval confidence signals for abstention.

    ``top_bm25`` and ``top_cosine`` are raw scores of the best hit by that signal (``None`` when
    that signal was not computed); ``margin`` is the ranking score of the first hit minus the
    second's. Rank-only fusion scores such as RRF are not usable as thresholds.
    """

    top_bm25: float | None = None
    top_cosine: float | None = None
    margin: float | None = None


@dataclass(frozen=True)
class Hit:
    """One retrieved chunk with its ranking score, 1-based rank and per-signal scores."""

    chunk: Chunk
    score: float
    rank: int
    retriever: str
    scores: Mapping[str, float] = field(default_factory=dict)


@dataclass(frozen=True)
class SearchResult:
    """Hits for one query, best first, with the confidence signals of the ranking."""

    query: str
    mode: str
    hits: tuple[Hit, ...]
    confidence: Confidence


@dataclass(frozen=True, slots=True)
class PairScore:
    """Probabilities that a premise supports, contradicts or says nothing of a hypothesis.

    ``window`` is the character span of the premise that covers the evidence the result was
    taken from (the whole premise when it fit), ``evidence`` the exact spans of that evidence
    (several when sentences were selected from a long premise), and ``window_index`` the position
    of that window among the ``windows`` tried.

    ``error`` is set when the pair could not be scored (for example a judge model's reply could
    not be parsed): the three probabilities are then ``nan`` and ``label`` is ``"error"``. Build
    such a result with :meth:`failure`.
    """

    supported: float
    contradicted: float
    neither: float
    window: Span
    window_index: int = 0
    windows: int = 1
    evidence: tuple[Span, ...] = ()
    error: str | None = None

    def __post_init__(self) -> None:
        if self.error is not None and not all(
            math.isnan(p) for p in (self.supported, self.contradicted, self.neither)
        ):
            raise ValueError("a PairScore with an error must have nan probabilities: "
                             "build it with PairScore.failure(error, window=...)")

    @classmethod
    def failure(cls, error: str, *, window: Span, window_index: int = 0, windows: int = 1,
                evidence: tuple[Span, ...] = ()) -> PairScore:
        """A result for a pair that could not be scored: ``nan`` probabilities and ``error``."""
        nan = float("nan")
        return cls(nan, nan, nan, window, window_index, windows, evidence, error)

    @property
    def label(self) -> Label:
        if self.error is not None:
            return "error"
        best = max(self.supported, self.contradicted, self.neither)
        if best == self.supported:
            return "supported"
        if best == self.contradicted:
            return "contradicted"
        return "neither"


@dataclass(frozen=True)
class PairScores:
    """Scores of a batch of (premise, hypothesis) pairs, in input order, with provenance."""

    scores: tuple[PairScore, ...]
    model_id: str
    model_version: str

    def __len__(self) -> int:
        return len(self.scores)

    def supported(self) -> list[float]:
        return [score.supported for score in self.scores]

    @property
    def failures(self) -> int:
        """How many pairs could not be scored (their ``error`` is set)."""
        return sum(score.error is not None for score in self.scores)
