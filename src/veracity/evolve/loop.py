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
...                   GeneticConfig(offspring=2, max_iterations=1))
>>> result = evolver.run("why do bees dance", ["Bees dance.", "Ants march."])
>>> result.calls, result.stop_reason
(2, 'max_iterations')
"""

from __future__ import annotations

import dataclasses
import random
from collections.abc import Sequence
from dataclasses import dataclass

from veracity.config import GeneticConfig
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
from veracity.evolve.parents import ParentCheck
from veracity.evolve.sentences import (
    SENTENCE_OPERATORS,
    Gene,
    SentenceOperator,
    SentencePool,
    build_pool,
    render,
)
from veracity.models.chat.base import ChatModel

__all__ = ["Evolver"]


class Evolver:
    """Evolves the seed passages into an answer: ``run(query, seeds) -> EvolutionResult``.

    With a ``chat`` model the operators are by default the LLM prompts (:data:`OPERATORS`) and
    the seeds join the population as written. Without one (``chat=None``) they are the
    sentence operators (:data:`~veracity.evolve.sentences.SENTENCE_OPERATORS`) and each seed
    joins as its prose sentences (:func:`~veracity.evolve.sentences.build_pool`, scored by the
    fitness's relevance model), and these prose seeds are what the fitness's bonus compares
    with. ``operators`` may mix both kinds when a chat model is given. A
    ``gate`` (:class:`~veracity.evolve.parents.ParentCheck`) rejects a model's rewrite that
    states what its parents do not support; an offspring that repeats a member's text is not
    added again.
    """

    def __init__(
        self,
        chat: ChatModel | None,
        fitness: Fitness,
        config: GeneticConfig | None = None,
        *,
        operators: Sequence[Operator | SentenceOperator] | None = None,
        gate: ParentCheck | None = None,
    ) -> None:
        if operators is None:
            operators = OPERATORS if chat is not None else SENTENCE_OPERATORS
        if not operators:
            raise OptionError("operators", operators, "at least one Operator")
        prompts = [op.name for op in operators if isinstance(op, Operator)]
        if prompts and chat is None:
            raise OptionError(
                "operators",
                ", ".join(prompts),
                "sentence operators when no chat model is given",
                "Pass a chat model, or operators=None for the sentence operators.",
            )
        self.chat = chat
        self.fitness = fitness
        self.config = config or GeneticConfig()
        self.operators = tuple(operators)
        self.gate = gate
        #: Seeds join as sentence genomes when any operator breeds from sentences.
        self.sentences = any(not isinstance(op, Operator) for op in self.operators)

    def run(self, query: str, seeds: Sequence[str]) -> EvolutionResult:
        """Evolve ``seeds`` (ranked best first) for ``query``."""
        query, seeds = _check(query, seeds)
        cfg = self.config
        rng = random.Random(cfg.seed)
        members: list[Member] = []
        failures: list[Failure] = []
        pool = build_pool(query, seeds, self.fitness.relevance) if self.sentences else None
        if pool is not None:
            genomes = [pool.genome(i) for i in range(len(seeds))]
            texts = [render(genes) for genes in genomes]
            kept = [i for i, text in enumerate(texts) if text]
            if not kept:
                raise InputError(
                    f"none of the {len(seeds)} seed passages holds a prose "
                    f"sentence ({_skipped(pool)}): there is nothing to answer with"
                )
            start = [(texts[i], genomes[i]) for i in kept]
            # The seeds as the population holds them are the grounding reference too: the
            # bonus then rewards the seeds' relevant prose, not their headings or tables.
            seeds = [texts[i] for i in kept]
        else:
            start = [(text, ()) for text in seeds]
        scores = self.fitness.run(query, seeds, [text for text, _ in start])
        for (text, genes), score in zip(start, scores, strict=True):
            if score.error is not None:  # a seed the fitness cannot score is left out, reported
                failures.append(Failure(0, "seed", "", (), score.error, text))
            else:
                members.append(Member(len(members), text, (), "seed", "", 0, score, genes=genes))
        if not members:
            raise InputError(
                f"none of the {len(seeds)} seed passages could be scored by the "
                f"fitness {self.fitness.name}: {failures[0].error}"
            )
        known = {member.text: member.id for member in members}
        ranking = _rank(members)
        generations: list[Generation] = []
        calls = tokens = 0
        stop: StopReason = "max_iterations"
        for index in range(1, cfg.max_iterations + 1):
            if calls >= cfg.max_calls:
                stop = "max_calls"
                break
            before = ranking[: cfg.top_k]
            pool_ids = ranking[: cfg.depth]
            bred: list[_Child] = []
            failed = barren = 0
            for _ in range(cfg.offspring):
                if calls >= cfg.max_calls:
                    break
                operator = rng.choice(self.operators)
                parents = _parents(rng, pool_ids, operator.arity)
                seed = rng.randrange(2**31)
                if isinstance(operator, Operator):
                    calls += 1
                    child, failure = self._rewrite(operator, query, parents, members, seed, index)
                    if child is not None:
                        tokens += child.tokens
                else:
                    child, failure = self._breed(operator, parents, members, pool, seed)
                if failure is not None:
                    failures.append(dataclasses.replace(failure, generation=index))
                    failed += 1
                elif child is None or child.text in known or child.text in {c.text for c in bred}:
                    barren += 1
                else:
                    bred.append(child)
            scores = self.fitness.run(query, seeds, [child.text for child in bred])
            added = []
            for child, score in zip(bred, scores, strict=True):
                if score.error is not None:  # the rewrite is reported, never ranked
                    failed += 1
                    failures.append(
                        Failure(
                            index,
                            child.operator,
                            child.prompt,
                            child.parents,
                            score.error,
                            child.text,
                            child.seed,
                        )
                    )
                    continue
                member = Member(
                    len(members),
                    child.text,
                    child.parents,
                    child.operator,
                    child.prompt,
                    index,
                    score,
                    child.model,
                    cfg.temperature if child.model else None,
                    child.seed,
                    child.genes,
                )
                members.append(member)
                known[member.text] = member.id
                added.append(member.id)
            ranking = _rank(members)
            generations.append(
                Generation(index, tuple(added), failed, tuple(ranking[: cfg.top_k]), barren)
            )
            if not added:
                stop = "all_failed" if failed else "converged"
                break
            if ranking[: cfg.top_k] == before:
                stop = "converged"
                break
        else:
            stop = "max_iterations"
        return EvolutionResult(
            query,
            tuple(members),
            tuple(ranking),
            tuple(failures),
            tuple(generations),
            stop,
            calls,
            tokens,
            self.fitness.name,
            cfg.seed,
        )

    def _rewrite(
        self,
        operator: Operator,
        query: str,
        parents: tuple[int, ...],
        members: Sequence[Member],
        seed: int,
        index: int,
    ) -> tuple[_Child | None, Failure | None]:
        """One model rewrite, parsed and (with a gate) checked against its parents."""
        cfg = self.config
        texts = tuple(members[p].text for p in parents)
        request = operator.request(
            query, texts, temperature=cfg.temperature, seed=seed, max_tokens=cfg.max_tokens
        )
        reply = ""
        assert self.chat is not None  # checked in __init__
        try:
            response = self.chat.run(request)
            reply = response.text
            text = parse_rewrite(reply)
        except GenerationError as exc:
            return None, Failure(
                index, operator.name, operator.prompt.ref, parents, str(exc), reply, seed
            )
        if self.gate is not None:
            reason = self.gate.run(text, texts)
            if reason is not None:
                return None, Failure(
                    index,
                    operator.name,
                    operator.prompt.ref,
                    parents,
                    reason,
                    text,
                    seed,
                    kind="rejected",
                )
        return _Child(
            text,
            parents,
            operator.name,
            operator.prompt.ref,
            seed,
            response.model,
            response.completion_tokens or 0,
        ), None

    def _breed(
        self,
        operator: SentenceOperator,
        parents: tuple[int, ...],
        members: Sequence[Member],
        pool: SentencePool | None,
        seed: int,
    ) -> tuple[_Child | None, Failure | None]:
        """One offspring of a sentence operator (``None`` when it had nothing new to make)."""
        if pool is None:  # pragma: no cover - __init__ makes a pool whenever one is needed
            raise OptionError("operators", operator.name, "a pool of seed sentences")
        genomes = [members[p].genes for p in parents]
        if not any(genomes):
            return None, None  # parents written by a model have no source sentences
        genes = operator.breed(genomes, pool, random.Random(seed))
        if not genes:
            return None, None
        return _Child(render(genes), parents, operator.name, "", seed, "", 0, tuple(genes)), None


@dataclass(frozen=True, slots=True)
class _Child:
    """An offspring before the fitness has scored it."""

    text: str
    parents: tuple[int, ...]
    operator: str
    prompt: str
    seed: int
    model: str
    tokens: int
    genes: tuple[Gene, ...] = ()


def _skipped(pool: SentencePool) -> str:
    return ", ".join(f"{count} {reason}" for reason, count in pool.skipped) or "no sentences"


def _check(query: object, seeds: object) -> tuple[str, list[str]]:
    if not isinstance(query, str) or not query.strip():
        raise InputError(f"the query {query!r} is empty; pass the question to evolve an answer to")
    if isinstance(seeds, str) or not isinstance(seeds, Sequence):
        raise InputError(
            "seeds must be a sequence of passages, not "
            f"{type(seeds).__name__}: wrap one passage as run(query, [text])"
        )
    texts = [s for s in seeds if isinstance(s, str) and s.strip()]
    if len(texts) != len(seeds):
        raise InputError("every seed must be a non-empty string")
    if not texts:
        raise InputError(
            "no seed passages were given: retrieve some for the query first "
            "(is the index empty, or does the query match nothing?)"
        )
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
