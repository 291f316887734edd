"""open_retriever end to end: files -> Indexer with our builders -> live generation -> search."""

from __future__ import annotations

from pathlib import Path

import pytest

from veracity import defaults
from veracity.corpus.indexer import Indexer
from veracity.errors import IndexNotFoundError, IndexStoreError, OptionError
from veracity.retrieve import (
    BM25Builder,
    BM25Retriever,
    DenseBuilder,
    DenseRetriever,
    FallbackRetriever,
    HybridRetriever,
    Retriever,
    open_retriever,
)

pytestmark = pytest.mark.unit

DOCS = {
    "bees.txt": "Honeybees beat their wings about two hundred times per second.",
    "mites.txt": "Varroa mites are the most damaging parasite of honeybee colonies.",
    "treaty.txt": "The treaty was signed in Paris in 1783, ending the war.",
}


def _index(tmp_path: Path, builders) -> Path:
    docs = tmp_path / "docs"
    docs.mkdir(exist_ok=True)
    for name, text in DOCS.items():
        (docs / name).write_text(text, encoding="utf-8")
    index = tmp_path / "index"
    Indexer(builders=builders).run([docs], index)
    return index


def test_every_mode_searches_the_live_generation(tmp_path, fake_embedder):
    index = _index(tmp_path, [BM25Builder(), DenseBuilder(fake_embedder)])
    kinds = {"bm25": BM25Retriever, "dense": DenseRetriever, "hybrid": HybridRetriever}
    for mode in defaults.SEARCH_MODES:
        retriever = open_retriever(index, mode=mode, embedder=fake_embedder)
        assert isinstance(retriever, kinds[mode])
        assert isinstance(retriever, Retriever)
        result = retriever.run("varroa mites", k=2)
        assert result.mode == mode
        assert result.hits[0].chunk.doc_id == "mites.txt"
        assert result.hits[0].chunk.text == DOCS["mites.txt"]


def test_hybrid_hits_carry_both_signals(tmp_path, fake_embedder):
    index = _index(tmp_path, [BM25Builder(), DenseBuilder(fake_embedder)])
    result = open_retriever(index, embedder=fake_embedder).run("treaty signed in Paris", k=3)
    assert set(result.hits[0].scores) == {"bm25", "cosine"}
    assert result.confidence.top_bm25 == pytest.approx(result.hits[0].scores["bm25"])


def test_reindexing_reuses_vectors_of_unchanged_text(tmp_path, fake_embedder):
    builder = DenseBuilder(fake_embedder)
    index = _index(tmp_path, [BM25Builder(), builder])
    (tmp_path / "docs" / "eclipse.txt").write_text("The solar eclipse crossed Mexico.")
    fake_embedder.calls.clear()
    Indexer(builders=[BM25Builder(), builder]).run([tmp_path / "docs"], index)
    assert fake_embedder.calls == [["The solar eclipse crossed Mexico."]]
    hit = open_retriever(index, mode="bm25").run("eclipse").hits[0]
    assert hit.chunk.doc_id == "eclipse.txt"


def test_dense_search_on_an_index_without_vectors_says_to_reindex(tmp_path):
    index = _index(tmp_path, [BM25Builder()])
    assert open_retriever(index, mode="bm25").run("treaty").notes == ()
    with pytest.raises(IndexStoreError, match=r"without --no-dense.*mode='bm25'"):
        open_retriever(index, mode="dense")


def test_hybrid_search_on_an_index_without_vectors_falls_back_to_bm25_and_says_so(tmp_path):
    index = _index(tmp_path, [BM25Builder()])
    for retriever in (open_retriever(index), open_retriever(index, mode="hybrid")):
        assert isinstance(retriever, FallbackRetriever)
        assert isinstance(retriever, Retriever)
        result = retriever.load().run("treaty signed in Paris", k=2)
        assert result.mode == "bm25"
        assert result.hits[0].chunk.doc_id == "treaty.txt"
        (note,) = result.notes
        assert "no dense vectors" in note
        assert "used BM25 alone" in note
        assert "re-index without --no-dense" in note
        assert retriever.note == note


def test_unknown_mode_lists_the_modes(tmp_path):
    with pytest.raises(OptionError, match="bm25, dense, hybrid"):
        open_retriever(tmp_path, mode="sparse")


def test_missing_index_raises_not_found(tmp_path):
    with pytest.raises(IndexNotFoundError):
        open_retriever(tmp_path / "nothing", mode="bm25")
