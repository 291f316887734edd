"""Hand-computed cases for the classification metrics."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from veracity.errors import InputError, OptionError
from veracity.evaluate.classification import (
    CrossThreshold,
    PrecisionRecallF1,
    ThresholdChoice,
    average_precision,
    balanced_accuracy,
    best_threshold,
    cross_threshold,
    precision_at_base_rate,
    precision_recall_f1,
    roc_auc,
)

pytestmark = pytest.mark.unit


def test_balanced_accuracy_averages_both_recalls() -> None:
    # positives: 2 of 3 found (0.667); negatives: 1 of 2 rejected (0.5)
    assert balanced_accuracy([1, 1, 0, 1, 0], [1, 1, 1, 0, 0]) == pytest.approx((2 / 3 + 0.5) / 2)


def test_balanced_accuracy_of_constant_prediction_is_one_half() -> None:
    assert balanced_accuracy([1, 1, 1, 1], [1, 0, 0, 0]) == 0.5


def test_balanced_accuracy_accepts_booleans() -> None:
    scores = np.array([0.9, 0.2, 0.7])
    assert balanced_accuracy(scores >= 0.5, [1, 0, 0]) == 0.75


def test_balanced_accuracy_needs_both_classes() -> None:
    with pytest.raises(InputError, match="both classes"):
        balanced_accuracy([1, 0], [1, 1])


def test_labels_outside_zero_one_are_refused() -> None:
    with pytest.raises(InputError, match="0 or 1"):
        balanced_accuracy([1, 0], [2, 0])


def test_length_mismatch_is_refused() -> None:
    with pytest.raises(InputError, match="3 predictions for 2 labels"):
        balanced_accuracy([1, 0, 1], [1, 0])


def test_precision_recall_f1_for_each_positive_class() -> None:
    predictions = [1, 1, 1, 0, 0]
    labels = [1, 1, 0, 1, 0]
    # class 1: tp 2, fp 1, fn 1
    assert precision_recall_f1(predictions, labels) == PrecisionRecallF1(2 / 3, 2 / 3, 4 / 6, 3)
    # class 0: tp 1, fp 1, fn 1
    zero = precision_recall_f1(predictions, labels, positive=0)
    assert (zero.precision, zero.recall, zero.f1, zero.support) == (0.5, 0.5, 0.5, 2)


def test_precision_is_zero_when_nothing_is_predicted_positive() -> None:
    result = precision_recall_f1([0, 0], [1, 0])
    assert (result.precision, result.recall, result.f1) == (0.0, 0.0, 0.0)


def test_precision_recall_f1_refuses_other_positive_class() -> None:
    with pytest.raises(OptionError, match="positive=2"):
        precision_recall_f1([1], [1], positive=2)


def _auc_by_pairs(scores: list[float], labels: list[int]) -> float:
    pos = [s for s, y in zip(scores, labels, strict=True) if y == 1]
    neg = [s for s, y in zip(scores, labels, strict=True) if y == 0]
    wins = sum(1.0 if p > n else 0.5 if p == n else 0.0 for p, n in itertools.product(pos, neg))
    return wins / (len(pos) * len(neg))


def test_roc_auc_perfect_inverted_and_tied() -> None:
    assert roc_auc([0.1, 0.2, 0.8, 0.9], [0, 0, 1, 1]) == 1.0
    assert roc_auc([0.9, 0.8, 0.2, 0.1], [0, 0, 1, 1]) == 0.0
    assert roc_auc([0.5, 0.5, 0.5, 0.5], [0, 1, 0, 1]) == 0.5


def test_roc_auc_counts_ties_as_half() -> None:
    # pairs (pos, neg): (0.8,0.6)=1 (0.8,0.2)=1 (0.6,0.6)=0.5 (0.6,0.2)=1 -> 3.5/4
    assert roc_auc([0.8, 0.6, 0.6, 0.2], [1, 0, 1, 0]) == 0.875


def test_roc_auc_matches_pair_count_on_random_ties() -> None:
    rng = np.random.default_rng(3)
    scores = rng.integers(0, 5, size=40).astype(float).tolist()
    labels = rng.integers(0, 2, size=40).tolist()
    assert roc_auc(scores, labels) == pytest.approx(_auc_by_pairs(scores, labels))


def test_roc_auc_refuses_nan() -> None:
    with pytest.raises(InputError, match="finite"):
        roc_auc([0.1, float("nan")], [0, 1])


def test_average_precision_hand_computed() -> None:
    # ranked: +, -, +, -  -> precision 1 at recall 0.5, 2/3 at recall 1
    assert average_precision([0.9, 0.8, 0.7, 0.6], [1, 0, 1, 0]) == pytest.approx(5 / 6)


def test_average_precision_treats_ties_as_one_threshold() -> None:
    # top two tied (one +, one -): precision 1/2 at recall 1/2; then + at 2/3, recall 1
    value = average_precision([0.9, 0.9, 0.5, 0.1], [1, 0, 1, 0])
    assert value == pytest.approx(0.5 * 0.5 + 0.5 * 2 / 3)
    assert average_precision([0.9, 0.9, 0.5, 0.1], [0, 1, 1, 0]) == pytest.approx(value)


def test_average_precision_needs_a_positive() -> None:
    with pytest.raises(InputError, match="positive"):
        average_precision([0.3, 0.4], [0, 0])


def test_best_threshold_separable_takes_midpoint() -> None:
    choice = best_threshold([0.1, 0.4, 0.6, 0.9], [0, 0, 1, 1])
    assert choice == ThresholdChoice(0.5, 1.0, "balanced_accuracy")


def test_best_threshold_prefers_balanced_accuracy_over_accuracy() -> None:
    scores = [0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 0.95]
    labels = [0, 0, 0, 0, 0, 0, 0, 1, 0, 1]
    # accuracy: all-negative gives 0.8, threshold 0.75 gives 0.9 (one false positive at 0.9)
    assert best_threshold(scores, labels, "accuracy").threshold == pytest.approx(0.75)
    # balanced accuracy at 0.75: tpr 1, tnr 7/8
    choice = best_threshold(scores, labels)
    assert choice.threshold == pytest.approx(0.75)
    assert choice.value == pytest.approx((1 + 7 / 8) / 2)


def test_best_threshold_extremes() -> None:
    # every item positive: the threshold is the lowest score
    assert best_threshold([0.3, 0.3, 0.5], [1, 1, 0], "f1") == ThresholdChoice(0.3, 0.8, "f1")
    # no item positive (accuracy 2/3): the threshold lies just above the highest score
    none = best_threshold([0.1, 0.5, 0.9], [1, 0, 0], "accuracy")
    assert none.threshold > 0.9
    assert none.threshold == pytest.approx(0.9)
    assert none.value == pytest.approx(2 / 3)


def test_best_threshold_unknown_metric_names_the_choices() -> None:
    with pytest.raises(OptionError, match="balanced_accuracy"):
        best_threshold([0.1, 0.9], [0, 1], metric="auc")


def test_cross_threshold_chooses_on_one_half_and_scores_the_other() -> None:
    # group a separates at 0.5, group b at 0.85: each half's threshold misfits the other half
    scores = [0.2, 0.8, 0.75, 0.95]
    labels = [0, 1, 0, 1]
    groups = ["a", "a", "b", "b"]
    result = cross_threshold(scores, labels, groups, seed=0)
    assert isinstance(result, CrossThreshold)
    assert sorted(result.thresholds) == pytest.approx([0.5, 0.85])
    # chosen on a (0.5) scored on b: both predicted positive -> 0.5
    # chosen on b (0.85) scored on a: both predicted negative -> 0.5
    assert result.fold_values == (0.5, 0.5)
    assert result.value == 0.5
    assert result.fold_sizes == (2, 2)
    assert result.fold_groups == (1, 1)


def test_cross_threshold_keeps_groups_together_and_is_seeded() -> None:
    rng = np.random.default_rng(0)
    groups = np.repeat(np.arange(20), 5)
    labels = rng.integers(0, 2, size=100)
    scores = labels + rng.normal(0, 0.8, size=100)
    first = cross_threshold(scores, labels, groups, seed=7)
    again = cross_threshold(scores, labels, groups, seed=7)
    assert first == again
    assert sum(first.fold_sizes) == 100
    assert all(size % 5 == 0 for size in first.fold_sizes)  # whole groups only
    assert first.fold_groups == (10, 10)
    assert 0.5 < first.value <= best_threshold(scores, labels).value + 0.1


def test_cross_threshold_more_folds() -> None:
    groups = np.repeat(np.arange(9), 4)
    labels = np.tile([0, 1, 0, 1], 9)
    scores = labels * 0.5 + np.linspace(0, 0.1, 36)
    result = cross_threshold(scores, labels, groups, folds=3, seed=1)
    assert len(result.thresholds) == 3
    assert result.value == 1.0


def test_cross_threshold_refuses_too_few_groups_and_one_class_folds() -> None:
    with pytest.raises(OptionError, match="number of groups"):
        cross_threshold([0.1, 0.9], [0, 1], ["a", "a"])
    with pytest.raises(InputError, match="one class"):
        cross_threshold([0.1, 0.2, 0.9, 0.8], [0, 0, 1, 1], ["a", "a", "b", "b"])
    with pytest.raises(InputError, match="group id per item"):
        cross_threshold([0.1, 0.9], [0, 1], ["a"])
    with pytest.raises(OptionError, match="folds=1"):
        cross_threshold([0.1, 0.9], [0, 1], ["a", "b"], folds=1)


def test_precision_at_base_rate() -> None:
    assert precision_at_base_rate(0.9, 0.1, 0.5) == pytest.approx(0.9)
    assert precision_at_base_rate(0.8, 0.2, 0.1) == pytest.approx(0.08 / (0.08 + 0.18))
    assert precision_at_base_rate(0.0, 0.0, 0.3) == 0.0
    with pytest.raises(OptionError, match="base_rate"):
        precision_at_base_rate(0.5, 0.5, 1.5)
