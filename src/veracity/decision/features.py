"""The decision's inputs as named numbers.

>>> from veracity.types import ClaimSignals, Reading
>>> row = features(ClaimSignals((Reading(0.9, 0.05, 0.05),), coverage=1.0))
>>> dict(zip(FEATURES, row.round(2).tolist()))["support_logit"]
2.2
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from veracity.text.sentences import split_sentences
from veracity.text.words import content_words
from veracity.types import ClaimSignals

__all__ = ["FEATURES", "RULE_KINDS", "coverage", "features", "sentence_coverage"]

#: Value kinds of the knowledge rules, grouped: a number, date or version of the claim against
#: its evidence; a name; a polarity (negation, antonym, quantifier).
RULE_KINDS: dict[str, frozenset[str]] = {
    "value": frozenset({"number", "percent", "money", "quantity", "date", "year", "code"}),
    "entity": frozenset({"entity"}),
    "polarity": frozenset({"negation", "antonym", "quantifier"}),
    "roles": frozenset({"roles"}),
    "scope": frozenset({"scope"}),
}

#: The decision's inputs, in column order.
FEATURES: tuple[str, ...] = (
    "support_logit",
    "contradiction_logit",
    "passages_for",
    "passages_against",
    "coverage_all",
    "coverage_sentence",
    "no_reading",
    "value_mismatch",
    "value_absent",
    "value_match",
    "entity_absent",
    "polarity_mismatch",
    "roles_mismatch",
    "scope_limited",
    "scope_unstated",
)

#: Probabilities are read within [ε, 1 - ε]: a network never says 0 or 1, and a fake that does
#: must not push the inputs beyond the range the decision was fit on.
_EPSILON = 1e-3


def coverage(claim: str, passage: str) -> float:
    """The share of the claim's content words (stemmed) that the passage holds; 1.0 for a claim
    without content words."""
    words = set(content_words(claim))
    if not words:
        return 1.0
    return len(words & set(content_words(passage))) / len(words)


def sentence_coverage(claim: str, passages: Sequence[str]) -> float:
    """The largest share of the claim's content words (stemmed) that one sentence of the
    passages holds together with the sentence after it; 1.0 for a claim without content
    words, 0.0 without passages.

    A claim that adds a fact to what a sentence says keeps its coverage of all the passages
    when the added words occur elsewhere in them; here it loses it.

    >>> sentence_coverage("Bees dance at dawn.", ["Bees dance. Wax is soft. Ants march at dawn."])
    0.6666666666666666
    """
    words = set(content_words(claim))
    if not words:
        return 1.0
    best = 0.0
    for passage in passages:
        sentences = [set(content_words(span.of(passage))) for span in split_sentences(passage)]
        for i, held in enumerate(sentences):
            window = held | sentences[i + 1] if i + 1 < len(sentences) else held
            best = max(best, len(words & window) / len(words))
    return best


def _clip(p: float) -> float:
    return min(max(p, _EPSILON), 1 - _EPSILON)


def _logit(p: float) -> float:
    p = _clip(p)
    return math.log(p / (1 - p))


def features(signals: ClaimSignals) -> np.ndarray:
    """One row of :data:`FEATURES` for ``signals``.

    The network's columns are the log-odds of the best P(supported) over the passages read and
    of the strongest P(contradicted) of a passage that can state the claim (log ratios against
    P(neither) measured no better held out and read a confident "neither" as no evidence at
    all: bench/HISTORY.md, decision inputs). With no reading they hold the log-odds of 0.01 and
    ``no_reading`` is 1; a failed reading (``nan``) counts as none.
    """
    readings = [
        r
        for r in signals.readings
        if not any(math.isnan(p) for p in (r.supported, r.contradicted, r.neither))
    ]
    stating = [r for r in readings if r.can_state]
    support = _logit(max((r.supported for r in readings), default=0.01))
    contradiction = _logit(max((r.contradicted for r in stating), default=0.01))
    # The best passage's own coverage (``signals.coverage``) is reported but not read: beside
    # the coverage of all passages it added nothing held out, and it let word overlap overrule
    # a confident contradiction (bench/HISTORY.md, decision inputs).
    status = {
        group: {c.status for c in signals.checks if c.kind in kinds}
        for group, kinds in RULE_KINDS.items()
    }
    values = status["value"]
    row = [
        support,
        contradiction,
        math.log1p(sum(r.supported >= 0.5 for r in readings)),
        math.log1p(sum(r.contradicted >= 0.5 for r in stating)),
        0.0 if signals.coverage_all is None else signals.coverage_all - 0.5,
        0.0 if signals.coverage_sentence is None else signals.coverage_sentence - 0.5,
        float(not readings),
        float("mismatch" in values),
        float("absent" in values),
        float("match" in values and "mismatch" not in values),
        float("absent" in status["entity"]),
        float("mismatch" in status["polarity"]),
        float("mismatch" in status["roles"]),
        float("mismatch" in status["scope"]),
        float("absent" in status["scope"] and "mismatch" not in status["scope"]),
    ]
    return np.asarray(row, dtype=np.float64)
