"""Polarity: the words that turn a sentence's meaning around, and the contradictions a reader
can see with them without a network: a claim against the one sentence of the evidence that says
the same thing, with a "not" more or less, a word turned into its antonym, or a quantifier
reversed.

The lexicon (negation cues, the antonyms of ``antonyms.txt``, contrary quantifiers, units of
duration) is read by these checks and by the verifier's training data, which makes its
contradicted twins with the same lists, so that what the network is taught and what the rules
check are the same words.

>>> sorted(antonyms_of("opens"))
['closes']
>>> [m.group(0) for m in negation_cues("The museum does not open and never closes.")]
['not', 'never']

The rule reads only *aligned* evidence, never an unrelated sentence, and only words in aligned
positions:

1. The passage is read with its hyphenated line breaks joined ("origi-\\nnal" is "original").
   The evidence sentence that shares most of the claim's content words (stemmed; a claim word
   whose antonym the sentence has counts as shared, the other way round) is the claim's aligned
   sentence, if it shares at least ``ALIGNED_SHARE`` of them and at least two outright.
2. Its *region* is the clauses (cut at ``,;:`` and dashes) from the first to the last shared
   word: a "not" in another clause of the sentence says nothing of the claim.
3. Each aligned pair of words (the claim's word and the evidence's) is read for a flip:

   - an *antonym* of the curated lexicon (:func:`veracity.rules.polarity.opposite_stems`), only
     where it stands in the claim word's place: between the evidence twins of the claim's
     shared neighbours, next to one of them;
   - a contrary *quantifier* ("all" / "no", "always" / "never", "most" / "few") that governs
     the same word on both sides ("all bees" / "no bees");
   - a *negation* cue ("not", "never", "n't", "without", ...) that denies the word: the first
     content word within four words after the cue, in its clause, is the pair's word, and a
     shared word stands next to it ("not birds" denies nothing of "Bees are insects"; "no
     other frontend" and "not only" deny nothing). A negation on both sides cancels, wherever
     it sits in the sentence ("will not overwrite ... by default" / "will by default not
     overwrite"; "not even X" / "not even X").

   A pair flips when it has an odd number of these: "opens" / "does not open" (a negation),
   "opens" / "closes" (an antonym); "is not closed" / "is open" (a negation and an antonym)
   agree. Any flipped pair is a contradiction.

Each contradiction is reported as a :class:`~veracity.types.ValueCheck` of kind ``negation``,
``antonym`` or ``quantifier``, status ``mismatch``, ``aligned`` true, with the claim's words and
their span in the claim, and the evidence's words, their span and their sentence (in the premise
as written, shifted by ``offset``).

>>> [(c.kind, c.text, c.found) for c in polarity_conflicts(
...     "The museum opens on Mondays.", "The museum does not open on Mondays.")]
[('negation', 'opens', 'does not open')]
>>> polarity_conflicts("The museum is open on Mondays.", "The museum is not closed on Mondays.")
()
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping, Sequence
from functools import lru_cache
from importlib import resources

from veracity.rules.align import JoinedText, join_hyphenated
from veracity.rules.word_pairs import (
    NEIGHBOUR_WORDS,
    PairedSentence,
    Word,
    WordPair,
    all_words,
    in_place,
    paired_sentences,
    words_in,
)
from veracity.text.words import STOPWORDS, stem
from veracity.types import Chunk, Span, ValueCheck

__all__ = [
    "ALIGNED_SHARE",
    "CONTRARY_QUANTIFIERS",
    "DURATION_UNITS",
    "NEGATION",
    "antonyms_of",
    "negation_cues",
    "opposite_stems",
    "polarity_checks",
    "polarity_conflicts",
    "unit_dimension",
]

# --- the lexicon: words that turn a sentence's meaning around ---------------------------------

#: A negation word (whole words, case-insensitive); "cannot" counts as one, and a contraction
#: with a curly apostrophe ("don’t") as one with a straight one.
NEGATION = re.compile(
    r"\b(not|n['’]t|never|no|none|nothing|nobody|neither|nor|without|cannot|no longer|hardly|"
    r"barely|rarely|seldom|fail|failed|fails|unable|lack|lacked)\b",
    re.IGNORECASE,
)
#: A negation cue: a negation word or a contracted "n't" ("isn't", "doesn't").
_CUE = re.compile(NEGATION.pattern + r"|n['’]t\b|\blacks\b", re.IGNORECASE)

#: Quantifiers and frequency words whose replacement makes a claim false: "all bees" / "no
#: bees", "always" / "never", "most" / "few".
CONTRARY_QUANTIFIERS: dict[str, str] = {
    "all": "no",
    "always": "never",
    "never": "always",
    "everyone": "no one",
    "everything": "nothing",
    "nothing": "everything",
    "most": "few",
    "many": "few",
    "few": "many",
    "none": "all",
}

#: Units of one dimension each, singular and plural: "ten minutes" against "ten hours" is a
#: mismatch of the same dimension.
DURATION_UNITS: dict[str, str] = {
    **dict.fromkeys(("second", "seconds", "sec", "secs"), "second"),
    **dict.fromkeys(("minute", "minutes", "min", "mins"), "minute"),
    **dict.fromkeys(("hour", "hours", "hr", "hrs"), "hour"),
    **dict.fromkeys(("day", "days"), "day"),
    **dict.fromkeys(("week", "weeks"), "week"),
    **dict.fromkeys(("month", "months"), "month"),
    **dict.fromkeys(("year", "years"), "year"),
    **dict.fromkeys(("decade", "decades"), "decade"),
    **dict.fromkeys(("century", "centuries"), "century"),
}


def unit_dimension(word: str) -> str | None:
    """The duration unit a word names ("hours" -> "hour"), or None."""
    return DURATION_UNITS.get(word.lower())


def negation_cues(text: str) -> Iterator[re.Match[str]]:
    """Every negation cue of ``text``, in order."""
    return _CUE.finditer(text)


@lru_cache(maxsize=1)
def _antonyms() -> dict[str, frozenset[str]]:
    table: dict[str, set[str]] = {}
    text = resources.files("veracity.rules").joinpath("antonyms.txt").read_text(encoding="utf-8")
    for line in text.splitlines():
        words = line.split()
        if len(words) != 2 or line.startswith("#"):
            continue
        a, b = (w.lower() for w in words)
        table.setdefault(a, set()).add(b)
        table.setdefault(b, set()).add(a)
    return {word: frozenset(others) for word, others in table.items()}


def antonyms_of(word: str) -> frozenset[str]:
    """The words of the shipped lexicon (``antonyms.txt``) that contradict ``word``."""
    return _antonyms().get(word.lower(), frozenset())


@lru_cache(maxsize=1)
def _stem_opposites() -> dict[str, frozenset[str]]:
    table: dict[str, set[str]] = {}
    for word, others in _antonyms().items():
        table.setdefault(stem(word), set()).update(stem(other) for other in others)
    for word, contrary in CONTRARY_QUANTIFIERS.items():
        table.setdefault(word, set()).add(contrary)
    return {key: frozenset(values) for key, values in table.items()}


def opposite_stems(word: str) -> frozenset[str]:
    """The stems (:func:`veracity.text.words.stem`) of the words that contradict any inflection
    of ``word`` in the lexicon or the contrary quantifiers: "opens" gives the stems of "closes"
    and "closed".

    >>> sorted(opposite_stems("opens"))
    ['clos', 'close']
    """
    return _stem_opposites().get(stem(word.lower()), frozenset())


# --- the checks: a claim read against its aligned evidence ------------------------------------


#: The share of the claim's content words an evidence sentence must state (or oppose) to be read
#: against the claim at all.
ALIGNED_SHARE = 0.6
_CLAUSE = re.compile(r"[,;:()]|\s[–—-]\s")
#: A negation cue denies the first content word within this many words after it.
_SCOPE_WORDS = 4
#: A condition after a denied word turns the denial into a rule ("not ... unless", "not ...
#: except"): the claim may state the exception.
_CONDITION = re.compile(r"\b(?:unless|except|until|other than)\b", re.IGNORECASE)
#: A purpose, fear or precaution before a cue in its clause: what follows is not stated as a
#: fact ("to make it not undermine", "to make sure no write operation is happening").
_EMBEDDING = re.compile(
    r"\b(?:to make|make sure|makes sure|ensure\w*|so that|in order|lest|fear\w*|afraid"
    r"|avoid\w*|prevent\w*)\b",
    re.IGNORECASE,
)
#: Words between a cue and the word it denies: adverbs ("does not even decompress") and "need"
#: ("do not need to run configure" denies running it).
_INTENSIFIERS = frozenset(
    {"even", "ever", "really", "actually", "yet", "also", "still", "need", "needs"}
)
#: Negation cues that do not deny the claim's predicate ("not only X but Y" states X; "no other
#: frontend is running" says nothing against "a frontend"; "no one" is a pronoun, not "one").
_NOT_DENIALS = re.compile(
    r"\bnot only\b|\bnot just\b|\bnot merely\b|\bnot limited to\b|\bno doubt\b|\bnothing but\b"
    r"|\bno sooner\b|\bno other\b|\bnothing else\b|\bno more than\b|\bno less than\b"
    r"|\bnot less than\b|\bnot more than\b|\bnot necessarily\b|\bno one\b",
    re.IGNORECASE,
)


def polarity_checks(claim: str, passages: Sequence[Chunk]) -> list[ValueCheck]:
    """The polarity contradictions of ``claim`` with its passages (spans into each passage's
    document), none when one of the passages restates the claim with the same polarity: a
    source that says it outweighs the rule's reading of another."""
    found: list[ValueCheck] = []
    agreeing = against = 0
    for chunk in passages:
        reading, rank = _ranked(claim, chunk.text, doc_id=chunk.doc_id, offset=chunk.start)
        if reading is not None and not reading:
            agreeing = max(agreeing, rank)
        elif reading:
            against = max(against, rank)
            found.extend(reading)
    # An agreeing sentence outweighs only one that states no more of the claim: "Honey bees
    # perform a waggle dance" does not restate "Bumblebees perform a waggle dance".
    return [] if agreeing and agreeing >= against else found


def polarity_conflicts(
    claim: str, premise: str, *, doc_id: str | None = None, offset: int = 0
) -> tuple[ValueCheck, ...]:
    """The polarity contradictions between ``claim`` and its aligned sentence of ``premise``
    (see the module docstring); empty when no sentence aligns or the polarities agree."""
    return _reading(claim, premise, doc_id=doc_id, offset=offset) or ()


#: A flip: its kind, the claim's words (claim span) and the evidence's (joined premise span).
_Finding = tuple[str, Span, Span]


def _reading(
    claim: str, premise: str, *, doc_id: str | None, offset: int
) -> tuple[ValueCheck, ...] | None:
    """None when no sentence of ``premise`` aligns with ``claim``; else its contradictions
    (empty: an aligned sentence agrees)."""
    return _ranked(claim, premise, doc_id=doc_id, offset=offset)[0]


def _ranked(
    claim: str, premise: str, *, doc_id: str | None, offset: int
) -> tuple[tuple[ValueCheck, ...] | None, int]:
    """:func:`_reading` and how many of the claim's content words its aligned sentence states
    or opposes."""
    claim_words = words_in(claim)
    content = [w for w in claim_words if w.low not in STOPWORDS]
    if len(content) < 2:
        return None, 0
    joined = join_hyphenated(premise)
    candidates = paired_sentences(
        content, joined.text, share=ALIGNED_SHARE, opposites=opposite_stems
    )
    if not candidates:
        return None, 0
    rank = max(len(a.shared) + len(a.opposed) for a in candidates)
    readings = [_flips(claim, claim_words, joined, a, doc_id, offset) for a in candidates]
    if any(not reading for reading in readings):
        return (), rank  # one aligned sentence says what the claim says
    return readings[0], rank


def _flips(
    claim: str,
    claim_words: list[Word],
    joined: JoinedText,
    aligned: PairedSentence,
    doc_id: str | None,
    offset: int,
) -> tuple[ValueCheck, ...]:
    premise = joined.text
    sentence = aligned.sentence
    anchors = [e for _, e in aligned.shared] + [e for _, e in aligned.opposed]
    region = _region(premise, sentence, min(w.start for w in anchors), max(w.end for w in anchors))
    shared = aligned.shared
    shared_keys = {c.key for c, _ in shared}
    # Antonyms of the lexicon, only in the claim word's place.
    opposed = [
        (c, e)
        for c, e in aligned.opposed
        if in_place(c, e, shared)
        and region.start <= e.start < region.end
        # a claim that says both ("decreases ... and increases ...") opposes nothing
        and not any(w.key in opposite_stems(c.low) for w in claim_words)
    ]
    # Quantifiers and some antonyms ("before" / "after") are stopwords, so not in ``content``:
    # a contrary one that governs the same word ("all bees" / "no bees").
    region_words = words_in(premise, region.start, region.end)
    taken = {c.index for c, _ in opposed}
    for word in claim_words:
        contraries = _function_contraries(word.low)
        if not contraries or word.index in taken or any(w.low == word.low for w in region_words):
            continue
        other = next((w for w in region_words if w.low in contraries), None)
        if other is not None and _same_governed(claim, word, premise, other, shared):
            opposed.append((word, other))
    pairs = shared + [(c, e) for c, e in opposed if (c, e) not in shared]
    opposed_keys = {(c.index, e.index) for c, e in opposed}
    # A quantifier of a pair ("no bees", "never sting") is read as a quantifier, not a negation.
    claim_denied = _denials(
        claim,
        Span(0, len(claim)),
        shared_keys,
        {c.key for c, _ in pairs},
        {c.start for c, _ in opposed},
    )
    sentence_denied = _denials(
        premise, sentence, shared_keys, {e.key for _, e in pairs}, {e.start for _, e in opposed}
    )
    region_denied = {
        key: found for key, found in sentence_denied.items() if region.start <= found[0].start
    }
    # A word that one side states both with and without a negation ("fish that live ... than
    # fish that don't live") is no reading of polarity.
    mixed = _mixed(claim_words, claim_denied) | _mixed(
        words_in(premise, sentence.start, sentence.end), sentence_denied
    )
    flips: list[tuple[Word, Word, bool, bool, bool]] = []
    for c, e in pairs:
        if c.key in mixed or e.key in mixed:
            continue
        # A cue denies the aligned word itself, not another mention of it.
        said = c.key in claim_denied and claim_denied[c.key][1].index == c.index
        denied = e.key in region_denied and region_denied[e.key][1].index == e.index
        if said and (e.key in sentence_denied or _cue_before(premise, e, sentence)):
            continue  # both sides carry the negation, wherever it sits in the sentence
        if denied and _cue_before(claim, c, Span(0, len(claim))):
            continue  # "doesn't wake" / "doesn't fully wake"
        antonym = (c.index, e.index) in opposed_keys
        if said ^ denied ^ antonym:
            flips.append((c, e, said, denied, antonym))
    claim_cues = _negations(claim, Span(0, len(claim)), {c.start for c, _ in opposed})
    sentence_cues = _negations(premise, sentence, {e.start for _, e in opposed})
    if claim_cues and sentence_cues:
        # Both sides carry a negation, each on its own word ("no food" / "without water", "is
        # not an album" / "is not the fourth album"): no clear reading of a negation, unless
        # the sentence's only says how, after the word ("overwrite it without prompting").
        keys = {w.key for w in claim_words}
        flips = [
            f
            for f in flips
            if not (f[2] or f[3]) or (f[2] and _manner(premise, f[1], sentence_cues, keys))
        ]
    found: list[_Finding] = []
    for c, e, said, denied, antonym in flips:
        if antonym and not (said or denied):
            kind = "quantifier" if c.low in CONTRARY_QUANTIFIERS else "antonym"
            found.append((kind, Span(c.start, c.end), Span(e.start, e.end)))
        elif denied:
            cue, target = region_denied[e.key]
            start = _auxiliary_start(premise, cue.start)
            found.append(("negation", Span(c.start, c.end), Span(start, target.end)))
        elif said:
            cue, target = claim_denied[c.key]
            start = _auxiliary_start(claim, cue.start)
            found.append(("negation", Span(start, target.end), Span(e.start, e.end)))
    unique = {(kind, span): (kind, span, words) for kind, span, words in found}
    return tuple(
        _check(finding, claim, joined, sentence, doc_id, offset)
        for finding in sorted(unique.values(), key=lambda f: f[1].start)
    )


def _negations(text: str, bounds: Span, paired: set[int]) -> list[tuple[Span, Word | None]]:
    """The negation cues of ``bounds`` that deny something (not a contrary quantifier of a
    pair, not "not only", "no other", ...), each with the word it denies (see
    :func:`_target`)."""
    skip = [m.span() for m in _NOT_DENIALS.finditer(text, bounds.start, bounds.end)]
    return [
        (Span(*m.span()), _target(text, m.end(), bounds.end))
        for m in negation_cues(text[: bounds.end])
        if m.start() >= bounds.start
        and m.start() not in paired
        and not any(a <= m.start() < b for a, b in skip)
    ]


def _manner(
    text: str, word: Word, cues: Sequence[tuple[Span, Word | None]], claim: set[str]
) -> bool:
    """Whether every cue is a "without" right after ``word`` in its clause (within
    ``_SCOPE_WORDS`` words) that denies a word the claim does not say ("overwrite it without
    prompting")."""
    clause = _CLAUSE.search(text, word.end)
    end = clause.start() if clause else len(text)
    near = all_words(text)[word.index + 1 : word.index + 1 + _SCOPE_WORDS]
    return all(
        cue.of(text).lower() == "without"
        and word.end <= cue.start < end
        and any(w.start == cue.start for w in near)
        and target is not None
        and target.key not in claim
        for cue, target in cues
    )


def _mixed(words: Sequence[Word], denied: Mapping[str, tuple[Span, Word]]) -> set[str]:
    """The keys that ``words`` hold both denied and, in another mention, not."""
    return {
        key
        for key, (_, target) in denied.items()
        if any(w.key == key and w.index != target.index for w in words)
    }


def _cue_before(text: str, word: Word, bounds: Span) -> bool:
    """Whether a negation cue stands within ``_SCOPE_WORDS`` words before ``word``, in its
    clause ("nor liver issues", "doesn't fully wake")."""
    words = all_words(text)
    start = words[max(0, word.index - _SCOPE_WORDS)].start
    clause = max(
        (m.end() for m in _CLAUSE.finditer(text, bounds.start, word.start)), default=bounds.start
    )
    return any(
        max(start, clause) <= m.start() and m.end() <= word.start
        for m in negation_cues(text[: word.start])
        if m.start() >= max(start, clause)
    )


def _function_contraries(word: str) -> frozenset[str]:
    """The contraries of a function word: a contrary quantifier ("all" / "no") or an antonym of
    the lexicon that is a function word too ("before" / "after", "above" / "below")."""
    if word not in STOPWORDS and word not in CONTRARY_QUANTIFIERS:
        return frozenset()
    found = {o for o in antonyms_of(word) if o in STOPWORDS}
    if word in CONTRARY_QUANTIFIERS:
        found.add(CONTRARY_QUANTIFIERS[word])
    return frozenset(found)


def _same_governed(
    claim: str, word: Word, premise: str, other: Word, shared: Sequence[WordPair]
) -> bool:
    """Whether two quantifiers govern the same word: the first content word after each (within
    ``_SCOPE_WORDS``) is a shared pair ("all bees" / "no bees", "always sting" / "never
    sting")."""
    mine = _target(claim, word.end, len(claim))
    theirs = _target(premise, other.end, len(premise))
    return (
        mine is not None
        and theirs is not None
        and any(c.index == mine.index and e.index == theirs.index for c, e in shared)
    )


def _target(text: str, start: int, end: int) -> Word | None:
    """The first content word within ``_SCOPE_WORDS`` words after ``start``, in its clause."""
    clause = _CLAUSE.search(text, start, end)
    stop = clause.start() if clause else end
    if clause is not None and clause.group() == "," and not text[start:stop].strip():
        # "will not, unless --force is given, overwrite": the cue reaches past the aside
        aside = text.find(",", clause.end(), end)
        if aside != -1:
            return _target(text, aside + 1, end)
    after = words_in(text, start, stop)[:_SCOPE_WORDS]
    return next((w for w in after if w.low not in STOPWORDS and w.low not in _INTENSIFIERS), None)


_AUXILIARY = re.compile(
    r"\b(?:do|does|did|is|are|was|were|has|have|had|can|could|will|would|"
    r"shall|should|may|might|must)\s+\Z",
    re.IGNORECASE,
)


def _auxiliary_start(text: str, cue: int) -> int:
    """Where the negated verb phrase starts: at an auxiliary right before the cue ("does not")."""
    match = _AUXILIARY.search(text, max(0, cue - 8), cue)
    return match.start() if match else cue


def _region(premise: str, sentence: Span, first: int, last: int) -> Span:
    """The clauses of ``sentence`` from the one holding ``first`` to the one holding ``last``."""
    start, end = sentence.start, sentence.end
    for match in _CLAUSE.finditer(premise, sentence.start, sentence.end):
        if match.end() <= first:
            start = match.end()
        elif match.start() >= last:
            end = match.start()
            break
    return Span(start, end)


def _denials(
    text: str, bounds: Span, shared: set[str], keys: set[str], paired: set[int]
) -> dict[str, tuple[Span, Word]]:
    """The words of ``bounds`` that a negation cue denies, by stem (only stems in ``keys``):
    the cue's target (see :func:`_target`) with another word of a ``shared`` stem within
    ``NEIGHBOUR_WORDS`` words of it; not a cue that starts at one of ``paired`` (a contrary
    quantifier). Each with its cue."""
    words = all_words(text)
    skip = [m.span() for m in _NOT_DENIALS.finditer(text, bounds.start, bounds.end)]
    found: dict[str, tuple[Span, Word]] = {}
    for match in negation_cues(text[: bounds.end]):
        if (
            match.start() < bounds.start
            or match.start() in paired
            or any(a <= match.start() < b for a, b in skip)
        ):
            continue
        target = _target(text, match.end(), bounds.end)
        if target is None or target.key not in keys:
            continue
        clause = _CLAUSE.search(text, target.end, bounds.end)
        if _CONDITION.search(text, target.end, clause.start() if clause else bounds.end):
            continue  # "does not keep them unless --keep is given": a condition, no denial
        opening = max(
            (m.end() for m in _CLAUSE.finditer(text, bounds.start, match.start())),
            default=bounds.start,
        )
        if _EMBEDDING.search(text, opening, match.start()):
            continue  # "to make the deployment not undermine ...": a purpose, no statement
        window = words[max(0, target.index - NEIGHBOUR_WORDS) : target.index + NEIGHBOUR_WORDS + 1]
        near = any(w.key in shared and w.index != target.index for w in window)
        if near and target.key not in found:
            found[target.key] = (Span(*match.span()), target)
    return found


def _check(
    finding: _Finding,
    claim: str,
    joined: JoinedText,
    sentence: Span,
    doc_id: str | None,
    offset: int,
) -> ValueCheck:
    """A finding as a check: the claim's words, and the evidence's words and sentence as
    written in the premise, shifted by ``offset``."""
    kind, span, words = finding
    evidence = joined.source_span(words)
    around = joined.source_span(sentence)
    text = span.of(claim)
    return ValueCheck(
        kind=kind,
        text=text,
        span=span,
        value=text.lower(),
        status="mismatch",
        found=evidence.of(joined.source),
        doc_id=doc_id,
        evidence=Span(offset + evidence.start, offset + evidence.end),
        aligned=True,
        sentence=Span(offset + around.start, offset + around.end),
    )
