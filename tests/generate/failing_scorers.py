"""Scorers that fail on purpose, shared by the generate tests (a plain module, not conftest, so
that importing it never picks up another folder's conftest)."""

from __future__ import annotations

from collections.abc import Sequence

from veracity.errors import ClaimTooLongError
from veracity.types import PairScore, PairScores, Span


class FailingScorer:
    """Scores like a table, but returns a failure for pairs whose claim contains ``fail_on``."""

    model_id = "failing"

    def __init__(self, table: dict[tuple[str, str], tuple[float, float, float]],
                 fail_on: str) -> None:
        self.table = table
        self.fail_on = fail_on
        self.calls: list[int] = []

    def load(self) -> FailingScorer:
        return self

    def run(self, premises: Sequence[str], hypotheses: Sequence[str]) -> PairScores:
        self.calls.append(len(premises))
        scores = []
        for premise, claim in zip(premises, hypotheses, strict=True):
            window = Span(0, len(premise))
            if self.fail_on in claim:
                scores.append(PairScore.failure("judge reply 'maybe' is not a label",
                                                window=window))
            else:
                scores.append(PairScore(*self.table.get((premise, claim), (0.0, 0.0, 1.0)),
                                        window=window))
        return PairScores(tuple(scores), self.model_id, "1")


class ShortWindowScorer:
    """Raises ClaimTooLongError for a batch holding any claim longer than ``limit`` characters."""

    model_id = "short-window"

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.calls: list[int] = []

    def load(self) -> ShortWindowScorer:
        return self

    def run(self, premises: Sequence[str], hypotheses: Sequence[str]) -> PairScores:
        self.calls.append(len(premises))
        if any(len(claim) > self.limit for claim in hypotheses):
            raise ClaimTooLongError(f"a claim is longer than {self.limit} characters")
        return PairScores(tuple(PairScore(0.9, 0.0, 0.1, window=Span(0, len(p)))
                                for p in premises), self.model_id, "1")
