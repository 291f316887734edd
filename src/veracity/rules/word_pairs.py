"""Which word of an evidence sentence stands for which word of a claim: the pairing that the
polarity checks (:mod:`veracity.rules.polarity`) read for flips.

A sentence of the premise *pairs* with the claim when it states (same stem) or opposes (an
opposite stem, by the lexicon the caller gives) enough of the claim's content words; each
claim word is paired with the occurrence in the sentence that stands where it does (most of the
claim word's neighbours near it).

>>> [w.text for w in words_in("Bees dance at dawn.", 5)]
['dance', 'at', 'dawn']
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from types import MappingProxyType

from veracity.rules.align import PRONOUN_OPENING, passage_sentences
from veracity.text.words import APOSTROPHES, WORD, stem
from veracity.types import Span

__all__ = [
    "NEIGHBOUR_WORDS",
    "PairedSentence",
    "Word",
    "WordPair",
    "all_words",
    "in_place",
    "paired_sentences",
    "words_in",
]

#: A denied word, an antonym or a quantified word must have a shared word this near (in words).
NEIGHBOUR_WORDS = 4


@dataclass(frozen=True)
class Word:
    """A word of a text, with its characters and its position among the text's words."""

    text: str
    start: int
    end: int
    index: int  # the position among the words of its text

    @property
    def low(self) -> str:
        return self.text.lower().translate(APOSTROPHES)

    @property
    def key(self) -> str:
        return stem(self.low)


@functools.lru_cache(maxsize=512)
def all_words(text: str) -> tuple[Word, ...]:
    """Every word of ``text`` (cached: a claim's passages are read again and again)."""
    return tuple(Word(m.group(), m.start(), m.end(), i) for i, m in enumerate(WORD.finditer(text)))


def words_in(text: str, start: int = 0, end: int | None = None) -> list[Word]:
    """The words of ``text`` between ``start`` and ``end``."""
    stop = len(text) if end is None else end
    return [w for w in all_words(text) if w.start >= start and w.end <= stop]


#: A claim word and the evidence word that stands for it.
WordPair = tuple[Word, Word]


@dataclass(frozen=True)
class PairedSentence:
    """An aligned sentence with the (claim word, evidence word) pairs it shares and opposes."""

    sentence: Span
    shared: list[WordPair]
    opposed: list[WordPair]


def paired_sentences(
    content: list[Word],
    premise: str,
    *,
    share: float,
    opposites: Callable[[str], frozenset[str]],
) -> list[PairedSentence]:
    """The premise sentences that state or oppose most of the claim's content words (ties
    kept), with the (claim word, evidence word) pairs each shares and opposes; none below
    ``share`` of them or two shared words. ``opposites`` gives the stems opposed to a word."""
    best: list[PairedSentence] = []
    most = (0.0, 0)
    previous: Mapping[str, Word] = {}
    for sentence, by_stem in _sentence_stems(premise):
        # "This does not use the store." speaks of what the sentence before names: its words
        # count towards the share, though only the sentence's own are read.
        inherited = previous if PRONOUN_OPENING.match(premise, sentence.start) else {}
        previous = by_stem  # its own words: a sentence inherits from one sentence only
        shared: list[WordPair] = []
        opposed: list[WordPair] = []
        borrowed = 0
        for word in content:
            other = next(
                (
                    by_stem[o]
                    for o in sorted(opposites(word.low))
                    if o in by_stem and by_stem[o].text[:1].islower()
                ),
                None,
            )
            if word.key in by_stem:
                twin = _twin(word, content, premise, sentence, by_stem)
                # "faster than gzip, ... faster than bzip2" against "slower than gzip, but
                # a lot faster than bzip2": the antonym stands where the claim word does
                if other is None or _fit(word, content, premise, other) <= _fit(
                    word, content, premise, twin
                ):
                    shared.append((word, twin))
                    continue
            elif word.key in inherited:
                borrowed += 1
                continue
            if other is not None:
                opposed.append((word, other))
        found = (len(shared) + len(opposed) + borrowed) / len(content)
        rank = (found, len(shared) + len(opposed))  # on a tie, the sentence's own words
        if len(shared) < 2 or found < share or rank < most:
            continue
        if rank > most:
            best, most = [], rank
        best.append(PairedSentence(sentence, shared, opposed))
    return best


def _twin(
    word: Word,
    content: Sequence[Word],
    premise: str,
    sentence: Span,
    by_stem: Mapping[str, Word],
) -> Word:
    """The occurrence of ``word`` in ``sentence`` that stands where the claim's does: the one
    with most of the claim word's neighbours (content words within ``NEIGHBOUR_WORDS``) near
    it; on a tie, ``by_stem``'s (a lower-case occurrence first)."""
    occurrences = [w for w in words_in(premise, sentence.start, sentence.end) if w.key == word.key]
    if len(occurrences) < 2:
        return by_stem[word.key]
    return max(
        occurrences,
        key=lambda o: (_fit(word, content, premise, o), o is by_stem[word.key]),
    )


def _fit(word: Word, content: Sequence[Word], premise: str, occurrence: Word) -> int:
    """How many of the claim word's neighbours (content words within ``NEIGHBOUR_WORDS``)
    stand within ``NEIGHBOUR_WORDS`` words of ``occurrence`` in the premise."""
    near = {
        w.key for w in content if w is not word and abs(w.index - word.index) <= NEIGHBOUR_WORDS
    }
    words = all_words(premise)
    window = words[
        max(0, occurrence.index - NEIGHBOUR_WORDS) : occurrence.index + NEIGHBOUR_WORDS + 1
    ]
    return len(near & {w.key for w in window})


@functools.lru_cache(maxsize=256)
def _sentence_stems(premise: str) -> tuple[tuple[Span, Mapping[str, Word]], ...]:
    """Each sentence of ``premise`` with its words by stem (a lower-case occurrence first:
    "west of Brisbane", not "South West Queensland"). Cached: an answer's claims share their
    passages, and the claims of one request read the same few."""
    found = []
    for sentence in passage_sentences(premise):
        by_stem: dict[str, Word] = {}
        for word in words_in(premise, sentence.start, sentence.end):
            if word.key not in by_stem or (
                word.text[:1].islower() and not by_stem[word.key].text[:1].islower()
            ):
                by_stem[word.key] = word
        found.append((sentence, MappingProxyType(by_stem)))
    return tuple(found)


def in_place(claim_word: Word, evidence_word: Word, shared: Sequence[WordPair]) -> bool:
    """Whether ``evidence_word`` stands where ``claim_word`` does: after the evidence twin of
    the claim's nearest shared word before it and before that of the nearest after it, and
    within ``NEIGHBOUR_WORDS`` words of one of them."""
    before = max(
        (p for p in shared if p[0].index < claim_word.index), key=lambda p: p[0].index, default=None
    )
    after = min(
        (p for p in shared if p[0].index > claim_word.index), key=lambda p: p[0].index, default=None
    )
    if before is None and after is None:
        return False
    if before is not None and before[1].index >= evidence_word.index:
        return False
    if after is not None and after[1].index <= evidence_word.index:
        return False
    return any(
        p is not None and abs(p[1].index - evidence_word.index) <= NEIGHBOUR_WORDS
        for p in (before, after)
    )
