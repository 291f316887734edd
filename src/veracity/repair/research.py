"""Research: for each claim to repair, the questions it answers and the evidence they find.

RARR searches with questions about the claim rather than with the claim itself: the claim's
words retrieve passages that repeat its (possibly wrong) value. ``query="question"`` (default)
makes one question per claim, by the chat model's versioned prompt when one is given (a reply
that cannot be read falls back to the rule-based question, and the claim records why) or by
rules (:func:`~veracity.verify.questions.rule_question`) otherwise; ``query="claim"`` searches
with the claim's words. Each query retrieves its ``k`` best passages from the index or the
given sources, with the same gatherer ``veracity verify`` uses; with no more than ``k``
sources, every source is evidence and no question is made.

>>> from veracity.types import Chunk, Claim, Span
>>> texts = ["Karl von Frisch won the Nobel Prize in 1973.", "Bees dance.", "Wasps sting."]
>>> sources = [Chunk(f"w#{i}", "w", i, text, 0, len(text)) for i, text in enumerate(texts)]
>>> claim = Claim(0, "Karl von Frisch won the Nobel Prize in 1983.", Span(0, 44), 0)
>>> found = Researcher(sources=sources, k=2).run([claim])
>>> found.questions[0], found.evidence.items[0].passages[0].id
(('When Karl von Frisch won the Nobel Prize?',), 'w#0')
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass

from veracity import defaults
from veracity.errors import GenerationError, OptionError
from veracity.llm.base import ChatModel
from veracity.retrieve.base import Retriever
from veracity.types import Chunk, Claim
from veracity.verify.gather import EvidenceGatherer, EvidenceSet
from veracity.verify.questions import QUERY_MODES, QueryMaker, QueryMode, rule_question

__all__ = ["Research", "Researcher"]


@dataclass(frozen=True)
class Research:
    """Per claim, in order: the queries made, the evidence they found, and any failure to make
    a question (the rule-based question was used instead)."""

    evidence: EvidenceSet
    questions: tuple[tuple[str, ...], ...]
    failures: tuple[str | None, ...]
    method: str
    chat_calls: int = 0


class Researcher:
    """Finds evidence for claims by the questions they answer (see the module docstring)."""

    def __init__(self, *, retriever: Retriever | None = None, sources: Sequence[Chunk] = (),
                 k: int = defaults.VERIFY_TOP_K, query: QueryMode = "question",
                 chat: ChatModel | None = None, seed: int = defaults.REPAIR_SEED) -> None:
        if query not in QUERY_MODES:
            raise OptionError("query", query, f"one of {', '.join(QUERY_MODES)}",
                              "Use 'question' (default) or 'claim'.")
        if chat is not None and query != "question":
            raise OptionError("query", query, "'question' when a chat model writes the questions",
                              "Drop the chat model or use query='question'.")
        self.query: QueryMode = query
        self.questions = QueryMaker(query, chat=chat, seed=seed)
        # The gatherer searches with the text it is given: the research passes it the queries.
        self.gatherer = EvidenceGatherer(retriever=retriever, sources=sources, k=k,
                                         queries=QueryMaker("claim"))

    @property
    def method(self) -> str:
        return self.questions.method

    def run(self, claims: Sequence[Claim]) -> Research:
        """The queries and evidence of every claim."""
        queries: list[str] = []
        failures: list[str | None] = []
        calls = 0
        if self.gatherer.retriever is None:  # a few sources: each is evidence, no search
            found = self.gatherer.run(claims)
            return Research(found, tuple(() for _ in claims), tuple(None for _ in claims),
                            "all sources", 0)
        for claim in claims:
            failure = None
            try:
                calls += self.questions.chat is not None
                query = self.questions.run([claim.text])[0]
            except GenerationError as exc:
                query, failure = rule_question(claim.text), f"{exc}; the rule-based question " \
                                                            "was used"
            queries.append(query)
            failures.append(failure)
        asked = [dataclasses.replace(claim, text=query, markers=())
                 for claim, query in zip(claims, queries, strict=True)]
        found = self.gatherer.run(asked)
        items = tuple(dataclasses.replace(item, claim=claim, query=query)
                      for item, claim, query in zip(found.items, claims, queries, strict=True))
        evidence = EvidenceSet(items, self.method, found.searches)
        return Research(evidence, tuple((query,) for query in queries), tuple(failures),
                        self.method, calls)
