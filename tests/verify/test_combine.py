import numpy as np
import pytest

from veracity.errors import InputError, ModelError
from veracity.verify.combine import FEATURES, Combiner, features, fit_combiner

pytestmark = pytest.mark.unit


def test_features_read_the_whole_premise() -> None:
    premise = "Marie Curie won the Nobel Prize in 1903 and again in 1911."
    row = features([0.5], [premise], ["Marie Curie won the prize in 1911."])[0]
    named = dict(zip(FEATURES, row, strict=True))
    assert named["model_logit"] == pytest.approx(0.0)
    assert named["content_coverage"] == pytest.approx(1.0)
    assert named["has_numbers"] == 1.0
    assert named["number_share"] == 1.0
    wrong = dict(zip(FEATURES, features([0.5], [premise], ["Curie won it in 1920."])[0],
                     strict=True))
    assert wrong["number_share"] == 0.0


def test_fit_learns_a_separating_signal_and_round_trips() -> None:
    rng = np.random.default_rng(0)
    matrix = rng.normal(size=(400, len(FEATURES)))
    labels = (matrix[:, 1] > 0).astype(int).tolist()
    combiner = fit_combiner(matrix, labels)
    assert combiner.weights[1] > 1.0
    assert abs(combiner.weights[1]) > 3 * max(abs(w) for i, w in enumerate(combiner.weights)
                                              if i != 1)
    assert Combiner.from_json(combiner.to_json()) == combiner


def test_identity_weights_return_the_model_probability() -> None:
    combiner = Combiner(weights=(1.0, 0, 0, 0, 0, 0), bias=0.0)
    assert combiner.support([0.9, 0.2], ["a b.", "c d."], ["a b.", "x."]) == pytest.approx(
        [0.9, 0.2], abs=1e-6)


def test_bad_inputs_are_refused() -> None:
    with pytest.raises(InputError, match="both supported and unsupported"):
        fit_combiner(np.zeros((3, len(FEATURES))), [1, 1, 1])
    with pytest.raises(ModelError, match="expected"):
        Combiner(weights=(1.0,), bias=0.0)
    with pytest.raises(ModelError, match="re-export"):
        Combiner.from_json({"features": ["x"], "weights": [1.0], "bias": 0.0})
