"""Fitness of candidate answers: relevance to the query plus a weighted grounding bonus.

``Fitness(relevance, bonus, weight)`` scores every member the same way, seeds included: the
public GAuGE code scores the seeds by relevance only and the offspring with the ROUGE bonus,
mixing two scales in one heap; veracity does not copy that. Relevance is the reranker's raw
logit, as in the code (monoELECTRA's logit). With ``bonus=None`` or ``weight=0`` it is Gen²IR.

>>> from veracity.testing import OverlapRelevanceScorer
>>> fitness = Fitness(OverlapRelevanceScorer(), RougeBonus(n=2), weight=10.0)
>>> [round(s.total, 2) for s in fitness.run("bee dance", ["Bees dance."], ["Bees dance."])]
[11.0]
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Protocol

from veracity import defaults
from veracity._deps import require
from veracity.errors import GenerationError, OptionError
from veracity.evolve.members import FitnessScore
from veracity.rerankers.base import RelevanceScorer
from veracity.verifiers.base import PairScorer

__all__ = ["Bonus", "Fitness", "RougeBonus", "SupportBonus"]

ROUGE_TYPES = ("1", "2", "L")


class Bonus(Protocol):
    """A grounding score in [0, 1] of each candidate against the seed passages."""

    name: str

    def run(self, candidates: Sequence[str], seeds: Sequence[str]) -> list[float]: ...


class RougeBonus:
    """ROUGE-``n`` F1 (rouge-score, Porter stemming) of each candidate against the top ``top``
    seeds joined with spaces; the public code's setting is ROUGE-2 against the top 2."""

    def __init__(self, *, n: str | int = 2, top: int = defaults.EVOLVE_BONUS_SEEDS) -> None:
        if str(n) not in ROUGE_TYPES:
            raise OptionError("n", n, f"one of {', '.join(ROUGE_TYPES)}", "Use n=2 (GAuGE).")
        if top < 1:
            raise OptionError("top", top, "1 or more seeds", "Use top=2 (GAuGE).")
        self.key = f"rouge{n}"
        self.top = top
        self.name = f"{self.key}@top{top}"
        self._scorer: Any = None

    def run(self, candidates: Sequence[str], seeds: Sequence[str]) -> list[float]:
        if self._scorer is None:
            rouge = require("rouge_score.rouge_scorer", extra="evolve",
                            purpose="The ROUGE fitness of answer evolution")
            self._scorer = rouge.RougeScorer([self.key], use_stemmer=True)
        reference = " ".join(seeds[: self.top])
        return [float(self._scorer.score(reference, text)[self.key].fmeasure)
                for text in candidates]


class SupportBonus:
    """The verifier's P(supported) of each candidate by the top ``top`` seeds joined (one batch;
    the verifier windows the long premise). A pair it cannot score raises, never scores 0."""

    def __init__(self, verifier: PairScorer, *, top: int = defaults.EVOLVE_BONUS_SEEDS) -> None:
        if top < 1:
            raise OptionError("top", top, "1 or more seeds", "Use top=2.")
        self.verifier = verifier
        self.top = top
        self.name = f"support:{verifier.model_id}@top{top}"

    def run(self, candidates: Sequence[str], seeds: Sequence[str]) -> list[float]:
        if not candidates:
            return []
        premise = " ".join(seeds[: self.top])
        scores = self.verifier.run([premise] * len(candidates), list(candidates))
        for score in scores.scores:
            if score.error is not None:
                raise GenerationError(f"the verifier could not score a candidate: {score.error}")
        return [float(score.supported) for score in scores.scores]


class Fitness:
    """``relevance(query, candidate) + weight * bonus(candidate, seeds)`` for each candidate."""

    def __init__(self, relevance: RelevanceScorer, bonus: Bonus | None = None, *,
                 weight: float = defaults.EVOLVE_WEIGHT) -> None:
        if weight < 0:
            raise OptionError("weight", weight, "0 or more", "Use weight=10 (GAuGE).")
        self.relevance = relevance
        self.bonus = bonus
        self.weight = weight if bonus is not None else 0.0

    @property
    def name(self) -> str:
        if self.bonus is None or self.weight == 0:
            return f"relevance:{self.relevance.model_id}"
        return f"relevance:{self.relevance.model_id}+{self.weight:g}*{self.bonus.name}"

    def run(self, query: str, seeds: Sequence[str],
            candidates: Sequence[str]) -> list[FitnessScore]:
        """One score per candidate, in order; ``seeds`` are ranked best first."""
        if not candidates:
            return []
        logits = self.relevance.run(query, list(candidates)).logits()
        if self.bonus is None or self.weight == 0:
            return [FitnessScore(logit, 0.0, 0.0) for logit in logits]
        bonuses = self.bonus.run(candidates, seeds)
        return [FitnessScore(logit, bonus, self.weight, self.bonus.name)
                for logit, bonus in zip(logits, bonuses, strict=True)]
