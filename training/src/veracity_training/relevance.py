"""The reranker's training objective and validation figures (used by the trainer's ``rerank``
task).

The reranker is a cross-encoder over ``[CLS] query [SEP] passage [SEP]`` with one output, a
relevance logit, trained pointwise with binary cross-entropy (as the MS MARCO MiniLM
cross-encoders are): the logit ranks passages, and its sigmoid is P(relevant). A listwise term
(:func:`listwise_loss`, ``TrainConfig.listwise_weight``) can be added: batches are then whole
queries (:func:`query_batches`), and each query's relevant passage must outscore its own hard
negatives, which the pointwise loss can mostly satisfy by recognising random negatives.

>>> ranking_figures(np.array([2.0, -1.0, 0.5]), np.array([1, 0, 0]), ["q", "q", "q"])["val_mrr"]
1.0
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Final

import numpy as np

from veracity.evaluate.classification import roc_auc

__all__ = [
    "RELEVANCE_IDS",
    "RERANK_LABELS",
    "listwise_loss",
    "query_batches",
    "ranking_figures",
    "relevance_loss",
]

#: Output of the reranker head: one logit.
RERANK_LABELS: Final[tuple[str, ...]] = ("relevant",)
#: Data label -> training target.
RELEVANCE_IDS: Final[dict[str, int]] = {"relevant": 1, "not_relevant": 0}


def relevance_loss(torch: Any, logits: Any, labels: Any) -> Any:
    """Binary cross-entropy of the relevance logit (column 0) against 0/1 labels."""
    return torch.nn.functional.binary_cross_entropy_with_logits(logits[:, 0], labels.float())


def listwise_loss(torch: Any, logits: Any, labels: Any, queries: Sequence[str]) -> Any:
    """Softmax cross-entropy over each query's candidates in the batch: minus the log of the
    share of the query's probability mass on its relevant passages. Queries without both a
    relevant and an irrelevant candidate add nothing."""
    scores = logits[:, 0]
    terms = []
    for rows in _by_query(queries).values():
        index = torch.tensor(rows)
        relevant = labels[index] == 1
        if bool(relevant.all()) or not bool(relevant.any()):
            continue
        group = scores[index]
        terms.append(torch.logsumexp(group, 0) - torch.logsumexp(group[relevant], 0))
    return torch.stack(terms).mean() if terms else scores.sum() * 0.0


def query_batches(
    queries: Sequence[str], *, batch_size: int, steps: int, seed: int
) -> list[list[int]]:
    """``steps`` batches of row indices, each of whole queries: a seeded order of the queries,
    epoch after epoch, packed while they fit ``batch_size`` (an epoch's last batch may be
    short; a query with more candidates than ``batch_size`` keeps its first ``batch_size``).

    >>> query_batches(["a", "a", "b", "b", "c"], batch_size=4, steps=3, seed=0)
    [[0, 1, 4], [2, 3], [2, 3, 4]]
    """
    groups = [rows[:batch_size] for rows in _by_query(queries).values()]
    batches: list[list[int]] = []
    current: list[int] = []
    epoch = 0
    while len(batches) < steps:
        for g in np.random.default_rng([seed, epoch, 11]).permutation(len(groups)):
            if len(current) + len(groups[g]) > batch_size:
                batches.append(current)
                current = []
                if len(batches) == steps:
                    break
            current = current + groups[g]
        if current and len(batches) < steps:
            batches.append(current)
        current = []
        epoch += 1
    return batches


def _by_query(queries: Sequence[str]) -> dict[str, list[int]]:
    by_query: dict[str, list[int]] = {}
    for i, query in enumerate(queries):
        by_query.setdefault(query, []).append(i)
    return by_query


def ranking_figures(
    scores: np.ndarray, labels: np.ndarray, queries: Sequence[str]
) -> dict[str, float]:
    """ROC-AUC and accuracy over all pairs, and the mean reciprocal rank of the best relevant
    passage among each query's candidates (queries with no relevant or no other candidate are
    not ranked; ``val_ranked_queries`` says how many were)."""
    reciprocal = []
    for rows in _by_query(queries).values():
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
