"""Fakes for tests: models that behave exactly as a test tells them to.

>>> scorer = TablePairScorer({("The sky is blue.", "The sky is blue."): (0.9, 0.05, 0.05)})
>>> scorer.run(["The sky is blue."], ["The sky is blue."]).scores[0].supported
0.9
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from veracity.errors import InputError
from veracity.types import PairScore, PairScores, Span
from veracity.verify.base import check_pairs

__all__ = ["TablePairScorer"]


class TablePairScorer:
    """A ``PairScorer`` that looks each pair up in a table of (supported, contradicted, neither).

    Pairs missing from the table get ``default``; with ``default=None`` they raise, so a test
    notices a pair it did not expect. ``calls`` records every batch, to check batching.
    """

    model_id = "table"

    def __init__(
        self,
        table: Mapping[tuple[str, str], tuple[float, float, float]],
        *,
        default: tuple[float, float, float] | None = (0.0, 0.0, 1.0),
    ) -> None:
        self.table = dict(table)
        self.default = default
        self.calls: list[int] = []

    def load(self) -> TablePairScorer:
        return self

    def run(self, premises: Sequence[str], hypotheses: Sequence[str]) -> PairScores:
        check_pairs(premises, hypotheses)
        self.calls.append(len(premises))
        scores = []
        for premise, hypothesis in zip(premises, hypotheses, strict=True):
            probs = self.table.get((premise, hypothesis), self.default)
            if probs is None:
                raise InputError(f"TablePairScorer has no row for {(premise, hypothesis)!r}")
            scores.append(PairScore(*probs, window=Span(0, len(premise))))
        return PairScores(tuple(scores), self.model_id, "0")
