import numpy as np
import pytest

from veracity.errors import InputError, ModelError
from veracity.models.pairs.combiner import (
    ALIGNED_FEATURES,
    FEATURES,
    Combiner,
    features,
    fit_combiner,
)

pytestmark = pytest.mark.unit

PREMISE = "Marie Curie won the Nobel Prize in 1903 and again in 1911."


def test_features_read_the_whole_premise() -> None:
    row = features([(0.5, 0.25, 0.25)], [PREMISE], ["Marie Curie won the prize in 1911."])[0]
    named = dict(zip(FEATURES, row, strict=True))
    assert named["model_logit"] == pytest.approx(0.0)
    assert named["content_coverage"] == pytest.approx(1.0)
    assert named["has_numbers"] == 1.0
    assert named["number_share"] == 1.0
    wrong = dict(
        zip(
            FEATURES,
            features([(0.5, 0.25, 0.25)], [PREMISE], ["Curie won it in 1920."])[0],
            strict=True,
        )
    )
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
        "support_neither_log_ratio"
    ] == pytest.approx(np.log(0.4 / 0.1))
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
        assert abs(combiner.weights[1]) > 3 * max(
            abs(w) for i, w in enumerate(combiner.weights) if i != 1
        )
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


def test_three_way_features_read_both_log_ratios_and_the_alignment() -> None:
    from veracity.models.pairs.combiner import THREE_WAY_FEATURES, three_way_features

    matrix = three_way_features(
        [(0.2, 0.7, 0.1)], ["The sky is blue."], ["The sky is blue."], [0.9]
    )
    row = dict(zip(THREE_WAY_FEATURES, matrix[0], strict=True))
    assert row["support_neither_log_ratio"] == pytest.approx(np.log(2.0))
    assert row["contradicted_neither_log_ratio"] == pytest.approx(np.log(7.0))
    assert row["contradiction_on_topic"] == pytest.approx(0.9 * np.log(7.0))
    assert row["alignment"] == 0.9


def test_without_an_aligner_the_three_way_features_are_the_network_and_exact_signals() -> None:
    from veracity.models.pairs.combiner import (
        NETWORK_FEATURES,
        ThreeWayCombiner,
        fit_three_way,
        load_combiner,
        three_way_features,
    )

    matrix = three_way_features([(0.2, 0.7, 0.1)], ["The sky is blue."], ["The sky is blue."], None)
    assert matrix.shape == (1, len(NETWORK_FEATURES))
    assert matrix[0, 1] == pytest.approx(np.log(7.0))
    labels = np.repeat([0, 1, 2], 20)
    rng = np.random.default_rng(1)
    fitted = fit_three_way(
        rng.normal(size=(60, len(NETWORK_FEATURES))) + labels[:, None], labels.tolist(), gate=0.5
    )
    assert fitted.names == NETWORK_FEATURES
    assert not fitted.aligned
    assert load_combiner(fitted.to_json()) == fitted
    with pytest.raises(Exception, match="none of"):
        ThreeWayCombiner(fitted.weights, fitted.bias, 0.5, ("alignment",) * 7)


def test_class_shares_move_the_supported_prior() -> None:
    """Supported as half the weight raises P(supported) where the inputs say nothing, against
    equal thirds; shares that are not a distribution are refused."""
    from veracity.errors import InputError
    from veracity.models.pairs.combiner import NETWORK_FEATURES, fit_three_way

    labels = [0] * 30 + [1] * 30 + [2] * 30
    blank = np.zeros((90, len(NETWORK_FEATURES)))
    half = fit_three_way(blank, labels, gate=1.0).probabilities(blank[:1])[0]
    thirds = fit_three_way(blank, labels, gate=1.0, shares=None).probabilities(blank[:1])[0]
    assert half[0] == pytest.approx(0.5, abs=1e-6)
    assert thirds[0] == pytest.approx(1 / 3, abs=1e-6)
    with pytest.raises(InputError, match="sum to 1"):
        fit_three_way(blank, labels, gate=1.0, shares=(0.5, 0.5, 0.5))


def test_a_softmax_fit_separates_three_labels_and_round_trips() -> None:
    from veracity.models.pairs.combiner import (
        THREE_WAY_FEATURES,
        ThreeWayCombiner,
        fit_three_way,
        load_combiner,
    )

    rng = np.random.default_rng(0)
    labels = np.repeat([0, 1, 2], 60)
    matrix = rng.normal(size=(180, len(THREE_WAY_FEATURES)))
    matrix[:, 0] += 3 * (labels == 0)  # support ratio marks supported
    matrix[:, 1] += 3 * (labels == 1)  # contradiction ratio marks contradicted
    combiner = fit_three_way(matrix, labels.tolist(), gate=0.9)
    assert (combiner.probabilities(matrix).argmax(1) == labels).mean() > 0.9
    assert combiner.weights[0][0] > 0
    assert combiner.weights[1][1] > 0
    again = load_combiner(combiner.to_json())
    assert isinstance(again, ThreeWayCombiner)
    assert again == combiner
    contributions = combiner.contributions(matrix)
    assert abs(contributions["contradicted"]["contradicted_neither_log_ratio"]) > abs(
        contributions["contradicted"]["entity_share"]
    )


def test_the_gate_lets_nothing_outvote_a_confident_contradiction() -> None:
    from veracity.models.pairs.combiner import THREE_WAY_FEATURES, ThreeWayCombiner

    width = len(THREE_WAY_FEATURES)
    # weights that always say "supported", whatever the network reads
    supportive = ThreeWayCombiner(((0.0,) * width,) * 3, (10.0, 0.0, 0.0), gate=0.6)
    matrix = np.zeros((2, width))
    sure, unsure = supportive.outputs(matrix, [(0.1, 0.8, 0.1), (0.4, 0.5, 0.1)])
    assert sure[0] <= 0.2 + 1e-12
    assert sure[1] >= 0.8
    assert sum(sure) == pytest.approx(1.0)
    assert unsure[0] > 0.99  # below the gate the layer decides


def test_a_softmax_fit_needs_every_label() -> None:
    from veracity.errors import InputError
    from veracity.models.pairs.combiner import THREE_WAY_FEATURES, fit_three_way

    with pytest.raises(InputError, match="every class"):
        fit_three_way(np.zeros((4, len(THREE_WAY_FEATURES))), [0, 0, 1, 1], gate=0.5)
