"""Hybrid retrieval: BM25 and dense rankings merged by reciprocal-rank fusion (RRF).

RRF (Cormack, Clarke and Büttcher, 2009) scores a chunk by ``sum(1 / (rrf_k + rank))`` over the
rankings it appears in. Those scores depend only on ranks, never on how strong a match is, so
they are useless as a confidence or an abstention threshold: every query's first hit gets about
the same RRF score whether or not anything relevant was found. Each fused hit therefore carries
both raw signals in ``scores`` (``"bm25"`` and ``"cosine"``, computed for every candidate from the
full score vectors), and the confidence is built from raw values only.

>>> bm25, dense = BM25Retriever(chunks, gen), DenseRetriever(chunks, gen)  # doctest: +SKIP
>>> hit = HybridRetriever(bm25, dense).run("who directed it?", k=3).hits[0]  # doctest: +SKIP
>>> sorted(hit.scores)                                                       # doctest: +SKIP
['bm25', 'cosine']
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from veracity import defaults
from veracity.errors import IndexStoreError, InputError, OptionError
from veracity.retrieve.base import check_k, check_query, hits_at, top_k
from veracity.retrieve.bm25 import BM25Retriever
from veracity.retrieve.dense import DenseRetriever
from veracity.types import Confidence, SearchResult

__all__ = ["HybridRetriever", "reciprocal_rank_fusion"]


def reciprocal_rank_fusion(
    rankings: Sequence[Sequence[int]], *, rrf_k: float = defaults.RRF_K
) -> list[tuple[int, float]]:
    """Items of any ranking with their RRF score, best first.

    Each ranking lists item ids best first (rank 1 is the first). Ties are broken by the best
    rank an item reached in any ranking, then by the lower id.

    >>> reciprocal_rank_fusion([[7, 3], [3, 9]], rrf_k=60)[0]
    (3, 0.03252247488101534)
    """
    if isinstance(rrf_k, bool) or not isinstance(rrf_k, int | float) or rrf_k < 0:
        raise OptionError("rrf_k", rrf_k, "a number of 0 or more (60 is usual)")
    scores: dict[int, float] = {}
    best_rank: dict[int, int] = {}
    for ranking in rankings:
        seen: set[int] = set()
        for rank, item in enumerate(ranking, start=1):
            if item in seen:
                raise InputError(f"item {item} appears twice in one ranking: {list(ranking)}")
            seen.add(item)
            scores[item] = scores.get(item, 0.0) + 1.0 / (rrf_k + rank)
            best_rank[item] = min(best_rank.get(item, rank), rank)
    return sorted(scores.items(), key=lambda pair: (-pair[1], best_rank[pair[0]], pair[0]))


class HybridRetriever:
    """Fuses the top ``candidates`` of BM25 and of dense search with RRF.

    Only chunks with a positive BM25 score enter the BM25 ranking. ``Hit.score`` is the RRF
    score (rank-only: never threshold it); ``Hit.scores`` holds the raw ``bm25`` and ``cosine``.
    Confidence: ``top_bm25`` and ``top_cosine`` are the best raw value of each signal over the
    whole index, and ``margin`` is the cosine of the first fused hit minus the second's.

    >>> hybrid = HybridRetriever(bm25, dense, rrf_k=60, candidates=50)   # doctest: +SKIP
    >>> hybrid.run("solar eclipse", k=5).confidence                      # doctest: +SKIP
    Confidence(top_bm25=7.9, top_cosine=0.71, margin=0.04)
    """

    name = "hybrid"

    def __init__(
        self,
        bm25: BM25Retriever,
        dense: DenseRetriever,
        *,
        rrf_k: float = defaults.RRF_K,
        candidates: int = defaults.FUSION_CANDIDATES,
    ) -> None:
        if not isinstance(bm25, BM25Retriever):
            raise InputError(f"bm25 must be a BM25Retriever, got {type(bm25).__name__}")
        if not isinstance(dense, DenseRetriever):
            raise InputError(f"dense must be a DenseRetriever, got {type(dense).__name__}")
        if isinstance(rrf_k, bool) or not isinstance(rrf_k, int | float) or rrf_k < 0:
            raise OptionError("rrf_k", rrf_k, "a number of 0 or more (60 is usual)")
        if isinstance(candidates, bool) or not isinstance(candidates, int) or candidates < 1:
            raise OptionError("candidates", candidates, "an integer of 1 or more")
        self.bm25 = bm25
        self.dense = dense
        self.rrf_k = rrf_k
        self.candidates = candidates
        self._loaded = False

    def load(self) -> HybridRetriever:
        """Load both retrievers once and check they index the same chunks."""
        if not self._loaded:
            self.bm25.load()
            self.dense.load()
            if len(self.bm25.chunks) != len(self.dense.chunks):
                raise IndexStoreError(
                    f"the BM25 retriever covers {len(self.bm25.chunks)} chunks and the dense "
                    f"retriever {len(self.dense.chunks)}; open both on the same index generation."
                )
            self._loaded = True
        return self

    def run(self, query: str, *, k: int = defaults.TOP_K) -> SearchResult:
        """The ``k`` best chunks by RRF of both rankings (each ranking is at least ``k`` deep)."""
        query = check_query(query)
        k = check_k(k)
        self.load()
        lexical = self.bm25.score_all(query)
        semantic = self.dense.score_all(query)
        depth = max(self.candidates, k)
        fused = reciprocal_rank_fusion(
            [top_k(lexical, depth, above=0.0).tolist(), top_k(semantic, depth).tolist()],
            rrf_k=self.rrf_k,
        )
        ordinals = np.fromiter((item for item, _ in fused[:k]), dtype=np.int64)
        rrf = np.fromiter((score for _, score in fused[:k]), dtype=np.float64)
        hits = hits_at(
            self.bm25.chunks,
            ordinals,
            rrf,
            self.name,
            {"bm25": lexical[ordinals], "cosine": semantic[ordinals]},
        )
        margin = None
        if len(fused) > 1:
            margin = float(semantic[fused[0][0]] - semantic[fused[1][0]])
        confidence = Confidence(
            top_bm25=float(lexical.max()) if lexical.size else 0.0,
            top_cosine=float(semantic.max()) if semantic.size else None,
            margin=margin,
        )
        return SearchResult(query=query, mode=self.name, hits=hits, confidence=confidence)
