"""HFReranker on a tiny one-logit BERT cross-encoder that the test builds (no hub access)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from veracity.errors import ModelError, OptionError
from veracity.models.pairs.hf import HFOptions
from veracity.models.relevance import RelevanceScorer, make_reranker
from veracity.models.relevance.hf import HFReranker
from veracity.testing import save_tiny_classifier

LONG = " ".join(f"Sentence {i} talks about subject number {i} in some detail." for i in range(30))
QUERY = "what does subject number 7 talk about"


@pytest.fixture(scope="module")
def models(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    pytest.importorskip("transformers")
    root = tmp_path_factory.mktemp("tiny-rerankers")
    return {
        "one": save_tiny_classifier(root / "one", {0: "LABEL_0"}),
        "nli": save_tiny_classifier(
            root / "nli", {0: "entailment", 1: "neutral", 2: "contradiction"}
        ),
    }


def _logits(folder: Path, pairs: list[tuple[str, str]]) -> np.ndarray:
    """The tiny model's own logits, one pair at a time, through transformers itself."""
    import torch
    from transformers import AutoModelForSequenceClassification, AutoTokenizer

    tokenizer = AutoTokenizer.from_pretrained(folder)
    model = AutoModelForSequenceClassification.from_pretrained(folder).eval()
    out = []
    with torch.no_grad():
        for query, passage in pairs:
            out.append(model(**tokenizer(query, passage, return_tensors="pt")).logits[0, 0])
    return np.array([float(x) for x in out])


@pytest.mark.unit
def test_a_reranker_slides_and_refuses_another_windowing() -> None:
    assert HFReranker("x").hf.strategy == "slide"
    assert HFReranker("x", options=HFOptions(strategy="slide")).hf.strategy == "slide"
    with pytest.raises(OptionError, match=r"^strategy='select'.*one of slide"):
        HFReranker("x", options=HFOptions(strategy="select"))


@pytest.mark.unit
@pytest.mark.parametrize(
    ("options", "needle"),
    [
        ({"model": " "}, "model"),
        ({"device": "tpu"}, "device"),
        ({"batch_size": 0}, "batch_size"),
        ({"max_tokens": 8}, "max_tokens"),
    ],
)
def test_bad_options_are_named(options: dict[str, object], needle: str) -> None:
    model = str(options.pop("model", "x"))
    with pytest.raises(OptionError, match=needle):
        HFReranker(model, options=HFOptions(**options))  # type: ignore[arg-type]


@pytest.mark.integration
def test_scores_are_the_models_own_logits_in_input_order(models: dict[str, Path]) -> None:
    reranker = HFReranker(models["one"], options=HFOptions(batch_size=2)).load()
    assert isinstance(reranker, RelevanceScorer)
    passages = [
        "Bees dance to show where food is.",
        "Ants march.",
        "The sky is blue today.",
        "A short one.",
    ]
    scores = reranker.run("why do bees dance", passages)
    expected = _logits(models["one"], [("why do bees dance", p) for p in passages])
    assert scores.logits() == pytest.approx(expected.tolist(), abs=1e-4)
    assert scores.model_version == "local"
    assert scores.windowed == 0
    again = HFReranker(models["one"], options=HFOptions(batch_size=1)).run(
        "why do bees dance", passages
    )
    assert again.logits() == pytest.approx(scores.logits(), abs=1e-5)  # batch-independent


@pytest.mark.integration
def test_a_passage_longer_than_the_window_scores_as_its_best_window(
    models: dict[str, Path],
) -> None:
    reranker = HFReranker(models["one"]).load()  # the tiny model takes 128 positions
    scores = reranker.run(QUERY, [LONG])
    assert scores.windowed == 1
    assert scores.scores[0].windows > 2
    window = scores.scores[0].window.of(LONG)
    assert len(window) < len(LONG)
    windows = reranker.hf.get().selector.run(LONG, QUERY)
    expected = _logits(models["one"], [(QUERY, w.text) for w in windows])
    assert scores.scores[0].logit == pytest.approx(float(expected.max()), abs=1e-4)


@pytest.mark.integration
def test_a_three_way_checker_is_refused_with_what_to_do(models: dict[str, Path]) -> None:
    with pytest.raises(ModelError, match=r"has 3 outputs.*--verifier hf:<model>"):
        HFReranker(models["nli"]).load()


@pytest.mark.integration
def test_a_missing_model_says_how_to_fix(tmp_path: Path) -> None:
    pytest.importorskip("transformers")
    with pytest.raises(ModelError, match="no such folder"):
        make_reranker(f"hf:{tmp_path / 'nothing'}").load()
    with pytest.raises(ModelError, match="local folder"):
        make_reranker("hf:someone/not-in-the-cache").load()
