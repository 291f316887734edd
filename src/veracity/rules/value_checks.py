"""A claim's value against its passages' values: ``match``, ``mismatch`` in the same context
of an aligned sentence, or ``absent`` (see :mod:`veracity.rules.layer` for the rules).

>>> from veracity.types import Chunk
>>> from veracity.rules.context import Subject, read_passage
>>> from veracity.rules.values import extract_values
>>> claim = "The colony has 60,000 bees."
>>> chunk = Chunk("h#0", "h.md", 0, "The colony had 50,000 bees.", 0, 27)
>>> passage = read_passage(chunk, {}, width=3)
>>> check = check_value(Subject(claim, ()), extract_values(claim)[0], extract_values(claim),
...                     [passage], width=3)
>>> check.status, check.found
('mismatch', '50,000')
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from veracity.rules.align import claim_clause
from veracity.rules.context import (
    Context,
    Found,
    Passage,
    Subject,
    context_of,
    sentence_of,
    value_check,
    within,
)
from veracity.rules.tokens import compare_tokens
from veracity.rules.values import Relation, Value, compare, value_amount, year_like
from veracity.types import Span, ValueCheck

__all__ = ["check_value", "relation_of"]


def check_value(
    subject: Subject,
    value: Value,
    claim_values: Sequence[Value],
    passages: Sequence[Passage],
    *,
    width: int,
) -> ValueCheck:
    """In order: ``match`` when a sentence aligned with the claim states the value, or
    another states it in the same context; ``mismatch`` when an aligned sentence states a
    conflicting value in the same context; ``match`` when any sentence states the value;
    ``absent`` otherwise (naming a conflicting value that stands elsewhere, if any)."""
    claim = subject.text
    context = context_of(claim, value, claim_values, Span(0, len(claim)), width=width)
    best: tuple[tuple[bool, int, int], Passage, Found] | None = None
    # a match outside the aligned sentences, in the same context (first) or any
    elsewhere: dict[bool, tuple[Passage, Value]] = {}
    for passage in passages:
        bounds = _range_ends(value, passage)
        aligned = subject.aligned(value, passage)
        for index, other in enumerate(passage.values):
            relation = relation_of(value, other.value)
            if relation == "match":
                if within(other.value.span, aligned):
                    return value_check(value, "match", passage, other.value, True)
                same = _same_context(value, context, other.context)
                elsewhere.setdefault(same, (passage, other.value))
                continue
            if relation != "conflict" or index in bounds:
                continue  # "63" is no conflict with "62 to 64": it lies inside
            if any(
                mine is not value and relation_of(mine, other.value) == "match"
                for mine in claim_values
            ):
                continue  # the claim states that value too, in another slot
            shared = context.window.keys() & other.context.window.keys()
            if not _same_context(value, context, other.context) and not (
                within(other.value.span, aligned)
                and _sole(claim, value, claim_values, passage, other.value)
            ):
                continue  # "60,000 bees" against "60 frames": not the same thing
            if year_like(value) != year_like(other.value):
                continue  # "three prizes" against "the 1911 prize": a year, not a count
            # In the aligned sentence first, then most shared words, then the passage
            # value closest to them.
            rank = (
                within(other.value.span, aligned),
                len(shared),
                -sum(other.context.window[word] for word in shared),
            )
            if best is None or rank > best[0]:
                best = (rank, passage, other)
    if True in elsewhere:
        return value_check(value, "match", *elsewhere[True], False)
    if best is not None and best[0][0]:
        return value_check(value, "mismatch", best[1], best[2].value, True)
    if False in elsewhere:
        return value_check(value, "match", *elsewhere[False], False)
    if best is None:
        return ValueCheck(
            value.kind, value.text, value.span, value.value, "absent", unit=value.unit
        )
    # Only the aligned sentence can contradict; a conflicting value elsewhere is reported
    # beside an absent value, for a decision to weigh.
    return value_check(value, "absent", best[1], best[2].value, False)


def _same_context(value: Value, mine: Context, theirs: Context) -> bool:
    """Whether two values stand in the same context: a content word near both, and for a
    number, the same counted thing when both name one ("60,000 bees", "60 frames")."""
    if not mine.window.keys() & theirs.window.keys():
        return False
    return not (
        value.kind == "number" and mine.heads and theirs.heads and not mine.heads & theirs.heads
    )


def _sole(
    claim: str, value: Value, claim_values: Sequence[Value], passage: Passage, other: Value
) -> bool:
    """Whether ``value`` and ``other`` fill the same slot by being alone: the only value of
    their kind in the claim's clause and in the aligned sentence ("... in June 2018" against
    "In December 2018, ..."), however far apart their words stand."""
    clause = claim_clause(claim, value.span)
    sentence = sentence_of(passage.sentences, other.span.start)
    mine = [
        v
        for v in claim_values
        if clause.start <= v.span.start < clause.end and relation_of(value, v) != "incomparable"
    ]
    theirs = [
        f.value
        for f in passage.values
        if sentence.start <= f.value.span.start < sentence.end
        and relation_of(value, f.value) != "incomparable"
    ]
    return mine == [value] and theirs == [other]


_RANGE_LINK = re.compile(r"\s*(?:to|-|–|—|and|or)\s*", re.IGNORECASE)


def _range_ends(value: Value, passage: Passage) -> set[int]:
    """The positions in ``passage.values`` of the two ends of each range ("62 to 64",
    "between 5 and 9", "10–20 km") that holds ``value``."""
    if value.kind not in ("number", "percent", "money", "quantity"):
        return set()
    text = passage.text
    ends: set[int] = set()
    found = passage.values
    for index in range(len(found) - 1):
        low, high = found[index].value, found[index + 1].value
        # "5 and 9 percent": the unit is often written once, after the range's end
        same = (low.kind == high.kind and low.unit == high.unit) or (
            low.kind == "number" and high.kind == "percent"
        )
        if not (
            same
            and high.kind == value.kind
            and high.unit == value.unit
            and _RANGE_LINK.fullmatch(text[low.span.end : high.span.start])
        ):
            continue
        try:
            amount, first, last = value_amount(value), value_amount(low), value_amount(high)
        except (ArithmeticError, ValueError, IndexError):
            continue
        if min(first, last) <= amount <= max(first, last):
            ends.update((index, index + 1))
    return ends


def relation_of(claim: Value, evidence: Value) -> Relation:
    """How a claim value stands to an evidence value (tokens by their class, others by value)."""
    if "code" in (claim.kind, evidence.kind):
        return compare_tokens(claim, evidence)
    return compare(claim, evidence)
