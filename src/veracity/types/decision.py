"""What the decision reads about one claim, and what it says.

:class:`ClaimSignals` gathers every piece of evidence about a claim as typed inputs: the
network's three probabilities for each passage it read (:class:`Reading`), the knowledge rules'
findings (:class:`~veracity.types.ValueCheck`: numbers, dates, versions, names, negations,
antonyms, quantifiers, each matched, mismatched or absent), and the share of the claim's
content words that its best passage holds. :class:`DecisionResult` is the decision's label and
probabilities, with the contribution of each input to them (:mod:`veracity.decision`).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal

from veracity._json import Fields

if TYPE_CHECKING:  # verification.py imports this module
    from veracity.types.findings import ValueCheck

__all__ = [
    "DECISION_LABELS",
    "ClaimSignals",
    "DecisionLabel",
    "DecisionResult",
    "Reading",
    "decision_from",
]

#: The labels a decision gives (``error`` and ``unchecked`` are never its).
DecisionLabel = Literal["supported", "contradicted", "unsupported"]
DECISION_LABELS: tuple[DecisionLabel, ...] = ("supported", "contradicted", "unsupported")


@dataclass(frozen=True, slots=True)
class Reading:
    """The network's reading of one passage against the claim. ``can_state`` is False for a
    passage that cannot state the claim (a heading, a fragment): its support counts, its
    contradiction does not."""

    supported: float
    contradicted: float
    neither: float
    can_state: bool = True


@dataclass(frozen=True, slots=True)
class ClaimSignals:
    """Every input the decision reads about one claim.

    ``coverage`` is the share of the claim's content words found in the passage that supports
    it best, ``coverage_all`` in all the passages read together, ``coverage_sentence`` in the
    one passage sentence (with the sentence after it) that holds most of them (None: not
    measured).
    """

    readings: tuple[Reading, ...] = ()
    checks: tuple[ValueCheck, ...] = ()
    coverage: float | None = None
    coverage_all: float | None = None
    coverage_sentence: float | None = None


@dataclass(frozen=True, slots=True)
class DecisionResult:
    """The decision on one claim: its label, P(supported), P(contradicted), P(unsupported)
    (summing to 1), and each input's contribution to the log-odds of supported against not
    (``support``) and of contradicted against unsupported (``contradiction``)."""

    label: DecisionLabel
    supported: float
    contradicted: float
    unsupported: float
    inputs: Mapping[str, float] = field(default_factory=dict)
    support: Mapping[str, float] = field(default_factory=dict)
    contradiction: Mapping[str, float] = field(default_factory=dict)
    version: str = ""

    def to_dict(self) -> dict[str, Any]:
        return {
            "label": self.label,
            "supported": self.supported,
            "contradicted": self.contradicted,
            "unsupported": self.unsupported,
            "inputs": dict(self.inputs),
            "support": dict(self.support),
            "contradiction": dict(self.contradiction),
            "version": self.version,
        }


def decision_from(fields: Fields) -> DecisionResult:
    """A :class:`DecisionResult` read back from its ``to_dict``."""
    label = fields.choice("label", DECISION_LABELS)
    return DecisionResult(
        label=label,
        supported=fields.number("supported"),
        contradicted=fields.number("contradicted"),
        unsupported=fields.number("unsupported"),
        inputs=fields.numbers_by_name("inputs"),
        support=fields.numbers_by_name("support"),
        contradiction=fields.numbers_by_name("contradiction"),
        version=fields.text("version"),
    )
