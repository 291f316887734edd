"""The decision's inputs as named numbers.

>>> from veracity.types import ClaimSignals, Reading
>>> row = features(ClaimSignals((Reading(0.9, 0.05, 0.05),), coverage=1.0))
>>> dict(zip(FEATURES, row.round(2).tolist()))["support_ratio"]
2.89
"""

from __future__ import annotations

import math

import numpy as np

from veracity.text.words import content_words
from veracity.types import ClaimSignals

__all__ = ["FEATURES", "RULE_KINDS", "coverage", "features"]

#: Value kinds of the knowledge rules, grouped: a number, date or version of the claim against
#: its evidence; a name; a polarity (negation, antonym, quantifier).
RULE_KINDS: dict[str, frozenset[str]] = {
    "value": frozenset({"number", "percent", "money", "quantity", "date", "year", "code"}),
    "entity": frozenset({"entity"}),
    "polarity": frozenset({"negation", "antonym", "quantifier"}),
}

#: The decision's inputs, in column order.
FEATURES: tuple[str, ...] = (
    "support_ratio",
    "contradiction_ratio",
    "passages_for",
    "passages_against",
    "coverage",
    "coverage_all",
    "no_reading",
    "value_mismatch",
    "value_absent",
    "value_match",
    "entity_absent",
    "polarity_mismatch",
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


def _clip(p: float) -> float:
    return min(max(p, _EPSILON), 1 - _EPSILON)


def _ratio(p: float, neither: float) -> float:
    """log(p / P(neither)): how much more the reading says this than that the passage is
    silent."""
    return math.log(_clip(p) / _clip(neither))


def features(signals: ClaimSignals) -> np.ndarray:
    """One row of :data:`FEATURES` for ``signals``.

    The network's columns are log ratios against its P(neither), as the verifier's own combiner
    reads them: ``support_ratio`` of the reading that supports the claim best,
    ``contradiction_ratio`` of the reading of a passage that can state the claim and
    contradicts it most. With no reading they hold log(0.01 / 0.98) and ``no_reading`` is 1; a
    failed reading (``nan``) counts as none.
    """
    readings = [
        r
        for r in signals.readings
        if not any(math.isnan(p) for p in (r.supported, r.contradicted, r.neither))
    ]
    stating = [r for r in readings if r.can_state]
    best = max(readings, key=lambda r: r.supported, default=None)
    against = max(stating, key=lambda r: r.contradicted, default=None)
    support = _ratio(0.01, 0.98) if best is None else _ratio(best.supported, best.neither)
    contradiction = (
        _ratio(0.01, 0.98) if against is None else _ratio(against.contradicted, against.neither)
    )
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
        0.0 if signals.coverage is None else signals.coverage - 0.5,
        0.0 if signals.coverage_all is None else signals.coverage_all - 0.5,
        float(not readings),
        float("mismatch" in values),
        float("absent" in values),
        float("match" in values and "mismatch" not in values),
        float("absent" in status["entity"]),
        float("mismatch" in status["polarity"]),
    ]
    return np.asarray(row, dtype=np.float64)
