"""The frozen records of an evolution: members with provenance, failures and the trace."""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import TYPE_CHECKING, Any, Literal

if TYPE_CHECKING:
    from veracity.evolve.sentences import Gene

__all__ = ["EvolutionResult", "Failure", "FitnessScore", "Generation", "Member", "StopReason"]

#: Why an evolution stopped: the top ``d`` neither changed nor reordered (or nothing new could be
#: bred), the iteration or model call cap was reached, or every offspring of an iteration
#: failed.
StopReason = Literal["converged", "max_iterations", "max_calls", "all_failed"]


@dataclass(frozen=True, slots=True)
class FitnessScore:
    """``total = relevance + weight * bonus``; ``bonus`` is ROUGE F1 or verifier support (0 when
    the fitness has none, as in Gen²IR) and ``relevance`` the reranker's raw logit.

    ``error`` is set when the candidate could not be scored (a sentence too long for the
    verifier, say): ``bonus`` and ``total`` are then ``nan``, and the loop reports the candidate
    as a :class:`Failure` instead of adding it. Build such a score with :meth:`failure`.
    """

    relevance: float
    bonus: float
    weight: float
    bonus_name: str = ""
    error: str | None = None

    @classmethod
    def failure(
        cls, error: str, *, relevance: float, weight: float, bonus_name: str = ""
    ) -> FitnessScore:
        return cls(relevance, float("nan"), weight, bonus_name, error)

    @property
    def total(self) -> float:
        return self.relevance + self.weight * self.bonus

    def to_dict(self) -> dict[str, Any]:
        total = None if self.error is not None else self.total
        bonus = None if self.error is not None else self.bonus
        return {**asdict(self), "bonus": bonus, "total": total}


@dataclass(frozen=True, slots=True)
class Member:
    """One candidate answer with where it came from.

    ``id`` is its position in creation order (seeds first); ``parents`` the ids it was bred from;
    ``operator`` ``"seed"`` for a seed passage, ``"rag"`` for the one-shot baseline, else the
    operator's name; ``prompt`` the prompt's ``id@version`` (empty for seeds); ``model`` the chat
    model that wrote it, and ``temperature`` and ``seed`` the request's sampling settings.
    ``genes`` are its sentences with their sources when it was bred without a model (see
    :mod:`veracity.evolve.sentences`; ``text`` is then their rendering), else empty.
    """

    id: int
    text: str
    parents: tuple[int, ...]
    operator: str
    prompt: str
    generation: int
    fitness: FitnessScore
    model: str = ""
    temperature: float | None = None
    seed: int | None = None
    genes: tuple[Gene, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "text": self.text,
            "parents": list(self.parents),
            "operator": self.operator,
            "prompt": self.prompt,
            "generation": self.generation,
            "fitness": self.fitness.to_dict(),
            "model": self.model,
            "temperature": self.temperature,
            "seed": self.seed,
            "genes": [gene.to_dict() for gene in self.genes],
        }


@dataclass(frozen=True, slots=True)
class Failure:
    """A candidate that gave no member: the model raised, its reply was unusable, or the
    fitness could not score it (``reply`` then holds the parsed text). Generation 0 with
    operator ``"seed"`` is a seed passage the fitness could not score. ``kind`` is ``"error"``
    for those, ``"rejected"`` for a rewrite that worked but states what its parents do not
    support (``error`` then says which sentence): a rejection is the check doing its job, not
    a failure of the run."""

    generation: int
    operator: str
    prompt: str
    parents: tuple[int, ...]
    error: str
    reply: str = ""
    seed: int | None = None
    kind: Literal["error", "rejected"] = "error"

    def to_dict(self) -> dict[str, Any]:
        return {**asdict(self), "parents": list(self.parents)}


@dataclass(frozen=True, slots=True)
class Generation:
    """One iteration: the offspring it added, the calls that failed or were rejected, the
    offspring that repeated a member or that an operator could not make (``barren``), and the
    top after it."""

    index: int
    offspring: tuple[int, ...]
    failures: int
    top: tuple[int, ...]
    barren: int = 0

    def to_dict(self) -> dict[str, Any]:
        return {
            "index": self.index,
            "offspring": list(self.offspring),
            "failures": self.failures,
            "barren": self.barren,
            "top": list(self.top),
        }


@dataclass(frozen=True, slots=True)
class EvolutionResult:
    """The whole run: every member ever made (``members``, in creation order), the ranking of
    the final population (``ranking``, member ids best first), the failures, one
    :class:`Generation` per iteration, why it stopped and how many model calls it made."""

    query: str
    members: tuple[Member, ...]
    ranking: tuple[int, ...]
    failures: tuple[Failure, ...]
    generations: tuple[Generation, ...]
    stop_reason: StopReason
    calls: int
    completion_tokens: int
    fitness: str
    seed: int

    @property
    def best(self) -> Member:
        return self.members[self.ranking[0]]

    @property
    def errors(self) -> tuple[Failure, ...]:
        """The failures that are errors (a model or scoring failure), not rejections."""
        return tuple(f for f in self.failures if f.kind == "error")

    def lineage(self, member_id: int) -> tuple[Member, ...]:
        """``member_id`` and all its ancestors, each once, the member first."""
        seen: list[int] = []
        todo = [member_id]
        while todo:
            current = todo.pop(0)
            if current not in seen:
                seen.append(current)
                todo.extend(self.members[current].parents)
        return tuple(self.members[i] for i in seen)

    def to_dict(self) -> dict[str, Any]:
        return {
            "query": self.query,
            "best": self.best.id,
            "stop_reason": self.stop_reason,
            "calls": self.calls,
            "completion_tokens": self.completion_tokens,
            "fitness": self.fitness,
            "seed": self.seed,
            "ranking": list(self.ranking),
            "members": [m.to_dict() for m in self.members],
            "failures": [f.to_dict() for f in self.failures],
            "generations": [g.to_dict() for g in self.generations],
        }
