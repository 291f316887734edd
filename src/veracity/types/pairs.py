"""What a pair verifier says of (premise, claim) pairs: P(supported), P(contradicted) and
P(neither) with the spans of the premise it read, and one pair as ``veracity check`` reports it.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Literal

from veracity.types.decision import DecisionResult
from veracity.types.findings import ValueCheck
from veracity.types.spans import Span, _pair

__all__ = ["Label", "PairScore", "PairScores", "ScoredPair"]


#: ``"error"`` marks a pair whose scoring failed (see :attr:`PairScore.error`); it is never a score.
Label = Literal["supported", "contradicted", "neither", "error"]
#: A checked pair's label: the verifier's labels, or ``not_checkable`` for a claim with nothing
#: a source could support ("docs.", a fragment in a script the models cannot read).
PairLabel = Literal["supported", "contradicted", "neither", "not_checkable", "error"]


@dataclass(frozen=True, slots=True)
class PairScore:
    """Probabilities that a premise supports, contradicts or says nothing of a hypothesis.

    ``window`` is the character span of the premise that covers the evidence the result was
    taken from (the whole premise when it fit), ``evidence`` the exact spans of that evidence
    (several when sentences were selected from a long premise), and ``window_index`` the position
    of that window among the ``windows`` tried.

    ``error`` is set when the pair could not be scored (for example a judge model's reply could
    not be parsed): the three probabilities are then ``nan`` and ``label`` is ``"error"``. Build
    such a result with :meth:`failure`.
    """

    supported: float
    contradicted: float
    neither: float
    window: Span
    window_index: int = 0
    windows: int = 1
    evidence: tuple[Span, ...] = ()
    error: str | None = None

    def __post_init__(self) -> None:
        if self.error is not None and not all(
            math.isnan(p) for p in (self.supported, self.contradicted, self.neither)
        ):
            raise ValueError(
                "a PairScore with an error must have nan probabilities: "
                "build it with PairScore.failure(error, window=...)"
            )

    @classmethod
    def failure(
        cls,
        error: str,
        *,
        window: Span,
        window_index: int = 0,
        windows: int = 1,
        evidence: tuple[Span, ...] = (),
    ) -> PairScore:
        """A result for a pair that could not be scored: ``nan`` probabilities and ``error``."""
        nan = float("nan")
        return cls(nan, nan, nan, window, window_index, windows, evidence, error)

    @property
    def label(self) -> Label:
        if self.error is not None:
            return "error"
        best = max(self.supported, self.contradicted, self.neither)
        if best == self.supported:
            return "supported"
        if best == self.contradicted:
            return "contradicted"
        return "neither"

    def to_dict(self) -> dict[str, Any]:
        """The scores with their spans (into the premise, which the score does not hold; see
        :class:`ScoredPair` for the pair with its evidence quoted)."""
        return {
            "label": self.label,
            "supported": self.supported,
            "contradicted": self.contradicted,
            "neither": self.neither,
            "window": _pair(self.window),
            "window_index": self.window_index,
            "windows": self.windows,
            "evidence": [_pair(s) for s in self.evidence],
            "error": self.error,
        }


@dataclass(frozen=True, slots=True)
class ScoredPair:
    """One (premise, claim) pair with its score, as ``veracity check`` reports it.

    ``probabilities`` says whether the scorer's numbers are probabilities: a similarity
    scorer's are not (``scores_are_probabilities = False``), so the pair has no label (``None``
    in :meth:`to_dict`) as there is no threshold to read one off. The premise is held to quote
    the evidence spans; it is not repeated in the output. ``rules`` are the mismatches the
    knowledge rules found (:class:`veracity.verify.pairs.PairChecker`): a negation, antonym,
    quantifier, value or duration of the claim that the premise states otherwise. ``decision``
    is the one fitted decision over the verifier's reading and the rules' findings
    (:mod:`veracity.decision`); where it is given it sets ``label`` (its ``unsupported`` is the
    pair's ``neither``), and ``verifier_label`` keeps the verifier's own.

    >>> pair = ScoredPair("Bees dance.", "Bees dance.", PairScore(0.9, 0.05, 0.05, Span(0, 11),
    ...                   evidence=(Span(0, 4),)))
    >>> pair.to_dict()["label"], pair.to_dict()["evidence"]
    ('supported', [{'start': 0, 'end': 4, 'text': 'Bees'}])
    """

    premise: str
    claim: str
    score: PairScore
    probabilities: bool = True
    rules: tuple[ValueCheck, ...] = ()
    decision: DecisionResult | None = None
    #: Why the claim is not checkable (a reason of ``veracity.types.NOT_CHECKABLE``), or None.
    not_checkable: str | None = None

    @property
    def verifier_label(self) -> Label | None:
        """The verifier's own label (``None`` for a similarity, which has no threshold)."""
        score = self.score
        return score.label if self.probabilities or score.error is not None else None

    @property
    def label(self) -> PairLabel | None:
        """``not_checkable`` for a claim with nothing to check; else the decision's label where
        it was made (its ``unsupported`` read as ``neither``), otherwise the verifier's own;
        ``error`` when the pair could not be scored."""
        if self.not_checkable is not None:
            return "not_checkable"
        if self.decision is not None and self.score.error is None:
            label = self.decision.label
            return "neither" if label == "unsupported" else label
        return self.verifier_label

    def to_dict(self) -> dict[str, Any]:
        """A pair that could not be scored has ``null`` scores and its ``error``, never NaN."""
        score = self.score
        failed = score.error is not None
        return {
            "claim": self.claim,
            "label": self.label,
            "verifier_label": self.verifier_label,
            "probabilities": self.probabilities,
            "supported": None if failed else score.supported,
            "contradicted": None if failed else score.contradicted,
            "neither": None if failed else score.neither,
            "window": _pair(score.window),
            "windows": score.windows,
            "evidence": [
                {"start": s.start, "end": s.end, "text": s.of(self.premise)} for s in score.evidence
            ],
            "error": score.error,
            "rules": [
                {
                    "kind": rule.kind,
                    "claim": rule.text,
                    "claim_span": _pair(rule.span),
                    "premise": rule.found,
                    "premise_span": _pair(rule.evidence),
                }
                for rule in self.rules
            ],
            "decision": None if self.decision is None else self.decision.to_dict(),
            "not_checkable": self.not_checkable,
        }


@dataclass(frozen=True)
class PairScores:
    """Scores of a batch of (premise, hypothesis) pairs, in input order, with provenance."""

    scores: tuple[PairScore, ...]
    model_id: str
    model_version: str

    def __len__(self) -> int:
        return len(self.scores)

    def supported(self) -> list[float]:
        return [score.supported for score in self.scores]

    @property
    def failures(self) -> int:
        """How many pairs could not be scored (their ``error`` is set)."""
        return sum(score.error is not None for score in self.scores)
