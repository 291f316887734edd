import numpy as np
import pytest

from veracity.errors import InputError, ModelError
from veracity.verifiers.combiner import ALIGNED_FEATURES, FEATURES, Combiner, features, fit_combiner

pytestmark = pytest.mark.unit

PREMISE = "Marie Curie won the Nobel Prize in 1903 and again in 1911."


def test_features_read_the_whole_premise() -> None:
    row = features([(0.5, 0.25, 0.25)], [PREMISE], ["Marie Curie won the prize in 1911."])[0]
    named = dict(zip(FEATURES, row, strict=True))
    assert named["model_logit"] == pytest.approx(0.0)
    assert named["content_coverage"] == pytest.approx(1.0)
    assert named["has_numbers"] == 1.0
    assert named["number_share"] == 1.0
    wrong = dict(zip(FEATURES, features([(0.5, 0.25, 0.25)], [PREMISE],
                                        ["Curie won it in 1920."])[0], strict=True))
    assert wrong["number_share"] == 0.0


def test_aligned_features_leave_the_contradiction_head_out() -> None:
    """The aligned set's network feature is log P(supported) / P(neither): moving probability
    between contradicted and neither changes it, the exact signals stay."""
    claim = ["Marie Curie won the prize in 1911."]
    calm = features([(0.4, 0.1, 0.5)], [PREMISE], claim, alignment=[0.7])[0]
    alarmed = features([(0.4, 0.5, 0.1)], [PREMISE], claim, alignment=[0.7])[0]
    named = dict(zip(ALIGNED_FEATURES, calm, strict=True))
    assert named["support_neither_log_ratio"] == pytest.approx(np.log(0.4 / 0.5))
    assert named["alignment"] == 0.7
    assert dict(zip(ALIGNED_FEATURES, alarmed, strict=True))[
        "support_neither_log_ratio"] == pytest.approx(np.log(0.4 / 0.1))
    assert calm[1:] == pytest.approx(alarmed[1:])


def test_fit_learns_a_separating_signal_and_round_trips() -> None:
    rng = np.random.default_rng(0)
    for names in (FEATURES, ALIGNED_FEATURES):
        matrix = rng.normal(size=(400, len(names)))
        labels = (matrix[:, 1] > 0).astype(int).tolist()
        combiner = fit_combiner(matrix, labels)
        assert combiner.names == names
        assert combiner.aligned == (names == ALIGNED_FEATURES)
        assert combiner.weights[1] > 1.0
        assert abs(combiner.weights[1]) > 3 * max(abs(w) for i, w in enumerate(combiner.weights)
                                                  if i != 1)
        assert Combiner.from_json(combiner.to_json()) == combiner


def test_identity_weights_return_the_model_probability() -> None:
    combiner = Combiner(weights=(1.0, 0, 0, 0, 0, 0), bias=0.0)
    matrix = features([(0.9, 0.05, 0.05), (0.2, 0.4, 0.4)], ["a b.", "c d."], ["a b.", "x."])
    assert combiner.support(matrix) == pytest.approx([0.9, 0.2], abs=1e-6)


def test_bad_inputs_are_refused() -> None:
    with pytest.raises(InputError, match="both supported and unsupported"):
        fit_combiner(np.zeros((3, len(FEATURES))), [1, 1, 1])
    with pytest.raises(InputError, match="feature matrix"):
        fit_combiner(np.zeros((3, 4)), [1, 0, 1])
    with pytest.raises(ModelError, match="expected"):
        Combiner(weights=(1.0,), bias=0.0)
    with pytest.raises(ModelError, match="re-export"):
        Combiner.from_json({"features": ["x"], "weights": [1.0], "bias": 0.0})
    with pytest.raises(InputError, match="feature matrix"):
        Combiner(weights=(1.0, 0, 0, 0, 0, 0), bias=0.0).support(np.zeros((2, 7)))


def test_aligned_outputs_keep_a_contradiction_only_where_a_number_or_name_is_missing() -> None:
    combiner = Combiner(weights=(0, 0, 0, 0, 0, 0, 4.0), bias=-2.0, names=ALIGNED_FEATURES)
    claims = ["Marie Curie won the prize in 1920.", "Marie Curie won the prize in 1911."]
    probabilities = [(0.1, 0.8, 0.1), (0.1, 0.8, 0.1)]
    matrix = features(probabilities, [PREMISE] * 2, claims, alignment=[0.9, 0.9])
    (s1, c1, n1), (s2, c2, n2) = combiner.outputs(matrix, probabilities)
    q = 1 / (1 + np.exp(-(4.0 * 0.9 - 2.0)))
    assert c1 == pytest.approx(0.8)  # 1920 is not in the premise: the contradiction stands
    assert s1 == pytest.approx(q * 0.2)
    assert c2 == 0.0  # every number and name is there: a close restatement, not a contradiction
    assert s2 == pytest.approx(q)
    for triple in ((s1, c1, n1), (s2, c2, n2)):
        assert sum(triple) == pytest.approx(1.0)
        assert min(triple) >= 0.0


def test_unaligned_outputs_replace_support_and_keep_the_ratio() -> None:
    combiner = Combiner(weights=(1.0, 0, 0, 0, 0, 0), bias=0.0)
    probabilities = [(0.5, 0.3, 0.1)]
    matrix = features(probabilities, ["a b."], ["a b."])
    ((supported, contradicted, neither),) = combiner.outputs(matrix, probabilities)
    assert supported == pytest.approx(0.5)
    assert contradicted / neither == pytest.approx(3.0)
    assert supported + contradicted + neither == pytest.approx(1.0)
