"""The ``RelevanceScorer`` protocol: how relevant is each passage to this query?

A relevance scorer is a cross-encoder read as ``[CLS] query [SEP] passage [SEP]`` that gives one
logit per passage; its sigmoid is P(relevant). Passages longer than the window are never cut:
they are split into overlapping sentence windows (the verifier's
:class:`~veracity.models.pairs.windows.EvidenceSelector` with ``strategy="slide"``) and scored by
their best window, which each :class:`~veracity.types.RelevanceScore` records. The same protocol
scores (query, generated answer) pairs for answer evolution.

>>> from veracity.testing import OverlapRelevanceScorer
>>> scores = OverlapRelevanceScorer().run("bee dance", ["Bees dance.", "Ants march."])
>>> [round(score.relevance, 2) for score in scores.scores]
[0.73, 0.5]
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, Protocol, runtime_checkable

import numpy as np

from veracity.errors import ClaimTooLongError, InputError
from veracity.models.pairs.hf import length_batches
from veracity.models.pairs.windows import EvidenceSelector, Window
from veracity.types import RelevanceScore, RelevanceScores

__all__ = ["RelevanceScorer", "batched_logits", "check_passages", "score_windows"]


@runtime_checkable
class RelevanceScorer(Protocol):
    """Scores passages for one query: one logit each, in input order, batched, deterministic."""

    model_id: str

    def load(self) -> RelevanceScorer: ...

    def run(self, query: str, passages: Sequence[str]) -> RelevanceScores: ...


def check_passages(query: object, passages: object) -> tuple[str, list[str]]:
    """``(query, passages)`` checked: a query with some text and a sequence of strings."""
    if not isinstance(query, str):
        raise InputError(f"the query must be a string, got {type(query).__name__}")
    if not query.strip():
        raise InputError(f"the query {query!r} is empty; pass some words to rank passages by")
    if isinstance(passages, str) or not isinstance(passages, Sequence):
        raise InputError(
            "passages must be a sequence of strings, not "
            f"{type(passages).__name__}: wrap a single passage as run(query, [text])"
        )
    for i, passage in enumerate(passages):
        if not isinstance(passage, str):
            raise InputError(f"passage {i} is a {type(passage).__name__}, not a string")
    return query, list(passages)


def score_windows(
    selector: EvidenceSelector,
    query: str,
    passages: Sequence[str],
    logits_of: Callable[[list[tuple[str, str]]], np.ndarray],
) -> tuple[RelevanceScore, ...]:
    """One score per passage, from its best window; ``logits_of`` maps (query, window text)
    pairs to one logit each."""
    owners: list[int] = []
    windows: list[Window] = []
    for index, passage in enumerate(passages):
        try:
            found = selector.run(passage, query)
        except ClaimTooLongError as exc:
            raise InputError(
                f"the query has {exc.tokens} tokens but the reranker allows at most "
                f"{exc.budget} of its {selector.max_tokens}-token window for it: shorten the "
                f"query (it starts {query[:60]!r})"
            ) from exc
        owners.extend([index] * len(found))
        windows.extend(found)
    logits = logits_of([(query, window.text) for window in windows]) if windows else np.zeros(0)
    best: dict[int, int] = {}
    counts: dict[int, int] = {}
    for row, owner in enumerate(owners):
        counts[owner] = counts.get(owner, 0) + 1
        if owner not in best or logits[row] > logits[best[owner]]:  # ties: the first window
            best[owner] = row
    return tuple(
        RelevanceScore(float(logits[best[i]]), windows[best[i]].span, counts[i])
        for i in range(len(passages))
    )


def batched_logits(
    encodings: Sequence[Any], batch_size: int, run_batch: Callable[[list[Any]], np.ndarray]
) -> np.ndarray:
    """Column 0 of ``run_batch`` over ``encodings`` in batches of similar length (less padding,
    the same scores), back in input order."""
    logits = np.zeros(len(encodings), dtype=np.float64)
    for batch in length_batches(encodings, batch_size):
        logits[batch] = run_batch([encodings[i] for i in batch])[:, 0]
    return logits
