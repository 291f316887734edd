"""Contradictions a reader can see without a network: a claim against the one sentence of the
evidence that says the same thing, with a "not" more or less, a word turned into its antonym,
or a quantifier reversed.

The rule reads only *aligned* evidence, never an unrelated sentence:

1. The evidence sentence that shares most of the claim's content words (stemmed; a claim word
   whose antonym the sentence has counts as shared, the other way round) is the claim's
   aligned sentence, if it shares at least ``ALIGNED_SHARE`` of them and at least two outright.
2. Its *region* is the clauses (cut at ``,;:`` and dashes) from the first to the last shared
   word: a "not" in another clause of the sentence says nothing of the claim.
3. Oppositions: each claim word whose antonym (:func:`veracity.text.polarity.opposite_stems`)
   or contrary quantifier ("all" / "no", "most" / "few") stands in the region and which the
   region does not also contain; and the negation cues ("not", "never", "n't", "without", ...)
   of the claim and of the region that deny an aligned word (the first content word within four
   words after the cue is one the claim and the sentence share: "not birds" denies nothing of
   "Bees are insects") and are not part of such a pair. An odd number of flips in all is a
   contradiction: "opens" / "does not open" (one negation), "opens" / "closes" (one antonym), but
   "is not closed" / "is open" (a negation and an antonym) agree.

Each contradiction is reported as a :class:`~veracity.types.ValueCheck` of kind ``negation``,
``antonym`` or ``quantifier``, status ``mismatch``, with the claim's word, its span in the claim,
and the evidence's words and their span (in the premise, shifted by ``offset``).

>>> [(c.kind, c.text, c.found) for c in polarity_conflicts(
...     "The museum opens on Mondays.", "The museum does not open on Mondays.")]
[('negation', 'opens', 'does not open')]
>>> polarity_conflicts("The museum is open on Mondays.", "The museum is not closed on Mondays.")
()
"""

from __future__ import annotations

import functools
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from types import MappingProxyType

from veracity.text.polarity import CONTRARY_QUANTIFIERS, negation_cues, opposite_stems
from veracity.text.sentences import split_sentences
from veracity.text.words import APOSTROPHES, STOPWORDS, WORD, stem
from veracity.types import Chunk, Span, ValueCheck

__all__ = ["ALIGNED_SHARE", "polarity_checks", "polarity_conflicts"]

#: The share of the claim's content words an evidence sentence must state (or oppose) to be read
#: against the claim at all.
ALIGNED_SHARE = 0.6
_CLAUSE = re.compile(r"[,;:()]|\s[–—-]\s")
#: A negation cue denies the first content word within this many words after it.
_SCOPE_WORDS = 4
#: Negation cues that do not deny the claim's predicate ("not only X but Y" states X).
_NOT_DENIALS = re.compile(r"\bnot only\b|\bno doubt\b|\bnothing but\b|\bno sooner\b", re.IGNORECASE)


@dataclass(frozen=True)
class _Word:
    text: str
    start: int
    end: int

    @property
    def low(self) -> str:
        return self.text.lower().translate(APOSTROPHES)


def _words(text: str, start: int = 0, end: int | None = None) -> list[_Word]:
    return [
        _Word(m.group(), m.start(), m.end())
        for m in WORD.finditer(text, start, len(text) if end is None else end)
    ]


def polarity_checks(claim: str, passages: Sequence[Chunk]) -> list[ValueCheck]:
    """The polarity contradictions of ``claim`` with its passages (spans into each passage's
    document), none when one of the passages restates the claim with the same polarity: a
    source that says it outweighs the rule's reading of another."""
    found: list[ValueCheck] = []
    for chunk in passages:
        reading = _reading(claim, chunk.text, doc_id=chunk.doc_id, offset=chunk.start)
        if reading is not None and not reading:
            return []
        found.extend(reading or ())
    return found


def polarity_conflicts(
    claim: str, premise: str, *, doc_id: str | None = None, offset: int = 0
) -> tuple[ValueCheck, ...]:
    """The polarity contradictions between ``claim`` and its aligned sentence of ``premise``
    (see the module docstring); empty when no sentence aligns or the polarities agree."""
    return _reading(claim, premise, doc_id=doc_id, offset=offset) or ()


def _reading(
    claim: str, premise: str, *, doc_id: str | None, offset: int
) -> tuple[ValueCheck, ...] | None:
    """None when no sentence of ``premise`` aligns with ``claim``; else its contradictions
    (empty: the aligned sentence agrees)."""
    claim_words = _words(claim)
    content = [w for w in claim_words if w.low not in STOPWORDS]
    if len(content) < 2:
        return None
    aligned = _aligned(content, premise)
    if aligned is None:
        return None
    sentence, shared, opposed = aligned
    anchors = [e for _, e in shared] + [e for _, e in opposed]
    region = _region(premise, sentence, min(w.start for w in anchors), max(w.end for w in anchors))
    # Quantifiers are stopwords, so not in ``content``: pair them within the region.
    region_words = _words(premise, region.start, region.end)
    region_lows = {w.low: w for w in region_words}
    already = {(c.start, c.end) for c, _ in opposed}
    for word in claim_words:
        contrary = CONTRARY_QUANTIFIERS.get(word.low)
        if (
            contrary in region_lows
            and word.low not in region_lows
            and (word.start, word.end) not in already
        ):
            opposed.append((word, region_lows[str(contrary)]))
    paired_claim = {(c.start, c.end) for c, _ in opposed}
    paired_evidence = {(e.start, e.end) for _, e in opposed}
    claim_scope = {stem(c.low) for c, _ in shared} | {stem(c.low) for c, _ in opposed}
    evidence_scope = {stem(e.low) for _, e in shared} | {stem(e.low) for _, e in opposed}
    claim_cues = _cues(claim, Span(0, len(claim)), paired_claim, claim_scope)
    evidence_cues = _cues(premise, region, paired_evidence, evidence_scope)
    if (len(opposed) + len(claim_cues) + len(evidence_cues)) % 2 == 0:
        return ()
    found = [
        _check(
            "quantifier" if c.low in CONTRARY_QUANTIFIERS else "antonym",
            c.text,
            Span(c.start, c.end),
            e.text,
            Span(e.start, e.end),
            doc_id,
            offset,
        )
        for c, e in opposed
    ]
    if len(claim_cues) != len(evidence_cues):
        cue, scoped = (evidence_cues or claim_cues)[0]
        if evidence_cues:  # the evidence denies what the claim states
            twin = next((c for c, e in shared + opposed if e.start == scoped.start), scoped)
            start = _auxiliary_start(premise, cue.start)
            found.append(
                _check(
                    "negation",
                    twin.text,
                    Span(twin.start, twin.end),
                    premise[start : scoped.end],
                    Span(start, scoped.end),
                    doc_id,
                    offset,
                )
            )
        else:  # the claim denies what the evidence states
            twin = next((e for c, e in shared + opposed if c.start == scoped.start), scoped)
            start = _auxiliary_start(claim, cue.start)
            found.append(
                _check(
                    "negation",
                    claim[start : scoped.end],
                    Span(start, scoped.end),
                    twin.text,
                    Span(twin.start, twin.end),
                    doc_id,
                    offset,
                )
            )
    return tuple(found)


_Pair = tuple[_Word, _Word]


def _aligned(content: list[_Word], premise: str) -> tuple[Span, list[_Pair], list[_Pair]] | None:
    """The premise sentence that states or opposes most of the claim's content words, with the
    (claim word, evidence word) pairs it shares and opposes; None below ``ALIGNED_SHARE``."""
    best: tuple[float, Span, list[_Pair], list[_Pair]] | None = None
    for sentence, by_stem in _sentence_stems(premise):
        shared: list[_Pair] = []
        opposed: list[_Pair] = []
        for word in content:
            if stem(word.low) in by_stem:
                shared.append((word, by_stem[stem(word.low)]))
                continue
            other = next(
                (
                    by_stem[o]
                    for o in sorted(opposite_stems(word.low))
                    if o in by_stem and by_stem[o].text[:1].islower()
                ),
                None,
            )
            if other is not None:
                opposed.append((word, other))
        share = (len(shared) + len(opposed)) / len(content)
        if len(shared) >= 2 and share >= ALIGNED_SHARE and (best is None or share > best[0]):
            best = (share, sentence, shared, opposed)
    return None if best is None else best[1:]


@functools.lru_cache(maxsize=256)
def _sentence_stems(premise: str) -> tuple[tuple[Span, Mapping[str, _Word]], ...]:
    """Each sentence of ``premise`` with its words by stem (a lower-case occurrence first:
    "west of Brisbane", not "South West Queensland"). Cached: an answer's claims share their
    passages, and the claims of one request read the same few."""
    found = []
    for sentence in split_sentences(premise):
        by_stem: dict[str, _Word] = {}
        for word in _words(premise, sentence.start, sentence.end):
            key = stem(word.low)
            if key not in by_stem or (
                word.text[:1].islower() and not by_stem[key].text[:1].islower()
            ):
                by_stem[key] = word
        found.append((sentence, MappingProxyType(by_stem)))
    return tuple(found)


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


def _cues(
    text: str, region: Span, paired: set[tuple[int, int]], scope: set[str]
) -> list[tuple[Span, _Word]]:
    """The negation cues of ``region`` that deny an aligned word: the first content word within
    ``_SCOPE_WORDS`` words after the cue is one whose stem is in ``scope``. Each cue comes with
    that word."""
    skip = [m.span() for m in _NOT_DENIALS.finditer(text, region.start, region.end)]
    found = []
    for match in negation_cues(text[: region.end]):
        if (
            match.start() < region.start
            or match.span() in paired
            or any(a <= match.start() < b for a, b in skip)
        ):
            continue
        after = _words(text, match.end(), region.end)[:_SCOPE_WORDS]
        target = next((w for w in after if w.low not in STOPWORDS), None)
        if target is not None and stem(target.low) in scope:
            found.append((Span(*match.span()), target))
    return found


def _check(
    kind: str, text: str, span: Span, found: str, evidence: Span, doc_id: str | None, offset: int
) -> ValueCheck:
    return ValueCheck(
        kind=kind,
        text=text,
        span=span,
        value=text.lower(),
        status="mismatch",
        found=found,
        doc_id=doc_id,
        evidence=Span(offset + evidence.start, offset + evidence.end),
    )
