"""Measuring detectors, verifiers and retrievers: classification, detection and ranking metrics.

A detector is a measurement and is reported like one: :func:`detector_report` gathers precision,
recall, F1, balanced accuracy, ROC-AUC, PR-AUC, TPR and FPR at a stated threshold, precision at
stated base rates, recall per hallucination type, failures and cost.

>>> report = detector_report([0.9, 0.8, 0.3, 0.2], [1, 0, 1, 0], threshold=0.5)
>>> report.balanced_accuracy, report.pr_auc
(0.5, 0.8333333333333333)
"""

from veracity.evaluate.classification import (
    THRESHOLD_METRICS,
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
from veracity.evaluate.detection import (
    BASE_RATES,
    BaseRatePrecision,
    Cost,
    DetectorReport,
    TypeScores,
    detector_report,
    per_type_prf,
)
from veracity.evaluate.retrieval import dcg, ndcg_at_k, recall_at_k

__all__ = [
    "BASE_RATES",
    "THRESHOLD_METRICS",
    "BaseRatePrecision",
    "Cost",
    "CrossThreshold",
    "DetectorReport",
    "PrecisionRecallF1",
    "ThresholdChoice",
    "TypeScores",
    "average_precision",
    "balanced_accuracy",
    "best_threshold",
    "cross_threshold",
    "dcg",
    "detector_report",
    "ndcg_at_k",
    "per_type_prf",
    "precision_at_base_rate",
    "precision_recall_f1",
    "recall_at_k",
    "roc_auc",
]
