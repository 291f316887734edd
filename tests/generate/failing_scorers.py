"""Scorers that fail on purpose, shared by the generate tests (a plain module, not conftest, so
that importing it never picks up another folder's conftest)."""

from __future__ import annotations

from collections.abc import Sequence

from veracity.errors import ClaimTooLongError
from veracity.types import PairScore, PairScores, Span


class FailingScorer:
    """Scores like a table, but returns a failure for pairs whose claim contains ``fail_on``."""

    model_id = "failing"

    def __init__(
        self, table: dict[tuple[str, str], tuple[float, float, float]], fail_on: str
    ) -> None:
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
                scores.append(
                    PairScore.failure("judge reply 'maybe' is not a label", window=window)
                )
            else:
                scores.append(
                    PairScore(*self.table.get((premise, claim), (0.0, 0.0, 1.0)), window=window)
                )
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
        return PairScores(
            tuple(PairScore(0.9, 0.0, 0.1, window=Span(0, len(p))) for p in premises),
            self.model_id,
            "1",
        )


class WordBudgetScorer:
    """Reads at most ``budget`` words of a claim (raising ClaimTooLongError with the counts, as
    the shipped verifier does with its tokens); a claim is supported (0.9) when every word of it
    is in the premise, else neither (0.1 supported), and contradicted (0.8) when it holds
    ``never``."""

    model_id = "word-budget"

    def __init__(self, budget: int) -> None:
        self.budget = budget
        self.calls: list[int] = []

    def load(self) -> WordBudgetScorer:
        return self

    def run(self, premises: Sequence[str], hypotheses: Sequence[str]) -> PairScores:
        self.calls.append(len(premises))
        for claim in hypotheses:
            if len(claim.split()) > self.budget:
                raise ClaimTooLongError(
                    f"the claim has {len(claim.split())} tokens but the verifier allows at "
                    f"most {self.budget}",
                    tokens=len(claim.split()),
                    budget=self.budget,
                )
        scores = []
        for premise, claim in zip(premises, hypotheses, strict=True):
            words = {w.strip(".,;").lower() for w in premise.split()}
            claimed = [w.strip(".,;").lower() for w in claim.split()]
            if "never" in claimed:
                triple = (0.05, 0.8, 0.15)
            elif all(w in words for w in claimed):
                triple = (0.9, 0.0, 0.1)
            else:
                triple = (0.1, 0.0, 0.9)
            scores.append(PairScore(*triple, window=Span(0, len(premise))))
        return PairScores(tuple(scores), self.model_id, "1")
