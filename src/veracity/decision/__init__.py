"""The one decision: every signal about a claim in, its label and probabilities out.

A claim's label used to be decided in several places (the pair combiner's gate, the layer rules'
``any`` / ``all`` / ``cascade``, generate's statuses), and one rule finding could overrule a
strong reading. Here every input is a feature of one fitted model (:class:`Decision`), whose
weights are data (``assets/decision.json``, fit by ``bench/decision_fit.py`` on development
data) and whose contributions are published:

1. :func:`features` turns :class:`~veracity.types.ClaimSignals` into named numbers
   (:data:`FEATURES`): the network's best support and contradiction over the passages it read,
   how many passages agree and disagree, word coverage (of all the passages read and of their
   best sentence), and the rules' findings by kind;
2. P(supported) is a logistic model over them; P(contradicted | not supported) a second one;
3. the label is ``supported`` when P(supported) reaches 0.5, else ``contradicted`` when
   P(contradicted | not supported) reaches 0.5, else ``unsupported``.

>>> from veracity.types import ClaimSignals, Reading
>>> decision = Decision.shipped()
>>> decision.run(ClaimSignals((Reading(0.97, 0.01, 0.02),), coverage=1.0)).label
'supported'
>>> decision.run(ClaimSignals()).label
'unsupported'
"""

from veracity.decision.features import (
    FEATURES,
    RULE_KINDS,
    coverage,
    features,
    sentence_coverage,
)
from veracity.decision.model import Decision, fit_decision

__all__ = [
    "FEATURES",
    "RULE_KINDS",
    "Decision",
    "coverage",
    "features",
    "fit_decision",
    "sentence_coverage",
]
