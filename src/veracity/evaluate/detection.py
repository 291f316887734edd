"""A hallucination detector reported as a measurement: every number, its base, and its cost.

:func:`detector_report` takes a detector's risk scores (higher means more likely hallucinated),
the gold labels (1 = hallucinated) and the threshold the detector flags at, and reports the
threshold metrics (precision, recall, F1, balanced accuracy, TPR, FPR), the ranking metrics
(ROC-AUC, PR-AUC as average precision), the precision the measured TPR and FPR would give at
stated base rates, recall per hallucination type, how many items failed, and the cost in model
calls and seconds. It only assembles :mod:`veracity.evaluate.classification`.

Per-type results (:func:`per_type_prf`). Types usually name kinds of hallucination and sit on
hallucinated items only (a correct item has no type). Recall per type is then well defined -- the
share of that type's hallucinations caught -- but precision per type is not: a false positive
has no type, so counting "the type's positives plus all false positives" would make a type's
precision depend on how many items of the other types the data happens to hold. Such a type
reports its recall and counts, and ``precision`` and ``f1`` ``None``; read the overall
precision. Where types partition every item (a task or domain label, on correct items too), a
type's precision and F1 are measured within the type's own items.

>>> report = detector_report([0.9, 0.8, 0.3, 0.2], [1, 0, 1, 0], threshold=0.5,
...                          base_rates=(0.1,), calls=8, seconds=2.0)
>>> report.precision, report.recall, report.roc_auc, report.cost.calls_per_item
(0.5, 0.5, 0.75, 2.0)
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from veracity.errors import InputError, OptionError
from veracity.evaluate.classification import (
    ArrayLike,
    average_precision,
    balanced_accuracy,
    precision_at_base_rate,
    precision_recall_f1,
    roc_auc,
)

__all__ = [
    "BASE_RATES",
    "BaseRatePrecision",
    "Cost",
    "DetectorReport",
    "TypeScores",
    "detector_report",
    "per_type_prf",
]

#: Base rates of hallucination at which precision is restated by default.
BASE_RATES: tuple[float, ...] = (0.05, 0.1, 0.2)


@dataclass(frozen=True)
class TypeScores:
    """How a detector did on the items of one type (see the module docstring).

    ``items`` of the type, ``positives`` of them hallucinated, ``caught`` of those flagged, and
    ``false_positives`` correct items of the type that were flagged. ``recall`` is
    ``caught / positives`` (``None`` without positives). ``precision`` and ``f1`` are measured
    within the type's items, and are ``None`` when the type holds no correct item (the type then
    names hallucinations only, and precision per type is not defined).
    """

    items: int
    positives: int
    caught: int
    false_positives: int
    recall: float | None
    precision: float | None
    f1: float | None


@dataclass(frozen=True)
class BaseRatePrecision:
    """The precision the measured TPR and FPR give where ``base_rate`` of items are positive."""

    base_rate: float
    precision: float


@dataclass(frozen=True)
class Cost:
    """What measuring cost: model calls and seconds, in total and per item (``None``: not given).

    Per-item figures divide by every item, failed ones included (their calls were spent too).
    """

    items: int
    calls: int | None = None
    seconds: float | None = None

    @property
    def calls_per_item(self) -> float | None:
        return None if self.calls is None or not self.items else self.calls / self.items

    @property
    def seconds_per_item(self) -> float | None:
        return None if self.seconds is None or not self.items else self.seconds / self.items


@dataclass(frozen=True)
class DetectorReport:
    """A detector's measured performance at one threshold (see :func:`detector_report`).

    ``items`` were given, ``failures`` of them had no score (left out of every metric), ``n``
    were scored, ``positives`` of those are hallucinated and ``flagged`` reached ``threshold``.
    ``tpr`` equals ``recall``; ``fpr`` is the share of correct items flagged. ``pr_auc`` is average
    precision. ``at_base_rates`` restates precision at other base rates; ``per_type`` holds
    :class:`TypeScores` by type (empty without types).
    """

    items: int
    failures: int
    n: int
    positives: int
    flagged: int
    threshold: float
    precision: float
    recall: float
    f1: float
    balanced_accuracy: float
    roc_auc: float
    pr_auc: float
    tpr: float
    fpr: float
    at_base_rates: tuple[BaseRatePrecision, ...]
    per_type: Mapping[str, TypeScores] = field(default_factory=dict)
    cost: Cost = field(default_factory=lambda: Cost(0))

    @property
    def base_rate(self) -> float:
        """The share of scored items that are hallucinated, as measured."""
        return self.positives / self.n

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON-ready values (``None`` where a figure is not defined or not given)."""
        return {
            "items": self.items,
            "failures": self.failures,
            "n": self.n,
            "positives": self.positives,
            "base_rate": self.base_rate,
            "flagged": self.flagged,
            "threshold": self.threshold,
            "precision": self.precision,
            "recall": self.recall,
            "f1": self.f1,
            "balanced_accuracy": self.balanced_accuracy,
            "roc_auc": self.roc_auc,
            "pr_auc": self.pr_auc,
            "tpr": self.tpr,
            "fpr": self.fpr,
            "precision_at_base_rate": [
                {"base_rate": point.base_rate, "precision": point.precision}
                for point in self.at_base_rates
            ],
            "per_type": {
                name: {
                    "items": scores.items,
                    "positives": scores.positives,
                    "caught": scores.caught,
                    "false_positives": scores.false_positives,
                    "recall": scores.recall,
                    "precision": scores.precision,
                    "f1": scores.f1,
                }
                for name, scores in self.per_type.items()
            },
            "cost": {
                "calls": self.cost.calls,
                "calls_per_item": self.cost.calls_per_item,
                "seconds": self.cost.seconds,
                "seconds_per_item": self.cost.seconds_per_item,
            },
        }


def per_type_prf(
    predictions: ArrayLike, labels: ArrayLike, types: Sequence[str | None]
) -> dict[str, TypeScores]:
    """Recall (and, where defined, precision and F1) per type; ``None`` types are skipped.

    Types are reported in order of first appearance. See the module docstring for why a type
    given on hallucinated items only has no precision.

    >>> per_type_prf([1, 0, 1, 0], [1, 1, 1, 0], ["conflict", "conflict", "baseless", None])
    ... # doctest: +NORMALIZE_WHITESPACE
    {'conflict': TypeScores(items=2, positives=2, caught=1, false_positives=0, recall=0.5,
                            precision=None, f1=None),
     'baseless': TypeScores(items=1, positives=1, caught=1, false_positives=0, recall=1.0,
                            precision=None, f1=None)}
    """
    predicted = np.asarray(predictions)
    truth = np.asarray(labels)
    # precision_recall_f1 validates 0/1 values and equal lengths of predictions and labels
    precision_recall_f1(predicted, truth)
    names = _types(types, truth.shape[0])
    result: dict[str, TypeScores] = {}
    for name in dict.fromkeys(n for n in names if n is not None):
        mask = np.asarray([n == name for n in names])
        pred, gold = predicted[mask].astype(bool), truth[mask].astype(bool)
        positives = int(gold.sum())
        caught = int((pred & gold).sum())
        false_positives = int((pred & ~gold).sum())
        recall = caught / positives if positives else None
        precision: float | None = None
        f1: float | None = None
        if positives < gold.size:  # the type holds correct items: precision is defined
            within = precision_recall_f1(pred, gold)
            precision = within.precision
            f1 = within.f1 if recall is not None else None
        result[name] = TypeScores(
            int(gold.size), positives, caught, false_positives, recall, precision, f1
        )
    return result


def detector_report(
    scores: Sequence[float | None] | np.ndarray,
    labels: ArrayLike,
    *,
    threshold: float,
    types: Sequence[str | None] | None = None,
    base_rates: Sequence[float] = BASE_RATES,
    calls: int | None = None,
    seconds: float | None = None,
) -> DetectorReport:
    """Measure a detector: flag an item when its ``score >= threshold`` (1 = hallucinated).

    A score of ``None`` or ``nan`` is a failed item: it is counted in ``failures`` and left out
    of every metric (never turned into a score). The scored items must hold both classes.
    ``types`` (one per item, ``None`` for none) adds :func:`per_type_prf`; ``calls`` and
    ``seconds`` are the cost of producing ``scores``, over all items.

    >>> report = detector_report([0.9, None, 0.3, 0.2], [1, 1, 1, 0], threshold=0.5)
    >>> report.failures, report.n, report.recall, report.fpr
    (1, 3, 0.5, 0.0)
    """
    if (
        isinstance(threshold, bool)
        or not isinstance(threshold, int | float)
        or not math.isfinite(threshold)
    ):
        raise OptionError(
            "threshold",
            threshold,
            "a finite number",
            "Pass the threshold the detector flags at (score >= threshold).",
        )
    rates = _base_rates(base_rates)
    truth_all = np.asarray(labels)
    if truth_all.ndim != 1:
        raise InputError(f"labels must be one-dimensional, got shape {truth_all.shape}")
    values = _scores_with_failures(scores, truth_all.shape[0])
    scored = ~np.isnan(values)
    failures = int((~scored).sum())
    if not scored.any():
        raise InputError(
            f"all {values.size} scores failed (None or nan); there is nothing to "
            "measure -- fix the detector's failures first"
        )
    for name, value in (("calls", calls), ("seconds", seconds)):
        if value is not None and (isinstance(value, bool) or not value >= 0):
            raise OptionError(name, value, "0 or more, or None when not measured")
    value_kept, truth = values[scored], truth_all[scored]
    predicted = (value_kept >= threshold).astype(np.int64)
    overall = precision_recall_f1(predicted, truth)
    gold = truth.astype(bool)
    negatives = int((~gold).sum())
    tpr = overall.recall
    fpr = float(predicted[~gold].sum()) / negatives if negatives else 0.0
    per_type: dict[str, TypeScores] = {}
    if types is not None:
        kept_types = [
            name for name, keep in zip(_types(types, values.size), scored, strict=True) if keep
        ]
        per_type = per_type_prf(predicted, truth, kept_types)
    return DetectorReport(
        items=int(values.size),
        failures=failures,
        n=int(truth.size),
        positives=int(gold.sum()),
        flagged=int(predicted.sum()),
        threshold=float(threshold),
        precision=overall.precision,
        recall=overall.recall,
        f1=overall.f1,
        balanced_accuracy=balanced_accuracy(predicted, truth),
        roc_auc=roc_auc(value_kept, truth),
        pr_auc=average_precision(value_kept, truth),
        tpr=tpr,
        fpr=fpr,
        at_base_rates=tuple(
            BaseRatePrecision(rate, precision_at_base_rate(tpr, fpr, rate)) for rate in rates
        ),
        per_type=per_type,
        cost=Cost(int(values.size), calls, None if seconds is None else float(seconds)),
    )


def _scores_with_failures(scores: object, size: int) -> np.ndarray:
    # typed ``object``: checked here, whatever the caller passed
    if isinstance(scores, str) or not isinstance(scores, Sequence | np.ndarray):
        raise InputError(
            f"scores must be a sequence of numbers (None for a failed item), not "
            f"a {type(scores).__name__}"
        )
    try:
        values = np.asarray(
            [np.nan if score is None else score for score in scores], dtype=np.float64
        )
    except (TypeError, ValueError) as exc:
        raise InputError(f"scores must be numbers or None (a failed item): {exc}") from None
    if values.ndim != 1:
        raise InputError(f"scores must be one-dimensional, got shape {values.shape}")
    if values.size != size:
        raise InputError(
            f"got {values.size} scores for {size} labels; pass one score per item "
            "(None for an item that failed)"
        )
    if np.isinf(values).any():
        where = np.flatnonzero(np.isinf(values))[:3].tolist()
        raise InputError(f"scores must be finite or None; items {where} are infinite")
    return values


def _types(types: Sequence[str | None], size: int) -> list[str | None]:
    if isinstance(types, str):
        raise InputError("types must be a sequence with one type per item, not one string")
    names = list(types)
    if len(names) != size:
        raise InputError(
            f"got {len(names)} types for {size} items; pass one type per item "
            "(None for an item without a type)"
        )
    for position, name in enumerate(names):
        if name is not None and not isinstance(name, str):
            raise InputError(
                f"type {position} is a {type(name).__name__}; types are strings or None"
            )
    return names


def _base_rates(base_rates: object) -> tuple[float, ...]:
    if isinstance(base_rates, str) or not isinstance(base_rates, Sequence):
        raise OptionError(
            "base_rates", base_rates, "a sequence of rates", f"Pass e.g. base_rates={BASE_RATES}."
        )
    rates = tuple(base_rates)
    for rate in rates:
        if isinstance(rate, bool) or not isinstance(rate, int | float) or not 0.0 < rate < 1.0:
            raise OptionError(
                "base_rates",
                rates,
                "rates strictly between 0 and 1",
                f"Pass e.g. base_rates={BASE_RATES}.",
            )
    return rates
