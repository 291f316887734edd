"""Rows that keep a surface cue from deciding the label: negations on both sides, and true
claims full of numbers.

A network trained only on negated twins learns that a "not" in the claim means contradicted,
and then flags "will by default not overwrite existing files" against a source that says
exactly that. Two kinds of row take the cue away:

- ``negated_both`` (supported): the claim's sentence negated in the premise *and* in the claim;
  ``premise_negated`` (contradicted): the same premise against the original claim. With the
  contradicted ``twin_negation`` rows, a negation word now appears on either side of supported
  and contradicted pairs alike.
- ``verbatim_number`` (supported): a sentence of the premise that carries a number, date or
  version, copied or lightly edited (parenthetical dropped, date respelled), so that a claim
  that repeats its source's figures is not taken for a changed one.

>>> import random
>>> claim = "The bridge was built in 1932."
>>> premise = "It spans the river. The bridge was built in 1932. It is closed in winter."
>>> aligned_sentence(premise, claim)
(20, 49)
"""

from __future__ import annotations

import random
from collections import Counter

from veracity_training.data.perturb import change_date_format, negate
from veracity_training.data.schema import Row
from veracity_training.data.text import (
    DATE,
    NUMBER,
    content_tokens,
    drop_parentheticals,
    sentences,
    word_count,
)

__all__ = ["aligned_sentence", "negation_pair_rows", "verbatim_number_rows", "verbatim_twin"]

#: Share of the claim's content words that its aligned premise sentence must hold.
_MIN_ALIGNMENT = 0.7
_MAX_CLAIM_WORDS = 40


def aligned_sentence(premise: str, claim: str) -> tuple[int, int] | None:
    """The span of the premise sentence that holds most of the claim's content words, if it
    holds at least 70% of them."""
    words = content_tokens(claim)
    if not words:
        return None
    best: tuple[float, int, int] | None = None
    at = 0
    for sentence in sentences(premise):
        start = premise.find(sentence, at)
        if start < 0:
            continue
        at = start + len(sentence)
        share = len(words & content_tokens(sentence)) / len(words)
        if best is None or share > best[0]:
            best = (share, start, at)
    if best is None or best[0] < _MIN_ALIGNMENT:
        return None
    return best[1], best[2]


def negation_pair_rows(rows: list[Row], *, quota: int, seed: int, stats: Counter[str]) -> list[Row]:
    """``negated_both`` and ``premise_negated`` rows from supported one-sentence claims, up to
    ``quota`` of each."""
    rng = random.Random(f"{seed}:negation-pairs")
    candidates = [
        r
        for r in rows
        if r.label == "supported"
        and len(sentences(r.hypothesis)) == 1
        and word_count(r.hypothesis) <= _MAX_CLAIM_WORDS
    ]
    rng.shuffle(candidates)
    out: list[Row] = []
    made = 0
    for row in candidates:
        if made >= quota:
            break
        span = aligned_sentence(row.premise, row.hypothesis)
        if span is None:
            continue
        original = row.premise[span[0] : span[1]]
        negated_sentence = negate(original, rng)
        negated_claim = negate(row.hypothesis, rng)
        if not negated_sentence or not negated_claim or negated_claim == row.hypothesis:
            continue
        premise = row.premise[: span[0]] + negated_sentence + row.premise[span[1] :]
        out.append(
            Row(f"{row.id}~negated_both", premise, negated_claim, "supported", row.source,
                "negated_both", row.group)
        )  # fmt: skip
        out.append(
            Row(f"{row.id}~premise_negated", premise, row.hypothesis, "contradicted", row.source,
                "premise_negated", row.group)
        )  # fmt: skip
        made += 1
    stats["negated_both"] += made
    stats["premise_negated"] += made
    return out


def _lightly_edited(sentence: str, rng: random.Random) -> str:
    choices = [sentence]
    dropped = drop_parentheticals(sentence)
    if dropped != sentence:
        choices.append(dropped)
    respelled = change_date_format(sentence)
    if respelled:
        choices.append(respelled)
    return rng.choice(choices)


def verbatim_twin(premise: str, rng: random.Random) -> str | None:
    """A sentence of ``premise`` with a number, date or version, copied or lightly edited."""
    found = [
        s
        for s in sentences(premise)
        if (NUMBER.search(s) or DATE.search(s)) and 8 <= word_count(s) <= _MAX_CLAIM_WORDS
    ]
    return _lightly_edited(rng.choice(found), rng) if found else None


def verbatim_number_rows(
    rows: list[Row], *, quota: int, seed: int, stats: Counter[str]
) -> list[Row]:
    """Up to ``quota`` ``verbatim_number`` rows: one sentence with a number, date or version
    from a supported row's premise, against that premise."""
    rng = random.Random(f"{seed}:verbatim-numbers")
    candidates = [r for r in rows if r.label == "supported"]
    rng.shuffle(candidates)
    seen: set[str] = set()
    out: list[Row] = []
    for row in candidates:
        if len(out) >= quota:
            break
        if row.premise in seen:
            continue
        seen.add(row.premise)
        claim = verbatim_twin(row.premise, rng)
        if claim is None:
            continue
        out.append(
            Row(f"{row.id}~verbatim_number", row.premise, claim, "supported", row.source,
                "verbatim_number", row.group)
        )  # fmt: skip
    stats["verbatim_number"] += len(out)
    return out
