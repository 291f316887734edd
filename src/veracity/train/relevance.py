"""The reranker's training objective and validation figures (used by the trainer's ``rerank``
task).

The reranker is a cross-encoder over ``[CLS] query [SEP] passage [SEP]`` with one output, a
relevance logit, trained pointwise with binary cross-entropy (as the MS MARCO MiniLM
cross-encoders are): the logit ranks passages, and its sigmoid is P(relevant).

>>> ranking_figures(np.array([2.0, -1.0, 0.5]), np.array([1, 0, 0]), ["q", "q", "q"])["val_mrr"]
1.0
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Final

import numpy as np

from veracity.evaluate.classification import roc_auc

__all__ = ["RELEVANCE_IDS", "RERANK_LABELS", "ranking_figures", "relevance_loss"]

#: Output of the reranker head: one logit.
RERANK_LABELS: Final[tuple[str, ...]] = ("relevant",)
#: Data label -> training target.
RELEVANCE_IDS: Final[dict[str, int]] = {"relevant": 1, "not_relevant": 0}


def relevance_loss(torch: Any, logits: Any, labels: Any) -> Any:
    """Binary cross-entropy of the relevance logit (column 0) against 0/1 labels."""
    return torch.nn.functional.binary_cross_entropy_with_logits(logits[:, 0], labels.float())


def ranking_figures(
    scores: np.ndarray, labels: np.ndarray, queries: Sequence[str]
) -> dict[str, float]:
    """ROC-AUC and accuracy over all pairs, and the mean reciprocal rank of the best relevant
    passage among each query's candidates (queries with no relevant or no other candidate are
    not ranked; ``val_ranked_queries`` says how many were)."""
    by_query: dict[str, list[int]] = {}
    for i, query in enumerate(queries):
        by_query.setdefault(query, []).append(i)
    reciprocal = []
    for rows in by_query.values():
        relevant = [i for i in rows if labels[i] == 1]
        if not relevant or len(relevant) == len(rows):
            continue
        best = max(scores[i] for i in relevant)
        # ties count against the model: a constant scorer must not look perfect
        rank = 1 + sum(1 for i in rows if labels[i] != 1 and scores[i] >= best)
        reciprocal.append(1.0 / rank)
    return {
        "val_auc": roc_auc(scores, labels),
        "val_accuracy": float(((scores > 0).astype(int) == labels).mean()),
        "val_mrr": float(np.mean(reciprocal)) if reciprocal else float("nan"),
        "val_ranked_queries": float(len(reciprocal)),
    }
