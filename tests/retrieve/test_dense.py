"""Dense builder and retriever: files, reuse across generations, confidence, the real MiniLM."""

from __future__ import annotations

import json

import numpy as np
import pytest

from veracity.errors import (
    IndexNotFoundError,
    IndexStoreError,
    InputError,
    OptionError,
)
from veracity.retrieve.base import Retriever
from veracity.retrieve.dense import DenseBuilder, DenseRetriever, text_hash

TEXTS = [
    "honeybees beat their wings fast",
    "varroa mites harm honeybee colonies",
    "the treaty was signed in paris",
    "the moon drifts away from the earth",
]


@pytest.mark.unit
def test_build_writes_unit_rows_and_metadata(chunks_of, generation, fake_embedder):
    summary = DenseBuilder(fake_embedder).build(chunks_of(TEXTS), generation, None)
    vectors = np.load(generation / "dense.npy", allow_pickle=False)
    meta = json.loads((generation / "dense.json").read_text())
    assert vectors.dtype == np.float32
    assert vectors.shape == (4, 32)
    np.testing.assert_allclose(np.linalg.norm(vectors, axis=1), 1.0, rtol=1e-6)
    assert meta["model_id"] == "word-hash-32"
    assert meta["dimension"] == 32
    assert meta["count"] == 4
    assert meta["sha256"] == [text_hash(t) for t in TEXTS]
    assert summary == {
        "model_id": "word-hash-32",
        "dimension": 32,
        "count": 4,
        "embedded": 4,
        "reused": 0,
        "truncated": 0,
        "max_tokens": 12,
    }


@pytest.mark.unit
def test_rebuild_embeds_only_new_text(chunks_of, tmp_path, fake_embedder):
    first, second = tmp_path / "gen-000001", tmp_path / "gen-000002"
    builder = DenseBuilder(fake_embedder)
    builder.build(chunks_of(TEXTS), first, None)
    fake_embedder.calls.clear()
    changed = [TEXTS[2], "a brand new chunk about eclipses", TEXTS[0], TEXTS[3]]
    summary = builder.build(chunks_of(changed), second, first)
    assert fake_embedder.calls == [["a brand new chunk about eclipses"]]
    assert (summary["embedded"], summary["reused"]) == (1, 3)
    old = np.load(first / "dense.npy")
    new = np.load(second / "dense.npy")
    np.testing.assert_array_equal(new[[0, 2, 3]], old[[2, 0, 3]])
    np.testing.assert_array_equal(new[1], fake_embedder.run([changed[1]]).vectors[0])


@pytest.mark.unit
def test_identical_texts_are_embedded_once(chunks_of, generation, fake_embedder):
    summary = DenseBuilder(fake_embedder).build(
        chunks_of(["same", "other", "same"]), generation, None
    )
    assert fake_embedder.calls == [["same", "other"]]
    assert summary["embedded"] == 2
    vectors = np.load(generation / "dense.npy")
    np.testing.assert_array_equal(vectors[0], vectors[2])


@pytest.mark.unit
def test_vectors_from_another_model_are_not_reused(chunks_of, tmp_path, fake_embedder):
    first, second = tmp_path / "gen-000001", tmp_path / "gen-000002"
    DenseBuilder(fake_embedder).build(chunks_of(TEXTS), first, None)
    other = type(fake_embedder)(max_tokens=3)  # another window gives other vectors
    summary = DenseBuilder(other).build(chunks_of(TEXTS), second, first)
    assert (summary["embedded"], summary["reused"]) == (4, 0)


@pytest.mark.unit
def test_unreadable_previous_generation_is_only_a_cache_miss(chunks_of, tmp_path, fake_embedder):
    first, second = tmp_path / "gen-000001", tmp_path / "gen-000002"
    DenseBuilder(fake_embedder).build(chunks_of(TEXTS), first, None)
    (first / "dense.npy").write_bytes(b"not an array")
    summary = DenseBuilder(fake_embedder).build(chunks_of(TEXTS), second, first)
    assert summary["reused"] == 0
    assert summary["embedded"] == 4


@pytest.mark.unit
def test_truncated_texts_are_counted_and_carried_over(chunks_of, tmp_path, fake_embedder):
    long_text = " ".join(f"word{i}" for i in range(30))
    first, second = tmp_path / "gen-000001", tmp_path / "gen-000002"
    builder = DenseBuilder(fake_embedder)
    assert builder.build(chunks_of([long_text, "short"]), first, None)["truncated"] == 1
    summary = builder.build(chunks_of(["new", long_text]), second, first)
    assert summary["truncated"] == 1
    assert json.loads((second / "dense.json").read_text())["truncated"] == [1]


@pytest.mark.unit
def test_retriever_ranks_by_cosine_with_confidence(chunks_of, generation, fake_embedder):
    chunks = chunks_of(TEXTS)
    DenseBuilder(fake_embedder).build(chunks, generation, None)
    retriever = DenseRetriever(chunks, generation, fake_embedder)
    result = retriever.run("varroa mites", k=2)
    assert result.hits[0].chunk.id == "c1"
    assert result.mode == "dense"
    assert [hit.rank for hit in result.hits] == [1, 2]
    query_vector = fake_embedder.run(["varroa mites"]).vectors[0]
    full = np.sort(np.load(generation / "dense.npy") @ query_vector)
    assert result.hits[0].scores == {"cosine": pytest.approx(float(full[-1]))}
    assert result.hits[0].score == result.hits[0].scores["cosine"]
    assert result.confidence.top_cosine == pytest.approx(float(full[-1]))
    assert result.confidence.margin == pytest.approx(float(full[-1] - full[-2]))
    assert result.confidence.top_bm25 is None
    single = retriever.run("varroa mites", k=1)
    assert single.confidence == result.confidence  # confidence does not depend on k


@pytest.mark.unit
def test_k_is_clamped_and_empty_corpus_returns_nothing(chunks_of, tmp_path, fake_embedder):
    chunks = chunks_of(TEXTS)
    DenseBuilder(fake_embedder).build(chunks, tmp_path / "a", None)
    assert len(DenseRetriever(chunks, tmp_path / "a", fake_embedder).run("moon", k=99).hits) == 4
    empty = chunks_of([])
    DenseBuilder(fake_embedder).build(empty, tmp_path / "b", None)
    result = DenseRetriever(empty, tmp_path / "b", fake_embedder).run("moon", k=3)
    assert result.hits == ()
    assert result.confidence.top_cosine is None
    assert result.confidence.margin is None


@pytest.mark.unit
def test_model_mismatch_and_missing_files_raise(chunks_of, tmp_path, fake_embedder):
    chunks = chunks_of(TEXTS)
    DenseBuilder(fake_embedder).build(chunks, tmp_path, None)
    other = type(fake_embedder)()
    other.model_id = "another-model"
    with pytest.raises(IndexStoreError, match="another-model"):
        DenseRetriever(chunks, tmp_path, other).load()
    with pytest.raises(IndexStoreError, match="different generations"):
        DenseRetriever(chunks_of(TEXTS[:2]), tmp_path, fake_embedder).load()
    with pytest.raises(IndexNotFoundError, match=r"dense\.json"):
        DenseRetriever(chunks, tmp_path / "missing", fake_embedder).load()


@pytest.mark.unit
def test_bad_input(chunks_of, generation, fake_embedder):
    chunks = chunks_of(TEXTS)
    DenseBuilder(fake_embedder).build(chunks, generation, None)
    retriever = DenseRetriever(chunks, generation, fake_embedder)
    assert isinstance(retriever, Retriever)
    with pytest.raises(InputError, match="empty"):
        retriever.run("  ")
    with pytest.raises(OptionError, match="k="):
        retriever.run("moon", k=0)
    with pytest.raises(InputError, match="embedder"):
        DenseBuilder(object())  # type: ignore[arg-type]
    with pytest.raises(InputError, match="ChunkLookup"):
        DenseRetriever([], generation)  # type: ignore[arg-type]


@pytest.mark.unit
def test_init_is_cheap_and_load_once(chunks_of, generation, fake_embedder):
    chunks = chunks_of(TEXTS)
    retriever = DenseRetriever(chunks, generation, fake_embedder)  # nothing built yet: no error
    assert fake_embedder.loads == 0
    DenseBuilder(fake_embedder).build(chunks, generation, None)
    fake_embedder.loads = 0
    retriever.load()
    retriever.load()
    retriever.run("moon")
    assert fake_embedder.loads == 1


@pytest.mark.integration
def test_real_embedder_finds_a_paraphrase(chunks_of, generation, minilm):
    texts = [
        "The committee postponed the vote until next spring because of the budget dispute.",
        "Honeybees communicate the location of flowers with a waggle dance.",
        "The recipe calls for two cups of flour and a pinch of salt.",
        "Heavy rain flooded the village and the bridge was closed for a week.",
        "The striker scored twice in the final minutes to win the cup.",
    ]
    chunks = chunks_of(texts)
    summary = DenseBuilder(minilm).build(chunks, generation, None)
    assert summary["dimension"] == 384
    assert summary["truncated"] == 0
    retriever = DenseRetriever(chunks, generation, minilm)
    queries = {
        "How do bees tell each other where the flowers are?": "c1",
        "Why was the decision delayed?": "c0",
        "Which footballer won the match for his team?": "c4",
        "The river overflowed and the town was under water.": "c3",
    }
    for query, expected in queries.items():
        result = retriever.run(query, k=2)
        assert result.hits[0].chunk.id == expected, query
        assert result.confidence.margin is not None
        assert result.confidence.margin > 0.05
        assert 0.2 < result.hits[0].scores["cosine"] <= 1.0


@pytest.mark.integration
def test_real_embedder_reports_truncation(chunks_of, generation, minilm):
    long_text = "word " * 600
    summary = DenseBuilder(minilm).build(chunks_of([long_text, "short text"]), generation, None)
    assert summary["truncated"] == 1


@pytest.mark.integration
def test_real_token_vectors_are_unit_pieces_with_offsets(minilm):
    text = "Marie Curie won two Nobel Prizes."
    (pieces,) = minilm.token_vectors([text])
    assert "".join(text[a:b] for a, b in pieces.offsets) == "MarieCuriewontwoNobelPrizes."
    assert pieces.vectors.shape == (len(pieces.offsets), minilm.dimension)
    assert np.allclose(np.linalg.norm(pieces.vectors, axis=1), 1.0, atol=1e-5)
    assert minilm.token_vectors([]) == []
    with pytest.raises(InputError, match="split it"):
        minilm.token_vectors(["word " * 600])
