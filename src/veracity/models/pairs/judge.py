"""An LLM as the verifier: any ``ChatModel`` judges whether a premise supports a claim.

The judge asks with a versioned prompt (``veracity/prompts/judge_v1.json``) for exactly one of
``SUPPORTED``, ``CONTRADICTED`` or ``NOT_MENTIONED``, read by the strict, pure
:func:`parse_judgement`. A label maps to probabilities (supported, contradicted, neither):
``SUPPORTED`` -> (1, 0, 0) and so on; with a confidence ``c`` (0-100, JSON form) the label gets
``c / 100`` and the other two share the rest.

A reply that cannot be read raises :class:`~veracity.errors.GenerationError` quoting it, or,
with ``on_error="record"``, becomes a result whose ``error`` is set and whose ``label`` is
``"error"`` -- never a score. A chat model that raises ``GenerationError`` is handled the same
way; any other exception propagates.

Long premises are never truncated: the :class:`~veracity.models.pairs.windows.EvidenceSelector`
fits them into ``max_tokens`` (counted with the shipped MiniLM tokenizer, an approximation of
the chat model's own tokens), one chat call per window, and the window with the highest support
is kept (ties go to the higher contradiction, so a contradicting window beats a silent one).

Published judges ask in their own words and answer with their own labels: a prompt whose JSON
gives ``targets`` (each label's meaning: supported, contradicted or neither) is read by
:func:`parse_label`, which takes exactly one of its labels and nothing else. Shipped:
``judge_bespoke_minicheck_v1``, Bespoke-MiniCheck-7B's prompt (``Yes`` -> supported, ``No`` ->
neither; LLM-AggreFact average 77.4 published), and
``judge_granite_guardian_groundedness_v1``, Granite Guardian 3.0/3.1's groundedness check (its
risk is an ungrounded claim, so ``Yes`` -> neither and ``No`` -> supported), each for the model
behind any OpenAI-compatible server (``--llm openai:URL``).

Provenance: ``PairScores.model_id`` is the chat model's ``model_id`` and ``model_version`` reads
``"prompt judge_v1@1; temperature 0; seed 0"``.

>>> from veracity.testing import ScriptedChatModel
>>> judge = LLMJudgeVerifier(ScriptedChatModel(["SUPPORTED"]))
>>> result = judge.run(["Paris is the capital of France."], ["France's capital is Paris."])
>>> result.scores[0].label, result.model_version
('supported', 'prompt judge_v1@1; temperature 0; seed 0')
"""

from __future__ import annotations

import json
import math
import re
import string
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal

from veracity import defaults
from veracity.assets import load_tokenizer
from veracity.errors import GenerationError, ModelError, OptionError
from veracity.models.chat.base import ChatModel, ChatRequest
from veracity.models.pairs.base import check_pairs
from veracity.models.pairs.windows import MAX_WINDOW, STRATEGIES, EvidenceSelector, Strategy, Window
from veracity.prompts import ChatPrompt, load_prompt
from veracity.types import PairScore, PairScores

__all__ = [
    "JUDGE_LABELS",
    "ON_ERROR",
    "JudgeLabel",
    "Judgement",
    "LLMJudgeVerifier",
    "parse_judgement",
    "parse_label",
]

JudgeLabel = Literal["SUPPORTED", "CONTRADICTED", "NOT_MENTIONED"]
#: Labels in the order of the probabilities they set: supported, contradicted, neither.
JUDGE_LABELS: tuple[JudgeLabel, ...] = ("SUPPORTED", "CONTRADICTED", "NOT_MENTIONED")
OnError = Literal["raise", "record"]
ON_ERROR: tuple[OnError, ...] = ("raise", "record")

JUDGE_MAX_TOKENS = defaults.JUDGE_MAX_TOKENS
JUDGE_REPLY_TOKENS = defaults.JUDGE_REPLY_TOKENS
JUDGE_PROMPT = defaults.JUDGE_PROMPT

_LABEL_WORD = re.compile(r"\b(?:SUPPORTED|CONTRADICTED|NOT[ _-]?MENTIONED)\b", re.IGNORECASE)
_FENCE = re.compile(r"```(?:json)?\s*(.*?)\s*```", re.IGNORECASE | re.DOTALL)
_EDGES = string.whitespace + string.punctuation
_JSON_KEYS = frozenset({"label", "confidence"})
#: What a published judge's label can mean, in the order of ``PairScore``'s probabilities.
_TARGETS = ("supported", "contradicted", "neither")
_EXPECTED = (
    "expected exactly one of SUPPORTED, CONTRADICTED, NOT_MENTIONED, or "
    '{"label": "<LABEL>", "confidence": <0-100>}'
)


@dataclass(frozen=True, slots=True)
class Judgement:
    """A parsed verdict: one of :data:`JUDGE_LABELS` and an optional confidence from 0 to 100."""

    label: JudgeLabel
    confidence: float | None = None

    def probabilities(self) -> tuple[float, float, float]:
        """(supported, contradicted, neither): the label gets ``confidence`` (1 when not given)."""
        share = 1.0 if self.confidence is None else self.confidence / 100.0
        rest = (1.0 - share) / 2.0
        position = JUDGE_LABELS.index(self.label)
        values = [rest, rest, rest]
        values[position] = share
        return values[0], values[1], values[2]


def parse_judgement(reply: str) -> Judgement:
    """Read a verdict from a judge's reply, strictly; raise :class:`GenerationError` otherwise.

    Accepted: one label alone (any case; ``NOT MENTIONED`` and ``NOT-MENTIONED`` too) with
    surrounding whitespace or punctuation, or the JSON object ``{"label": ..., "confidence": ...}``
    (``confidence`` optional, 0-100), optionally in a Markdown code fence. Rejected: no label, two
    labels, any other words, other JSON keys, repeated keys, a confidence out of range.

    >>> parse_judgement("  Supported. ")
    Judgement(label='SUPPORTED', confidence=None)
    >>> parse_judgement('{"label": "not_mentioned", "confidence": 80}')
    Judgement(label='NOT_MENTIONED', confidence=80.0)
    """
    text = reply.strip()
    fenced = _FENCE.fullmatch(text)
    if fenced:
        text = fenced.group(1)
    if not text:
        raise _unreadable(reply, "it is empty")
    if text.startswith("{"):
        return _parse_json(reply, text)
    found = {str(_canonical(word)) for word in _LABEL_WORD.findall(text)}
    if len(found) > 1:
        raise _unreadable(reply, f"it names more than one label ({', '.join(sorted(found))})")
    if not found:
        raise _unreadable(reply, "it names no label")
    label = _canonical(text.strip(_EDGES))
    if label is None:
        raise _unreadable(reply, "it has words besides the label")
    return Judgement(label)


def _canonical(word: str) -> JudgeLabel | None:
    squashed = re.sub(r"[ _-]", "", word.upper())
    for label in JUDGE_LABELS:
        if squashed == label.replace("_", ""):
            return label
    return None


def _parse_json(reply: str, text: str) -> Judgement:
    def unique(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
        keys = [key for key, _ in pairs]
        repeated = sorted({key for key in keys if keys.count(key) > 1})
        if repeated:
            raise _unreadable(reply, f"its JSON repeats the key(s) {', '.join(repeated)}")
        return dict(pairs)

    try:
        data = json.loads(text, object_pairs_hook=unique)
    except json.JSONDecodeError as exc:
        raise _unreadable(reply, f"it is not valid JSON ({exc.msg})") from None
    if not isinstance(data, dict):
        raise _unreadable(reply, "its JSON is not an object")
    unknown = sorted(set(data) - _JSON_KEYS)
    if unknown:
        raise _unreadable(
            reply, f"its JSON has key(s) {', '.join(unknown)} besides label and confidence"
        )
    value = data.get("label")
    label = _canonical(value) if isinstance(value, str) else None
    if label is None:
        raise _unreadable(reply, f"its JSON label {value!r} is not one label")
    confidence = data.get("confidence")
    if confidence is None:
        return Judgement(label)
    if (
        isinstance(confidence, bool)
        or not isinstance(confidence, int | float)
        or not math.isfinite(confidence)
        or not 0 <= confidence <= 100
    ):
        raise _unreadable(reply, f"its confidence {confidence!r} is not a number from 0 to 100")
    return Judgement(label, float(confidence))


def _unreadable(reply: str, reason: str, expected: str = _EXPECTED) -> GenerationError:
    shown = reply if len(reply) <= 300 else reply[:300] + "..."
    return GenerationError(f"cannot read a verdict from the reply {shown!r}: {reason}; {expected}")


def parse_label(reply: str, labels: Sequence[str]) -> str:
    """Exactly one of a published judge's ``labels`` (any case, surrounding whitespace and
    punctuation allowed), as the prompt spells it; raise :class:`GenerationError` otherwise.

    >>> parse_label(" yes.", ("Yes", "No"))
    'Yes'
    >>> parse_label("Yes, it is.", ("Yes", "No"))
    Traceback (most recent call last):
    ...
    veracity.errors.GenerationError: cannot read a verdict from the reply 'Yes, it is.': it is \
not one label alone; expected exactly one of Yes, No
    """
    expected = f"expected exactly one of {', '.join(labels)}"
    word = reply.strip(_EDGES).casefold()
    if not word:
        raise _unreadable(reply, "it is empty", expected)
    for label in labels:
        if word == label.casefold():
            return label
    raise _unreadable(reply, "it is not one label alone", expected)


class LLMJudgeVerifier:
    """A ``PairScorer`` that asks a chat model to judge each (premise, claim) pair.

    ``temperature`` and ``seed`` go into every request (0 and 0 by default, for repeatable
    verdicts); ``reply_tokens`` caps the reply. ``on_error`` is ``"raise"`` (default) or
    ``"record"``; with ``"record"`` a pair whose reply (on any window) cannot be read gets an
    ``error`` result and its remaining windows are not asked.
    """

    def __init__(
        self,
        chat: ChatModel,
        *,
        prompt: str = JUDGE_PROMPT,
        max_tokens: int = JUDGE_MAX_TOKENS,
        strategy: Strategy = "select",
        temperature: float = 0.0,
        seed: int | None = 0,
        reply_tokens: int = JUDGE_REPLY_TOKENS,
        on_error: OnError = "raise",
    ) -> None:
        if not isinstance(chat, ChatModel):
            raise OptionError(
                "chat",
                chat,
                "a ChatModel (a model_id and a run(request) method)",
                "Pass a chat backend from veracity.models.chat, or ScriptedChatModel "
                "from veracity.testing in tests.",
            )
        if not 32 <= max_tokens <= MAX_WINDOW:
            raise OptionError(
                "max_tokens",
                max_tokens,
                f"between 32 and {MAX_WINDOW}",
                "Give the premise + claim budget of one chat call, in tokens.",
            )
        if strategy not in STRATEGIES:
            raise OptionError("strategy", strategy, f"one of {', '.join(STRATEGIES)}")
        if not 0.0 <= temperature <= 2.0:
            raise OptionError(
                "temperature", temperature, "between 0 and 2", "Use 0 for repeatable verdicts."
            )
        if reply_tokens < 1:
            raise OptionError("reply_tokens", reply_tokens, "1 or more")
        if on_error not in ON_ERROR:
            raise OptionError("on_error", on_error, f"one of {', '.join(ON_ERROR)}")
        self.chat = chat
        self.model_id = chat.model_id
        self.prompt_id = prompt
        self.max_tokens = max_tokens
        self.strategy = strategy
        self.temperature = temperature
        self.seed = seed
        self.reply_tokens = reply_tokens
        self.on_error = on_error
        self._prompt: ChatPrompt | None = None
        self._selector: EvidenceSelector | None = None

    def load(self) -> LLMJudgeVerifier:
        """Read the prompt and the tokenizer that counts window tokens; repeat calls are free."""
        if self._prompt is not None:
            return self
        prompt = load_prompt(self.prompt_id)
        targets = dict(prompt.targets)
        published = (
            bool(targets)
            and set(targets) == set(prompt.labels)
            and set(targets.values()) <= set(_TARGETS)
            and "supported" in targets.values()
        )
        if set(prompt.fields) != {"premise", "claim"} or not (
            prompt.labels == JUDGE_LABELS or published
        ):
            raise OptionError(
                "prompt",
                self.prompt_id,
                "a prompt with fields {premise} and {claim} that asks for "
                f"{', '.join(JUDGE_LABELS)}, or a published judge's prompt "
                "whose targets give every label's meaning",
                f"It has fields {list(prompt.fields)} and labels "
                f"{list(prompt.labels)}; pass prompt={JUDGE_PROMPT!r}.",
            )
        selector = EvidenceSelector(
            max_tokens=self.max_tokens, strategy=self.strategy, tokenizer=load_tokenizer()
        )
        self._selector = selector
        self._prompt = prompt
        return self

    @property
    def provenance(self) -> str:
        """What ``PairScores.model_version`` records: prompt, temperature and seed."""
        return f"prompt {self._loaded()[0].ref}; temperature {self.temperature:g}; seed {self.seed}"

    def run(self, premises: Sequence[str], hypotheses: Sequence[str]) -> PairScores:
        """One result per pair, in input order; see the module docstring for windows and errors."""
        check_pairs(premises, hypotheses)
        self.load()
        scores = tuple(
            self._judge_pair(index, premise, claim)
            for index, (premise, claim) in enumerate(zip(premises, hypotheses, strict=True))
        )
        return PairScores(scores, self.model_id, self.provenance)

    def request(self, premise: str, claim: str) -> ChatRequest:
        """The chat request for one window of evidence and one claim."""
        prompt = self._loaded()[0]
        return ChatRequest.of(
            prompt.render(premise=premise, claim=claim),
            system=prompt.system,
            temperature=self.temperature,
            max_tokens=self.reply_tokens,
            seed=self.seed,
        )

    def _judge_pair(self, index: int, premise: str, claim: str) -> PairScore:
        windows = self._loaded()[1].run(premise, claim)
        verdicts: list[tuple[float, float, float]] = []
        for position, window in enumerate(windows):
            try:
                reply = self.chat.run(self.request(window.text, claim)).text
                verdicts.append(self._read(reply))
            except GenerationError as exc:
                where = (
                    f"pair {index}, window {position + 1} of {len(windows)} "
                    f"({self.model_id}, prompt {self._loaded()[0].ref})"
                )
                if self.on_error == "raise":
                    raise GenerationError(
                        f"{where}: {exc}. Pass on_error='record' to keep going and record "
                        "the pair as an error"
                    ) from exc
                return PairScore.failure(
                    f"{where}: {exc}",
                    window=window.span,
                    window_index=position,
                    windows=len(windows),
                    evidence=window.spans,
                )
        best = max(range(len(windows)), key=lambda i: (verdicts[i][0], verdicts[i][1], -i))
        return _score(verdicts[best], windows[best], best, len(windows))

    def _read(self, reply: str) -> tuple[float, float, float]:
        """(supported, contradicted, neither) of a reply, by the prompt's own labels."""
        prompt = self._loaded()[0]
        if not prompt.targets:
            return parse_judgement(reply).probabilities()
        target = dict(prompt.targets)[parse_label(reply, prompt.labels)]
        supported, contradicted, neither = (float(target == name) for name in _TARGETS)
        return supported, contradicted, neither

    def _loaded(self) -> tuple[ChatPrompt, EvidenceSelector]:
        self.load()
        if self._prompt is None or self._selector is None:  # pragma: no cover - load() sets both
            raise ModelError("the judge failed to load")
        return self._prompt, self._selector


def _score(
    probabilities: tuple[float, float, float], window: Window, position: int, windows: int
) -> PairScore:
    supported, contradicted, neither = probabilities
    return PairScore(
        supported,
        contradicted,
        neither,
        window=window.span,
        window_index=position,
        windows=windows,
        evidence=window.spans,
    )
