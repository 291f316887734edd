"""What retrieval and reranking find: hits with their scores, the confidence signals of a
search, and a reranker's relevance of passages to a query."""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from veracity._json import Fields
from veracity.types.corpus import Chunk
from veracity.types.spans import Span

__all__ = ["Confidence", "Hit", "RelevanceScore", "RelevanceScores", "SearchResult"]


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
    #: The reranker's best P(relevant) among the reranked candidates (``None`` unless reranked).
    top_rerank: float | None = None

    def to_dict(self) -> dict[str, Any]:
        return {
            "top_bm25": self.top_bm25,
            "top_cosine": self.top_cosine,
            "margin": self.margin,
            "top_rerank": self.top_rerank,
        }


@dataclass(frozen=True)
class Hit:
    """One retrieved chunk with its ranking score, 1-based rank and per-signal scores."""

    chunk: Chunk
    score: float
    rank: int
    retriever: str
    scores: Mapping[str, float] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        """The hit with its chunk's text, document, section, pages and span."""
        chunk = self.chunk
        return {
            "rank": self.rank,
            "score": self.score,
            "scores": dict(self.scores),
            "retriever": self.retriever,
            "doc_id": chunk.doc_id,
            "title": chunk.title,
            "section": list(chunk.section),
            "page": chunk.page,
            "page_end": chunk.page_end,
            "start": chunk.start,
            "end": chunk.end,
            "chunk_id": chunk.id,
            "chunk_index": chunk.index,
            "source": chunk.source,
            "text": chunk.text,
        }


@dataclass(frozen=True)
class SearchResult:
    """Hits for one query, best first, with the confidence signals of the ranking.

    ``mode`` is the retriever that ranked them; ``notes`` say what a reader should know about
    how (for example that a hybrid search fell back to BM25 on an index without vectors);
    ``config`` the saved :class:`~veracity.config.SearchConfig` that made them (``None`` when a
    retriever was run by hand).
    """

    query: str
    mode: str
    hits: tuple[Hit, ...]
    confidence: Confidence
    notes: tuple[str, ...] = ()
    config: Mapping[str, Any] | None = None

    def to_dict(self) -> dict[str, Any]:
        return {
            "query": self.query,
            "mode": self.mode,
            "confidence": self.confidence.to_dict(),
            "notes": list(self.notes),
            "hits": [hit.to_dict() for hit in self.hits],
        } | ({} if self.config is None else {"config": dict(self.config)})


@dataclass(frozen=True, slots=True)
class RelevanceScore:
    """How relevant one passage is to a query: the reranker's ``logit`` (it ranks) and its
    sigmoid ``relevance`` (P(relevant)).

    A passage longer than the reranker's window is scored by its best window: ``window`` is the
    character span of the passage that window covers (the whole passage when it fit) and
    ``windows`` how many windows were tried, so ``windowed`` says the passage did not fit.
    """

    logit: float
    window: Span
    windows: int = 1

    @property
    def relevance(self) -> float:
        return 0.5 * (1.0 + math.tanh(self.logit / 2.0))  # sigmoid, overflow-free

    @property
    def windowed(self) -> bool:
        return self.windows > 1

    def to_dict(self) -> dict[str, Any]:
        return {
            "logit": self.logit,
            "relevance": self.relevance,
            "window": [self.window.start, self.window.end],
            "windows": self.windows,
        }


@dataclass(frozen=True)
class RelevanceScores:
    """Relevance of a batch of passages to one query, in input order, with provenance and the
    reranker's notes (e.g. that it ranks by one of its features alone)."""

    query: str
    scores: tuple[RelevanceScore, ...]
    model_id: str
    model_version: str
    notes: tuple[str, ...] = ()

    def __len__(self) -> int:
        return len(self.scores)

    def logits(self) -> list[float]:
        return [score.logit for score in self.scores]

    @property
    def windowed(self) -> int:
        """How many passages were longer than the window (each scored by its best window)."""
        return sum(score.windowed for score in self.scores)

    def to_dict(self) -> dict[str, Any]:
        return {
            "query": self.query,
            "model_id": self.model_id,
            "model_version": self.model_version,
            "windowed": self.windowed,
            "notes": list(self.notes),
            "scores": [score.to_dict() for score in self.scores],
        }


# --- from_dict: each reader takes the object its type's to_dict() wrote --------------------------


def _hit(fields: Fields) -> Hit:
    chunk = Chunk(
        id=fields.text("chunk_id"),
        doc_id=fields.text("doc_id"),
        index=fields.integer("chunk_index"),
        text=fields.text("text"),
        start=fields.integer("start"),
        end=fields.integer("end"),
        title=fields.text("title"),
        section=fields.texts("section"),
        page=fields.optional_integer("page"),
        page_end=fields.optional_integer("page_end"),
        source=fields.text("source"),
    )
    return Hit(
        chunk,
        fields.number("score"),
        fields.integer("rank"),
        fields.text("retriever"),
        fields.numbers_by_name("scores"),
    )
