"""Turn an answer into atomic, self-contained claims, each with its span in the answer.

Four steps: split the answer into sentences (:func:`.split.split_answer`), drop those that need
no verification with the reason recorded, decompose the rest into atomic claims, and
decontextualize the claims. A claim's text is its span's words as written
(:func:`.draft.written`) unless an edit in ``claim.edits`` says otherwise: a claim that opens
with a lower-case function word ("the queen lays ...", cut from mid-sentence) has it
capitalised, recorded as ``capitalised: 'the' -> 'The'``; no other letter changes case.

By rule by default (:class:`.RuleDecomposer`, :class:`.RuleDecontextualizer`); with a chat
model, the two last steps ask it (:class:`.LLMDecomposer`, :class:`.LLMDecontextualizer`, one
request each per answer).

A reply that cannot be read raises :class:`~veracity.errors.GenerationError`, or, with
``on_error="rules"``, that step falls back to the rules and every claim records
``"llm reply unreadable (<prompt>); rules used"``.

>>> claims = ClaimExtractor().run("Karl von Frisch was born in 1886 and he died in 1982 [2].")
>>> [(c.text, c.markers) for c in claims.claims]
[('Karl von Frisch was born in 1886.', (2,)), ('Karl von Frisch died in 1982.', (2,))]
>>> claims.claims[1].edits
('decomposed', "decontextualized: 'he' -> 'Karl von Frisch'")
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Literal

from veracity import defaults
from veracity.errors import GenerationError, InputError, OptionError
from veracity.models.chat.base import ChatModel, Decoding
from veracity.text.grammar import capitalised_opening, finish
from veracity.types import Claim, ClaimSet, SkippedSentence
from veracity.verify.claims.decompose import Part, RuleDecomposer
from veracity.verify.claims.decontextualize import RuleDecontextualizer
from veracity.verify.claims.draft import Draft, locate, written
from veracity.verify.claims.llm import LLMDecomposer, LLMDecontextualizer
from veracity.verify.claims.split import ClaimSentence, split_answer

__all__ = ["ON_ERROR", "ClaimExtractor", "OnError"]

OnError = Literal["raise", "rules"]
ON_ERROR: tuple[OnError, ...] = ("raise", "rules")

_WORDS = re.compile(r"\w+")


class ClaimExtractor:
    """Split an answer into atomic, self-contained claims (see the module docstring).

    ``decompose`` and ``decontextualize`` switch those steps on or off; ``chat`` makes an LLM do
    them (``decoding``'s temperature, seed and max_tokens go into its requests, by default
    temperature 0, seed 0 and ``defaults.CLAIMS_REPLY_TOKENS``; the prompts are
    ``decompose_prompt`` and ``decontextualize_prompt``); ``on_error`` is ``"raise"``
    (default) or ``"rules"``.
    """

    def __init__(
        self,
        *,
        decompose: bool = True,
        decontextualize: bool = True,
        chat: ChatModel | None = None,
        decoding: Decoding | None = None,
        decompose_prompt: str = defaults.CLAIMS_DECOMPOSE_PROMPT,
        decontextualize_prompt: str = defaults.CLAIMS_DECONTEXTUALIZE_PROMPT,
        on_error: OnError = "raise",
    ) -> None:
        for name, value in (("decompose", decompose), ("decontextualize", decontextualize)):
            if not isinstance(value, bool):
                raise OptionError(name, value, "True or False")
        if on_error not in ON_ERROR:
            raise OptionError(
                "on_error",
                on_error,
                f"one of {', '.join(ON_ERROR)}",
                "Use 'rules' to fall back to the rule-based claims when the "
                "chat model's reply cannot be read.",
            )
        if chat is not None and not (decompose or decontextualize):
            raise OptionError(
                "chat",
                chat.model_id if isinstance(chat, ChatModel) else chat,
                "a chat model only when decompose or decontextualize is on",
                "Drop chat=, or pass decompose=True or decontextualize=True.",
            )
        if decoding is None:
            decoding = Decoding(defaults.CLAIMS_TEMPERATURE, defaults.CLAIMS_SEED)
        if not isinstance(decoding, Decoding):
            raise OptionError("decoding", decoding, "a Decoding", "Use Decoding(seed=0).")
        temperature, seed = decoding.temperature, decoding.seed
        reply_tokens = decoding.max_tokens or defaults.CLAIMS_REPLY_TOKENS
        self.decompose = decompose
        self.decontextualize = decontextualize
        self.chat = chat
        self.on_error = on_error
        self._rule_decomposer = RuleDecomposer()
        self._rule_decontextualizer = RuleDecontextualizer()
        self._decomposer: LLMDecomposer | None = None
        self._decontextualizer: LLMDecontextualizer | None = None
        if chat is not None and decompose:
            self._decomposer = LLMDecomposer(
                chat,
                prompt=decompose_prompt,
                temperature=temperature,
                seed=seed,
                reply_tokens=reply_tokens,
            )
        if chat is not None and decontextualize:
            self._decontextualizer = LLMDecontextualizer(
                chat,
                prompt=decontextualize_prompt,
                temperature=temperature,
                seed=seed,
                reply_tokens=reply_tokens,
            )

    @property
    def method(self) -> str:
        """``"llm"`` when a chat model is given, else ``"rules"``."""
        return "rules" if self.chat is None else "llm"

    def load(self) -> ClaimExtractor:
        """Read the prompts when a chat model is given; repeat calls are free."""
        for step in (self._decomposer, self._decontextualizer):
            if step is not None:
                step.load()
        return self

    def run(self, answer: str, *, blocks: Sequence[str] | None = None) -> ClaimSet:
        """The claims of ``answer`` and the sentences skipped, with how they were made.

        ``blocks`` are the texts of the numbered blocks the answer was written over, ``None``
        when it came with none: then ``heap[5]`` is text, not a citation of block 5 (see
        :func:`~veracity.text.citations.find_markers`).
        """
        if not isinstance(answer, str):
            raise InputError(
                f"answer must be a string, got {type(answer).__name__}: pass the "
                "text of the answer to check"
            )
        if not answer.strip():
            raise InputError(
                f"answer {answer!r} is empty or only whitespace: pass the text of "
                "the answer to check"
            )
        if len(answer) > defaults.VERIFY_MAX_ANSWER_CHARS:
            raise InputError(
                f"the answer is {len(answer):,} characters long, more than the "
                f"{defaults.VERIFY_MAX_ANSWER_CHARS:,} verified at once: split it into parts "
                "(at paragraphs, say) and verify each, or put the parts in a JSONL file of "
                '{"id": ..., "answer": ...} lines for veracity verify-batch'
            )
        self.load()
        sentences = split_answer(answer, blocks=blocks)
        kept = [sentence for sentence in sentences if sentence.skip is None]
        breaks = {sentence.index for sentence in sentences if sentence.skip == "heading"}
        notes: list[str] = []
        prompts: list[str] = []
        drafts = self._decomposed(answer, kept, notes, prompts, blocks)
        drafts = self._decontextualized(answer, drafts, breaks, notes, prompts)
        drafts = [_opening_capitalised(draft) for draft in drafts]
        markers = {sentence.index: sentence.markers for sentence in sentences}
        claims = tuple(
            Claim(
                index,
                draft.text,
                draft.span,
                draft.sentence,
                markers[draft.sentence],
                (*draft.edits, *notes),
            )
            for index, draft in enumerate(drafts)
        )
        skipped = tuple(
            SkippedSentence(s.index, s.span, s.span.of(answer), s.skip)
            for s in sentences
            if s.skip is not None
        )
        model = self.chat.model_id if prompts and self.chat is not None else None
        return ClaimSet(
            answer,
            claims,
            skipped,
            len(sentences),
            method="llm" if prompts else "rules",
            model=model,
            prompt=", ".join(prompts) or None,
        )

    # --- decomposition --------------------------------------------------------------------

    def _decomposed(
        self,
        answer: str,
        kept: Sequence[ClaimSentence],
        notes: list[str],
        prompts: list[str],
        blocks: Sequence[str] | None,
    ) -> list[Draft]:
        if not self.decompose:
            return [
                Draft(s.index, written(answer, s.span, blocks=blocks), s.span, s.span) for s in kept
            ]
        step = self._decomposer
        if step is not None and kept:
            try:
                pairs = step.run([sentence.text for sentence in kept])
            except GenerationError as exc:
                self._fall_back(exc, step.prompt.ref, notes)
            else:
                prompts.append(step.prompt.ref)
                return _llm_drafts(answer, kept, pairs, blocks)
        drafts: list[Draft] = []
        for sentence in kept:
            drafts.extend(
                _rule_drafts(answer, sentence, self._rule_decomposer.run(sentence.text), blocks)
            )
        return drafts

    # --- decontextualization --------------------------------------------------------------

    def _decontextualized(
        self,
        answer: str,
        drafts: list[Draft],
        breaks: set[int],
        notes: list[str],
        prompts: list[str],
    ) -> list[Draft]:
        if not self.decontextualize:
            return drafts
        step = self._decontextualizer
        if step is not None and drafts:
            try:
                texts = step.run(answer, [draft.text for draft in drafts])
            except GenerationError as exc:
                self._fall_back(exc, step.prompt.ref, notes)
            else:
                prompts.append(step.prompt.ref)
                return [
                    _llm_rewrite(draft, text) for draft, text in zip(drafts, texts, strict=True)
                ]
        return list(self._rule_decontextualizer.run(drafts, breaks=breaks))

    def _fall_back(self, exc: GenerationError, prompt: str, notes: list[str]) -> None:
        if self.on_error == "raise":
            raise GenerationError(
                f"{exc}. Pass on_error='rules' to ClaimExtractor to use the "
                "rule-based claims when the reply cannot be read"
            ) from exc
        notes.append(f"llm reply unreadable ({prompt}); rules used")


def _rule_drafts(
    answer: str, sentence: ClaimSentence, parts: Sequence[Part], blocks: Sequence[str] | None
) -> list[Draft]:
    """Drafts of a sentence's parts: a verbatim part gets its own characters as span, and its
    text is what they say as written."""
    if len(parts) == 1 and parts[0].verbatim:
        part = parts[0]
        return [
            Draft(
                sentence.index,
                written(answer, sentence.span, blocks=blocks),
                sentence.span,
                sentence.span,
                True,
                part.edits,
            )
        ]
    drafts: list[Draft] = []
    cursor = sentence.span.start
    for part in parts:
        found = (
            locate(part.text, answer, sentence.span, after=cursor, blocks=blocks)
            if part.verbatim
            else None
        )
        if found is None:
            drafts.append(
                Draft(sentence.index, part.text, sentence.span, sentence.span, False, part.edits)
            )
            continue
        drafts.append(
            Draft(
                sentence.index,
                written(answer, found, blocks=blocks),
                found,
                sentence.span,
                True,
                part.edits,
            )
        )
        cursor = found.end
    return drafts


def _llm_drafts(
    answer: str,
    kept: Sequence[ClaimSentence],
    pairs: Sequence[tuple[int, str]],
    blocks: Sequence[str] | None,
) -> list[Draft]:
    """Drafts of the LLM's claims: a claim whose words are in its sentence keeps their span and
    reads as they are written there (the model's recasing or respacing is not taken)."""
    drafts: list[Draft] = []
    for position, sentence in enumerate(kept):
        texts = [finish(text) for number, text in pairs if number == position]
        if len(texts) == 1 and _same_words(texts[0], sentence.text):
            drafts.append(
                Draft(
                    sentence.index,
                    written(answer, sentence.span, blocks=blocks),
                    sentence.span,
                    sentence.span,
                )
            )
            continue
        edits = ("decomposed (llm)",) if len(texts) > 1 else ()
        cursor = sentence.span.start
        for text in texts:
            found = locate(text, answer, sentence.span, after=cursor, blocks=blocks)
            if found is None:
                drafts.append(
                    Draft(
                        sentence.index,
                        text,
                        sentence.span,
                        sentence.span,
                        False,
                        (*edits, "rewritten (llm)"),
                    )
                )
                continue
            drafts.append(
                Draft(
                    sentence.index,
                    written(answer, found, blocks=blocks),
                    found,
                    sentence.span,
                    True,
                    edits,
                )
            )
            cursor = found.end
    return drafts


def _opening_capitalised(draft: Draft) -> Draft:
    recased = capitalised_opening(draft.text)
    return draft if recased is None else draft.recased(*recased)


def _llm_rewrite(draft: Draft, text: str) -> Draft:
    rewritten = finish(text)
    if _same_words(rewritten, draft.text):
        return draft
    return draft.rewritten(rewritten, "decontextualized (llm)")


def _same_words(first: str, second: str) -> bool:
    return _WORDS.findall(first.lower()) == _WORDS.findall(second.lower())
