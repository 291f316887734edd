"""How the knowledge checks read a claim and its passages: each value in its *context* (the
content words near it), each passage read once (hyphenated line breaks joined, its values,
tokens and sentences), and the claim's *subject* (what it is about: a passage that does not name
it has no sentence aligned with the claim).

:func:`value_check` turns a finding into the :class:`~veracity.types.ValueCheck` every check
reports: the claim's value, what the passage says, where, and whether its sentence is aligned.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from veracity.rules.align import (
    JoinedText,
    aligned_sentences,
    join_hyphenated,
    passage_sentences,
    word_key,
)
from veracity.rules.tokens import extract_tokens
from veracity.rules.values import Value, extract_values
from veracity.text.words import STOPWORDS
from veracity.types import Chunk, Span, ValueCheck
from veracity.types.findings import ValueStatus

__all__ = [
    "WORD",
    "Context",
    "Found",
    "Passage",
    "Subject",
    "anchors_of",
    "context_of",
    "find_text",
    "read_passage",
    "sentence_of",
    "value_check",
    "within",
]


WORD = re.compile(r"[^\W_]+(?:['’][^\W_]+)*")


#: How many words after a number name the thing it counts ("60,000 worker bees").
_HEAD_WORDS = 3


_HEADS = 2


@dataclass(frozen=True, slots=True)
class Context:
    """Stemmed content words near a value (``window``, each with its distance in words) and
    right after it (``heads``)."""

    window: Mapping[str, int]
    heads: frozenset[str]


@dataclass(frozen=True, slots=True)
class Found:
    """A value of a passage with its context."""

    value: Value
    context: Context


@dataclass(frozen=True)
class Passage:
    """A passage read with its hyphenated line breaks joined: its values, tokens and sentences
    index ``joined.text``; :meth:`evidence` maps a span back to the document."""

    chunk: Chunk
    joined: JoinedText
    values: tuple[Found, ...]
    numbers: tuple[Value, ...] = ()
    sentences: tuple[Span, ...] = ()

    @property
    def text(self) -> str:
        return self.joined.text

    def evidence(self, span: Span) -> Span:
        """``span`` of the joined text as a span of the chunk's document."""
        source = self.joined.source_span(span)
        return Span(self.chunk.start + source.start, self.chunk.start + source.end)

    def written(self, span: Span) -> str:
        """The characters of the chunk at ``span`` of the joined text, as written."""
        return self.joined.source_span(span).of(self.chunk.text)


@dataclass(frozen=True)
class Subject:
    """A claim and what it is about (``anchors``): its code tokens and the lower-case name
    that opens it ("ctags recurses ..."). A value of a passage can contradict the claim only
    when the passage names every anchor, so that another command's page says nothing against
    this command's option."""

    text: str
    anchors: tuple[Value, ...]

    def aligned(self, value: Value, passage: Passage) -> tuple[Span, ...]:
        """The sentences of ``passage`` aligned with the claim for ``value`` (none when the
        passage does not name what the claim is about)."""
        for anchor in self.anchors:
            overlaps = anchor.span.start < value.span.end and value.span.start < anchor.span.end
            if not overlaps and find_text(anchor, passage.text) is None:
                return ()
        return aligned_sentences(
            self.text, passage.text, skip=(value.span,), sentences=passage.sentences
        )


def read_passage(chunk: Chunk, cache: dict[Chunk, Passage], *, width: int) -> Passage:
    """``chunk`` read once (``cache``): its text joined, its values and tokens with their
    contexts, its sentences."""
    if chunk not in cache:
        joined = join_hyphenated(chunk.text)
        text = joined.text
        values = extract_values(text)
        sentences = passage_sentences(text)
        found = []
        # Code tokens get a context like any value; only numbers and amounts are left out
        # of contexts, since a token's words ("cache_effective_user") say what it is about.
        for value in (*values, *extract_tokens(text, values=values)):
            sentence = sentence_of(sentences, value.span.start)
            found.append(Found(value, context_of(text, value, values, sentence, width=width)))
        cache[chunk] = Passage(chunk, joined, tuple(found), values, tuple(sentences))
    return cache[chunk]


def context_of(
    text: str, value: Value, values: Sequence[Value], bounds: Span, *, width: int
) -> Context:
    """The content words within ``width`` words of ``value`` in ``bounds`` of ``text`` (the
    other ``values`` left out), and those right after it."""
    taken = [other.span for other in values]
    before: list[tuple[str, int]] = []
    after: list[tuple[str, int]] = []
    heads: list[str] = []
    words = list(WORD.finditer(text, bounds.start, max(bounds.end, value.span.end)))
    first = next((i for i, m in enumerate(words) if m.end() > value.span.start), len(words))
    last = next((i for i, m in enumerate(words) if m.start() >= value.span.end), len(words))
    for i, match in enumerate(words):
        word = match.group().lower().replace("’", "'")
        if (
            word in STOPWORDS
            or not any(c.isalpha() for c in word)
            or any(s.start <= match.start() < s.end for s in taken)
        ):
            continue
        if i < first:
            before.append((word_key(word), first - i))
        elif i >= last:
            after.append((word_key(word), i - last + 1))
            if i - last < _HEAD_WORDS and len(heads) < _HEADS:
                heads.append(word_key(word))
    width = width
    window: dict[str, int] = {}
    for word, distance in before[-width:] + after[:width]:
        window[word] = min(distance, window.get(word, distance))
    return Context(window, frozenset(heads))


def anchors_of(text: str, tokens: Sequence[Value]) -> tuple[Value, ...]:
    """The claim's code tokens (not flags or versions, which are the values compared) and the
    lower-case name that opens it, if any ("gzip is ...")."""
    found = [token for token in tokens if token.unit not in ("flag", "version", "quoted")]
    first = _OPENING_NAME.match(text, len(text) - len(text.lstrip()))
    if (
        first is not None
        and _opens_lower(text, Span(0, len(text)))
        and not any(t.span.start <= first.start() < t.span.end for t in tokens)
    ):
        word = first.group()
        found.append(Value("code", word, Span(first.start(), first.end()), word.lower(), "word"))
    return tuple(found)


#: The lower-case name that opens a technical claim, hyphens and dots inside ("update-passwd").
_OPENING_NAME = re.compile(r"(?<![^\s])[a-z](?:[\w.+-]*[\w+])?")


def _opens_lower(text: str, bounds: Span) -> bool:
    """Whether ``text`` opens with a lower-case content word, as a tool's name does ("gzip
    is ..."): a sign of a technical text, where lower-case words may be names."""
    first = WORD.search(text, bounds.start, bounds.end)
    return (
        first is not None and first.group()[0].islower() and first.group().lower() not in STOPWORDS
    )


def sentence_of(sentences: Sequence[Span], position: int) -> Span:
    return next((s for s in sentences if s.start <= position < s.end), sentences[-1])


def within(span: Span, sentences: Sequence[Span]) -> bool:
    return any(s.start <= span.start and span.end <= s.end for s in sentences)


def find_text(token: Value, text: str) -> Span | None:
    """Where ``token`` is written in ``text`` as a whole (case aside for all but paths and
    flags; any spacing inside a quoted string)."""
    words = token.text.split()
    pattern = r"\s+".join(re.escape(word) for word in words) if words else re.escape(token.text)
    flags = 0 if token.unit in ("path", "flag") else re.IGNORECASE
    found = re.search(r"(?<![\w/\\-])" + pattern + r"(?![\w/\\-]|\.\w)", text, flags)
    return Span(found.start(), found.end()) if found else None


def value_check(
    value: Value, status: ValueStatus, passage: Passage, other: Value, aligned: bool
) -> ValueCheck:
    """``value`` of the claim against ``other`` of ``passage``: what the passage says (as
    written), where, in which sentence, and whether that sentence is aligned with the claim."""
    return ValueCheck(
        value.kind,
        value.text,
        value.span,
        value.value,
        status,
        found=passage.written(other.span),
        doc_id=passage.chunk.doc_id,
        evidence=passage.evidence(other.span),
        unit=value.unit,
        aligned=aligned,
        sentence=passage.evidence(sentence_of(passage.sentences, other.span.start)),
    )
