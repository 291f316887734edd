"""RerankingRetriever over an in-memory BM25 with a fake reranker."""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence

import pytest

from veracity.errors import InputError, OptionError
from veracity.retrieve.memory import MemoryBM25
from veracity.retrieve.rerank import RerankingRetriever
from veracity.testing import OverlapRelevanceScorer
from veracity.types import Chunk, RelevanceScore, RelevanceScores, Span

pytestmark = pytest.mark.unit

TEXTS = [
    "Honeybees and honeybees and more honeybees live in hives.",
    "Honeybees dance to tell other bees where food is.",
    "Wasps are not honeybees.",
    "The waggle dance points to food.",
]


def _chunks() -> list[Chunk]:
    return [Chunk(f"d{i}#0", f"d{i}", 0, text, 0, len(text)) for i, text in enumerate(TEXTS)]


def test_the_reranker_reorders_the_first_stage_and_keeps_its_signals() -> None:
    bm25 = MemoryBM25(_chunks())
    first = bm25.run("honeybees dance food", k=4)
    assert [hit.chunk.doc_id for hit in first.hits][:2] != ["d1", "d3"]  # reranking changes it
    reranker = OverlapRelevanceScorer()
    result = RerankingRetriever(bm25, reranker, depth=4).run("honeybees dance food", k=2)
    assert result.mode == f"{bm25.name}+rerank"
    assert [hit.chunk.doc_id for hit in result.hits] == ["d1", "d3"]
    assert [hit.rank for hit in result.hits] == [1, 2]
    hit = result.hits[0]
    before = next(h for h in first.hits if h.chunk.doc_id == "d1")
    assert hit.scores["first_stage_rank"] == before.rank
    assert hit.scores["first_stage"] == before.score
    assert hit.scores["rerank"] == pytest.approx(RelevanceScore(1.0, Span(0, 1)).relevance)
    assert result.confidence.top_rerank == hit.scores["rerank"]
    assert result.confidence.top_bm25 == first.confidence.top_bm25
    assert reranker.calls == [4]  # one batch of the whole depth


def test_ties_keep_the_first_stage_order() -> None:
    class Constant:
        model_id = "constant"

        def load(self) -> Constant:
            return self

        def run(self, query: str, passages: Sequence[str]) -> RelevanceScores:
            return RelevanceScores(
                query,
                tuple(RelevanceScore(0.0, Span(0, len(p))) for p in passages),
                "constant",
                "0",
            )

    bm25 = MemoryBM25(_chunks())
    first = [hit.chunk.id for hit in bm25.run("honeybees", k=3).hits]
    reranked = RerankingRetriever(bm25, Constant(), depth=3).run("honeybees", k=3)
    assert [hit.chunk.id for hit in reranked.hits] == first


def test_windowed_candidates_are_named_in_a_note() -> None:
    class Windowed(OverlapRelevanceScorer):
        def run(self, query: str, passages: Sequence[str]) -> RelevanceScores:
            scores = super().run(query, passages)
            return RelevanceScores(
                query, tuple(RelevanceScore(s.logit, s.window, 3) for s in scores.scores), "w", "0"
            )

    result = RerankingRetriever(MemoryBM25(_chunks()), Windowed(), depth=2).run("honeybees", k=1)
    assert result.notes == (
        "2 of 2 candidates were longer than the reranker's window; each "
        "was scored by its best window",
    )


def test_no_first_stage_hit_is_an_empty_result() -> None:
    reranker = OverlapRelevanceScorer()
    result = RerankingRetriever(MemoryBM25(_chunks()), reranker, depth=2).run("zebra", k=1)
    assert result.hits == ()
    assert reranker.calls == []


@pytest.mark.parametrize("depth", [0, -1, True, 2.5])
def test_a_bad_depth_says_what_to_pass(depth: object) -> None:
    with pytest.raises(OptionError, match="depth"):
        RerankingRetriever(MemoryBM25(_chunks()), OverlapRelevanceScorer(), depth=depth)  # type: ignore[arg-type]


def test_a_depth_beyond_the_index_names_its_size() -> None:
    retriever = RerankingRetriever(MemoryBM25(_chunks()), OverlapRelevanceScorer(), depth=5)
    with pytest.raises(OptionError, match="at most 4, the number of chunks in the index"):
        retriever.run("bees", k=1)


def test_k_beyond_the_depth_is_an_error() -> None:
    retriever = RerankingRetriever(MemoryBM25(_chunks()), OverlapRelevanceScorer(), depth=2)
    with pytest.raises(OptionError, match="at most the rerank depth"):
        retriever.run("bees", k=3)


def test_an_empty_query_and_wrong_parts_are_refused() -> None:
    retriever = RerankingRetriever(MemoryBM25(_chunks()), OverlapRelevanceScorer(), depth=2)
    with pytest.raises(InputError, match="empty"):
        retriever.run("  ", k=1)
    with pytest.raises(InputError, match="RelevanceScorer"):
        RerankingRetriever(MemoryBM25(_chunks()), object())  # type: ignore[arg-type]
    with pytest.raises(InputError, match="Retriever"):
        RerankingRetriever(object(), OverlapRelevanceScorer())  # type: ignore[arg-type]


def test_the_default_depth_is_at_least_k_and_at_most_the_index() -> None:
    reranker = OverlapRelevanceScorer()
    retriever = RerankingRetriever(MemoryBM25(_chunks()), reranker)
    assert len(retriever.run("honeybees", k=1).hits) == 1
    assert reranker.calls == [3]  # 4 chunks, 3 of them match: not the default 20


def test_the_reranker_s_notes_reach_the_search_result() -> None:
    class Noting(OverlapRelevanceScorer):
        def run(self, query: str, passages: Sequence[str]) -> RelevanceScores:
            scores = super().run(query, passages)
            return dataclasses.replace(scores, notes=("ranks by its cosine feature alone",))

    chunks = [
        Chunk("a#0", "a", 0, "Bees dance.", 0, 11),
        Chunk("b#0", "b", 0, "Ants march.", 0, 11),
    ]
    result = RerankingRetriever(MemoryBM25(chunks), Noting(), depth=2).run("bees dance", k=1)
    assert result.notes.count("ranks by its cosine feature alone") == 1
