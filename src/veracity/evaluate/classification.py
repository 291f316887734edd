"""Binary classification metrics for detectors and verifiers (numpy only, no hidden state).

Labels are 0/1 with 1 the positive class unless a function says otherwise; scores are "higher
means more positive"; a prediction at threshold ``t`` is ``score >= t``.

>>> balanced_accuracy([1, 0, 0, 0], [1, 1, 0, 0])
0.75
>>> roc_auc([0.9, 0.4, 0.4, 0.1], [1, 1, 0, 0])
0.875

``cross_threshold`` is the honest way to report balanced accuracy for a score that is not a
calibrated probability: the threshold is chosen on one half of the items (split by group, so
related items never straddle the cut) and measured on the other half, then the other way round.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from veracity.errors import InputError, OptionError

__all__ = [
    "THRESHOLD_METRICS",
    "CrossThreshold",
    "PrecisionRecallF1",
    "ThresholdChoice",
    "average_precision",
    "balanced_accuracy",
    "best_threshold",
    "cross_threshold",
    "precision_at_base_rate",
    "precision_recall_f1",
    "roc_auc",
]

ArrayLike = Sequence[float] | Sequence[int] | Sequence[bool] | np.ndarray


@dataclass(frozen=True)
class PrecisionRecallF1:
    """Precision, recall and F1 of one positive class; ``support`` counts its true items.

    A ratio with a zero denominator is 0.0 (no predicted positives gives precision 0.0).
    """

    precision: float
    recall: float
    f1: float
    support: int


@dataclass(frozen=True)
class ThresholdChoice:
    """The threshold that maximised ``metric`` (predict positive when ``score >= threshold``)."""

    threshold: float
    value: float
    metric: str


@dataclass(frozen=True)
class CrossThreshold:
    """A metric measured with thresholds chosen on held-out groups.

    ``value`` is the mean of ``fold_values``; fold ``i`` was scored at ``thresholds[i]``, chosen on
    the other folds, and held ``fold_sizes[i]`` items from ``fold_groups[i]`` groups.
    """

    value: float
    metric: str
    fold_values: tuple[float, ...]
    thresholds: tuple[float, ...]
    fold_sizes: tuple[int, ...]
    fold_groups: tuple[int, ...]


# --- validation -------------------------------------------------------------------------------


def _labels(labels: ArrayLike, name: str = "labels") -> np.ndarray:
    array = np.asarray(labels)
    if array.ndim != 1:
        raise InputError(f"{name} must be one-dimensional, got shape {array.shape}")
    if array.dtype == bool:
        return array.astype(np.int64)
    if array.size and not np.isin(array, (0, 1)).all():
        bad = array[~np.isin(array, (0, 1))][:3].tolist()
        raise InputError(
            f"{name} must be 0 or 1 (1 = positive class); found {bad}. "
            "Map your classes to 0/1 first."
        )
    return array.astype(np.int64)


def _scores(scores: ArrayLike, size: int) -> np.ndarray:
    array = np.asarray(scores, dtype=np.float64)
    if array.ndim != 1:
        raise InputError(f"scores must be one-dimensional, got shape {array.shape}")
    if array.shape[0] != size:
        raise InputError(f"got {array.shape[0]} scores for {size} labels; pass one score per item")
    if not np.isfinite(array).all():
        where = np.flatnonzero(~np.isfinite(array))[:3].tolist()
        raise InputError(
            f"scores must be finite; items {where} are NaN or infinite. "
            "Drop failed items and report how many failed."
        )
    return array


def _both_classes(labels: np.ndarray, what: str) -> None:
    positives = int(labels.sum())
    if positives == 0 or positives == labels.size:
        raise InputError(
            f"{what} needs both classes, got {positives} positive of {labels.size} "
            "items; evaluate on a set that holds positives and negatives"
        )


def _pair(predictions: ArrayLike, labels: ArrayLike) -> tuple[np.ndarray, np.ndarray]:
    truth = _labels(labels)
    predicted = _labels(predictions, "predictions")
    if predicted.shape != truth.shape:
        raise InputError(
            f"got {predicted.shape[0]} predictions for {truth.shape[0]} labels; "
            "pass one prediction per item"
        )
    return predicted, truth


# --- metrics of hard predictions ----------------------------------------------------------------


def balanced_accuracy(predictions: ArrayLike, labels: ArrayLike) -> float:
    """Mean of the recall of the positive class and the recall of the negative class.

    >>> balanced_accuracy([1, 0, 0, 0], [1, 1, 0, 0])
    0.75
    """
    predicted, truth = _pair(predictions, labels)
    _both_classes(truth, "balanced accuracy")
    tpr = float(predicted[truth == 1].mean())
    tnr = float(1 - predicted[truth == 0].mean())
    return (tpr + tnr) / 2


def precision_recall_f1(
    predictions: ArrayLike,
    labels: ArrayLike,
    *,
    positive: int = 1,
) -> PrecisionRecallF1:
    """Precision, recall and F1 with ``positive`` (0 or 1) as the class of interest.

    >>> precision_recall_f1([1, 1, 0, 0], [1, 0, 1, 0]).f1
    0.5
    """
    if positive not in (0, 1):
        raise OptionError("positive", positive, "0 or 1", "Map your classes to 0/1 first.")
    predicted, truth = _pair(predictions, labels)
    predicted_pos = predicted == positive
    true_pos = truth == positive
    tp = int((predicted_pos & true_pos).sum())
    fp = int((predicted_pos & ~true_pos).sum())
    fn = int((~predicted_pos & true_pos).sum())
    precision = tp / (tp + fp) if tp + fp else 0.0
    recall = tp / (tp + fn) if tp + fn else 0.0
    f1 = 2 * tp / (2 * tp + fp + fn) if tp + fp + fn else 0.0
    return PrecisionRecallF1(precision, recall, f1, int(true_pos.sum()))


def precision_at_base_rate(tpr: float, fpr: float, base_rate: float) -> float:
    """Precision a detector with this TPR and FPR would have where positives are ``base_rate``.

    ``tpr * p / (tpr * p + fpr * (1 - p))``; 0.0 when nothing would be flagged (tpr = fpr = 0).
    Use it to restate a balanced benchmark's result at the rate seen in deployment.

    >>> round(precision_at_base_rate(0.9, 0.1, 0.1), 3)
    0.5
    """
    for name, value in (("tpr", tpr), ("fpr", fpr), ("base_rate", base_rate)):
        if not 0.0 <= value <= 1.0:
            raise OptionError(name, value, "a rate between 0 and 1")
    flagged = tpr * base_rate + fpr * (1 - base_rate)
    return tpr * base_rate / flagged if flagged > 0 else 0.0


# --- ranking metrics ----------------------------------------------------------------------------


def _average_ranks(values: np.ndarray) -> np.ndarray:
    """1-based ranks of ``values``, tied values sharing the mean of their ranks."""
    _, inverse, counts = np.unique(values, return_inverse=True, return_counts=True)
    ends = np.cumsum(counts)
    mean_rank = ends - (counts - 1) / 2.0
    return np.asarray(mean_rank[inverse], dtype=np.float64)


def roc_auc(scores: ArrayLike, labels: ArrayLike) -> float:
    """Area under the ROC curve: P(a random positive outscores a random negative), ties count 1/2.

    >>> roc_auc([0.8, 0.6, 0.6, 0.2], [1, 0, 1, 0])
    0.875
    """
    truth = _labels(labels)
    values = _scores(scores, truth.shape[0])
    _both_classes(truth, "ROC-AUC")
    positives = int(truth.sum())
    negatives = truth.size - positives
    rank_sum = float(_average_ranks(values)[truth == 1].sum())
    return (rank_sum - positives * (positives + 1) / 2) / (positives * negatives)


def average_precision(scores: ArrayLike, labels: ArrayLike) -> float:
    """PR-AUC as average precision: sum over thresholds of (recall gained) x precision there.

    Tied scores form one threshold, so the order of tied items never changes the result.

    >>> round(average_precision([0.9, 0.8, 0.7, 0.6], [1, 0, 1, 0]), 4)
    0.8333
    """
    truth = _labels(labels)
    values = _scores(scores, truth.shape[0])
    positives = int(truth.sum())
    if positives == 0:
        raise InputError(
            "average precision needs at least one positive label; "
            "evaluate on a set that holds positives"
        )
    order = np.argsort(-values, kind="stable")
    sorted_values = values[order]
    tp = np.cumsum(truth[order])
    # last index of each run of tied scores: one point of the curve per distinct threshold
    last = np.flatnonzero(np.r_[sorted_values[1:] != sorted_values[:-1], True])
    tp_at = tp[last].astype(np.float64)
    precision = tp_at / (last + 1)
    recall_gain = np.diff(np.r_[0.0, tp_at]) / positives
    return float((recall_gain * precision).sum())


# --- thresholds -------------------------------------------------------------------------------


def _balanced_accuracy_curve(tp: np.ndarray, fp: np.ndarray, pos: int, neg: int) -> np.ndarray:
    return np.asarray((tp / pos + (neg - fp) / neg) / 2, dtype=np.float64)


def _f1_curve(tp: np.ndarray, fp: np.ndarray, pos: int, neg: int) -> np.ndarray:
    fn = pos - tp
    denominator = 2 * tp + fp + fn
    return np.where(denominator > 0, 2 * tp / np.maximum(denominator, 1), 0.0)


def _accuracy_curve(tp: np.ndarray, fp: np.ndarray, pos: int, neg: int) -> np.ndarray:
    return np.asarray((tp + neg - fp) / (pos + neg), dtype=np.float64)


#: Metrics ``best_threshold`` can maximise: name -> f(tp, fp, positives, negatives) per cut.
THRESHOLD_METRICS: dict[str, Callable[[np.ndarray, np.ndarray, int, int], np.ndarray]] = {
    "balanced_accuracy": _balanced_accuracy_curve,
    "f1": _f1_curve,
    "accuracy": _accuracy_curve,
}


def _metric(metric: str) -> Callable[[np.ndarray, np.ndarray, int, int], np.ndarray]:
    if metric not in THRESHOLD_METRICS:
        raise OptionError("metric", metric, f"one of {sorted(THRESHOLD_METRICS)}")
    return THRESHOLD_METRICS[metric]


def _value_at(scores: np.ndarray, labels: np.ndarray, threshold: float, metric: str) -> float:
    predicted = scores >= threshold
    tp = np.array([int((predicted & (labels == 1)).sum())])
    fp = np.array([int((predicted & (labels == 0)).sum())])
    positives = int(labels.sum())
    return float(_metric(metric)(tp, fp, positives, labels.size - positives)[0])


def best_threshold(
    scores: ArrayLike,
    labels: ArrayLike,
    metric: str = "balanced_accuracy",
) -> ThresholdChoice:
    """The threshold that maximises ``metric`` on these items (an optimistic, in-sample choice).

    Candidate cuts lie between consecutive distinct scores; the threshold returned is the
    midpoint of the chosen gap (the lowest score when every item is predicted positive, just
    above the highest when none is). Equal best values go to the lowest threshold.

    >>> best_threshold([0.1, 0.4, 0.6, 0.9], [0, 0, 1, 1])
    ThresholdChoice(threshold=0.5, value=1.0, metric='balanced_accuracy')
    """
    curve_of = _metric(metric)
    truth = _labels(labels)
    values = _scores(scores, truth.shape[0])
    _both_classes(truth, "choosing a threshold")
    positives = int(truth.sum())
    negatives = truth.size - positives
    order = np.argsort(values, kind="stable")
    ascending = values[order]
    distinct = np.unique(ascending)
    # cut k predicts positive for every score >= distinct[k]; k = len(distinct) predicts none
    first_index = np.searchsorted(ascending, distinct, side="left")
    positives_below = np.r_[0, np.cumsum(truth[order])]
    below = np.r_[first_index, truth.size]
    tp = positives - positives_below[below]
    fp = (truth.size - below) - tp
    curve = curve_of(tp, fp, positives, negatives)
    k = int(np.argmax(curve))
    if k == 0:
        threshold = float(distinct[0])
    elif k == distinct.size:
        threshold = float(np.nextafter(distinct[-1], np.inf))
    else:
        threshold = float((distinct[k - 1] + distinct[k]) / 2)
    return ThresholdChoice(threshold, float(curve[k]), metric)


def _fold_of_groups(groups: np.ndarray, folds: int, seed: int) -> np.ndarray:
    distinct = np.unique(groups)
    if distinct.size < folds:
        raise OptionError(
            "folds",
            folds,
            f"at most the number of groups ({distinct.size})",
            "Use fewer folds or finer groups.",
        )
    shuffled = np.random.default_rng(seed).permutation(distinct.size)
    fold_of_distinct = np.empty(distinct.size, dtype=np.int64)
    fold_of_distinct[shuffled] = np.arange(distinct.size) % folds
    return fold_of_distinct[np.searchsorted(distinct, groups)]


def cross_threshold(
    scores: ArrayLike,
    labels: ArrayLike,
    groups: Sequence[object] | np.ndarray,
    *,
    folds: int = 2,
    seed: int = 0,
    metric: str = "balanced_accuracy",
) -> CrossThreshold:
    """``metric`` at a threshold chosen on other groups: split groups into ``folds`` parts at
    random (``seed``), choose the threshold on all but one part, score that part, average.

    With ``folds=2``: choose on half A, report on half B, then the reverse, and average both.
    Items of one group always fall in the same part, so near-duplicates cannot leak.

    >>> result = cross_threshold([0.2, 0.8, 0.3, 0.7], [0, 1, 0, 1], ["a", "a", "b", "b"])
    >>> result.value, len(result.thresholds)
    (1.0, 2)
    """
    _metric(metric)
    if folds < 2:
        raise OptionError("folds", folds, "2 or more", "Use folds=2 for the two-halves protocol.")
    truth = _labels(labels)
    values = _scores(scores, truth.shape[0])
    group_array = np.asarray([str(group) for group in groups])
    if group_array.shape[0] != truth.shape[0]:
        raise InputError(
            f"got {group_array.shape[0]} group ids for {truth.shape[0]} labels; "
            "pass one group id per item"
        )
    fold_of = _fold_of_groups(group_array, folds, seed)
    fold_values: list[float] = []
    thresholds: list[float] = []
    sizes: list[int] = []
    group_counts: list[int] = []
    for fold in range(folds):
        held = fold_of == fold
        if len(np.unique(truth[held])) < 2 or len(np.unique(truth[~held])) < 2:
            raise InputError(
                f"fold {fold} (seed {seed}) or its complement holds only one class; "
                "use another seed or fewer folds, or evaluate on more items"
            )
        choice = best_threshold(values[~held], truth[~held], metric)
        thresholds.append(choice.threshold)
        fold_values.append(_value_at(values[held], truth[held], choice.threshold, metric))
        sizes.append(int(held.sum()))
        group_counts.append(int(np.unique(group_array[held]).size))
    return CrossThreshold(
        float(np.mean(fold_values)),
        metric,
        tuple(fold_values),
        tuple(thresholds),
        tuple(sizes),
        tuple(group_counts),
    )
