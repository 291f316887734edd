"""Answer a question from an index: retrieve, abstain or generate, verify.

:func:`~veracity.generate.open.open_asker` makes an :class:`Asker` on an index folder, with the
index's abstention; composed of its parts by hand::

    from veracity.generate import Abstainer, Asker, ExtractiveGenerator, make_signal
    from veracity.generate.extractive import ExtractiveAnswerer
    from veracity.models.pairs.registry import make_verifier
    from veracity.retrieve.open import open_retriever

    verifier = make_verifier("embedded")
    generator = ExtractiveGenerator(ExtractiveAnswerer(scorer=verifier), verifier)
    asker = Asker(open_retriever("my-index"), generator, k=5,
                  abstainer=Abstainer(make_signal("top_cosine"), 0.35))
    answer = asker.run("When was the hive invented?")
    answer.abstained, [s.status for s in answer.sentences], answer.timings.total
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from veracity import defaults
from veracity.errors import InputError
from veracity.generate.writers import AnswerGenerator
from veracity.retrieve.abstain import Abstainer
from veracity.retrieve.base import Retriever, check_k
from veracity.types import AbstentionCheck, Answer, Hit, Timings

__all__ = ["Asker", "Retrieved"]


@dataclass(frozen=True)
class Retrieved:
    """What :meth:`Asker.retrieve` found: the hits, the abstention check and their timings,
    and the "I don't know" answer when it abstains (``None`` when a model is to be asked)."""

    hits: tuple[Hit, ...]
    check: AbstentionCheck | None
    timings: Timings
    abstained: Answer | None
    config: Mapping[str, Any] | None = None

    def finish(self, answer: Answer) -> Answer:
        """``answer`` (the generator's) with this retrieval's check and timings, and the
        config of the asker."""
        timings = dataclasses.replace(
            answer.timings, retrieve=self.timings.retrieve, abstain=self.timings.abstain
        )
        return dataclasses.replace(
            answer, abstention=self.check, timings=timings, config=self.config
        )


class Asker:
    """Retrieves ``k`` passages, abstains when they are weak, else generates and verifies.

    With an ``abstainer``, a question whose retrieval confidence is below its threshold gets "I
    don't know" without any model call (``Answer.abstained``); a question for which nothing at all
    is retrieved always does. The chat model (or the extractive answerer) and the verifier come in
    through the ``generator``. ``notes`` are what opening the index had to say (a hybrid search that
    fell back to BM25, a calibration made for another search mode), for the caller to show beside
    the answers (:func:`~veracity.generate.open.open_asker` fills them).
    """

    def __init__(
        self,
        retriever: Retriever,
        generator: AnswerGenerator,
        *,
        k: int = defaults.TOP_K,
        abstainer: Abstainer | None = None,
        notes: Sequence[str] = (),
    ) -> None:
        if not isinstance(retriever, Retriever):
            raise InputError(
                f"retriever must be a Retriever (see open_retriever), got "
                f"{type(retriever).__name__}"
            )
        if not isinstance(generator, AnswerGenerator):
            raise InputError(
                "generator must be a GroundedGenerator or an ExtractiveGenerator (see "
                f"make_generator), got {type(generator).__name__}"
            )
        if abstainer is not None and not isinstance(abstainer, Abstainer):
            raise InputError(
                f"abstainer must be an Abstainer or None, got {type(abstainer).__name__}"
            )
        self.retriever = retriever
        self.generator = generator
        self.k = check_k(k)
        self.abstainer = abstainer
        self.notes = tuple(notes)
        #: The saved config that made this asker (``AskConfig.to_dict()``), which its answers
        #: carry; ``None`` for one composed by hand.
        self.config: dict[str, Any] | None = None

    def load(self) -> Asker:
        """Load the retriever, the prompt and the verifier (each once)."""
        self.retriever.load()
        self.generator.load()
        return self

    def run(self, question: str) -> Answer:
        """One answer to ``question``, with per-stage timings."""
        retrieved = self.retrieve(question)
        if retrieved.abstained is not None:
            return retrieved.abstained
        return retrieved.finish(self.generator.run(question, retrieved.hits))

    def retrieve(self, question: str) -> Retrieved:
        """Retrieval and the abstention check, before any model call (``run`` is this, then
        the generator; a streamed answer uses it too)."""
        if not isinstance(question, str) or not question.strip():
            raise InputError(f"the question {question!r} is empty; ask something")
        self.load()
        started = time.perf_counter()
        result = self.retriever.run(question, k=self.k)
        retrieved = time.perf_counter() - started
        if not result.hits:
            nothing = AbstentionCheck("hits", 0.0, 1.0, True, "retrieval found no passage")
            timings = Timings(retrieve=retrieved)
            return Retrieved(
                (), nothing, timings, self._abstain(question, nothing, timings), self.config
            )
        check: AbstentionCheck | None = None
        checked = 0.0
        if self.abstainer is not None:
            started = time.perf_counter()
            check = self.abstainer.run(result)
            checked = time.perf_counter() - started
            if check.abstain:
                timings = Timings(retrieve=retrieved, abstain=checked)
                return Retrieved(
                    result.hits,
                    check,
                    timings,
                    self._abstain(question, check, timings),
                    self.config,
                )
        timings = Timings(retrieve=retrieved, abstain=checked)
        return Retrieved(result.hits, check, timings, None, self.config)

    def _abstain(self, question: str, check: AbstentionCheck, timings: Timings) -> Answer:
        return Answer(
            question=question,
            text=defaults.ABSTAIN_TEXT,
            abstained=True,
            abstention=check,
            timings=timings,
            config=self.config,
        )
