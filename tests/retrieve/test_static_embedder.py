"""The static embedder: a tiny model2vec model made in the test, its vectors, the index it builds,
the refusal of another embedder's index, the name registry, and the real distillation."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from veracity import defaults
from veracity.errors import IndexStoreError, ModelError, OptionError
from veracity.models.embedding import EMBEDDER_NAMES, Embedder, StaticEmbedder, make_embedder
from veracity.retrieve.dense import DENSE_META, DenseBuilder, DenseRetriever


@pytest.fixture
def tiny(static_model, tmp_path) -> Path:
    return static_model(tmp_path / "tiny")


@pytest.mark.unit
def test_vectors_are_model2vec_means_and_long_texts_are_reported(tiny):
    import model2vec

    embedder = StaticEmbedder(tiny, max_tokens=4)
    assert embedder.dimension == 8  # from config.json, before any load
    texts = ["Bees dance", "the bees dance in the hive", "", "unknown words only"]
    result = embedder.run(texts)
    assert result.vectors.shape == (4, 8)
    assert result.vectors.dtype == np.float32
    assert result.truncated == (1,)  # five known words, four read
    assert result.model_id == f"static:{tiny}"
    reference = model2vec.StaticModel.from_pretrained(tiny, force_download=False)
    expected = reference.encode(["Bees dance", "the bees dance the"])  # "in" is unknown
    np.testing.assert_allclose(result.vectors[:2], expected, atol=1e-5)
    np.testing.assert_allclose(np.linalg.norm(result.vectors[:2], axis=1), 1.0, atol=1e-6)
    assert not result.vectors[2:].any()  # nothing known to average: a zero vector
    # a text's vector does not depend on the texts embedded beside it
    np.testing.assert_array_equal(embedder.run(["Bees dance"]).vectors[0], result.vectors[0])
    assert embedder.run([]).vectors.shape == (0, 8)


@pytest.mark.unit
def test_init_reads_nothing_and_a_missing_folder_says_how_to_build_it(tmp_path):
    embedder = StaticEmbedder(tmp_path / "absent")  # no I/O yet
    with pytest.raises(ModelError, match=r"veracity distill-embedder --out .*absent"):
        embedder.load()
    with pytest.raises(ModelError, match=r"pip install -e training"):
        _ = embedder.dimension
    with pytest.raises(OptionError, match="max_tokens"):
        StaticEmbedder(tmp_path, max_tokens=0)


@pytest.mark.unit
def test_names_make_the_embedders_they_name(tiny):
    assert make_embedder(f"static:{tiny}").model_id == f"static:{tiny}"
    default = make_embedder("static")
    assert isinstance(default, StaticEmbedder)
    assert default.model_id == defaults.EMBED_STATIC_MODEL_ID
    assert isinstance(make_embedder(defaults.EMBED_STATIC_MODEL_ID), StaticEmbedder)
    minilm = make_embedder(defaults.EMBED_INTEGER_MODEL_ID)
    assert isinstance(minilm, Embedder)
    assert minilm.model_id == defaults.EMBED_INTEGER_MODEL_ID
    with pytest.raises(OptionError, match=r"embedder='glove'.*static:DIR") as error:
        make_embedder("glove")
    assert all(name in str(error.value) for name in EMBEDDER_NAMES)
    with pytest.raises(OptionError):
        make_embedder("static:")


@pytest.mark.unit
def test_the_index_records_its_embedder_and_refuses_another(
    tiny, static_model, chunks_of, tmp_path
):
    generation = tmp_path / "idx" / "gen-000001"
    chunks = chunks_of(
        ["bees dance in the hive", "the treaty was signed in paris", "the moon and the earth"]
    )
    DenseBuilder(StaticEmbedder(tiny)).build(chunks, generation, None)
    meta = json.loads((generation / DENSE_META).read_text())
    assert meta["model_id"] == f"static:{tiny}"
    assert (meta["dimension"], meta["max_tokens"]) == (8, defaults.EMBED_STATIC_MAX_TOKENS)
    # no embedder given: the one the index names is made again from its model id
    found = DenseRetriever(chunks, generation).load()
    assert isinstance(found.embedder, StaticEmbedder)
    assert found.run("where do bees dance?", k=1).hits[0].chunk.id == "c0"
    # another embedder, chosen: refused, naming both and the command that re-indexes
    other = static_model(tmp_path / "other", seed=1)
    with pytest.raises(IndexStoreError) as error:
        DenseRetriever(chunks, generation, StaticEmbedder(other)).load()
    message = str(error.value)
    assert f"static:{tiny}" in message
    assert f"static:{other}" in message
    assert f"veracity index PATHS --index {tmp_path / 'idx'} --embedder static:{other}" in message
