"""The one-shot RAG baseline of GAuGE: the query and the seeds in one prompt, one answer.

>>> from veracity.testing import OverlapRelevanceScorer, ScriptedChatModel
>>> from veracity.evolve.fitness import Fitness
>>> rag = OneShotRAG(ScriptedChatModel(["Bees dance to share food."]),
...                  Fitness(OverlapRelevanceScorer()))
>>> member = rag.run("why do bees dance", ["Bees dance."])
>>> member.operator, member.parents, member.prompt
('rag', (0,), 'evolve_rag_v1@1')
"""

from __future__ import annotations

from collections.abc import Sequence

from veracity.evolve.fitness import Fitness
from veracity.evolve.loop import _check
from veracity.evolve.members import Member
from veracity.evolve.operators import parse_rewrite
from veracity.models.chat.base import ChatModel, ChatRequest
from veracity.prompts import load_prompt

__all__ = ["OneShotRAG"]

PROMPT = "evolve_rag_v1"


class OneShotRAG:
    """One answer from the query and all ``seeds`` numbered in one prompt, scored by
    ``fitness`` the same way as evolved members (so the two compare); a reply with no usable
    text raises :class:`~veracity.errors.GenerationError`, and an answer the fitness cannot
    score comes back with ``fitness.error`` set (its failure, not a score)."""

    def __init__(
        self,
        chat: ChatModel,
        fitness: Fitness,
        *,
        temperature: float = 0.0,
        seed: int = 0,
        max_tokens: int | None = 256,
    ) -> None:
        self.chat = chat
        self.fitness = fitness
        self.temperature = temperature
        self.seed = seed
        self.max_tokens = max_tokens

    def run(self, query: str, seeds: Sequence[str]) -> Member:
        query, texts = _check(query, seeds)
        prompt = load_prompt(PROMPT)
        passages = "\n\n".join(f"[{i}] {text}" for i, text in enumerate(texts, start=1))
        request = ChatRequest.of(
            prompt.render(question=query, passages=passages),
            system=prompt.system,
            temperature=self.temperature,
            seed=self.seed,
            max_tokens=self.max_tokens,
        )
        response = self.chat.run(request)
        text = parse_rewrite(response.text)
        [score] = self.fitness.run(query, texts, [text])
        return Member(
            len(texts),
            text,
            tuple(range(len(texts))),
            "rag",
            prompt.ref,
            1,
            score,
            response.model,
            self.temperature,
            self.seed,
        )
