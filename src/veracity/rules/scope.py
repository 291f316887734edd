"""Scope: a claim that says *all*, *always* or *only* where its evidence says less.

"Templates are always compiled ahead-of-time" against "Templates are compiled just-in-time ...
or can be compiled ahead-of-time"; "It is available on all Linux platforms" against "It is
available on platforms such as AMD64/Linux". The words agree, the reach does not.

For each universal word of the claim (:data:`UNIVERSAL`: *all*, *every*, *always*, *only*,
*entirely*, ...) the rule reads the evidence sentences aligned with the claim
(:func:`~veracity.rules.align.aligned_sentences`):

- silent when one of them has a universal word of the same sort (*all* / *every* / *each* /
  *any*; *always* / *invariably*; *only* / *solely* / *exclusively*; *entirely* / *completely*)
  — it states the scope;
- ``mismatch`` when one of them *limits* the word the universal governs (the first content word
  after it): a limiting word (:data:`LIMITING`: *some*, *certain*, *most*, *usually*,
  *typically*, *primarily*, *can*, *such as*, ...) stands within ``_NEAR`` words before that word
  in the sentence;
- ``absent`` otherwise: the aligned sentence states the rest of the claim and not its reach
  (``found`` is that sentence).

A claim with no aligned sentence gets no finding (what it says is not stated at all: other
inputs say so). Findings have kind ``scope``; neither status is a contradiction by itself: a
decision weighs them.

>>> [(c.text, c.status, c.found) for c in scope_conflicts(
...     "Templates are always compiled to Python code.",
...     "Templates are usually compiled to Python code.")]
[('always', 'mismatch', 'usually')]
>>> scope_conflicts("All bees dance.", "Every bee dances.") is None  # the scope is stated
True
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from veracity.rules.align import aligned_sentences, join_hyphenated, word_key
from veracity.text.words import STOPWORDS
from veracity.types import Chunk, Span, ValueCheck

__all__ = ["LIMITING", "UNIVERSAL", "scope_checks", "scope_conflicts"]

#: Universal words by sort: a sentence with a word of the same sort states the scope.
_SORTS: tuple[frozenset[str], ...] = (
    frozenset({"all", "every", "each", "any", "everything", "everyone", "everywhere"}),
    frozenset({"always", "invariably", "constantly"}),
    frozenset({"only", "solely", "exclusively"}),
    frozenset({"entirely", "completely", "wholly", "fully", "totally"}),
)
UNIVERSAL: frozenset[str] = frozenset().union(*_SORTS)
#: Words that limit a scope ("some", "usually", "can"); "such as" and "including" list examples.
LIMITING = frozenset(
    """some certain many most several few often usually typically generally sometimes mostly
    mainly primarily partly partially occasionally frequently can could may might such
    including particular specific selected""".split()
)
#: How many words before the governed word a limiting word may stand.
_NEAR = 4
#: How many words after the universal word its governed content word may stand.
_GOVERNS = 3
_WORD = re.compile(r"[^\W_]+(?:['’][^\W_]+)*")
#: Uses of a universal word that set no scope ("all in all", "not only", "any more").
_IDIOM = re.compile(
    r"(?i:\bnot\s+only\b|\ball\s+in\s+all\b|\bat\s+all\b(?!\s+\w)|\bany\s*more\b|\bonly\s+(?:if|when)\b)"
)


def _sort(word: str) -> frozenset[str]:
    return next(s for s in _SORTS if word in s)


def scope_checks(claim: str, passages: Sequence[Chunk]) -> list[ValueCheck]:
    """The scope findings of ``claim`` against ``passages`` (spans into each passage's
    document); none when a passage states the claim's scope."""
    found: list[ValueCheck] = []
    for chunk in passages:
        reading = scope_conflicts(claim, chunk.text, doc_id=chunk.doc_id, offset=chunk.start)
        if reading is None:
            return []
        found.extend(reading)
    return found


def scope_conflicts(
    claim: str, premise: str, *, doc_id: str | None = None, offset: int = 0
) -> tuple[ValueCheck, ...] | None:
    """The scope findings of ``claim`` against the sentences of ``premise`` aligned with it:
    empty when nothing aligns or the claim has no universal word, None when an aligned sentence
    states the scope."""
    idioms = [Span(*m.span()) for m in _IDIOM.finditer(claim)]
    words = list(_WORD.finditer(claim))
    universals = [
        (i, m)
        for i, m in enumerate(words)
        if m.group().lower() in UNIVERSAL and not any(s.start <= m.start() < s.end for s in idioms)
    ]
    if not universals:
        return ()
    joined = join_hyphenated(premise)
    sentences = aligned_sentences(
        claim, joined.text, skip=[Span(m.start(), m.end()) for _, m in universals]
    )
    if not sentences:
        return ()
    found: list[ValueCheck] = []
    for i, universal in universals:
        sort = _sort(universal.group().lower())
        governed = next(
            (
                word_key(w.group())
                for w in words[i + 1 : i + 1 + _GOVERNS]
                if w.group().lower() not in STOPWORDS
            ),
            None,
        )
        best: tuple[str, Span, Span] | None = None
        for sentence in sentences:
            theirs = list(_WORD.finditer(joined.text, sentence.start, sentence.end))
            lowered = [w.group().lower() for w in theirs]
            if any(w in sort for w in lowered):
                return None
            limit = _limit(theirs, lowered, governed)
            if limit is not None:
                best = ("mismatch", limit, sentence)
            elif best is None:
                best = ("absent", sentence, sentence)
        if best is None:
            continue
        status, words_span, sentence = best
        evidence = joined.source_span(words_span)
        around = joined.source_span(sentence)
        found.append(
            ValueCheck(
                kind="scope",
                text=universal.group(),
                span=Span(universal.start(), universal.end()),
                value=universal.group().lower(),
                status="mismatch" if status == "mismatch" else "absent",
                found=evidence.of(premise),
                doc_id=doc_id,
                evidence=Span(offset + evidence.start, offset + evidence.end),
                aligned=True,
                sentence=Span(offset + around.start, offset + around.end),
            )
        )
    return tuple(found)


def _limit(
    theirs: Sequence[re.Match[str]], lowered: Sequence[str], governed: str | None
) -> Span | None:
    """The span of a limiting word within ``_NEAR`` words before the governed word."""
    if governed is None:
        return None
    for j, word in enumerate(theirs):
        if word_key(word.group()) != governed:
            continue
        for k in range(max(0, j - _NEAR), j):
            if lowered[k] in LIMITING:
                return Span(theirs[k].start(), theirs[k].end())
    return None
