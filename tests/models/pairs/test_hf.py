"""HFVerifier on tiny BERT checkers that the tests build and save themselves (no hub access)."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from veracity.errors import MissingDependencyError, ModelError, OptionError
from veracity.models.pairs.hf import PRESETS, HFOptions, HFVerifier
from veracity.models.pairs.windows import EvidenceSelector
from veracity.testing import save_tiny_classifier

NLI = {0: "entailment", 1: "neutral", 2: "contradiction"}
PREMISE = "The Eiffel Tower is in Paris. It was finished in 1889 and is 330 metres tall."
CLAIM = "The Eiffel Tower is in Paris."
LONG = " ".join(f"Sentence {i} talks about subject number {i} in some detail." for i in range(20))


def _save(folder: Path, id2label: dict[int, str]) -> Path:
    return save_tiny_classifier(folder, id2label)


@pytest.fixture(scope="module")
def models(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    pytest.importorskip("transformers")
    root = tmp_path_factory.mktemp("tiny-checkers")
    return {
        "nli": _save(root / "nli", NLI),
        "binary": _save(root / "binary", {0: "LABEL_0", 1: "LABEL_1"}),
        "score": _save(root / "score", {0: "LABEL_0"}),
        "unnamed": _save(root / "unnamed", {0: "LABEL_0", 1: "LABEL_1", 2: "LABEL_2"}),
    }


def _logits(folder: Path, pairs: list[tuple[str, str]]) -> np.ndarray:
    """Logits of a direct transformers forward pass, one pair at a time (no padding)."""
    import torch
    from transformers import AutoModelForSequenceClassification, AutoTokenizer

    tokenizer = AutoTokenizer.from_pretrained(folder)
    model = AutoModelForSequenceClassification.from_pretrained(folder).eval()
    rows = []
    with torch.no_grad():
        for premise, claim in pairs:
            rows.append(model(**tokenizer(premise, claim, return_tensors="pt")).logits[0].numpy())
    return np.array(rows, dtype=np.float64)


def _softmax(logits: np.ndarray) -> np.ndarray:
    shifted = np.exp(logits - logits.max(axis=1, keepdims=True))
    result: np.ndarray = shifted / shifted.sum(axis=1, keepdims=True)
    return result


def _triples(scores: Any) -> np.ndarray:
    return np.array([[s.supported, s.contradicted, s.neither] for s in scores.scores])


# --- options, no model needed -----------------------------------------------------------------


@pytest.mark.unit
def test_unknown_preset_lists_the_presets() -> None:
    with pytest.raises(OptionError) as error:
        HFVerifier("some/model", labels="mnli")
    message = str(error.value)
    assert "'mnli'" in message
    for name in PRESETS:
        assert name in message


@pytest.mark.unit
@pytest.mark.parametrize(
    ("options", "needle"),
    [
        ({"labels": {"entailment": "yes"}}, "'yes'"),
        ({"labels": {"contradiction": "contradicted"}}, "supported"),
        ({"labels": {0: "neither", "one": "supported"}}, "all names or all class indices"),
        ({"labels": {}}, "non-empty"),
        ({"labels": "nli", "device": "gpu"}, "cuda"),
        ({"labels": "nli", "batch_size": 0}, "batch_size=0"),
        ({"labels": "nli", "max_tokens": 8}, "max_tokens=8"),
        ({"labels": "nli", "strategy": "all"}, "select, slide"),
    ],
)
def test_bad_options_are_named(options: dict[str, Any], needle: str) -> None:
    labels = options.pop("labels")
    with pytest.raises(OptionError, match=needle):
        HFVerifier("some/model", labels=labels, options=HFOptions(**options))


@pytest.mark.unit
def test_init_does_no_io() -> None:
    verifier = HFVerifier("/no/such/folder", labels="nli", options=HFOptions(device="cuda:1"))
    assert verifier.model_id == "/no/such/folder"


@pytest.mark.unit
def test_missing_extra_names_it(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "torch", None)
    monkeypatch.setitem(sys.modules, "transformers", None)
    with pytest.raises(MissingDependencyError, match=r"veracity\[hf\]") as error:
        HFVerifier("some/model", labels="nli").load()
    assert error.value.extra == "hf"


# --- the tiny models --------------------------------------------------------------------------


@pytest.mark.integration
def test_scores_are_the_softmax_of_the_models_own_logits(models: dict[str, Path]) -> None:
    verifier = HFVerifier(models["nli"], labels="nli").load()
    other = "The Eiffel Tower is in Rome."
    result = verifier.run([PREMISE, PREMISE], [CLAIM, other])
    probabilities = _softmax(_logits(models["nli"], [(PREMISE, CLAIM), (PREMISE, other)]))
    # id2label: 0 entailment -> supported, 1 neutral -> neither, 2 contradiction -> contradicted.
    expected = probabilities[:, [0, 2, 1]]
    np.testing.assert_allclose(_triples(result), expected, atol=1e-5)
    assert not np.allclose(expected[0], expected[1])  # the two pairs really differ
    assert result.model_id == str(models["nli"])
    assert result.model_version == "local"
    assert result.scores[0].window.of(PREMISE) == PREMISE
    assert result.scores[0].windows == 1
    marked = verifier.run([PREMISE], [CLAIM + "</s>"])  # a leaked control token is not read
    np.testing.assert_allclose(_triples(marked), expected[:1], atol=1e-5)


@pytest.mark.integration
def test_revision_is_recorded_and_load_is_idempotent(models: dict[str, Path]) -> None:
    verifier = HFVerifier(models["nli"], labels="nli", options=HFOptions(revision="main"))
    assert verifier.load() is verifier
    model = verifier.hf.get().model
    assert verifier.load().hf.get().model is model
    assert verifier.run([PREMISE], [CLAIM]).model_version == "main"


@pytest.mark.integration
def test_an_explicit_mapping_matches_names_case_insensitively(models: dict[str, Path]) -> None:
    mapping = {"ENTAILMENT": "supported", "Neutral": "neither", "contradiction": "contradicted"}
    by_preset = HFVerifier(models["nli"], labels="nli").run([PREMISE], [CLAIM])
    by_mapping = HFVerifier(models["nli"], labels=mapping).run([PREMISE], [CLAIM])
    np.testing.assert_allclose(_triples(by_mapping), _triples(by_preset))


@pytest.mark.integration
def test_long_premise_slides_windows_and_keeps_the_best(models: dict[str, Path]) -> None:
    from transformers import AutoTokenizer

    claim = "Sentence 7 talks about subject number 7."
    verifier = HFVerifier(
        models["nli"], labels="nli", options=HFOptions(max_tokens=48, strategy="slide")
    )
    (score,) = verifier.run([LONG], [claim]).scores
    tokenizer = AutoTokenizer.from_pretrained(models["nli"])
    selector = EvidenceSelector(
        max_tokens=48, strategy="slide", tokenizer=tokenizer.backend_tokenizer
    )
    windows = selector.run(LONG, claim)
    assert len(windows) > 2
    for window in windows:
        assert len(tokenizer(window.text, claim)["input_ids"]) <= 48
    supports = _softmax(_logits(models["nli"], [(w.text, claim) for w in windows]))[:, 0]
    best = int(np.argmax(supports))
    assert score.windows == len(windows)
    assert score.window_index == best
    assert score.supported == pytest.approx(supports[best], abs=1e-5)
    assert score.window == windows[best].span
    assert score.evidence == windows[best].spans


@pytest.mark.integration
def test_default_window_is_the_models_own_length(models: dict[str, Path]) -> None:
    premise = LONG * 2  # about 500 tokens; the tiny model takes 128 positions
    (score,) = (
        HFVerifier(models["nli"], labels="nli", options=HFOptions(strategy="slide"))
        .run([premise], ["Sentence 3 talks about subject number 3."])
        .scores
    )
    assert score.windows > 1
    with pytest.raises(OptionError, match="at most 128"):
        HFVerifier(models["nli"], labels="nli", options=HFOptions(max_tokens=256)).load()


@pytest.mark.integration
def test_batches_give_the_one_by_one_results(models: dict[str, Path]) -> None:
    premises = [PREMISE, "Short.", LONG, "Water boils at 100 degrees at sea level.", PREMISE]
    claims = [CLAIM, "Short.", "Sentence 2 talks about subject number 2.", "Water boils.", "No."]
    single = HFVerifier(models["nli"], labels="nli", options=HFOptions(batch_size=1))
    batched = HFVerifier(models["nli"], labels="nli", options=HFOptions(batch_size=4)).load()
    calls: list[int] = []
    batched.hf.get().model.register_forward_hook(
        lambda _module, _args, kwargs, _out: calls.append(len(kwargs["input_ids"])),
        with_kwargs=True,
    )
    np.testing.assert_allclose(
        _triples(batched.run(premises, claims)), _triples(single.run(premises, claims)), atol=1e-5
    )
    assert calls == [4, 1]  # five windows, sorted by length into two forward passes


@pytest.mark.integration
def test_binary_preset_reads_class_one_as_supported(models: dict[str, Path]) -> None:
    result = HFVerifier(models["binary"], labels="binary").run([PREMISE], [CLAIM])
    probabilities = _softmax(_logits(models["binary"], [(PREMISE, CLAIM)]))
    np.testing.assert_allclose(
        _triples(result), [[probabilities[0, 1], 0.0, probabilities[0, 0]]], atol=1e-5
    )


@pytest.mark.integration
def test_score_preset_is_a_sigmoid_of_one_logit(models: dict[str, Path]) -> None:
    result = HFVerifier(models["score"], labels="score").run([PREMISE], [CLAIM])
    logit = _logits(models["score"], [(PREMISE, CLAIM)])[0, 0]
    supported = 1.0 / (1.0 + np.exp(-logit))
    np.testing.assert_allclose(_triples(result), [[supported, 0.0, 1.0 - supported]], atol=1e-5)


@pytest.mark.integration
@pytest.mark.parametrize(
    ("model", "labels", "needle"),
    [
        ("unnamed", "nli", "LABEL_0"),
        ("nli", "binary", "entailment"),
        ("nli", "score", "one output logit"),
        ("score", "nli", 'labels="score"'),
    ],
)
def test_label_mismatch_says_what_the_model_has(
    models: dict[str, Path], model: str, labels: str, needle: str
) -> None:
    with pytest.raises(ModelError, match=needle) as error:
        HFVerifier(models[model], labels=labels).load()
    assert "labels=" in str(error.value)


@pytest.mark.integration
def test_missing_model_says_how_to_fix(tmp_path: Path) -> None:
    pytest.importorskip("transformers")
    with pytest.raises(ModelError, match="local_files_only=False"):
        HFVerifier("veracity-tests/no-such-model", labels="nli").load()
    with pytest.raises(ModelError, match="cannot load"):
        HFVerifier(tmp_path, labels="nli").load()
