"""Check single (premise, claim) pairs, as ``veracity check`` and ``POST /v1/check`` do: the
verifier's probabilities and the rules that need no network.

1. The verifier scores every pair in one batched call.
2. The knowledge layer's exact rules (values, durations, negation, antonyms, quantifiers; no
   names) read each claim against its premise: every mismatch is reported with the claim's
   words and the premise's, and both spans.

3. A claim with nothing to check ("docs.", a fragment in a script the models cannot read:
   :func:`veracity.text.factual.skip_reason`) is ``not_checkable``, never a score's label.
4. The one decision (:mod:`veracity.decision`, as ``veracity verify`` decides a claim) reads
   the verifier's reading, the rules' findings and the claim's word coverage, and gives the
   label. The rules never change the verifier's scores; where the two disagree, both are shown
   (``verifier_label`` is the verifier's own).

>>> from veracity.testing import TablePairScorer
>>> scorer = TablePairScorer({("Bees do not sleep.", "Bees sleep."): (0.7, 0.1, 0.2)})
>>> pair = PairChecker(scorer).run(["Bees do not sleep."], ["Bees sleep."]).pairs[0]
>>> pair.verifier_label, [(rule.kind, rule.found) for rule in pair.rules]
('supported', [('negation', 'do not sleep')])
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from veracity.decision import Decision, coverage, sentence_coverage
from veracity.models.pairs.base import PairScorer, check_pairs
from veracity.rules.layer import KnowledgeLayer
from veracity.text.factual import skip_reason
from veracity.types import NOT_CHECKABLE, Chunk, Claim, ClaimSignals, Reading, ScoredPair, Span

__all__ = ["PairCheck", "PairChecker"]


@dataclass(frozen=True)
class PairCheck:
    """The checked pairs, in input order, and the verifier that scored them."""

    pairs: tuple[ScoredPair, ...]
    model_id: str
    model_version: str
    failures: int


class PairChecker:
    """A verifier and the knowledge rules over (premise, claim) pairs (see the module notes)."""

    def __init__(self, scorer: PairScorer, *, decision: Decision | None = None) -> None:
        self.scorer = scorer
        self.rules = KnowledgeLayer(entities=False)
        self._decision = decision

    def load(self) -> PairChecker:
        self.scorer.load()
        self.rules.load()
        return self

    def run(self, premises: Sequence[str], claims: Sequence[str]) -> PairCheck:
        check_pairs(premises, claims)
        result = self.scorer.run(premises, claims)
        found = self.rules.run(
            [Claim(i, claim, Span(0, len(claim)), 0) for i, claim in enumerate(claims)],
            [
                [Chunk(f"premise-{i}#0", f"premise-{i}", 0, premise, 0, len(premise))]
                for i, premise in enumerate(premises)
            ],
        ).values
        probabilities = bool(getattr(self.scorer, "scores_are_probabilities", True))
        decision = self._decision or Decision.shipped()
        reasons = [skip_reason(claim) for claim in claims]
        unchecked = [r if r in NOT_CHECKABLE else None for r in reasons]
        pairs = tuple(
            ScoredPair(
                premise,
                claim,
                score,
                probabilities,
                rules=tuple(v for v in values if v.status == "mismatch"),
                decision=decision.run(
                    ClaimSignals(
                        (Reading(score.supported, score.contradicted, score.neither),),
                        tuple(values),
                        coverage(claim, premise),
                        coverage(claim, premise),
                        sentence_coverage(claim, [premise]),
                    )
                )
                if probabilities and score.error is None and reason is None
                else None,
                not_checkable=reason,
            )
            for premise, claim, score, values, reason in zip(
                premises, claims, result.scores, found, unchecked, strict=True
            )
        )
        return PairCheck(pairs, result.model_id, result.model_version, result.failures)
