"""LLM-based decomposition and decontextualization of claims, with versioned prompts and strict
parsers.

:class:`LLMDecomposer` sends every sentence to check in one request (prompt
``decompose_v1``) and reads ``{"claims": [{"sentence": 1, "text": "..."}, ...]}``;
:class:`LLMDecontextualizer` sends the answer and every claim in one request (prompt
``decontextualize_v1``) and reads ``{"claims": ["...", ...]}``, one claim per claim given, in
order. The parsers :func:`parse_decomposition` and :func:`parse_decontextualization` are pure
and strict: a reply that is not exactly that JSON (a Markdown code fence around it is allowed)
raises :class:`~veracity.errors.GenerationError` quoting the start of the reply; nothing is
guessed.

>>> parse_decomposition('{"claims": [{"sentence": 1, "text": "Bees dance."}]}', sentences=1)
((0, 'Bees dance.'),)
>>> parse_decontextualization('{"claims": ["Karl von Frisch died in 1982."]}', claims=1)
('Karl von Frisch died in 1982.',)
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from typing import Any

from veracity import defaults
from veracity.errors import GenerationError, ModelError, OptionError
from veracity.models.chat.base import ChatModel, ChatRequest
from veracity.prompts import ChatPrompt, load_prompt

__all__ = [
    "LLMDecomposer",
    "LLMDecontextualizer",
    "parse_decomposition",
    "parse_decontextualization",
]

_FENCE = re.compile(r"```(?:json)?\s*(.*?)\s*```", re.IGNORECASE | re.DOTALL)
_WORD = re.compile(r"\w")
_SHOWN = 200
_DECOMPOSE_EXPECTED = (
    'expected JSON {"claims": [{"sentence": <number>, "text": "<claim>"}, '
    "...]} with at least one claim for every sentence"
)
_DECONTEXTUALIZE_EXPECTED = (
    'expected JSON {"claims": ["<claim>", ...]} with one claim for every claim given, in order'
)


def parse_decomposition(reply: str, *, sentences: int) -> tuple[tuple[int, str], ...]:
    """``(0-based sentence, claim text)`` pairs read from a decomposer's reply, by sentence.

    Rejected: anything but the JSON object ``{"claims": [...]}`` (a code fence around it is
    allowed), an item with keys other than ``sentence`` and ``text``, a sentence number that is
    not an integer from 1 to ``sentences``, an empty claim, a sentence with no claim.
    """
    items = _claims(reply, _DECOMPOSE_EXPECTED)
    pairs: list[tuple[int, str]] = []
    for position, item in enumerate(items, 1):
        if not isinstance(item, dict) or set(item) != {"sentence", "text"}:
            raise _unreadable(
                reply,
                f"claim {position} is not an object with exactly the keys sentence and text",
                _DECOMPOSE_EXPECTED,
            )
        number = item["sentence"]
        if isinstance(number, bool) or not isinstance(number, int) or not 1 <= number <= sentences:
            raise _unreadable(
                reply,
                f"claim {position} names sentence {number!r}, not a number from 1 to {sentences}",
                _DECOMPOSE_EXPECTED,
            )
        pairs.append((number - 1, _text(reply, item["text"], position, _DECOMPOSE_EXPECTED)))
    missing = sorted(set(range(1, sentences + 1)) - {number + 1 for number, _ in pairs})
    if missing:
        raise _unreadable(
            reply,
            f"it gives no claim for sentence(s) {', '.join(map(str, missing))}",
            _DECOMPOSE_EXPECTED,
        )
    return tuple(sorted(pairs, key=lambda pair: pair[0]))


def parse_decontextualization(reply: str, *, claims: int) -> tuple[str, ...]:
    """The rewritten claims read from a decontextualizer's reply, exactly ``claims`` of them.

    Rejected: anything but the JSON object ``{"claims": [...]}`` of strings (a code fence around
    it is allowed), a different number of claims, an empty claim.
    """
    items = _claims(reply, _DECONTEXTUALIZE_EXPECTED)
    if len(items) != claims:
        raise _unreadable(
            reply, f"it has {len(items)} claims for the {claims} given", _DECONTEXTUALIZE_EXPECTED
        )
    return tuple(
        _text(reply, item, position, _DECONTEXTUALIZE_EXPECTED)
        for position, item in enumerate(items, 1)
    )


def _claims(reply: str, expected: str) -> list[Any]:
    text = reply.strip()
    fenced = _FENCE.fullmatch(text)
    if fenced:
        text = fenced.group(1)
    if not text:
        raise _unreadable(reply, "it is empty", expected)
    try:
        data = json.loads(text, object_pairs_hook=_object)
    except _RepeatedKeyError as exc:
        raise _unreadable(reply, f"its JSON repeats the key(s) {exc}", expected) from None
    except json.JSONDecodeError as exc:
        raise _unreadable(reply, f"it is not valid JSON ({exc.msg})", expected) from None
    if not isinstance(data, dict) or set(data) != {"claims"}:
        raise _unreadable(reply, 'it is not a JSON object with the one key "claims"', expected)
    items = data["claims"]
    if not isinstance(items, list) or not items:
        raise _unreadable(reply, '"claims" is not a non-empty list', expected)
    return items


class _RepeatedKeyError(ValueError):
    """A JSON object of the reply names a key twice (which ``json`` would silently merge)."""


def _object(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    data = dict(pairs)
    if len(data) < len(pairs):
        names = [name for name, _ in pairs]
        raise _RepeatedKeyError(", ".join(sorted({n for n in names if names.count(n) > 1})))
    return data


def _text(reply: str, value: object, position: int, expected: str) -> str:
    if not isinstance(value, str) or not _WORD.search(value):
        raise _unreadable(reply, f"claim {position} is {value!r}, not a sentence", expected)
    return " ".join(value.split())


def _unreadable(reply: str, reason: str, expected: str) -> GenerationError:
    shown = reply if len(reply) <= _SHOWN else reply[:_SHOWN] + "..."
    return GenerationError(f"cannot read claims from the reply {shown!r}: {reason}; {expected}")


class _LLMStep:
    """What both LLM steps share: the chat model, the prompt, sampling and one request."""

    fields: frozenset[str] = frozenset()

    def __init__(
        self,
        chat: ChatModel,
        *,
        prompt: str,
        temperature: float,
        seed: int | None,
        reply_tokens: int,
    ) -> None:
        if not isinstance(chat, ChatModel):
            raise OptionError(
                "chat",
                chat,
                "a ChatModel (a model_id and a run(request) method)",
                "Pass a chat backend from veracity.models.chat, or ScriptedChatModel "
                "from veracity.testing in tests.",
            )
        if not 0.0 <= temperature <= 2.0:
            raise OptionError(
                "temperature", temperature, "between 0 and 2", "Use 0 for repeatable claims."
            )
        if reply_tokens < 1:
            raise OptionError("reply_tokens", reply_tokens, "1 or more")
        self.chat = chat
        self.model_id = chat.model_id
        self.prompt_id = prompt
        self.temperature = temperature
        self.seed = seed
        self.reply_tokens = reply_tokens
        self._prompt: ChatPrompt | None = None

    def load(self) -> _LLMStep:
        """Read the prompt and check its fields; repeat calls are free."""
        if self._prompt is None:
            prompt = load_prompt(self.prompt_id)
            if set(prompt.fields) != self.fields:
                raise OptionError(
                    "prompt",
                    self.prompt_id,
                    f"a prompt with the fields {', '.join(sorted(self.fields))}",
                    f"It has {list(prompt.fields)}; pass one of the shipped claim prompts.",
                )
            self._prompt = prompt
        return self

    @property
    def prompt(self) -> ChatPrompt:
        self.load()
        if self._prompt is None:  # pragma: no cover - load() sets it
            raise ModelError(f"prompt {self.prompt_id} failed to load")
        return self._prompt

    def _ask(self, **values: str) -> str:
        prompt = self.prompt
        request = ChatRequest.of(
            prompt.render(**values),
            system=prompt.system,
            temperature=self.temperature,
            max_tokens=self.reply_tokens,
            seed=self.seed,
        )
        return self.chat.run(request).text

    def _failed(self, exc: GenerationError) -> GenerationError:
        return GenerationError(f"{self.model_id}, prompt {self.prompt.ref}: {exc}")


class LLMDecomposer(_LLMStep):
    """Split sentences into atomic claims with a chat model, in one request.

    >>> from veracity.testing import ScriptedChatModel
    >>> reply = '{"claims": [{"sentence": 1, "text": "Bees dance."}, ' \\
    ...         '{"sentence": 1, "text": "Bees sing."}]}'
    >>> LLMDecomposer(ScriptedChatModel([reply])).run(["Bees dance and sing."])
    ((0, 'Bees dance.'), (0, 'Bees sing.'))
    """

    fields = frozenset({"sentences"})

    def __init__(
        self,
        chat: ChatModel,
        *,
        prompt: str = defaults.CLAIMS_DECOMPOSE_PROMPT,
        temperature: float = defaults.CLAIMS_TEMPERATURE,
        seed: int | None = defaults.CLAIMS_SEED,
        reply_tokens: int = defaults.CLAIMS_REPLY_TOKENS,
    ) -> None:
        super().__init__(
            chat, prompt=prompt, temperature=temperature, seed=seed, reply_tokens=reply_tokens
        )

    def run(self, sentences: Sequence[str]) -> tuple[tuple[int, str], ...]:
        """``(0-based sentence, claim)`` pairs, by sentence; no request for no sentences.

        Raises :class:`GenerationError` naming the model and prompt when the model fails or
        its reply cannot be read.
        """
        if not sentences:
            return ()
        numbered = "\n".join(f"{i}. {sentence}" for i, sentence in enumerate(sentences, 1))
        try:
            return parse_decomposition(self._ask(sentences=numbered), sentences=len(sentences))
        except GenerationError as exc:
            raise self._failed(exc) from exc


class LLMDecontextualizer(_LLMStep):
    """Make claims self-contained with a chat model, in one request that shows the answer.

    >>> from veracity.testing import ScriptedChatModel
    >>> chat = ScriptedChatModel(['{"claims": ["Karl von Frisch died in 1982."]}'])
    >>> LLMDecontextualizer(chat).run("Karl von Frisch studied bees. He died in 1982.",
    ...                               ["He died in 1982."])
    ('Karl von Frisch died in 1982.',)
    """

    fields = frozenset({"answer", "claims", "count"})

    def __init__(
        self,
        chat: ChatModel,
        *,
        prompt: str = defaults.CLAIMS_DECONTEXTUALIZE_PROMPT,
        temperature: float = defaults.CLAIMS_TEMPERATURE,
        seed: int | None = defaults.CLAIMS_SEED,
        reply_tokens: int = defaults.CLAIMS_REPLY_TOKENS,
    ) -> None:
        super().__init__(
            chat, prompt=prompt, temperature=temperature, seed=seed, reply_tokens=reply_tokens
        )

    def run(self, answer: str, claims: Sequence[str]) -> tuple[str, ...]:
        """One rewritten claim per claim of ``claims``, in order; no request for no claims.

        Raises :class:`GenerationError` naming the model and prompt when the model fails or
        its reply cannot be read.
        """
        if not claims:
            return ()
        numbered = "\n".join(f"{i}. {claim}" for i, claim in enumerate(claims, 1))
        try:
            reply = self._ask(answer=answer, claims=numbered, count=str(len(claims)))
            return parse_decontextualization(reply, claims=len(claims))
        except GenerationError as exc:
            raise self._failed(exc) from exc
