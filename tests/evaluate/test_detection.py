"""Hand-computed cases for the detector report and per-type results."""

from __future__ import annotations

import dataclasses
import json
import math

import pytest

import veracity.evaluate as evaluate
from veracity.errors import InputError, OptionError
from veracity.evaluate.detection import (
    BASE_RATES,
    BaseRatePrecision,
    Cost,
    TypeScores,
    detector_report,
    per_type_prf,
)

pytestmark = pytest.mark.unit

# At threshold 0.5 the first four are flagged: tp = 3 (items 0, 1, 3), fp = 1 (item 2),
# fn = 1 (item 5), tn = 3.
SCORES = [0.9, 0.8, 0.7, 0.6, 0.4, 0.3, 0.2, 0.1]
LABELS = [1, 1, 0, 1, 0, 1, 0, 0]
KINDS: list[str | None] = ["conflict", "baseless", None, "conflict", None, "baseless", None, None]


def test_threshold_metrics() -> None:
    report = detector_report(SCORES, LABELS, threshold=0.5)
    assert (report.items, report.n, report.positives, report.flagged) == (8, 8, 4, 4)
    assert report.failures == 0
    assert report.threshold == 0.5
    assert report.precision == pytest.approx(0.75)
    assert report.recall == pytest.approx(0.75)
    assert report.f1 == pytest.approx(0.75)
    assert report.tpr == pytest.approx(0.75)
    assert report.fpr == pytest.approx(0.25)
    assert report.balanced_accuracy == pytest.approx(0.75)
    assert report.base_rate == 0.5


def test_ranking_metrics() -> None:
    report = detector_report(SCORES, LABELS, threshold=0.5)
    # positive > negative in 4 + 4 + 3 + 2 of the 16 pairs
    assert report.roc_auc == pytest.approx(13 / 16)
    # precision at each positive, best first: 1, 1, 3/4, 4/6
    assert report.pr_auc == pytest.approx((1 + 1 + 3 / 4 + 4 / 6) / 4)


def test_precision_at_base_rates_uses_measured_tpr_and_fpr() -> None:
    report = detector_report(SCORES, LABELS, threshold=0.5)
    assert [p.base_rate for p in report.at_base_rates] == list(BASE_RATES)
    # tpr = 0.75, fpr = 0.25: 0.75p / (0.75p + 0.25(1 - p))
    expected = [0.0375 / (0.0375 + 0.2375), 0.075 / (0.075 + 0.225), 0.15 / (0.15 + 0.2)]
    assert [p.precision for p in report.at_base_rates] == pytest.approx(expected)
    one = detector_report(SCORES, LABELS, threshold=0.5, base_rates=(0.1,))
    [at_tenth] = one.at_base_rates
    assert isinstance(at_tenth, BaseRatePrecision)
    assert at_tenth.base_rate == 0.1
    assert at_tenth.precision == pytest.approx(0.25)


def test_threshold_is_inclusive() -> None:
    report = detector_report(SCORES, LABELS, threshold=0.6)
    assert (report.flagged, report.recall) == (4, 0.75)
    above = detector_report(SCORES, LABELS, threshold=0.61)
    assert (above.flagged, above.recall) == (3, 0.5)


def test_cost_in_total_and_per_item() -> None:
    report = detector_report(SCORES, LABELS, threshold=0.5, calls=16, seconds=4.0)
    assert report.cost == Cost(8, 16, 4.0)
    assert report.cost.calls_per_item == 2.0
    assert report.cost.seconds_per_item == 0.5
    unmeasured = detector_report(SCORES, LABELS, threshold=0.5).cost
    assert (unmeasured.calls_per_item, unmeasured.seconds_per_item) == (None, None)


def test_failed_items_are_counted_and_left_out() -> None:
    report = detector_report(
        [*SCORES, None, math.nan], [*LABELS, 1, 0], threshold=0.5, calls=20, seconds=5.0
    )
    clean = detector_report(SCORES, LABELS, threshold=0.5)
    assert (report.items, report.failures, report.n) == (10, 2, 8)
    assert (report.precision, report.recall, report.roc_auc, report.pr_auc) == (
        clean.precision,
        clean.recall,
        clean.roc_auc,
        clean.pr_auc,
    )
    # every item spent its calls, failed ones too
    assert report.cost.calls_per_item == 2.0


def test_per_type_recall_for_types_on_hallucinations_only() -> None:
    report = detector_report(SCORES, LABELS, threshold=0.5, types=KINDS)
    assert list(report.per_type) == ["conflict", "baseless"]
    assert report.per_type["conflict"] == TypeScores(
        items=2, positives=2, caught=2, false_positives=0, recall=1.0, precision=None, f1=None
    )
    assert report.per_type["baseless"] == TypeScores(
        items=2, positives=2, caught=1, false_positives=0, recall=0.5, precision=None, f1=None
    )
    assert detector_report(SCORES, LABELS, threshold=0.5).per_type == {}


def test_per_type_precision_where_types_partition_the_items() -> None:
    tasks = ["qa"] * 4 + ["sum"] * 4
    result = per_type_prf([1, 1, 1, 1, 0, 0, 0, 0], LABELS, tasks)
    # qa: labels 1 1 0 1, all flagged; sum: labels 0 1 0 0, none flagged
    qa = result["qa"]
    assert (qa.items, qa.positives, qa.caught, qa.false_positives, qa.recall) == (4, 3, 3, 1, 1.0)
    assert qa.precision == pytest.approx(0.75)
    assert qa.f1 == pytest.approx(6 / 7)
    assert result["sum"] == TypeScores(4, 1, 0, 0, 0.0, 0.0, 0.0)


def test_per_type_without_positives_has_no_recall() -> None:
    result = per_type_prf([1, 0, 1], [0, 0, 1], ["easy", "easy", "hard"])
    assert result["easy"] == TypeScores(2, 0, 0, 1, None, 0.0, None)
    assert result["hard"] == TypeScores(1, 1, 1, 0, 1.0, None, None)


def test_per_type_drops_failed_items_with_their_types() -> None:
    report = detector_report(
        [0.9, None, 0.1, 0.8],
        [1, 1, 0, 0],
        threshold=0.5,
        types=["conflict", "conflict", None, None],
    )
    assert report.per_type["conflict"].items == 1
    assert report.per_type["conflict"].recall == 1.0


def test_to_dict_is_json_ready() -> None:
    report = detector_report(SCORES, LABELS, threshold=0.5, types=KINDS, calls=16, seconds=4.0)
    data = json.loads(json.dumps(report.to_dict()))
    assert data["precision"] == pytest.approx(0.75)
    assert data["roc_auc"] == pytest.approx(13 / 16)
    assert data["failures"] == 0
    assert data["precision_at_base_rate"][1] == {"base_rate": 0.1, "precision": pytest.approx(0.25)}
    assert data["per_type"]["baseless"]["recall"] == 0.5
    assert data["per_type"]["baseless"]["precision"] is None
    assert data["cost"] == {
        "calls": 16,
        "calls_per_item": 2.0,
        "seconds": 4.0,
        "seconds_per_item": 0.5,
    }
    with pytest.raises(dataclasses.FrozenInstanceError):
        report.n = 3  # type: ignore[misc]


@pytest.mark.parametrize(
    ("scores", "labels", "match"),
    [
        ([0.1, 0.2], [1, 0, 1], "2 scores for 3 labels"),
        ([0.1, math.inf], [1, 0], "infinite"),
        ([None, math.nan], [1, 0], "all 2 scores failed"),
        ([0.1, 0.2], [1, 1], "both classes"),
        ([0.1, 0.2], [1, 2], "0 or 1"),
        (["high", 0.2], [1, 0], "numbers or None"),
    ],
)
def test_bad_inputs(scores: list[object], labels: list[int], match: str) -> None:
    with pytest.raises(InputError, match=match):
        detector_report(scores, labels, threshold=0.5)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("options", "name"),
    [
        ({"threshold": math.nan}, "threshold"),
        ({"threshold": 0.5, "base_rates": (0.0,)}, "base_rates"),
        ({"threshold": 0.5, "base_rates": (1.0,)}, "base_rates"),
        ({"threshold": 0.5, "calls": -1}, "calls"),
        ({"threshold": 0.5, "seconds": math.nan}, "seconds"),
    ],
)
def test_bad_options(options: dict[str, object], name: str) -> None:
    with pytest.raises(OptionError, match=rf"^{name}="):
        detector_report(SCORES, LABELS, **options)  # type: ignore[arg-type]


def test_types_must_match_items() -> None:
    with pytest.raises(InputError, match="3 types for 8 items"):
        detector_report(SCORES, LABELS, threshold=0.5, types=["a", "b", "c"])
    with pytest.raises(InputError, match="not one string"):
        per_type_prf([1, 0], [1, 0], "ab")


def test_package_exports() -> None:
    assert {
        "detector_report",
        "per_type_prf",
        "DetectorReport",
        "TypeScores",
        "roc_auc",
        "ndcg_at_k",
    } <= set(evaluate.__all__)
    assert all(hasattr(evaluate, name) for name in evaluate.__all__)
