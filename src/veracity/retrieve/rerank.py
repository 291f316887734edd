"""Rerank the first-stage candidates of any retriever with a cross-encoder.

``RerankingRetriever(retriever, reranker, depth=20)`` takes the ``depth`` best chunks of
``retriever`` (by default 20, or ``k`` if more, and never more than the index holds), scores
each against the query with a :class:`~veracity.models.relevance.RelevanceScorer`, and returns the
``k`` best by its logit (ties keep the first stage's order). Each hit keeps its first-stage
signals and adds ``rerank`` (P(relevant)), ``first_stage`` (its first-stage score) and
``first_stage_rank``; the confidence adds ``top_rerank``; a note says how many candidates were
longer than the reranker's window (each scored by its best window, never cut).

>>> from veracity.retrieve.memory import MemoryBM25
>>> from veracity.testing import OverlapRelevanceScorer
>>> from veracity.types import Chunk
>>> chunks = [Chunk("a#0", "a", 0, "Bees dance, bees fly.", 0, 21),
...           Chunk("b#0", "b", 0, "Bees dance to show food.", 0, 24)]
>>> reranked = RerankingRetriever(MemoryBM25(chunks), OverlapRelevanceScorer(), depth=2)
>>> [hit.chunk.id for hit in reranked.run("bees show food", k=2).hits]
['b#0', 'a#0']
"""

from __future__ import annotations

import dataclasses
from typing import Any

from veracity import defaults
from veracity.errors import InputError, OptionError
from veracity.models.relevance.base import RelevanceScorer
from veracity.retrieve.base import Retriever, check_k, check_query
from veracity.types import Hit, SearchResult

__all__ = ["RerankingRetriever"]


def _index_size(retriever: Any) -> int | None:
    """How many chunks ``retriever`` searches, when it can say (BM25, dense, hybrid, memory,
    and a fallback around one of them)."""
    for inner in ("retriever", "bm25"):
        if hasattr(retriever, inner):
            return _index_size(getattr(retriever, inner))
    chunks = getattr(retriever, "chunks", None)
    try:
        return len(chunks) if chunks is not None else None
    except TypeError:
        return None


class RerankingRetriever:
    """``retriever``'s top ``depth`` chunks, reordered by ``reranker``.

    An explicit ``depth`` is kept as given: deeper than the index, or shallower than ``k``, is an
    error. ``depth=None`` reranks :data:`~veracity.defaults.RERANK_DEPTH` candidates, or ``k``
    if more, and at most the index's size.
    """

    def __init__(
        self, retriever: Retriever, reranker: RelevanceScorer, *, depth: int | None = None
    ) -> None:
        if not isinstance(retriever, Retriever):
            raise InputError(
                f"retriever must be a Retriever (see open_retriever), got "
                f"{type(retriever).__name__}"
            )
        if not isinstance(reranker, RelevanceScorer):
            raise InputError(
                f"reranker must be a RelevanceScorer (see make_reranker), got "
                f"{type(reranker).__name__}"
            )
        if depth is not None and (
            isinstance(depth, bool) or not isinstance(depth, int) or depth < 1
        ):
            raise OptionError(
                "depth",
                depth,
                "an integer of 1 or more (the first-stage "
                "candidates to rerank; 20 to 100 is usual)",
            )
        self.retriever = retriever
        self.reranker = reranker
        self.depth = depth
        self.name = f"{retriever.name}+rerank"
        self._size: int | None = None
        self._loaded = False

    def load(self) -> RerankingRetriever:
        """Load the retriever and the reranker once; a depth beyond the index is an error."""
        if not self._loaded:
            self.retriever.load()
            size = self._size = _index_size(self.retriever)
            if size is not None and self.depth is not None and self.depth > size:
                raise OptionError(
                    "depth",
                    self.depth,
                    f"at most {size}, the number of chunks "
                    "in the index (every chunk would be reranked)",
                )
            self.reranker.load()
            self._loaded = True
        return self

    def run(self, query: str, *, k: int = defaults.TOP_K) -> SearchResult:
        query = check_query(query)
        k = check_k(k)
        if self.depth is not None and k > self.depth:
            raise OptionError(
                "k",
                k,
                f"at most the rerank depth ({self.depth}): only that many candidates are reranked",
                "Raise the depth, or ask for fewer.",
            )
        self.load()
        depth = self.depth
        if depth is None:
            depth = max(defaults.RERANK_DEPTH, k)
            depth = depth if self._size is None else max(1, min(depth, self._size))
        first = self.retriever.run(query, k=depth)
        notes = list(first.notes)
        if not first.hits:
            return dataclasses.replace(first, mode=self.name)
        scored = self.reranker.run(query, [hit.chunk.text for hit in first.hits])
        order = sorted(range(len(first.hits)), key=lambda i: (-scored.scores[i].logit, i))
        hits = tuple(
            Hit(
                chunk=first.hits[i].chunk,
                score=scored.scores[i].logit,
                rank=rank,
                retriever=self.name,
                scores={
                    **first.hits[i].scores,
                    "rerank": scored.scores[i].relevance,
                    "first_stage": first.hits[i].score,
                    "first_stage_rank": float(first.hits[i].rank),
                },
            )
            for rank, i in enumerate(order[:k], start=1)
        )
        notes.extend(note for note in scored.notes if note not in notes)
        if scored.windowed:
            notes.append(
                f"{scored.windowed} of {len(first.hits)} candidates were longer than "
                f"the reranker's window; each was scored by its best window"
            )
        confidence = dataclasses.replace(
            first.confidence, top_rerank=max(score.relevance for score in scored.scores)
        )
        return SearchResult(
            query=query, mode=self.name, hits=hits, confidence=confidence, notes=tuple(notes)
        )
