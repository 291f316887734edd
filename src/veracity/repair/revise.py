"""Revise: the smallest edit that makes a claim agree with its evidence.

Three editors, tried in this order:

1. :class:`ValueSubstitution` (no model): where the knowledge layer found that the evidence
   states another number, date, amount or code token than the claim, the evidence's value
   replaces the claim's, written in the answer's format (:func:`~veracity.repair.formats.
   render_like`: "1983" becomes "1973", "$5 million" becomes "$4.2 million");
2. :class:`LLMEditor`: the chat model rewrites the claim with the versioned prompt
   ``repair_edit_v1``; :func:`parse_edit` reads the reply strictly and raises
   :class:`~veracity.errors.GenerationError` on anything else, which leaves the claim as it is;
3. :class:`Quotation` (no model, only when no chat model is given): the whole sentence is
   replaced by the source's own sentence that answers the same research question, quoted
   word for word; the edit records the passage and the exact span it quotes. (Not wrapped in
   "According to <title>, ...": on the shipped verifier that prefix lowered P(supported) of
   two source sentences against their own passage from 0.64 to 0.39 and 0.70 to 0.57.)

Edits 1 and 2 then pass :class:`EditLimits` (at most 50 characters and at most half the claim,
by Levenshtein distance; RARR's limits) and must be placed in the answer (:func:`place`); a
quotation replaces its whole sentence, so it is exempt from the limits and is placed only where
the claim is a whole sentence of the answer. The verifier's check of the edited claim against
its evidence is the pipeline's last gate for all three.

>>> EditLimits().check("He won it in 1983.", "He won it in 1973.") is None
True
>>> EditLimits().check("He won it in 1983.", "Nobody ever won anything.")
'the edit changes 19 of 18 characters, more than half of the claim'
>>> parse_edit("Fixed: He won it in 1973.")
'He won it in 1973.'
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from rapidfuzz.distance import Levenshtein

from veracity import defaults
from veracity.errors import GenerationError, OptionError
from veracity.models.chat.base import ChatModel, ChatRequest
from veracity.prompts import ChatPrompt, load_prompt
from veracity.repair.formats import render_like
from veracity.text.prose import prose_span
from veracity.text.sentences import split_sentences
from veracity.text.words import content_words
from veracity.types import Claim, EvidenceJudgement, Span, ValueCheck

__all__ = [
    "QUOTATION_RULE",
    "SUBSTITUTION_RULE",
    "EditLimits",
    "LLMEditor",
    "Placement",
    "Quotation",
    "Quote",
    "ValueSubstitution",
    "evidence_quote",
    "parse_edit",
    "place",
    "sentence_span",
]

#: The rule id recorded on a value substitution.
SUBSTITUTION_RULE = "value_substitution@1"
#: The rule id recorded on a quotation.
QUOTATION_RULE = "quotation@1"
_LABEL = re.compile(r"^\s*(?:fixed|my fix|corrected claim|correction)\s*:\s*", re.IGNORECASE)


@dataclass(frozen=True, slots=True)
class EditLimits:
    """RARR's edit limits: at most ``max_chars`` characters changed and at most ``max_share``
    of the claim's length (Levenshtein distance, characters)."""

    max_chars: int = defaults.REPAIR_MAX_EDIT_CHARS
    max_share: float = defaults.REPAIR_MAX_EDIT_SHARE

    def __post_init__(self) -> None:
        if (
            isinstance(self.max_chars, bool)
            or not isinstance(self.max_chars, int)
            or self.max_chars < 1
        ):
            raise OptionError("max_chars", self.max_chars, "a positive number of characters")
        if not 0.0 < self.max_share <= 1.0:
            raise OptionError("max_share", self.max_share, "a share above 0 and at most 1")

    def check(self, before: str, after: str) -> str | None:
        """Why the edit from ``before`` to ``after`` is refused, or ``None`` when it is allowed."""
        changed = Levenshtein.distance(before, after)
        if changed > self.max_chars:
            return f"the edit changes {changed} characters, more than {self.max_chars}"
        if changed > self.max_share * len(before):
            return (
                f"the edit changes {changed} of {len(before)} characters, more than "
                f"{'half' if self.max_share == 0.5 else f'{self.max_share:.0%}'} of the "
                "claim"
            )
        return None


def parse_edit(reply: str) -> str:
    """The corrected claim in an editor's reply: its first non-empty line, with an optional
    ``Fixed:`` label, a sentence ending in ``.``, ``!`` or ``?``.

    >>> parse_edit("I think the year is wrong.\\n")
    'I think the year is wrong.'
    >>> parse_edit("Evidence: bees")
    Traceback (most recent call last):
    ...
    veracity.errors.GenerationError: prompt repair_edit_v1: expected one corrected claim (a \
sentence, optionally after 'Fixed:'), got 'Evidence: bees'; the claim is left as it is
    """
    for line in reply.strip().splitlines():
        text = _LABEL.sub("", line.strip()).strip().strip('"“”').strip()
        if not text:
            continue
        if (
            re.match(r"(?i)(?:evidence|claim|question)\s*:", text) is None
            and len(re.findall(r"\w+", text)) >= 2
            and text.endswith((".", "!", "?"))
        ):
            return text
        break
    raise GenerationError(
        f"prompt {defaults.REPAIR_EDIT_PROMPT}: expected one corrected claim (a sentence, "
        f"optionally after 'Fixed:'), got {reply[:120]!r}; the claim is left as it is"
    )


def evidence_quote(judgement: EvidenceJudgement, *, limit: int = 600) -> str:
    """The part of a passage the verifier read (its evidence spans), else the passage."""
    parts = [
        judgement.text[s.start - judgement.start : s.end - judgement.start]
        for s in judgement.evidence
    ] or [judgement.text]
    return " … ".join(" ".join(part.split()) for part in parts)[:limit]


class ValueSubstitution:
    """The claim with every mismatching value replaced by the evidence's (no model)."""

    method = SUBSTITUTION_RULE

    def run(self, claim: Claim, values: Sequence[ValueCheck]) -> str | None:
        """The edited claim text, or ``None`` when no value can be substituted."""
        text = claim.text
        done = False
        for value in sorted(values, key=lambda v: -v.span.start):
            if value.found is None or value.span.of(text) != value.text:
                continue
            text = (
                text[: value.span.start]
                + render_like(value.text, value.found)
                + text[value.span.end :]
            )
            done = True
        return text if done and text != claim.text else None


class LLMEditor:
    """Asks a chat model for the corrected claim (prompt ``repair_edit_v1``)."""

    def __init__(
        self,
        chat: ChatModel,
        *,
        prompt: str = defaults.REPAIR_EDIT_PROMPT,
        temperature: float = defaults.REPAIR_TEMPERATURE,
        seed: int | None = defaults.REPAIR_SEED,
        reply_tokens: int = defaults.REPAIR_REPLY_TOKENS,
    ) -> None:
        if not isinstance(chat, ChatModel):
            raise OptionError("chat", chat, "a ChatModel", "Use veracity.models.chat.make_chat().")
        self.chat = chat
        self.prompt_id = prompt
        self.temperature = temperature
        self.seed = seed
        self.reply_tokens = reply_tokens

    @property
    def prompt(self) -> ChatPrompt:
        return load_prompt(self.prompt_id)  # cached by the prompts module

    @property
    def method(self) -> str:
        return self.prompt.ref

    def run(self, claim: str, evidence: str) -> str:
        """The corrected claim; raises :class:`GenerationError` when the reply is unreadable."""
        request = ChatRequest.of(
            self.prompt.render(evidence=evidence, claim=claim),
            system=self.prompt.system,
            temperature=self.temperature,
            max_tokens=self.reply_tokens,
            seed=self.seed,
            stop=("\n\n",),
        )
        return parse_edit(self.chat.run(request).text)


@dataclass(frozen=True, slots=True)
class Placement:
    """Where an edit of a claim goes in the answer: ``span`` becomes ``replacement``."""

    span: Span
    replacement: str


def place(answer: str, claim: Claim, new_text: str) -> Placement | str:
    """The change to ``answer`` that turns ``claim`` into ``new_text``, or why there is none.

    The edit is the words that differ between the claim and ``new_text`` (their common start
    and end kept); those words of the claim must occur exactly once in the claim's span of the
    answer (a decontextualized claim reads "Karl von Frisch" where the answer says "He").

    >>> claim = Claim(0, "Karl von Frisch won in 1983.", Span(0, 14), 0)
    >>> place("He won in 1983.", claim, "Karl von Frisch won in 1973.")
    Placement(span=Span(start=10, end=14), replacement='1973')
    """
    old, new = claim.text, new_text
    start = 0
    while start < min(len(old), len(new)) and old[start] == new[start]:
        start += 1
    end = 0
    while end < min(len(old), len(new)) - start and old[-1 - end] == new[-1 - end]:
        end += 1
    # Whole words: widen the change to the word boundaries on both sides.
    while start > 0 and (old[start - 1].isalnum() or old[start - 1] in ",."):
        if old[start - 1] in ",." and not (start > 1 and old[start - 2].isdigit()):
            break
        start -= 1
    while end > 0 and (old[len(old) - end].isalnum() or old[len(old) - end] in ",."):
        position = len(old) - end
        if old[position] in ",." and not (position + 1 < len(old) and old[position + 1].isdigit()):
            break
        end -= 1
    before, after = old[start : len(old) - end], new[start : len(new) - end]
    region = claim.span.of(answer)
    if not before:
        return "the edit only inserts words, with nothing in the answer to anchor them"
    found = [m.start() for m in re.finditer(re.escape(before), region)]
    if len(found) != 1:
        where = "does not occur" if not found else f"occurs {len(found)} times"
        return f"{before!r} {where} in the answer's sentence, so the edit cannot be placed"
    offset = claim.span.start + found[0]
    return Placement(Span(offset, offset + len(before)), after)


@dataclass(frozen=True, slots=True)
class Quote:
    """A source sentence to quote: ``sentence`` as written in ``judgement``'s passage (spaces
    normalized), at document span ``span``."""

    sentence: str
    span: Span
    judgement: EvidenceJudgement


class Quotation:
    """The evidence sentence that answers the same question as the claim, to quote (no model).

    A candidate is a prose sentence (:func:`~veracity.text.prose.prose_span`) of a usable
    passage of the claim's evidence that overlaps the spans the verifier read; it answers the
    same question when it holds at least ``min_overlap`` of the content words (stemmed) of the
    claim's research questions (the claim's own when there are none). The one with the
    most such words wins, then the passage the verifier found most on topic (P(supported) +
    P(contradicted)). ``None`` when no sentence qualifies.

    >>> from veracity.types import Claim, EvidenceJudgement, Span
    >>> text = "## Dance\\nKarl von Frisch decoded the waggle dance in the 1940s."
    >>> judgement = EvidenceJudgement("w#0", "w.md", "Waggle dance", (), None, 0, len(text),
    ...     text, 0.2, 0.1, 0.7, evidence=(Span(9, len(text)),))
    >>> claim = Claim(0, "Konrad Lorenz decoded the waggle dance.", Span(0, 39), 0)
    >>> quote = Quotation().run(claim, [judgement], ("Who decoded the waggle dance?",))
    >>> quote.sentence, quote.span
    ('Karl von Frisch decoded the waggle dance in the 1940s.', Span(start=9, end=63))
    """

    method = QUOTATION_RULE

    def __init__(self, *, min_overlap: float = defaults.REPAIR_QUOTE_OVERLAP) -> None:
        if (
            isinstance(min_overlap, bool)
            or not isinstance(min_overlap, int | float)
            or not 0.0 < min_overlap <= 1.0
        ):
            raise OptionError(
                "min_overlap",
                min_overlap,
                "a share above 0 and at most 1",
                f"The default is {defaults.REPAIR_QUOTE_OVERLAP}.",
            )
        self.min_overlap = float(min_overlap)

    def run(
        self, claim: Claim, evidence: Sequence[EvidenceJudgement], questions: Sequence[str] = ()
    ) -> Quote | None:
        """The sentence to quote for ``claim`` from ``evidence``, or ``None``."""
        asked = {w for q in questions for w in content_words(q)} or set(content_words(claim.text))
        if not asked:
            return None
        best: tuple[tuple[int, float], Quote] | None = None
        for judgement in evidence:
            if judgement.error is not None or judgement.cannot_state is not None:
                continue
            read = judgement.evidence or (Span(judgement.start, judgement.end),)
            passage = judgement.text
            for local in split_sentences(passage):
                span = Span(local.start + judgement.start, local.end + judgement.start)
                if not any(span.start < r.end and r.start < span.end for r in read):
                    continue
                prose, _ = prose_span(passage, local)
                if prose is None:
                    continue
                sentence = " ".join(passage[prose.start : prose.end].split())
                shared = len(asked & set(content_words(sentence)))
                if shared < self.min_overlap * len(asked):
                    continue
                key = (shared, judgement.supported + judgement.contradicted)
                if best is None or key > best[0]:
                    quote = Quote(
                        sentence,
                        Span(prose.start + judgement.start, prose.end + judgement.start),
                        judgement,
                    )
                    best = (key, quote)
        return None if best is None else best[1]


def sentence_span(answer: str, span: Span) -> Span | None:
    """The sentence of ``answer`` that ``span`` covers whole (its citation markers and closing
    punctuation included), or ``None`` when ``span`` is only part of a sentence."""
    for sentence in split_sentences(answer):
        if sentence.start <= span.start and span.end <= sentence.end:
            inner = answer[sentence.start : sentence.end]
            head = answer[sentence.start : span.start].strip()
            tail = answer[span.end : sentence.end].strip()
            if not head and re.fullmatch(r"(?:\s*\[[\d,\s-]+\])*\s*[.!?]?", tail) and inner.strip():
                return sentence
            return None
    return None
