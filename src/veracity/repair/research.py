"""Research: for each claim to repair, the questions it answers and the evidence they find.

RARR searches with several questions about the claim rather than with the claim itself: the
claim's words retrieve passages that repeat its (possibly wrong) value, and one question per
part of the claim finds evidence for every part. ``query="question"`` (default) makes up to
``questions`` questions per claim (:class:`~veracity.repair.questions.QuestionMaker`: the chat
model's versioned prompt when one is given, where a reply that cannot be read falls back to the
rule-based questions and the claim records why; rules otherwise); ``query="claim"`` searches
with the claim's words. Each query retrieves its ``k`` best passages from the index or the
given sources; the claim's evidence takes the best passage of every question first, then each
question's second best, and so on, up to ``k`` passages (so every question keeps its best
evidence, and the verifier reads as many passages as with one query). With no more than ``k``
sources, every source is evidence and no question is made.

>>> from veracity.types import Chunk, Claim, Span
>>> texts = ["Karl von Frisch won the Nobel Prize in 1973.", "Bees dance.", "Wasps sting."]
>>> sources = [Chunk(f"w#{i}", "w", i, text, 0, len(text)) for i, text in enumerate(texts)]
>>> claim = Claim(0, "Karl von Frisch won the Nobel Prize in 1983.", Span(0, 44), 0)
>>> found = Researcher(sources=sources, k=2).run([claim])
>>> found.questions[0], found.best[0], found.evidence.items[0].passages[0].id
(('Karl von Frisch won the Nobel Prize in what year?',), ('w#0',), 'w#0')
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from veracity import defaults
from veracity.errors import OptionError
from veracity.models.chat.base import ChatModel
from veracity.repair.questions import QuestionMaker
from veracity.retrieve.base import Retriever
from veracity.types import Chunk, Claim
from veracity.verify.gather import ClaimEvidence, EvidenceGatherer, EvidenceSet
from veracity.verify.questions import QUERY_MODES, QueryMode

__all__ = ["Research", "Researcher"]


@dataclass(frozen=True)
class Research:
    """Per claim, in order: the queries made, the evidence they found, the id of each query's
    best passage (``None`` when it found none), and any failure to make questions with the
    chat model (the rule-based questions were used instead)."""

    evidence: EvidenceSet
    questions: tuple[tuple[str, ...], ...]
    failures: tuple[str | None, ...]
    method: str
    chat_calls: int = 0
    best: tuple[tuple[str | None, ...], ...] = ()


class Researcher:
    """Finds evidence for claims by the questions they answer (see the module docstring)."""

    def __init__(
        self,
        *,
        retriever: Retriever | None = None,
        sources: Sequence[Chunk] = (),
        k: int = defaults.VERIFY_TOP_K,
        query: QueryMode = "question",
        chat: ChatModel | None = None,
        questions: int = defaults.REPAIR_QUESTIONS,
        seed: int = defaults.REPAIR_SEED,
    ) -> None:
        if query not in QUERY_MODES:
            raise OptionError(
                "query",
                query,
                f"one of {', '.join(QUERY_MODES)}",
                "Use 'question' (default) or 'claim'.",
            )
        if chat is not None and query != "question":
            raise OptionError(
                "query",
                query,
                "'question' when a chat model writes the questions",
                "Drop the chat model or use query='question'.",
            )
        self.query: QueryMode = query
        self.questions = QuestionMaker(chat, limit=questions, seed=seed)
        self.gatherer = EvidenceGatherer(retriever=retriever, sources=sources, k=k)

    @property
    def method(self) -> str:
        return "claim" if self.query == "claim" else self.questions.method

    def run(self, claims: Sequence[Claim]) -> Research:
        """The queries and evidence of every claim."""
        retriever = self.gatherer.retriever
        if retriever is None:  # a few sources: each is evidence, no search
            found = self.gatherer.run(claims)
            return Research(
                found,
                tuple(() for _ in claims),
                tuple(None for _ in claims),
                "all sources",
                0,
                tuple(() for _ in claims),
            )
        made: list[tuple[tuple[str, ...], str | None]]
        if self.query == "claim":
            made = [((claim.text,), None) for claim in claims]
            calls = 0
        else:
            made = [
                (q.questions, q.failure)
                for q in self.questions.run([claim.text for claim in claims])
            ]
            calls = len(claims) if self.questions.chat is not None else 0
        k = self.gatherer.k
        items: list[ClaimEvidence] = []
        best: list[tuple[str | None, ...]] = []
        searches = 0
        for claim, (queries, _) in zip(claims, made, strict=True):
            ranked = [[hit.chunk for hit in retriever.run(query, k=k).hits] for query in queries]
            searches += len(queries)
            best.append(tuple(hits[0].id if hits else None for hits in ranked))
            passages: dict[str, Chunk] = {}
            for rank in range(k):  # each question's best first, then each one's second, ...
                for hits in ranked:
                    if rank < len(hits) and len(passages) < k:
                        passages.setdefault(hits[rank].id, hits[rank])
            chosen = tuple(passages.values())
            items.append(ClaimEvidence(claim, chosen, (False,) * len(chosen), " / ".join(queries)))
        evidence = EvidenceSet(tuple(items), self.method, searches)
        return Research(
            evidence,
            tuple(queries for queries, _ in made),
            tuple(failure for _, failure in made),
            self.method,
            calls,
            tuple(best),
        )
