"""Score (premise, claim) pairs window by window and keep each pair's best window.

Shared by every cross-encoder backend: the backend supplies ``score_batch``, which maps a list of
(evidence text, claim) pairs to an ``(n, 3)`` array of probabilities in the order supported,
contradicted, neither. A backend may add columns of its own after those three (the embedded
verifier adds the claim's alignment with the window); :func:`score_windows` returns them for each
pair's best window.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np

from veracity.models.pairs.windows import EvidenceSelector, Window
from veracity.types import PairScore

__all__ = ["BatchScorer", "score_pairs", "score_windows"]

BatchScorer = Callable[[list[tuple[str, str]]], np.ndarray]


def score_pairs(
    selector: EvidenceSelector,
    premises: Sequence[str],
    hypotheses: Sequence[str],
    score_batch: BatchScorer,
) -> list[PairScore]:
    """One :class:`PairScore` per pair, from the window with the highest P(supported)."""
    return score_windows(selector, premises, hypotheses, score_batch)[0]


def score_windows(
    selector: EvidenceSelector,
    premises: Sequence[str],
    hypotheses: Sequence[str],
    score_batch: BatchScorer,
) -> tuple[list[PairScore], np.ndarray]:
    """:func:`score_pairs` and, per pair, the best window's whole row of ``score_batch``."""
    owners: list[int] = []
    windows: list[Window] = []
    pairs: list[tuple[str, str]] = []
    for index, (premise, hypothesis) in enumerate(zip(premises, hypotheses, strict=True)):
        for window in selector.run(premise, hypothesis):
            owners.append(index)
            windows.append(window)
            pairs.append((window.text, hypothesis))
    probabilities = score_batch(pairs) if pairs else np.zeros((0, 3))
    rows: list[int] = []
    best: dict[int, int] = {}
    counts: dict[int, int] = {}
    for row, owner in enumerate(owners):
        counts[owner] = counts.get(owner, 0) + 1
        if owner not in best or probabilities[row, 0] > probabilities[best[owner], 0]:
            best[owner] = row
    results = []
    for index in range(len(premises)):
        row = best[index]
        rows.append(row)
        first = owners.index(index)
        results.append(
            PairScore(
                supported=float(probabilities[row, 0]),
                contradicted=float(probabilities[row, 1]),
                neither=float(probabilities[row, 2]),
                window=windows[row].span,
                window_index=row - first,
                windows=counts[index],
                evidence=windows[row].spans,
            )
        )
    return results, probabilities[rows].reshape(len(rows), probabilities.shape[1])
