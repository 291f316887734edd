"""The Haystack adapter with the real haystack-ai, offline: components in a pipeline."""

from __future__ import annotations

import pytest
from haystack import Document, Pipeline

from veracity.adapters.haystack import Repairer, Verifier
from veracity.testing import TablePairScorer

from .conftest import RIGHT, SOURCE, WRONG

pytestmark = pytest.mark.unit


def test_the_verifier_runs_in_a_pipeline_with_typed_sockets(scorer: TablePairScorer) -> None:
    pipeline = Pipeline()
    pipeline.add_component("verifier", Verifier(verifier=scorer))
    out = pipeline.run(
        {"verifier": {"answer": WRONG, "documents": [Document(content=SOURCE, id="frisch")]}}
    )
    assert out["verifier"]["grounded"] is False
    assert out["verifier"]["report"]["claims"][0]["label"] == "contradicted"
    assert "contradicted by frisch [0:44]" in out["verifier"]["explanation"]


def test_the_repairer_returns_the_repaired_answer(scorer: TablePairScorer) -> None:
    out = Repairer(verifier=scorer).run(answer=WRONG, documents=[Document(content=SOURCE)])
    assert out["answer"] == RIGHT
    assert out["repair"]["original"] == WRONG
