"""The integer-kernel embedder export (``veracity export-embedder``): it runs on integer
kernels, matches the default embedder, and an index built with it is searched with it."""

from __future__ import annotations

from pathlib import Path

import pytest

from veracity.corpus.base import InMemoryChunks
from veracity.errors import IndexStoreError, ModelError
from veracity.retrieve.dense import DenseBuilder, DenseRetriever
from veracity.types import Chunk


@pytest.fixture(scope="module")
def exported(tmp_path_factory) -> Path:
    """The integer-kernel embedder, exported once."""
    pytest.importorskip("torch")
    from veracity_training.embedder import export_embedder

    out = tmp_path_factory.mktemp("embedder") / "embedder"
    report = export_embedder(out, command="veracity export-embedder --out DIR")
    assert report.min_cosine > 0.98
    return out / "model.onnx"


@pytest.mark.integration
def test_the_exported_embedder_runs_on_integer_kernels_and_matches_the_default(exported):
    onnx = pytest.importorskip("onnx")
    from veracity import defaults
    from veracity.models.embedding import Embedder

    assert "MatMulInteger" in {node.op_type for node in onnx.load(str(exported)).graph.node}
    texts = ["Honeybees communicate with a waggle dance.", "The vote was postponed."]
    new = Embedder(model_path=exported, model_id=defaults.EMBED_INTEGER_MODEL_ID).load()
    assert {i.name for i in new._session.get_inputs()} == {"input_ids", "attention_mask"}
    old = Embedder().load()
    assert old.model_id == defaults.EMBED_MODEL_ID
    cosines = (new.run(texts).vectors * old.run(texts).vectors).sum(axis=1)
    assert cosines.min() > 0.98
    card = (exported.parent / "CARD.md").read_text()
    assert "veracity export-embedder --out DIR" in card


@pytest.mark.integration
def test_an_index_is_searched_with_the_embedder_it_was_built_with(
    exported: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from veracity import defaults
    from veracity.models import embedding as embed
    from veracity.models.embedding import Embedder

    texts = [
        "Honeybees communicate the location of flowers with a waggle dance.",
        "The recipe calls for two cups of flour and a pinch of salt.",
    ]
    chunks = InMemoryChunks(
        [
            Chunk(id=f"c{i}", doc_id=f"d{i}", index=0, text=t, start=0, end=len(t))
            for i, t in enumerate(texts)
        ]
    )
    generation = tmp_path / "gen-000001"
    generation.mkdir()
    integer = Embedder(model_path=exported, model_id=defaults.EMBED_INTEGER_MODEL_ID)
    DenseBuilder(integer).build(chunks, generation, None)
    retriever = DenseRetriever(chunks, generation, integer).load()
    assert retriever.run("How do bees show where flowers are?", k=1).hits[0].chunk.id == "c0"
    with pytest.raises(IndexStoreError, match="re-index with this one"):
        DenseRetriever(chunks, generation, Embedder()).load()  # another embedder, chosen
    # no embedder given: the index names the integer one, which this install has not exported
    monkeypatch.setattr(embed, "EMBEDDER_DIR", tmp_path / "not-exported")
    with pytest.raises(ModelError, match="veracity export-embedder"):
        DenseRetriever(chunks, generation).load()
    # ... and once it is exported, that one is used
    monkeypatch.setattr(embed, "EMBEDDER_DIR", exported.parent)
    found = DenseRetriever(chunks, generation).load()
    assert found.embedder.model_id == defaults.EMBED_INTEGER_MODEL_ID
    assert found.run("How do bees show where flowers are?", k=1).hits[0].chunk.id == "c0"
