"""The GA operators as versioned prompts, and the pure parser of their replies.

The wording follows the public Gen²IR/GAuGE code ("Re-write the passage", "Re-write the passage
to better answer the question: {q}", "Combine ideas from both Passage1 and Passage2 ..."), with
the GPT-4 variant's system prompt "You are an expert editor", not the paper's paraphrase.

>>> parse_rewrite("Re-written passage: Bees dance to show where food is.")
'Bees dance to show where food is.'
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from veracity.errors import GenerationError
from veracity.models.chat.base import ChatRequest
from veracity.models.pairs.base import strip_control_tokens
from veracity.prompts import ChatPrompt, load_prompt

__all__ = ["OPERATORS", "Operator", "parse_rewrite"]

#: The fewest words a usable rewrite has; shorter replies are failures, not members.
MIN_WORDS = 3
_LABEL = re.compile(
    r"^\s*(?:re-?written|combined|new)?\s*(?:passage|answer)\s*\d?\s*:\s*", re.IGNORECASE
)


@dataclass(frozen=True, slots=True)
class Operator:
    """One operator: its ``name``, its prompt id and how many parents it takes (1 or 2)."""

    name: str
    prompt_id: str
    arity: int

    @property
    def prompt(self) -> ChatPrompt:
        return load_prompt(self.prompt_id)

    def request(
        self,
        query: str,
        parents: tuple[str, ...],
        *,
        temperature: float,
        seed: int,
        max_tokens: int | None,
    ) -> ChatRequest:
        """The chat request that breeds one offspring from ``parents``."""
        prompt = self.prompt
        if self.arity == 2:
            user = prompt.render(question=query, passage1=parents[0], passage2=parents[1])
        elif "question" in prompt.fields:
            user = prompt.render(question=query, passage=parents[0])
        else:
            user = prompt.render(passage=parents[0])
        return ChatRequest.of(
            user, system=prompt.system, temperature=temperature, seed=seed, max_tokens=max_tokens
        )


#: Random mutation, controlled mutation and crossover, in that order; chosen uniformly.
OPERATORS: tuple[Operator, ...] = (
    Operator("mutate", "evolve_mutate_v1", 1),
    Operator("steer", "evolve_steer_v1", 1),
    Operator("cross", "evolve_cross_v1", 2),
)


def parse_rewrite(reply: str) -> str:
    """The passage in a rewrite reply: control tokens, a leading label ("Passage:") and
    surrounding quotes removed. Raises :class:`GenerationError` when fewer than
    :data:`MIN_WORDS` words with letters are left (an empty or garbage reply)."""
    text = strip_control_tokens(reply).strip()
    text = _LABEL.sub("", text, count=1).strip()
    if len(text) >= 2 and text[0] == text[-1] and text[0] in "\"'":
        text = text[1:-1].strip()
    words = [w for w in text.split() if any(c.isalpha() for c in w)]
    if len(words) < MIN_WORDS:
        raise GenerationError(
            f"the rewrite {reply[:80]!r} has {len(words)} words with letters (at least "
            f"{MIN_WORDS} needed): the model returned nothing usable for this operator"
        )
    return text
