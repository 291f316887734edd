"""GAuGE: genetic evolution of grounded answers (Kulkarni et al., Gen-IR@SIGIR 2024).

Seeds (reranked passages) are bred by LLM operators (:mod:`.operators`), or, with no generative
model, by sentence operators that recombine, trim and compress the seeds' own sentences
(:mod:`.sentences`), under a fitness that adds a grounding bonus to relevance (:mod:`.fitness`);
:class:`Evolver` runs the elitist loop and returns an :class:`EvolutionResult` with the whole
trace. A model's rewrite joins only when its parents support each of its sentences
(:class:`ParentCheck`). Gen²IR is the same loop with a
relevance-only :class:`Fitness`; :class:`OneShotRAG` is the one-prompt baseline.
:class:`GroundedEvolver` checks the evolved answer sentence by sentence against the seeds, as
``veracity ask`` checks a model's answer; :func:`open_evolver` builds the whole pipeline from an
:class:`~veracity.config.EvolveConfig` (what ``veracity evolve`` runs). The genetic search's
settings are :class:`~veracity.config.GeneticConfig`.

>>> from veracity.testing import OverlapRelevanceScorer
>>> fitness = Fitness(OverlapRelevanceScorer(), RougeBonus(n=2, top=2), weight=10.0)
>>> result = Evolver(None, fitness, GeneticConfig(max_iterations=3)).run(
...     "why do honeybees dance", ["Honeybees dance to show where food is. Wax is soft.",
...                                "Bees dance in the dark hive. Wasps build paper nests."])
>>> result.best.text
'Honeybees dance to show where food is. Bees dance in the dark hive. Wax is soft.'
>>> [gene.seed for gene in result.best.genes], result.best.operator, result.calls
([0, 1, 0], 'cross', 0)
"""

from veracity.config import GeneticConfig
from veracity.evolve.baseline import OneShotRAG
from veracity.evolve.fitness import Bonus, Fitness, RougeBonus, SupportBonus
from veracity.evolve.grounded import EvolvedAnswer, GroundedEvolver, check_member
from veracity.evolve.loop import Evolver
from veracity.evolve.members import (
    EvolutionResult,
    Failure,
    FitnessScore,
    Generation,
    Member,
    StopReason,
)
from veracity.evolve.open import IndexEvolver, make_fitness, open_evolver
from veracity.evolve.operators import OPERATORS, Operator, parse_rewrite
from veracity.evolve.parents import ParentCheck
from veracity.evolve.sentences import (
    SENTENCE_OPERATORS,
    Compress,
    Cross,
    Gene,
    Mutate,
    SentenceOperator,
    SentencePool,
    Trim,
    build_pool,
)

__all__ = [
    "OPERATORS",
    "SENTENCE_OPERATORS",
    "Bonus",
    "Compress",
    "Cross",
    "EvolutionResult",
    "EvolvedAnswer",
    "Evolver",
    "Failure",
    "Fitness",
    "FitnessScore",
    "Gene",
    "Generation",
    "GeneticConfig",
    "GroundedEvolver",
    "IndexEvolver",
    "Member",
    "Mutate",
    "OneShotRAG",
    "Operator",
    "ParentCheck",
    "RougeBonus",
    "SentenceOperator",
    "SentencePool",
    "StopReason",
    "SupportBonus",
    "Trim",
    "build_pool",
    "check_member",
    "make_fitness",
    "open_evolver",
    "parse_rewrite",
]
