"""Where a claim sits in a passage: text joined across hyphenated line breaks, and the sentence of
the passage aligned with the claim.

The knowledge rules compare a claim's value, negation or antonym only with the *aligned
sentence*: the passage sentence that states most of the claim's other content words (stemmed),
at least ``ALIGNED_WORDS`` of them and at least ``ALIGNED_SHARE`` of those the claim has (a
sentence that opens with a pronoun, "It opened in 1889.", counts the words of the one before). A
different value in another sentence (an older entry of the same NEWS file, a copyright line,
another command's paragraph) says nothing against the claim: the claim's value is then not
stated, not contradicted.

Passages are read with their hyphenated line breaks joined (:func:`join_hyphenated`: "origi-\\n
nal" is "original"), and every span is mapped back to the text as written.

>>> joined = join_hyphenated("the origi-\\n  nal file")
>>> joined.text, joined.source_span(Span(4, 12)).of(joined.source)
('the original file', 'origi-\\n  nal')
>>> [s.of("Bees dance. The hive has 60,000 bees.") for s in aligned_sentences(
...     "The hive holds 50,000 bees.", "Bees dance. The hive has 60,000 bees.")]
['The hive has 60,000 bees.']
"""

from __future__ import annotations

import bisect
import functools
import re
from collections.abc import Sequence
from dataclasses import dataclass

from veracity.text.sentences import split_sentences
from veracity.text.words import APOSTROPHES, STOPWORDS, WORD, stem
from veracity.types import Span

__all__ = [
    "ALIGNED_SHARE",
    "ALIGNED_WORDS",
    "PRONOUN_OPENING",
    "JoinedText",
    "aligned_sentences",
    "claim_clause",
    "content_stems",
    "join_hyphenated",
    "passage_sentences",
    "word_key",
]

#: An aligned sentence states at least this many of the claim's other content words ...
ALIGNED_WORDS = 2
#: ... and at least this share of them.
ALIGNED_SHARE = 0.5

#: A number with its inner dots and dashes ("1.11", "2021-09-03"), or a word.
_TOKEN = re.compile(r"\d+(?:[.,:/-]\d+)*|" + WORD.pattern)
# A word cut at the end of a line: letters, a hyphen, the line break and the indentation of the
# next line, which goes on in lower case ("origi-\n   nal").
# Man pages hyphenate with U+2010 or a soft hyphen as often as with "-".
_HYPHEN_BREAK = re.compile(r"(?<=[^\W\d_])[-\u2010\u00ad][ \t]*\r?\n[ \t]*(?=[a-z])")


#: A sentence that opens with a pronoun speaks of what the sentence before it names.
PRONOUN_OPENING = re.compile(r"(?i:it|its|he|his|she|her|they|their|this|these|such)\b")


@dataclass(frozen=True)
class JoinedText:
    """``source`` with its hyphenated line breaks removed (``text``), and the way back.

    ``cuts`` holds, for each removed break, its position in ``text`` and the number of
    characters removed up to and including it.
    """

    source: str
    text: str
    cuts: tuple[tuple[int, int], ...] = ()

    def source_position(self, position: int) -> int:
        """The position in ``source`` of the character at ``position`` of ``text``."""
        if not self.cuts:
            return position
        index = bisect.bisect_right([at for at, _ in self.cuts], position) - 1
        return position + (self.cuts[index][1] if index >= 0 else 0)

    def source_span(self, span: Span) -> Span:
        """``span`` of ``text`` as a span of ``source`` (it covers any break inside)."""
        if not self.cuts or span.start == span.end:
            start = self.source_position(span.start)
            return Span(start, start + (span.end - span.start))
        return Span(self.source_position(span.start), self.source_position(span.end - 1) + 1)


@functools.lru_cache(maxsize=512)
def join_hyphenated(text: str) -> JoinedText:
    """``text`` with each word hyphenated across a line break joined ("origi-\\nnal" ->
    "original"), with the map back to ``text``."""
    pieces: list[str] = []
    cuts: list[tuple[int, int]] = []
    removed = position = 0
    for match in _HYPHEN_BREAK.finditer(text):
        pieces.append(text[position : match.start()])
        removed += match.end() - match.start()
        cuts.append((match.end() - removed, removed))
        position = match.end()
    if not cuts:
        return JoinedText(text, text)
    pieces.append(text[position:])
    return JoinedText(text, "".join(pieces), tuple(cuts))


#: A "sentence" longer than this that spans lines is read line by line: scraped pages and lists
#: run headings, items and bylines together without a full stop.
LONG_SENTENCE = 300


@functools.lru_cache(maxsize=256)
def passage_sentences(text: str) -> tuple[Span, ...]:
    """The sentences of ``text`` (:func:`veracity.text.sentences.split_sentences`), a long one
    that spans lines cut at its line breaks (see ``LONG_SENTENCE``); the whole text when it
    has none."""
    found: list[Span] = []
    for sentence in split_sentences(text) or [Span(0, len(text))]:
        if sentence.end - sentence.start <= LONG_SENTENCE or "\n" not in sentence.of(text):
            found.append(sentence)
            continue
        start = sentence.start
        for line in [*re.finditer(r"\n", text[sentence.start : sentence.end]), None]:
            end = sentence.end if line is None else sentence.start + line.start()
            piece = text[start:end]
            if piece.strip():
                lead = len(piece) - len(piece.lstrip())
                found.append(Span(start + lead, start + len(piece.rstrip())))
            if line is not None:
                start = sentence.start + line.end()
    return tuple(found)


def content_stems(text: str, start: int = 0, end: int | None = None) -> dict[str, int]:
    """The keys of the content words of ``text[start:end]`` (not stop words; a number counts
    whole, so that "release 1.11" aligns with "gzip 1.11 ..."), each with the position of its
    first occurrence. A key is the word's stem without a final "e" ("release", "released")."""
    found: dict[str, int] = {}
    for match in _TOKEN.finditer(text, start, len(text) if end is None else end):
        word = match.group().lower().translate(APOSTROPHES)
        if word in STOPWORDS:
            continue
        found.setdefault(word_key(word), match.start())
    return found


def word_key(word: str) -> str:
    """The key a word is compared by: its stem (:func:`veracity.text.words.stem`) without a
    final "e", so that "release", "released" and "releases" meet."""
    key = stem(word.lower())
    return key[:-1] if len(key) > 3 and key.endswith("e") else key


def aligned_sentences(
    claim: str,
    passage: str,
    *,
    skip: Sequence[Span] = (),
    sentences: Sequence[Span] | None = None,
) -> tuple[Span, ...]:
    """The sentences of ``passage`` aligned with ``claim`` for the value at ``skip[0]``: those
    that state the most of the content words of the value's clause (:func:`claim_clause`),
    outside ``skip``, at least ``ALIGNED_WORDS`` and ``ALIGNED_SHARE`` of them; several only on
    a tie. Empty when no sentence reaches that."""
    bounds = claim_clause(claim, skip[0]) if skip else Span(0, len(claim))
    words = {
        key
        for key, at in content_stems(claim, bounds.start, bounds.end).items()
        if not any(s.start <= at < s.end for s in skip)
    }
    if not words:
        return ()
    best: list[Span] = []
    most = (0, 0)
    least = min(ALIGNED_WORDS, len(words))
    previous: frozenset[str] = frozenset()
    for sentence in sentences if sentences is not None else passage_sentences(passage):
        own = _sentence_stems(passage, sentence.start, sentence.end)
        shared = len(words & own)
        # "It was opened in 1889." speaks of what the sentence before names; its words count
        # where the sentence states the claim's other words itself.
        if PRONOUN_OPENING.match(passage, sentence.start) and shared >= min(
            ALIGNED_WORDS, len(words) - 1
        ):
            total = len(words & (own | previous))
        else:
            total = shared
        previous = own
        rank = (total, shared)
        if total < least or total < ALIGNED_SHARE * len(words) or rank < most:
            continue
        if rank > most:
            best, most = [], rank
        best.append(sentence)
    return tuple(best)


#: Where a claim that joins two statements is cut: ";", ":" or a conjunction between clauses.
_CLAUSE_JOIN = re.compile(r"\s*[;:]\s*|,?\s+(?:and|but|while|whereas)\s+", re.IGNORECASE)
#: A clause needs this many content words of its own; a shorter one joins its neighbour.
_CLAUSE_WORDS = 3


def claim_clause(claim: str, span: Span) -> Span:
    """The clause of ``claim`` that holds ``span``: the claim cut at ";", ":" and "and", "but",
    "while", "whereas", with pieces of fewer than ``_CLAUSE_WORDS`` content words (besides the
    value) joined to the next ("Brand was elected ... in 1984 and was elected Member of
    Parliament ... in 1997": 1984's clause is the first).

    >>> text = "Brand joined the council in 1984 and was elected to Parliament in 1997."
    >>> claim_clause(text, Span(28, 32)).of(text)
    'Brand joined the council in 1984'
    """
    cuts = [0]
    for match in _CLAUSE_JOIN.finditer(claim):
        cuts.append(match.start())
        cuts.append(match.end())
    cuts.append(len(claim))
    pieces = [Span(cuts[i], cuts[i + 1]) for i in range(0, len(cuts) - 1, 2)]
    merged: list[Span] = []
    for piece in pieces:
        if merged and _too_short(claim, merged[-1], span):
            merged[-1] = Span(merged[-1].start, piece.end)
        else:
            merged.append(piece)
    if len(merged) > 1 and _too_short(claim, merged[-1], span):
        last = merged.pop()
        merged[-1] = Span(merged[-1].start, last.end)
    return next(
        (p for p in merged if p.start <= span.start < max(p.end, p.start + 1)),
        Span(0, len(claim)),
    )


def _too_short(claim: str, piece: Span, value: Span) -> bool:
    words = [
        at
        for at in content_stems(claim, piece.start, piece.end).values()
        if not value.start <= at < value.end
    ]
    return len(words) < _CLAUSE_WORDS


@functools.lru_cache(maxsize=4096)
def _sentence_stems(passage: str, start: int, end: int) -> frozenset[str]:
    return frozenset(content_stems(passage, start, end))
