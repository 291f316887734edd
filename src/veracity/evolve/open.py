"""Open an index to evolve answers from: the one place where evolve's config meets its models.

:func:`open_evolver` is what ``veracity evolve`` runs: the config
(:class:`~veracity.config.EvolveConfig`) names the index, the models and the genetic search;
``models`` (:class:`veracity.models.Models`) makes the models by those names, so that a test
passes fakes. Every evolved answer carries the config.

>>> from veracity.config import EvolveConfig                         # doctest: +SKIP
>>> from veracity.models import Models
>>> config = EvolveConfig().with_options(index="my-index", iterations=3)
>>> evolved = open_evolver(config, Models()).run("Why do bees dance?")  # doctest: +SKIP
>>> evolved.answer.text, evolved.config["genetic"]["max_iterations"]   # doctest: +SKIP
('Honeybees dance to show where food is [1].', 3)
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from veracity.config import EvolveConfig
from veracity.errors import InputError, OptionError
from veracity.evolve.fitness import Fitness, RougeBonus, SupportBonus
from veracity.evolve.grounded import EvolvedAnswer, GroundedEvolver
from veracity.evolve.loop import Evolver
from veracity.evolve.operators import OPERATORS
from veracity.evolve.parents import ParentCheck
from veracity.evolve.sentences import SENTENCE_OPERATORS
from veracity.generate.check import citation_checker
from veracity.generate.extractive import ExtractiveAnswerer
from veracity.generate.writers import make_writer
from veracity.retrieve.base import Retriever

if TYPE_CHECKING:
    from veracity.models import Models

__all__ = ["IndexEvolver", "make_fitness", "open_evolver"]


@dataclass
class IndexEvolver:
    """``run(query) -> EvolvedAnswer``: the ``seeds`` best passages for the query (from
    ``retriever``, reranked), evolved and checked by ``evolver``; the answer carries
    ``config``."""

    retriever: Retriever
    evolver: GroundedEvolver
    seeds: int
    config: Mapping[str, Any] | None = None

    def run(self, query: str) -> EvolvedAnswer:
        hits = self.retriever.run(query, k=self.seeds).hits
        if not hits:
            raise InputError(
                f"the index has no passage for {query!r} to evolve an answer from: ask "
                "another question, or index documents about it"
            )
        return dataclasses.replace(self.evolver.run(query, hits), config=self.config)


def make_fitness(config: EvolveConfig, models: Models) -> Fitness:
    """The fitness ``config.fitness`` names: the reranker's relevance, plus ``weight`` times
    the verifier's support of the answer by the seeds (``support``) or its ROUGE-n against
    them (``rouge1``, ``rouge2``, ``rougeL``); relevance alone for ``relevance`` (Gen²IR)."""
    relevance = models.reranker(config.models.reranker or "")
    if config.fitness == "relevance":
        return Fitness(relevance)
    if config.fitness == "support":
        bonus = SupportBonus(models.verifier(config.models.verifier))
        return Fitness(relevance, bonus, weight=config.weight)
    return Fitness(relevance, RougeBonus(n=config.fitness[len("rouge") :]), weight=config.weight)


def open_evolver(config: EvolveConfig, models: Models) -> IndexEvolver:
    """An :class:`IndexEvolver` on the index ``config`` names (see the module docstring):
    the seeds searched in ``evidence.mode`` and reranked by the fitness's relevance model; with
    the extractive writer the seeds' own sentences are bred by the sentence operators, with a
    chat model its rewrites join them, each kept only when its parents support it; the best
    answer is checked as ``veracity ask`` checks one."""
    from veracity.retrieve.open import open_retriever
    from veracity.retrieve.rerank import RerankingRetriever

    if not isinstance(config, EvolveConfig):
        raise OptionError(
            "config", type(config).__name__, "an EvolveConfig", "Use EvolveConfig(...)."
        )
    index = config.evidence.index
    if index is None:
        raise OptionError(
            "index", None, "the index folder to take the seeds from", "Give --index DIR."
        )
    fitness = make_fitness(config, models)
    retriever = RerankingRetriever(
        open_retriever(index, mode=config.evidence.mode), fitness.relevance
    )
    verifier = models.verifier(config.models.verifier)
    llm = config.models.llm or "extractive"  # an EvolveConfig always names one
    writer = make_writer(llm, model=config.models.model, scorer=verifier, chat=models.chat)
    if isinstance(writer, ExtractiveAnswerer):
        # it copies sentences: the sentence operators do that better
        breeder = Evolver(None, fitness, config.genetic)
    else:
        breeder = Evolver(
            writer,
            fitness,
            config.genetic,
            operators=(*SENTENCE_OPERATORS, *OPERATORS),
            gate=ParentCheck(verifier, tau=config.tau),
        )
    checker = citation_checker(verifier, tau=config.tau, knowledge=config.knowledge)
    return IndexEvolver(
        retriever, GroundedEvolver(breeder, checker), config.evidence.k, config.to_dict()
    )
