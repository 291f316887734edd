"""The evolved answer through the grounded-answer checks, as ``ask`` checks a model's answer.

:class:`GroundedEvolver` evolves an answer from retrieved hits (their texts are the seeds) and
hands the best member to the same :class:`~veracity.generate.check.CitationChecker` that checks
``veracity ask``: the evolved text cites nothing, so every factual sentence is verified against
every seed passage and the best one that reaches ``tau`` is attached as its citation (the exact
span of that passage), or the sentence is ``uncited``. The lineage says which seeds the answer
was bred from; the checks say which seed each sentence rests on.

>>> from veracity.evolve import GeneticConfig, Evolver, Fitness
>>> from veracity.generate.check import CitationChecker
>>> from veracity.testing import OverlapRelevanceScorer, ScriptedChatModel, TablePairScorer
>>> from veracity.types import Chunk, Hit
>>> hit = Hit(Chunk("d#0", "d", 0, "Bees dance.", 0, 11), 1.0, 1, "bm25")
>>> text = "Bees dance to show food."
>>> evolver = Evolver(ScriptedChatModel([text]), Fitness(OverlapRelevanceScorer()),
...                   GeneticConfig(offspring=1, max_iterations=1))
>>> checker = CitationChecker(TablePairScorer({("Bees dance.", "Bees dance."): (0.9, 0.0, 0.1),
...                                             ("Bees dance.", text): (0.9, 0.0, 0.1)}))
>>> evolved = GroundedEvolver(evolver, checker).run("why do bees dance", [hit])
>>> evolved.evolution.best.operator          # no rewrite beat the seed's relevance here
'seed'
>>> evolved.answer.sentences[0].status, evolved.answer.citations[0].doc_id
('citation_attached', 'd')
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from veracity.errors import InputError
from veracity.evolve.loop import Evolver
from veracity.evolve.members import EvolutionResult, Member
from veracity.generate.check import CitationChecker
from veracity.generate.extractive import cite
from veracity.types import Answer, GenerationProvenance, Hit, Timings

__all__ = ["EvolvedAnswer", "GroundedEvolver", "Quote", "check_member", "cited_text", "quotes"]


@dataclass(frozen=True)
class EvolvedAnswer:
    """An evolution and its best member checked as an :class:`~veracity.types.Answer` (its
    ``sources`` are the seed hits, block ``n`` the ``n``-th seed); ``config`` the saved
    :class:`~veracity.config.GeneticConfig` that made it (``None`` when built by hand)."""

    evolution: EvolutionResult
    answer: Answer
    config: Mapping[str, Any] | None = None

    @property
    def failures(self) -> int:
        """Failed model calls or scorings of the evolution, plus unverified sentences (a
        rewrite rejected by the parent check is no failure: the check did its job)."""
        return len(self.evolution.errors) + self.answer.failures

    @property
    def quotes(self) -> tuple[Quote, ...]:
        """Where each sentence of an answer bred from sentences comes from (empty for a
        model's rewrite)."""
        return quotes(self.evolution.best, self.answer.sources)

    def to_dict(self) -> dict[str, Any]:
        return (
            self.evolution.to_dict()
            | {"answer": self.answer.to_dict(), "quotes": [q.to_dict() for q in self.quotes]}
            | ({} if self.config is None else {"config": dict(self.config)})
        )


@dataclass(frozen=True, slots=True)
class Quote:
    """The source of one sentence of an answer: block ``marker`` (1-based), its document and
    the exact characters there (``document.text[start:end]`` is the sentence as written;
    ``text`` is how the answer reads it, ``edits`` how the two differ)."""

    sentence: int
    marker: int
    doc_id: str
    start: int
    end: int
    text: str
    edits: tuple[str, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        return {
            "sentence": self.sentence,
            "marker": self.marker,
            "doc_id": self.doc_id,
            "start": self.start,
            "end": self.end,
            "text": self.text,
            "edits": list(self.edits),
        }


def quotes(member: Member, hits: Sequence[Hit]) -> tuple[Quote, ...]:
    """The :class:`Quote` of each gene of ``member`` over ``hits`` (seed ``i`` is hit ``i``)."""
    out = []
    for i, gene in enumerate(member.genes):
        chunk = hits[gene.seed].chunk
        out.append(
            Quote(
                i,
                gene.seed + 1,
                chunk.doc_id,
                chunk.start + gene.span.start,
                chunk.start + gene.span.end,
                gene.text,
                gene.edits,
            )
        )
    return tuple(out)


def cited_text(member: Member) -> str:
    """The text an answer shows for ``member``: a sentence-bred member's sentences each
    cited ``[n]`` (block ``n`` is seed ``n - 1``), else the member's text as it is."""
    if not member.genes:
        return member.text
    return " ".join(cite(gene.text, gene.seed + 1) for gene in member.genes)


class GroundedEvolver:
    """``run(query, hits) -> EvolvedAnswer``: evolve from the hits' texts, then check the best
    member's sentences against the hits."""

    def __init__(self, evolver: Evolver, checker: CitationChecker) -> None:
        if not isinstance(evolver, Evolver):
            raise InputError(f"evolver must be an Evolver, got {type(evolver).__name__}")
        if not isinstance(checker, CitationChecker):
            raise InputError(f"checker must be a CitationChecker, got {type(checker).__name__}")
        self.evolver = evolver
        self.checker = checker

    def load(self) -> GroundedEvolver:
        self.checker.load()
        return self

    def run(self, query: str, hits: Sequence[Hit]) -> EvolvedAnswer:
        hits = tuple(hits)
        started = time.perf_counter()
        evolution = self.evolver.run(query, [hit.chunk.text for hit in hits])
        evolved = time.perf_counter() - started
        answer = check_member(query, evolution.best, hits, self.load().checker)
        timings = Timings(generate=evolved, verify=answer.timings.verify)
        return EvolvedAnswer(evolution, dataclasses.replace(answer, timings=timings))


def check_member(
    query: str, member: Member, hits: Sequence[Hit], checker: CitationChecker
) -> Answer:
    """The :class:`~veracity.types.Answer` of ``member`` (an evolved or one-shot answer, or a
    seed) over ``hits``: each sentence verified, the best supporting hit attached."""
    started = time.perf_counter()
    text = cited_text(member)
    checked = checker.run(text, hits)
    prompt_id, _, version = member.prompt.partition("@")
    provenance = GenerationProvenance(
        model=member.model or member.operator,
        prompt_id=prompt_id,
        prompt_version=int(version) if version.isdigit() else 0,
        temperature=member.temperature or 0.0,
        seed=member.seed,
        max_tokens=None,
        finish_reason="",
        verifier=checked.verifier,
        verifier_version=checked.verifier_version,
        tau=checker.tau,
    )
    return Answer(
        question=query,
        text=text,
        sentences=checked.sentences,
        citations=checked.citations,
        invalid_citations=checked.invalid,
        sources=tuple(hits),
        provenance=provenance,
        timings=Timings(verify=time.perf_counter() - started),
    )
