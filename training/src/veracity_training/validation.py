"""Validation during a run, on held-out training rows (never on evaluation data): the verifier's
three-way accuracy, balanced accuracy and ROC AUC of P(supported), or the reranker's ranking
figures per query (:func:`veracity_training.relevance.ranking_figures`)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from veracity.evaluate.classification import balanced_accuracy, roc_auc
from veracity_training._deps import require
from veracity_training.config import NOT_SUPPORTED
from veracity_training.relevance import ranking_figures
from veracity_training.rows import Row

__all__ = ["BATCH", "validation_figures"]

#: Rows per forward pass.
BATCH = 64


def validation_figures(
    model: Any,
    rows: Sequence[Row],
    encode: Callable[[Any, Sequence[Row]], tuple[dict[str, Any], Any]],
    *,
    task: str,
) -> dict[str, float]:
    """The figures of ``model`` (left in eval mode) on ``rows``, encoded by ``encode(torch,
    rows)`` in batches of :data:`BATCH`."""
    torch = require("torch", purpose="training the verifier")
    model.eval()
    probabilities = []
    rerank = task == "rerank"
    with torch.no_grad():
        for first in range(0, len(rows), BATCH):
            features, _ = encode(torch, rows[first : first + BATCH])
            logits = model(**features).logits
            probabilities.append((logits if rerank else torch.softmax(logits, -1)).numpy())
    probs = np.concatenate(probabilities)
    if rerank:
        return ranking_figures(
            probs[:, 0], np.array([r.label for r in rows]), [r.hypothesis for r in rows]
        )
    labels = np.array([r.label for r in rows])
    supported = (labels == 0).astype(int)
    three = labels < NOT_SUPPORTED
    return {
        "val_accuracy_3way": float((probs[three].argmax(1) == labels[three]).mean()),
        "val_balanced_accuracy": balanced_accuracy((probs[:, 0] >= 0.5).astype(int), supported),
        "val_auc": roc_auc(probs[:, 0], supported),
    }
