"""Grounded generation: ask a chat model over numbered blocks, then check what it wrote.

The prompt (``veracity/prompts/grounded_v1.json``) shows the hits as numbered context blocks
(:func:`~veracity.generate.blocks.format_context`), asks for an answer only from them with ``[n]``
cited after each sentence, and for exactly "I don't know" when they do not hold the answer.
A reply that is a refusal (:func:`~veracity.text.refusal.detect_refusal`) becomes an
``Answer(refused=True)``; any other reply is checked by a
:class:`~veracity.generate.check.CitationChecker` (one batched verifier call).

>>> from veracity.testing import ScriptedChatModel, TablePairScorer
>>> from veracity.types import Chunk, Hit
>>> hit = Hit(Chunk("d#0", "d", 0, "Bees dance.", 0, 11), 1.0, 1, "bm25")
>>> scorer = TablePairScorer({("Bees dance.", "Bees dance."): (0.9, 0.0, 0.1)})
>>> generator = GroundedGenerator(ScriptedChatModel(["Bees dance [1]."]), scorer)
>>> answer = generator.run("What do bees do?", [hit])
>>> answer.sentences[0].status, answer.citations[0].doc_id, answer.provenance.prompt
('supported', 'd', 'grounded_v1@1')
"""

from __future__ import annotations

import time
from collections.abc import Sequence

from veracity import defaults
from veracity.errors import GenerationError, InputError, OptionError
from veracity.generate.blocks import format_context
from veracity.generate.check import CitationChecker, checker_of
from veracity.models.chat.base import ChatModel, ChatRequest, ChatResponse
from veracity.models.pairs.base import PairScorer
from veracity.prompts import ChatPrompt, load_prompt
from veracity.text.refusal import detect_refusal
from veracity.types import Answer, GenerationProvenance, Hit, Timings

__all__ = ["GroundedGenerator"]


class GroundedGenerator:
    """Answers a question from given hits with a chat model, and checks every citation.

    ``scorer`` is the verifier that reads each citation, or a whole
    :class:`~veracity.generate.check.CitationChecker` (with the knowledge rules, say); else
    ``tau`` is the P(supported) a sentence's best citation must reach (default
    ``defaults.CITATION_TAU``) and ``attach`` lets the verifier attach the best block to
    sentences written without a valid citation (default: it does).
    """

    def __init__(
        self,
        chat: ChatModel,
        scorer: PairScorer | CitationChecker,
        *,
        tau: float | None = None,
        prompt: str = defaults.GROUNDED_PROMPT,
        temperature: float = defaults.GENERATE_TEMPERATURE,
        seed: int | None = defaults.GENERATE_SEED,
        max_tokens: int | None = defaults.GENERATE_MAX_TOKENS,
        attach: bool | None = None,
    ) -> None:
        if not isinstance(chat, ChatModel):
            raise InputError(
                f"chat must be a ChatModel (with model_id and run(request)), got "
                f"{type(chat).__name__}"
            )
        if not isinstance(prompt, str) or not prompt:
            raise OptionError(
                "prompt",
                prompt,
                "the id of a shipped prompt",
                f"The default is {defaults.GROUNDED_PROMPT!r}.",
            )
        if (
            isinstance(temperature, bool)
            or not isinstance(temperature, int | float)
            or not 0.0 <= temperature <= 2.0
        ):
            raise OptionError("temperature", temperature, "a number from 0 to 2")
        if seed is not None and (isinstance(seed, bool) or not isinstance(seed, int)):
            raise OptionError("seed", seed, "an integer, or None for no particular seed")
        if max_tokens is not None and (
            isinstance(max_tokens, bool) or not isinstance(max_tokens, int) or max_tokens < 1
        ):
            raise OptionError("max_tokens", max_tokens, "an integer of 1 or more, or None")
        self.chat = chat
        self.checker = checker_of(scorer, tau=tau, attach=attach)
        self.prompt_id = prompt
        self.temperature = float(temperature)
        self.seed = seed
        self.max_tokens = max_tokens
        self._prompt: ChatPrompt | None = None

    @property
    def tau(self) -> float:
        return self.checker.tau

    def load(self) -> GroundedGenerator:
        """Read the prompt and load the verifier (once)."""
        if self._prompt is None:
            prompt = load_prompt(self.prompt_id)
            if set(prompt.fields) != {"question", "context"}:
                raise OptionError(
                    "prompt",
                    self.prompt_id,
                    "a prompt with the fields question "
                    f"and context (it has {', '.join(prompt.fields)})",
                    f"Use {defaults.GROUNDED_PROMPT!r} or a prompt like it.",
                )
            self._prompt = prompt
        self.checker.load()
        return self

    def request(self, question: str, hits: Sequence[Hit]) -> ChatRequest:
        """The chat request ``run`` sends for ``question`` over ``hits``."""
        prompt = self._loaded()
        question = _check_question(question)
        if not hits:
            raise InputError(
                "no hits were given, so there is nothing to ground an answer on: "
                "retrieve first, or abstain (Asker does) when retrieval finds nothing"
            )
        user = prompt.render(question=question.strip(), context=format_context(hits))
        return ChatRequest.of(
            user,
            system=prompt.system,
            temperature=self.temperature,
            max_tokens=self.max_tokens,
            seed=self.seed,
        )

    def run(self, question: str, hits: Sequence[Hit]) -> Answer:
        """Ask, then check: one chat call and at most one batched verifier call."""
        request = self.request(question, hits)
        sources = tuple(hits)
        started = time.perf_counter()
        response = self.chat.run(request)
        return self.answer(question, response, sources, generated=time.perf_counter() - started)

    def answer(
        self,
        question: str,
        response: ChatResponse,
        sources: Sequence[Hit],
        *,
        generated: float = 0.0,
        checker: CitationChecker | None = None,
    ) -> Answer:
        """The :class:`Answer` of the chat model's reply ``response`` over ``sources``: a
        refusal, or the reply with its citations checked by ``checker`` (default: this
        generator's; a streamed answer passes one that remembers the pairs it scored)."""
        sources = tuple(sources)
        text = response.text
        if not text.strip():
            raise GenerationError(
                f"the chat model {self.chat.model_id!r} returned an empty reply (finish reason "
                f"{response.finish_reason!r}); check the model and its context length"
            )
        refusal = detect_refusal(text)
        if refusal is not None:
            return Answer(
                question=question,
                text=text,
                sources=sources,
                refused=True,
                refusal=refusal,
                provenance=self._provenance(response, "", ""),
                timings=Timings(generate=generated),
            )
        started = time.perf_counter()
        checked = (checker or self.checker).run(text, sources)
        verified = time.perf_counter() - started
        return Answer(
            question=question,
            text=text,
            sentences=checked.sentences,
            citations=checked.citations,
            invalid_citations=checked.invalid,
            sources=sources,
            provenance=self._provenance(response, checked.verifier, checked.verifier_version),
            timings=Timings(generate=generated, verify=verified),
        )

    def _provenance(
        self, response: ChatResponse, verifier: str, version: str
    ) -> GenerationProvenance:
        prompt = self._loaded()
        return GenerationProvenance(
            model=response.model or self.chat.model_id,
            prompt_id=prompt.id,
            prompt_version=prompt.version,
            temperature=self.temperature if response.temperature is None else response.temperature,
            seed=self.seed if response.seed is None else response.seed,
            max_tokens=self.max_tokens,
            finish_reason=response.finish_reason,
            verifier=verifier or self.checker.scorer.model_id,
            verifier_version=version,
            tau=self.tau,
        )

    def _loaded(self) -> ChatPrompt:
        self.load()
        if self._prompt is None:  # pragma: no cover - load() always sets it
            raise OptionError("prompt", self.prompt_id, "a prompt that loads")
        return self._prompt


def _check_question(question: object) -> str:
    if not isinstance(question, str):
        raise InputError(f"a question must be a string, got {type(question).__name__}")
    if not question.strip():
        raise InputError(f"the question {question!r} is empty; ask something")
    return question
