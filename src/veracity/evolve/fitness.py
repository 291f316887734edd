"""Fitness of candidate answers: relevance to the query plus a weighted grounding bonus.

``Fitness(relevance, bonus, weight)`` scores every member the same way, seeds included: the
public GAuGE code scores the seeds by relevance only and the offspring with the ROUGE bonus,
mixing two scales in one heap; veracity does not copy that. Relevance is the reranker's raw
logit, as in the code (monoELECTRA's logit). With ``bonus=None`` or ``weight=0`` it is Gen²IR.

A candidate whose bonus cannot be computed (the verifier raises
:class:`~veracity.errors.ClaimTooLongError` for a rewrite too long for its window, or cannot
score the pair) gets a :meth:`FitnessScore.failure` naming why; the other candidates of the
batch keep their scores, so one bad rewrite never stops a run.

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
from veracity.errors import GenerationError, OptionError, VeracityError
from veracity.evolve.members import FitnessScore
from veracity.models.pairs.base import PairScorer
from veracity.models.pairs.scoring import score_groups
from veracity.models.relevance.base import RelevanceScorer
from veracity.text.segment import segment_answer

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
            rouge = require(
                "rouge_score.rouge_scorer",
                extra="evolve",
                purpose="The ROUGE fitness of answer evolution",
            )
            self._scorer = rouge.RougeScorer([self.key], use_stemmer=True)
        reference = " ".join(seeds[: self.top])
        return [
            float(self._scorer.score(reference, text)[self.key].fmeasure) for text in candidates
        ]


class SupportBonus:
    """The verifier's support of each candidate by the top ``top`` seeds joined: the mean
    P(supported) of its factual sentences (one claim per sentence, as the grounded-answer
    checks verify it; the verifier windows the long premise), 0 for a candidate with none.
    All sentences of all candidates go in one batch. A sentence it cannot score (too long for
    its window) raises, never scores 0; :class:`Fitness` turns that into a failure of that
    candidate alone."""

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
        scored = score_groups(
            self.verifier, [[(premise, claim) for claim in _claims(text)] for text in candidates]
        )
        bonuses = []
        for group in scored.groups:
            errors = [score.error for score in group if score.error is not None]
            if errors:
                raise GenerationError(f"the verifier could not score a sentence: {errors[0]}")
            bonuses.append(sum(score.supported for score in group) / len(group) if group else 0.0)
        return bonuses


def _claims(text: str) -> list[str]:
    """The factual sentences of ``text``, markers removed (as the citation checker reads it)."""
    return [sentence.claim for sentence in segment_answer(text) if sentence.factual]


class Fitness:
    """``relevance(query, candidate) + weight * bonus(candidate, seeds)`` for each candidate."""

    def __init__(
        self,
        relevance: RelevanceScorer,
        bonus: Bonus | None = None,
        *,
        weight: float = defaults.EVOLVE_WEIGHT,
    ) -> None:
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

    def run(
        self, query: str, seeds: Sequence[str], candidates: Sequence[str]
    ) -> list[FitnessScore]:
        """One score per candidate, in order; ``seeds`` are ranked best first."""
        if not candidates:
            return []
        logits = self.relevance.run(query, list(candidates)).logits()
        if self.bonus is None or self.weight == 0:
            return [FitnessScore(logit, 0.0, 0.0) for logit in logits]
        bonus = self.bonus
        try:
            bonuses: list[float | str] = list(bonus.run(candidates, seeds))
        except VeracityError:
            # One candidate spoils the batch: score them one at a time, the one that still
            # raises becomes a failure with the bonus's own message.
            bonuses = [_one(bonus, text, seeds) for text in candidates]
        if len(bonuses) != len(candidates):
            raise GenerationError(
                f"the bonus {bonus.name} returned {len(bonuses)} scores for "
                f"{len(candidates)} candidates; it must return one each"
            )
        return [
            FitnessScore.failure(value, relevance=logit, weight=self.weight, bonus_name=bonus.name)
            if isinstance(value, str)
            else FitnessScore(logit, value, self.weight, bonus.name)
            for logit, value in zip(logits, bonuses, strict=True)
        ]


def _one(bonus: Bonus, text: str, seeds: Sequence[str]) -> float | str:
    """The bonus of one candidate, or the message of the error it raised."""
    try:
        [value] = bonus.run([text], seeds)
    except VeracityError as exc:
        return f"{bonus.name} could not score this candidate: {exc}"
    return value
