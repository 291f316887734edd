"""Reciprocal-rank fusion math on fixed rankings, and the hybrid retriever's hits and confidence."""

from __future__ import annotations

from pathlib import Path

import pytest

from veracity.errors import IndexStoreError, InputError, OptionError
from veracity.retrieve.bm25 import BM25Builder, BM25Retriever
from veracity.retrieve.dense import DenseBuilder, DenseRetriever
from veracity.retrieve.hybrid import HybridRetriever, reciprocal_rank_fusion

TEXTS = [
    "honeybees beat their wings two hundred times a second",
    "varroa mites harm honeybee colonies in winter",
    "the treaty was signed in paris in 1783",
    "the moon drifts away from the earth every year",
    "mites and ticks are arachnids not insects",
    "colonies of bees swarm in spring",
]


@pytest.mark.unit
def test_rrf_scores_by_hand():
    fused = reciprocal_rank_fusion([[1, 2, 3], [3, 1, 4]], rrf_k=60)
    assert [item for item, _ in fused] == [1, 3, 2, 4]
    expected = {1: 1 / 61 + 1 / 62, 3: 1 / 63 + 1 / 61, 2: 1 / 62, 4: 1 / 63}
    for item, score in fused:
        assert score == pytest.approx(expected[item], abs=1e-15)


@pytest.mark.unit
def test_rrf_ties_go_to_the_best_rank_then_the_lower_id():
    # with rrf_k=0: 9 and 7 are first once (1/1), 3 is second twice (1/2 + 1/2): all tie at 1.0
    fused = reciprocal_rank_fusion([[9, 3], [7, 3]], rrf_k=0)
    assert fused == [(7, 1.0), (9, 1.0), (3, 1.0)]


@pytest.mark.unit
def test_rrf_edge_cases():
    assert reciprocal_rank_fusion([]) == []
    [(doc, score)] = reciprocal_rank_fusion([[], [4]])
    assert doc == 4
    assert score == pytest.approx(1 / 61)
    with pytest.raises(InputError, match="twice"):
        reciprocal_rank_fusion([[1, 1]])
    with pytest.raises(OptionError, match="rrf_k="):
        reciprocal_rank_fusion([[1]], rrf_k=-1)


def _open(chunks, generation: Path, embedder, **options) -> HybridRetriever:
    BM25Builder().build(chunks, generation, None)
    DenseBuilder(embedder).build(chunks, generation, None)
    return HybridRetriever(
        BM25Retriever(chunks, generation), DenseRetriever(chunks, generation, embedder), **options
    )


@pytest.mark.unit
def test_fused_hits_carry_rrf_and_both_raw_signals(chunks_of, generation, fake_embedder):
    chunks = chunks_of(TEXTS)
    hybrid = _open(chunks, generation, fake_embedder)
    query = "mites in honeybee colonies"
    everything = len(TEXTS)
    lexical = {hit.chunk.id: hit for hit in hybrid.bm25.run(query, k=everything).hits}
    semantic = {hit.chunk.id: hit for hit in hybrid.dense.run(query, k=everything).hits}
    result = hybrid.run(query, k=everything)
    assert result.mode == "hybrid"
    assert len(result.hits) == everything  # dense ranks every chunk
    for hit in result.hits:
        rrf = 1 / (60 + semantic[hit.chunk.id].rank)
        if hit.chunk.id in lexical:
            rrf += 1 / (60 + lexical[hit.chunk.id].rank)
            assert hit.scores["bm25"] == pytest.approx(lexical[hit.chunk.id].scores["bm25"])
        else:
            assert hit.scores["bm25"] == 0.0
        assert hit.score == pytest.approx(rrf)
        assert hit.scores["cosine"] == pytest.approx(semantic[hit.chunk.id].scores["cosine"])
    assert [hit.score for hit in result.hits] == sorted(
        (hit.score for hit in result.hits), reverse=True
    )
    assert [hit.rank for hit in result.hits] == list(range(1, everything + 1))


@pytest.mark.unit
def test_confidence_uses_raw_signals_never_rrf(chunks_of, generation, fake_embedder):
    chunks = chunks_of(TEXTS)
    hybrid = _open(chunks, generation, fake_embedder)
    query = "mites in honeybee colonies"
    result = hybrid.run(query, k=1)
    everything = hybrid.run(query, k=len(TEXTS))
    confidence = result.confidence
    assert confidence.top_bm25 == pytest.approx(hybrid.bm25.run(query).confidence.top_bm25)
    assert confidence.top_cosine == pytest.approx(hybrid.dense.run(query).confidence.top_cosine)
    first, second = everything.hits[0], everything.hits[1]
    assert confidence.margin == pytest.approx(first.scores["cosine"] - second.scores["cosine"])
    assert everything.confidence == confidence  # independent of k


@pytest.mark.unit
def test_query_without_known_terms_still_gets_dense_hits(chunks_of, generation, fake_embedder):
    hybrid = _open(chunks_of(TEXTS), generation, fake_embedder)
    result = hybrid.run("zzz qqq", k=3)
    assert len(result.hits) == 3
    assert result.confidence.top_bm25 == 0.0
    assert all(hit.scores["bm25"] == 0.0 for hit in result.hits)


@pytest.mark.unit
def test_rankings_are_at_least_k_deep(chunks_of, generation, fake_embedder):
    hybrid = _open(chunks_of(TEXTS), generation, fake_embedder, candidates=1)
    assert len(hybrid.run("honeybee colonies", k=4).hits) == 4
    assert len(hybrid.run("honeybee colonies", k=99).hits) == len(TEXTS)


@pytest.mark.unit
def test_rrf_k_changes_scores_not_the_contract(chunks_of, generation, fake_embedder):
    hybrid = _open(chunks_of(TEXTS), generation, fake_embedder, rrf_k=0)
    top = hybrid.run("varroa mites harm honeybee colonies in winter", k=1).hits[0]
    assert top.chunk.id == "c1"
    assert top.score == pytest.approx(2.0)  # first in both rankings: 1/1 + 1/1


@pytest.mark.unit
def test_bad_options_and_mismatched_retrievers(chunks_of, tmp_path, fake_embedder):
    chunks = chunks_of(TEXTS)
    bm25 = BM25Retriever(chunks, tmp_path)
    dense = DenseRetriever(chunks, tmp_path, fake_embedder)
    with pytest.raises(OptionError, match="rrf_k="):
        HybridRetriever(bm25, dense, rrf_k=-5)
    with pytest.raises(OptionError, match="candidates="):
        HybridRetriever(bm25, dense, candidates=0)
    with pytest.raises(InputError, match="BM25Retriever"):
        HybridRetriever(dense, dense)  # type: ignore[arg-type]
    with pytest.raises(InputError, match="DenseRetriever"):
        HybridRetriever(bm25, bm25)  # type: ignore[arg-type]
    small = chunks_of(TEXTS[:2])
    (tmp_path / "a").mkdir()
    BM25Builder().build(chunks, tmp_path / "a", None)
    DenseBuilder(fake_embedder).build(small, tmp_path / "a", None)
    mixed = HybridRetriever(
        BM25Retriever(chunks, tmp_path / "a"), DenseRetriever(small, tmp_path / "a", fake_embedder)
    )
    with pytest.raises(IndexStoreError, match="same index generation"):
        mixed.run("bees")
    with pytest.raises(InputError, match="empty"):
        HybridRetriever(bm25, dense).run(" ")


@pytest.mark.integration
def test_real_hybrid_finds_lexical_and_paraphrase_matches(chunks_of, generation, minilm):
    texts = [
        "The committee postponed the vote until next spring because of the budget dispute.",
        "Honeybees communicate the location of flowers with a waggle dance.",
        "The recipe calls for two cups of flour and a pinch of salt.",
        "Heavy rain flooded the village and the bridge was closed for a week.",
        "Error code E1234 means the pump motor overheated.",
    ]
    hybrid = _open(chunks_of(texts), generation, minilm)
    assert hybrid.run("What does E1234 mean?", k=1).hits[0].chunk.id == "c4"
    paraphrase = hybrid.run("How do bees tell each other where food is?", k=2)
    assert paraphrase.hits[0].chunk.id == "c1"
    assert paraphrase.confidence.top_cosine == pytest.approx(paraphrase.hits[0].scores["cosine"])
