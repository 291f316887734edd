"""GAuGE: genetic evolution of grounded answers (Kulkarni et al., Gen-IR@SIGIR 2024).

Seeds (reranked passages) are bred by LLM operators (:mod:`.operators`) under a fitness that
adds a grounding bonus to relevance (:mod:`.fitness`); :class:`Evolver` runs the elitist loop
and returns an :class:`EvolutionResult` with the whole trace. Gen²IR is the same loop with a
relevance-only :class:`Fitness`; :class:`OneShotRAG` is the one-prompt baseline.
:class:`GroundedEvolver` checks the evolved answer sentence by sentence against the seeds, as
``veracity ask`` checks a model's answer.

>>> from veracity.testing import OverlapRelevanceScorer, ScriptedChatModel
>>> chat = ScriptedChatModel(["Bees dance to tell others where food is."] * 12)
>>> fitness = Fitness(OverlapRelevanceScorer(), RougeBonus(n=2, top=2), weight=10.0)
>>> result = Evolver(chat, fitness, EvolveConfig(max_iterations=1)).run(
...     "why do bees dance", ["Bees dance to tell where food is.", "Ants march."])
>>> result.calls, len(result.members), result.stop_reason
(12, 14, 'max_iterations')
"""

from veracity.evolve.baseline import OneShotRAG
from veracity.evolve.fitness import Bonus, Fitness, RougeBonus, SupportBonus
from veracity.evolve.grounded import EvolvedAnswer, GroundedEvolver, check_member
from veracity.evolve.loop import EvolveConfig, Evolver
from veracity.evolve.members import (
    EvolutionResult,
    Failure,
    FitnessScore,
    Generation,
    Member,
    StopReason,
)
from veracity.evolve.operators import OPERATORS, Operator, parse_rewrite

__all__ = [
    "OPERATORS",
    "Bonus",
    "EvolutionResult",
    "EvolveConfig",
    "EvolvedAnswer",
    "Evolver",
    "Failure",
    "Fitness",
    "FitnessScore",
    "Generation",
    "GroundedEvolver",
    "Member",
    "OneShotRAG",
    "Operator",
    "RougeBonus",
    "StopReason",
    "SupportBonus",
    "check_member",
    "parse_rewrite",
]
