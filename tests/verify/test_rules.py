import json
from pathlib import Path

import pytest

from veracity.errors import InputError, OptionError
from veracity.types import LayerResult
from veracity.verify.rules import (
    LayerCombiner,
    LayerWeights,
    fit_layer_weights,
    layer_features,
)

pytestmark = pytest.mark.unit

NLI_OK = LayerResult("nli", "supported", False, 0.1)
NLI_UNSURE = LayerResult("nli", "unsupported", True, 0.6)
NLI_BAD = LayerResult("nli", "unsupported", True, 0.95)
KB_CONTRA = LayerResult("knowledge", "contradicted", True, 1.0)
KB_OK = LayerResult("knowledge", "supported", False, 0.0)
KB_ABSTAIN = LayerResult("knowledge", "unchecked", False, None, "no values to check")
FAILED = LayerResult("consistency", "error", False, None, error="chat failed")


def test_any_and_all() -> None:
    assert LayerCombiner("any").run([NLI_OK, KB_CONTRA]) == "contradicted"
    assert LayerCombiner("any").run([NLI_BAD, KB_OK]) == "unsupported"
    assert LayerCombiner("any").run([NLI_OK, KB_OK]) == "supported"
    assert LayerCombiner("all").run([NLI_OK, KB_CONTRA]) == "supported"
    assert LayerCombiner("all").run([NLI_BAD, KB_CONTRA]) == "contradicted"


def test_abstaining_and_failed_layers_do_not_count() -> None:
    assert LayerCombiner("all").run([NLI_BAD, KB_ABSTAIN, FAILED]) == "unsupported"
    assert LayerCombiner("any").run([NLI_OK, KB_ABSTAIN]) == "supported"
    assert LayerCombiner("any").run([FAILED]) == "error"


@pytest.mark.parametrize("rule", ["any", "all", "cascade"])
def test_a_claim_no_layer_judged_is_unchecked_never_supported(rule: str) -> None:
    # Harden-2 #5: --layers knowledge on "Bees can fly to the moon." said supported
    assert LayerCombiner(rule).run([KB_ABSTAIN]) == "unchecked"
    assert LayerCombiner(rule).run([]) == "unchecked"
    silent = LayerResult("consistency", "unchecked", False, None, "no sample mentions it")
    assert LayerCombiner(rule).run([KB_ABSTAIN, silent]) == "unchecked"
    # a failure is why nothing judged it: that is an error, not merely unchecked
    assert LayerCombiner(rule).run([KB_ABSTAIN, FAILED]) == "error"


def test_cascade_asks_the_next_layer_only_when_unsure() -> None:
    cascade = LayerCombiner("cascade", order=("nli", "knowledge"), band=(0.25, 0.75))
    assert cascade.run([NLI_OK, KB_CONTRA]) == "supported"  # nli sure: 0.1 <= 0.25
    assert cascade.run([NLI_UNSURE, KB_CONTRA]) == "contradicted"  # nli unsure: knowledge decides
    assert cascade.run([NLI_UNSURE, KB_ABSTAIN]) == "unsupported"  # nobody sure: last judge
    reordered = LayerCombiner("cascade", order=("knowledge", "nli"))
    assert reordered.run([NLI_OK, KB_CONTRA]) == "contradicted"


def test_logistic_weights_fit_save_and_load(tmp_path: Path) -> None:
    findings = [
        [NLI_OK, KB_OK],
        [NLI_OK, KB_ABSTAIN],
        [NLI_BAD, KB_OK],
        [NLI_BAD, KB_CONTRA],
        [NLI_UNSURE, KB_CONTRA],
        [NLI_OK, KB_CONTRA],
    ] * 3
    labels = [False, False, True, True, True, True] * 3
    weights = fit_layer_weights(findings, labels, layers=("nli", "knowledge"), fitted_on="toy")
    path = weights.save(tmp_path / "weights.json")
    loaded = LayerWeights.load(path)
    assert loaded == weights
    assert loaded.fitted_on == "toy"
    combiner = LayerCombiner("logistic", weights=loaded)
    predictions = [combiner.run(f) != "supported" for f in findings]
    assert predictions == labels
    assert combiner.run([NLI_OK, KB_CONTRA]) == "contradicted"
    assert combiner.description == "logistic (toy)"


def test_layer_features_centre_scores_and_mark_missing_layers() -> None:
    assert layer_features([NLI_BAD, KB_ABSTAIN], ("nli", "knowledge")) == pytest.approx(
        [0.45, 0.0, 1.0, 0.0]
    )


def test_bad_rules_and_weight_files(tmp_path: Path) -> None:
    with pytest.raises(OptionError, match="any, all, cascade, logistic"):
        LayerCombiner("majority")
    with pytest.raises(OptionError, match="fit_layer_weights"):
        LayerCombiner("logistic")
    with pytest.raises(OptionError, match="band"):
        LayerCombiner("cascade", band=(0.8, 0.2))
    bad = tmp_path / "bad.json"
    bad.write_text("{not json", encoding="utf-8")
    with pytest.raises(InputError, match=r"bad\.json: not JSON"):
        LayerWeights.load(bad)
    other = tmp_path / "other.json"
    other.write_text(json.dumps({"weights": [1]}), encoding="utf-8")
    with pytest.raises(InputError, match="not a veracity-layer-weights/1 file"):
        LayerWeights.load(other)
    with pytest.raises(InputError, match="cannot read"):
        LayerWeights.load(tmp_path / "missing.json")
    with pytest.raises(InputError, match="both classes"):
        fit_layer_weights([[NLI_OK]], [True], layers=("nli",), fitted_on="x")
