"""Code tokens and the *slots* they fill: a token is checked as a value first, then in its slot
(the content word before it and the function words between: "a replacement *for* X"), where
an aligned sentence that fills the same slot with another token of its class contradicts it.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from veracity.rules.context import (
    WORD,
    Context,
    Passage,
    Subject,
    context_of,
    find_text,
    sentence_of,
    value_check,
    within,
)
from veracity.rules.value_checks import check_value
from veracity.rules.values import Value
from veracity.text.words import STOPWORDS, stem
from veracity.types import Span, ValueCheck

__all__ = ["CLAUSE_BREAK", "Filler", "Slot", "check_token", "fillers", "slot_check", "slot_of"]


_ARTICLES = frozenset({"a", "an", "the"})


#: A slot's context must share this many content words (its own word among them).
_SLOT_SHARED = 2


#: Token classes that a lower-case word can stand against in a slot ("replacement for zip").
_WORDLIKE = frozenset({"word", "name", "symbol"})


CLAUSE_BREAK = re.compile(r"[.,;:!?()\[\]{}\n]")


_LOWER_WORD = re.compile(r"[a-z][a-z0-9]*(?:-[a-z0-9]+)*")


@dataclass(frozen=True, slots=True)
class Slot:
    """The place a word fills: the stem of the content word before it and the function words
    between (articles dropped): "a replacement for compress" -> ``("replacement", ("for",))``."""

    anchor: str
    between: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class Filler:
    """What fills a slot in a passage: the token or lower-case word (``unit`` ``"word"``), the
    stems of the words from it to the clause's end (``words``), that text (``region``, lower
    case) and its context."""

    value: Value
    words: frozenset[str]
    region: str
    context: Context


def check_token(
    subject: Subject,
    token: Value,
    claim_values: Sequence[Value],
    passages: Sequence[Passage],
    *,
    width: int,
    slot_words: int,
) -> ValueCheck | None:
    """A code token: ``match`` when a passage has it (as a token or in plain text),
    ``mismatch`` when one has another token of its class in a comparable context or another
    word in its slot, ``absent`` only when a passage fills its slot with nothing comparable;
    ``None`` (no check) when the passages say nothing about it."""
    claim = subject.text
    for passage in passages:
        span = find_text(token, passage.text)
        if span is not None:
            found = Value(token.kind, span.of(passage.text), span, token.value, token.unit)
            aligned = within(span, subject.aligned(token, passage))
            return value_check(token, "match", passage, found, aligned)
    if not in_quotes(claim, token.span):  # prose quotes: a title, a phrase, a term
        check = check_value(subject, token, claim_values, passages, width=width)
        if check.status != "absent" or check.found is not None:
            return check  # a match, a mismatch, or another token that stands elsewhere
    slot = slot_of(claim, token.span, Span(0, len(claim)), slot_words=slot_words)
    if slot is None:
        return None
    return slot_check(
        subject, token, slot, claim_values, passages, width=width, slot_words=slot_words
    )


def slot_of(text: str, span: Span, bounds: Span, *, slot_words: int) -> Slot | None:
    """The slot that the text at ``span`` fills: the nearest content word before it, with
    only function words (at most ``slot_words`` words in all) and no punctuation between."""
    before = list(WORD.finditer(text, bounds.start, span.start))
    between: list[str] = []
    for k in range(len(before) - 1, max(-1, len(before) - 1 - slot_words), -1):
        match = before[k]
        gap_end = span.start if k == len(before) - 1 else before[k + 1].start()
        if CLAUSE_BREAK.search(text, match.end(), gap_end):
            return None
        word = match.group().lower().replace("’", "'")
        if word in STOPWORDS:
            if word not in _ARTICLES:
                between.insert(0, word)
            continue
        if not any(c.isalpha() for c in word):
            return None
        return Slot(stem(word), tuple(between))
    return None


def fillers(passage: Passage, slot: Slot, *, width: int, slot_words: int) -> list[Filler]:
    """Where ``passage`` fills ``slot``: the token or lower-case word after each occurrence
    of its word and function words (capitalised words and numbers are not fillers)."""
    text = passage.text
    words = list(WORD.finditer(text))
    fillers = []
    for i, match in enumerate(words):
        if stem(match.group().lower().replace("’", "'")) != slot.anchor:
            continue
        token = _filler_after(passage, words, i, slot, slot_words=slot_words)
        if token is None:
            continue
        start = token.span.start
        sentence = sentence_of(passage.sentences, start)
        words_after, region = _following(text, token, sentence, slot_words)
        fillers.append(
            Filler(
                token,
                words_after,
                region,
                context_of(text, token, passage.numbers, sentence, width=width),
            )
        )
    return fillers


def _filler_after(
    passage: Passage,
    words: Sequence[re.Match[str]],
    anchor: int,
    slot: Slot,
    *,
    slot_words: int,
) -> Value | None:
    """The token or lower-case word that follows ``words[anchor]`` and exactly the slot's
    function words (articles skipped), within ``slot_words`` words and one clause."""
    text = passage.text
    between: list[str] = []
    for j in range(anchor + 1, min(len(words), anchor + 1 + slot_words)):
        if CLAUSE_BREAK.search(text, words[j - 1].end(), words[j].start()):
            return None
        word = words[j].group()
        if tuple(between) == slot.between:
            start = words[j].start()
            token = next(
                (
                    f.value
                    for f in passage.values
                    if f.value.kind == "code" and f.value.span.start <= start < f.value.span.end
                ),
                None,
            )
            if token is not None:
                return token
            if word.lower() not in STOPWORDS and _LOWER_WORD.fullmatch(word):
                return Value("code", word, Span(start, words[j].end()), word.lower(), "word")
        if word.lower() not in STOPWORDS:
            return None
        if word.lower() not in _ARTICLES:
            between.append(word.lower())
        if len(between) > len(slot.between):
            return None
    return None


def slot_check(
    subject: Subject,
    value: Value,
    slot: Slot,
    claim_values: Sequence[Value],
    passages: Sequence[Passage],
    *,
    width: int,
    slot_words: int,
) -> ValueCheck | None:
    """A token in a slot: ``mismatch`` when the aligned sentence of a passage fills the
    slot with another token of its class; ``absent`` when a passage fills it otherwise (or
    elsewhere); ``None`` when no passage fills it."""
    claim = subject.text
    context = context_of(claim, value, claim_values, Span(0, len(claim)), width=width)
    mine, region = _following(claim, value, Span(0, len(claim)), slot_words)
    best: tuple[tuple[bool, int], Passage, Filler] | None = None
    talked_about = False
    for passage in passages:
        aligned = subject.aligned(value, passage)
        for filler in fillers(passage, slot, width=width, slot_words=slot_words):
            shared = len(context.window.keys() & filler.context.window.keys())
            if shared < _SLOT_SHARED:
                continue
            if (
                mine & filler.words
                or _contains(region, filler.value.text.lower())
                or _contains(filler.region, value.text.lower())
            ):
                return None  # the passage fills the slot with this word
            if filler.value.unit == "word":
                # A plain word fills a prepositional slot ("as an unprivileged user"), not
                # a noun's ("the file system"); against a token it is no value, only talk.
                if not slot.between:
                    continue
                comparable = value.unit == "word"
            else:  # a token of the class, or a name for a name
                comparable = filler.value.unit == value.unit or (
                    value.unit in _WORDLIKE and filler.value.unit in _WORDLIKE
                )
            talked_about = True
            rank = (within(filler.value.span, aligned), shared)
            if comparable and (best is None or rank > best[0]):
                best = (rank, passage, filler)
    if best is not None and best[0][0]:
        return value_check(value, "mismatch", best[1], best[2].value, True)
    if best is not None:
        return value_check(value, "absent", best[1], best[2].value, False)
    if talked_about:
        return ValueCheck(
            value.kind, value.text, value.span, value.value, "absent", unit=value.unit
        )
    return None


def in_quotes(text: str, span: Span) -> bool:
    """Whether ``span`` is in prose quotation marks ("...", '...', “...”), not backticks."""
    before = text[: span.start].rstrip()
    return before[-1:] in ('"', "'", "“", "‘")


def _following(text: str, value: Value, bounds: Span, width: int) -> tuple[frozenset[str], str]:
    """What fills a slot: a token, or a lower-case word and the words after it to the end of
    its clause, at most ``width`` words ("compress program"); as stems and as lower-case text."""
    if value.unit != "word":
        return frozenset({value.value}), value.text.lower()
    stems, end, count = {stem(value.value)}, value.span.end, 1
    for match in WORD.finditer(text, value.span.end, bounds.end):
        if count >= width or CLAUSE_BREAK.search(text, end, match.start()):
            break
        end, count = match.end(), count + 1
        word = match.group().lower()
        if word not in STOPWORDS:
            stems.add(stem(word))
    return frozenset(stems), text[value.span.start : end].lower()


def _contains(text: str, part: str) -> bool:
    return re.search(r"(?<![\w-])" + re.escape(part) + r"(?![\w-])", text) is not None
