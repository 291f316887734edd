"""Answer a question from an index: retrieve, abstain or generate, verify.

::

    from veracity.generate import Abstainer, Asker, GroundedGenerator, make_chat, make_signal
    from veracity.retrieve.open import open_retriever
    from veracity.verifiers.registry import make_verifier

    verifier = make_verifier("embedded")
    generator = GroundedGenerator(make_chat("extractive"), verifier)
    asker = Asker(open_retriever("my-index"), generator, k=5,
                  abstainer=Abstainer(make_signal("top_cosine"), 0.35))
    answer = asker.run("When was the hive invented?")
    answer.abstained, [s.status for s in answer.sentences], answer.timings.total
"""

from __future__ import annotations

import dataclasses
import time

from veracity import defaults
from veracity.errors import InputError
from veracity.generate.abstain import Abstainer
from veracity.generate.grounded import GroundedGenerator
from veracity.retrieve.base import Retriever, check_k
from veracity.types import AbstentionCheck, Answer, Timings

__all__ = ["Asker"]


class Asker:
    """Retrieves ``k`` passages, abstains when they are weak, else generates and verifies.

    With an ``abstainer``, a question whose retrieval confidence is below its threshold gets
    "I don't know" without any model call (``Answer.abstained``); a question for which nothing
    at all is retrieved always does. The chat model and the verifier come in through the
    ``generator``.
    """

    def __init__(
        self,
        retriever: Retriever,
        generator: GroundedGenerator,
        *,
        k: int = defaults.TOP_K,
        abstainer: Abstainer | None = None,
    ) -> None:
        if not isinstance(retriever, Retriever):
            raise InputError(f"retriever must be a Retriever (see open_retriever), got "
                             f"{type(retriever).__name__}")
        if not isinstance(generator, GroundedGenerator):
            raise InputError(f"generator must be a GroundedGenerator, got "
                             f"{type(generator).__name__}")
        if abstainer is not None and not isinstance(abstainer, Abstainer):
            raise InputError(f"abstainer must be an Abstainer or None, got "
                             f"{type(abstainer).__name__}")
        self.retriever = retriever
        self.generator = generator
        self.k = check_k(k)
        self.abstainer = abstainer

    def load(self) -> Asker:
        """Load the retriever, the prompt and the verifier (each once)."""
        self.retriever.load()
        self.generator.load()
        return self

    def run(self, question: str) -> Answer:
        """One answer to ``question``, with per-stage timings."""
        if not isinstance(question, str) or not question.strip():
            raise InputError(f"the question {question!r} is empty; ask something")
        self.load()
        started = time.perf_counter()
        result = self.retriever.run(question, k=self.k)
        retrieved = time.perf_counter() - started
        if not result.hits:
            nothing = AbstentionCheck("hits", 0.0, 1.0, True, "retrieval found no passage")
            return self._abstain(question, nothing, Timings(retrieve=retrieved))
        check: AbstentionCheck | None = None
        checked = 0.0
        if self.abstainer is not None:
            started = time.perf_counter()
            check = self.abstainer.run(result)
            checked = time.perf_counter() - started
            if check.abstain:
                return self._abstain(question, check,
                                     Timings(retrieve=retrieved, abstain=checked))
        answer = self.generator.run(question, result.hits)
        timings = dataclasses.replace(answer.timings, retrieve=retrieved, abstain=checked)
        return dataclasses.replace(answer, abstention=check, timings=timings)

    @staticmethod
    def _abstain(question: str, check: AbstentionCheck, timings: Timings) -> Answer:
        return Answer(question=question, text=defaults.ABSTAIN_TEXT, abstained=True,
                      abstention=check, timings=timings)
