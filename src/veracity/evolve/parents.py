"""The check a model's rewrite must pass to join the population: its parents support it.

A rewrite is scored by the same fitness as every member, but a fitness rewards relevance and
overlap, not faithfulness: a 135M model's "rewrite" may change a number and still score well.
:class:`ParentCheck` verifies each factual sentence of a rewrite against its parents' texts
(joined; the verifier windows a long premise) and rejects the rewrite, naming the first
sentence that falls below ``tau``; a sentence the verifier cannot score rejects it too, with
the verifier's message.

>>> from veracity.testing import TablePairScorer
>>> check = ParentCheck(TablePairScorer({("Bees dance.", "Bees dance."): (0.9, 0.0, 0.1)}))
>>> check.run("Bees dance. Bees sing.", ["Bees dance."])
"sentence 2 ('Bees sing.') is not supported by its parents: P(supported) 0.00 < tau 0.5"
>>> check.run("Bees dance.", ["Bees dance."]) is None
True
"""

from __future__ import annotations

from collections.abc import Sequence

from veracity import defaults
from veracity.errors import InputError, OptionError
from veracity.models.pairs.base import PairScorer
from veracity.models.pairs.scoring import score_groups
from veracity.text.segment import segment_answer

__all__ = ["ParentCheck"]


class ParentCheck:
    """``run(rewrite, parents) -> None`` when every factual sentence of ``rewrite`` is
    supported by its ``parents`` at ``tau``, else the reason it is rejected."""

    def __init__(self, verifier: PairScorer, *, tau: float = defaults.CITATION_TAU) -> None:
        if not isinstance(verifier, PairScorer):
            raise InputError(f"verifier must be a PairScorer, got {type(verifier).__name__}")
        if isinstance(tau, bool) or not isinstance(tau, int | float) or not 0 <= tau <= 1:
            raise OptionError("tau", tau, "a number from 0 to 1")
        self.verifier = verifier
        self.tau = float(tau)

    def load(self) -> ParentCheck:
        self.verifier.load()
        return self

    def run(self, rewrite: str, parents: Sequence[str]) -> str | None:
        premise = " ".join(parents)
        claims = [s.claim for s in segment_answer(rewrite) if s.factual]
        if not claims:
            return "the rewrite states nothing to check against its parents"
        scored = score_groups(self.verifier, [[(premise, claim)] for claim in claims])
        for number, (claim, [score]) in enumerate(zip(claims, scored.groups, strict=True), 1):
            if score.error is not None:
                return (
                    f"sentence {number} ({claim!r}) could not be checked against its "
                    f"parents: {score.error}"
                )
            if score.supported < self.tau:
                return (
                    f"sentence {number} ({claim!r}) is not supported by its parents: "
                    f"P(supported) {score.supported:.2f} < tau {self.tau:g}"
                )
        return None
