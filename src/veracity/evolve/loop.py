"""The genetic loop of GAuGE / Gen²IR over a seed population.

Each iteration breeds ``offspring`` children, each by one operator chosen uniformly from
parents drawn from the top ``depth`` members; children join an elitist population (nothing is
ever dropped); the run stops when the top ``top_k`` neither changes nor reorders in an iteration
(the paper's criterion; the code's "score at rank d did not rise" is implied by it), or at the
caps on iterations and model calls. A reply that is unusable, or a rewrite the fitness cannot
score, is a :class:`~veracity.evolve.members.Failure` of that call, never a member (a seed the
fitness cannot score is one of generation 0). Every random choice and every request seed comes
from one ``random.Random(seed)``, so a run is deterministic for a seed and a deterministic model.

>>> from veracity.testing import OverlapRelevanceScorer, ScriptedChatModel
>>> from veracity.evolve.fitness import Fitness
>>> chat = ScriptedChatModel(["Bees dance to share where food is."] * 2)
>>> evolver = Evolver(chat, Fitness(OverlapRelevanceScorer()),
...                   EvolveConfig(offspring=2, max_iterations=1))
>>> result = evolver.run("why do bees dance", ["Bees dance.", "Ants march."])
>>> result.calls, result.stop_reason
(2, 'max_iterations')
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass

from veracity import defaults
from veracity.errors import GenerationError, InputError, OptionError
from veracity.evolve.fitness import Fitness
from veracity.evolve.members import (
    EvolutionResult,
    Failure,
    Generation,
    Member,
    StopReason,
)
from veracity.evolve.operators import OPERATORS, Operator, parse_rewrite
from veracity.llm.base import ChatModel

__all__ = ["EvolveConfig", "Evolver"]


@dataclass(frozen=True, slots=True)
class EvolveConfig:
    """The GA's settings; the defaults are the paper's tuned ones (12 offspring, sampling and
    termination depth 2, temperature 0.7)."""

    offspring: int = defaults.EVOLVE_OFFSPRING
    depth: int = defaults.EVOLVE_DEPTH
    top_k: int = defaults.EVOLVE_TOP_K
    max_iterations: int = defaults.EVOLVE_MAX_ITERATIONS
    max_calls: int = defaults.EVOLVE_MAX_CALLS
    temperature: float = defaults.EVOLVE_TEMPERATURE
    max_tokens: int | None = defaults.EVOLVE_MAX_TOKENS
    seed: int = 0

    def __post_init__(self) -> None:
        for name in ("offspring", "depth", "top_k", "max_iterations", "max_calls"):
            value = getattr(self, name)
            if not isinstance(value, int) or value < 1:
                raise OptionError(name, value, "an integer of 1 or more",
                                  f"A budget of 0 evolves nothing; use e.g. {name}=2.")
        if self.max_tokens is not None and (not isinstance(self.max_tokens, int)
                                            or self.max_tokens < 1):
            raise OptionError("max_tokens", self.max_tokens, "an integer of 1 or more, or None",
                              "Use e.g. max_tokens=128.")


class Evolver:
    """Evolves the seed passages into an answer: ``run(query, seeds) -> EvolutionResult``."""

    def __init__(self, chat: ChatModel, fitness: Fitness, config: EvolveConfig | None = None,
                 *, operators: Sequence[Operator] = OPERATORS) -> None:
        if not operators:
            raise OptionError("operators", operators, "at least one Operator")
        self.chat = chat
        self.fitness = fitness
        self.config = config or EvolveConfig()
        self.operators = tuple(operators)

    def run(self, query: str, seeds: Sequence[str]) -> EvolutionResult:
        """Evolve ``seeds`` (ranked best first) for ``query``."""
        query, seeds = _check(query, seeds)
        cfg = self.config
        rng = random.Random(cfg.seed)
        members: list[Member] = []
        failures: list[Failure] = []
        for text, score in zip(seeds, self.fitness.run(query, seeds, seeds), strict=True):
            if score.error is not None:  # a seed the fitness cannot score is left out, reported
                failures.append(Failure(0, "seed", "", (), score.error, text))
            else:
                members.append(Member(len(members), text, (), "seed", "", 0, score))
        if not members:
            raise InputError(f"none of the {len(seeds)} seed passages could be scored by the "
                             f"fitness {self.fitness.name}: {failures[0].error}")
        ranking = _rank(members)
        generations: list[Generation] = []
        calls = tokens = 0
        stop: StopReason = "max_iterations"
        for index in range(1, cfg.max_iterations + 1):
            if calls >= cfg.max_calls:
                stop = "max_calls"
                break
            before = ranking[: cfg.top_k]
            pool = ranking[: cfg.depth]
            texts: list[str] = []
            bred: list[tuple[Operator, tuple[int, ...], int, str]] = []
            failed = 0
            for _ in range(cfg.offspring):
                if calls >= cfg.max_calls:
                    break
                operator = rng.choice(self.operators)
                parents = _parents(rng, pool, operator.arity)
                seed = rng.randrange(2**31)
                request = operator.request(query, tuple(members[p].text for p in parents),
                                           temperature=cfg.temperature, seed=seed,
                                           max_tokens=cfg.max_tokens)
                calls += 1
                reply = ""
                try:
                    response = self.chat.run(request)
                    reply = response.text
                    tokens += response.completion_tokens or 0
                    texts.append(parse_rewrite(reply))
                    bred.append((operator, parents, seed, response.model))
                except GenerationError as exc:
                    failed += 1
                    failures.append(Failure(index, operator.name, operator.prompt.ref, parents,
                                            str(exc), reply, seed))
            scores = self.fitness.run(query, seeds, texts)
            added = []
            for text, score, (operator, parents, seed, model) in zip(texts, scores, bred,
                                                                    strict=True):
                if score.error is not None:  # the rewrite is reported, never ranked
                    failed += 1
                    failures.append(Failure(index, operator.name, operator.prompt.ref, parents,
                                            score.error, text, seed))
                    continue
                member = Member(len(members), text, parents, operator.name, operator.prompt.ref,
                                index, score, model, cfg.temperature, seed)
                members.append(member)
                added.append(member.id)
            ranking = _rank(members)
            generations.append(Generation(index, tuple(added), failed,
                                          tuple(ranking[: cfg.top_k])))
            if not added:
                stop = "all_failed"
                break
            if ranking[: cfg.top_k] == before:
                stop = "converged"
                break
        else:
            stop = "max_iterations"
        return EvolutionResult(query, tuple(members), tuple(ranking), tuple(failures),
                               tuple(generations), stop, calls, tokens, self.fitness.name,
                               cfg.seed)


def _check(query: object, seeds: object) -> tuple[str, list[str]]:
    if not isinstance(query, str) or not query.strip():
        raise InputError(f"the query {query!r} is empty; pass the question to evolve an answer to")
    if isinstance(seeds, str) or not isinstance(seeds, Sequence):
        raise InputError("seeds must be a sequence of passages, not "
                         f"{type(seeds).__name__}: wrap one passage as run(query, [text])")
    texts = [s for s in seeds if isinstance(s, str) and s.strip()]
    if len(texts) != len(seeds):
        raise InputError("every seed must be a non-empty string")
    if not texts:
        raise InputError("no seed passages were given: retrieve some for the query first "
                         "(is the index empty, or does the query match nothing?)")
    return query, texts


def _rank(members: Sequence[Member]) -> list[int]:
    # Best total first; ties go to the older member, so the order is deterministic.
    return [m.id for m in sorted(members, key=lambda m: (-m.fitness.total, m.id))]


def _parents(rng: random.Random, pool: Sequence[int], arity: int) -> tuple[int, ...]:
    if arity == 1:
        return (rng.choice(pool),)
    if len(pool) < 2:
        return (pool[0], pool[0])
    return tuple(rng.sample(list(pool), 2))
