"""The fitted decision: two logistic models over :data:`~veracity.decision.FEATURES`.

P(supported) = σ(w_s · x + b_s); P(contradicted) = (1 − P(supported)) × σ(w_c · x + b_c);
P(unsupported) is the rest. Each input's contribution is its weight times its value, in log-odds,
for both models (:attr:`~veracity.types.DecisionResult.support`, ``contradiction``).
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

import numpy as np

from veracity.assets import DECISION_FILE
from veracity.decision.features import FEATURES, features
from veracity.errors import InputError, ModelError
from veracity.models.pairs.combiner import fit_logistic
from veracity.types import ClaimSignals, DecisionResult
from veracity.types.decision import DecisionLabel

__all__ = ["FORMAT", "Decision", "fit_decision"]

FORMAT = "veracity-decision/1"


def _sigmoid(z: float) -> float:
    return 1.0 / (1.0 + math.exp(-z)) if z >= 0 else math.exp(z) / (1.0 + math.exp(z))


@dataclass(frozen=True)
class Decision:
    """Weights over :data:`FEATURES` for supported-or-not and contradicted-or-unsupported."""

    support_weights: tuple[float, ...]
    support_bias: float
    contradiction_weights: tuple[float, ...]
    contradiction_bias: float
    version: str = "dev"
    names: tuple[str, ...] = FEATURES
    #: How it was fit (sets, rows, command), carried into every report.
    provenance: Mapping[str, Any] | None = None

    def __post_init__(self) -> None:
        if self.names != FEATURES:
            raise ModelError(
                f"this decision's weights are for inputs {list(self.names)}, but this veracity "
                f"reads {list(FEATURES)}: refit it with bench/decision_fit.py"
            )
        for name in ("support_weights", "contradiction_weights"):
            if len(getattr(self, name)) != len(FEATURES):
                raise ModelError(f"{name} must hold {len(FEATURES)} weights, one per input")

    @classmethod
    def shipped(cls) -> Decision:
        """The decision that ships with veracity (``assets/decision.json``)."""
        return _shipped()

    @classmethod
    def load(cls, path: Path) -> Decision:
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, json.JSONDecodeError) as error:
            raise InputError(
                f"cannot read the decision file {path}: {error}. Reinstall veracity (the file "
                "ships with it) or write one with bench/decision_fit.py --ship"
            ) from error
        return cls.from_json(data)

    def run(
        self, signals: ClaimSignals, *, tau: float = 0.5, contradiction: float = 0.5
    ) -> DecisionResult:
        """The label and probabilities of one claim (see :meth:`decide` for the thresholds)."""
        return self.decide(features(signals), tau=tau, contradiction=contradiction)

    def decide(
        self, row: np.ndarray, *, tau: float = 0.5, contradiction: float = 0.5
    ) -> DecisionResult:
        """The decision on one :func:`~veracity.decision.features` row: ``supported`` when
        P(supported) reaches ``tau``, else ``contradicted`` when P(contradicted | not
        supported) reaches ``contradiction``, else ``unsupported``."""
        support_terms = np.asarray(self.support_weights) * row
        contradiction_terms = np.asarray(self.contradiction_weights) * row
        p_support = _sigmoid(float(support_terms.sum()) + self.support_bias)
        p_against = _sigmoid(float(contradiction_terms.sum()) + self.contradiction_bias)
        contradicted = (1 - p_support) * p_against
        label: DecisionLabel = (
            "supported"
            if p_support >= tau
            else "contradicted"
            if p_against >= contradiction
            else "unsupported"
        )
        return DecisionResult(
            label=label,
            supported=p_support,
            contradicted=contradicted,
            unsupported=max(0.0, 1 - p_support - contradicted),
            inputs=dict(zip(self.names, (float(v) for v in row), strict=True)),
            support=dict(zip(self.names, (float(v) for v in support_terms), strict=True)),
            contradiction=dict(
                zip(self.names, (float(v) for v in contradiction_terms), strict=True)
            ),
            version=self.version,
        )

    def to_json(self) -> dict[str, Any]:
        return {
            "format": FORMAT,
            "version": self.version,
            "inputs": list(self.names),
            "support": {"weights": list(self.support_weights), "bias": self.support_bias},
            "contradiction": {
                "weights": list(self.contradiction_weights),
                "bias": self.contradiction_bias,
            },
            "provenance": dict(self.provenance or {}),
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Decision:
        if data.get("format") != FORMAT:
            raise ModelError(
                f"not a {FORMAT} file (format {data.get('format')!r}): write it with "
                "bench/decision_fit.py"
            )
        names = tuple(str(n) for n in data["inputs"])
        support = [float(w) for w in data["support"]["weights"]]
        against = [float(w) for w in data["contradiction"]["weights"]]
        if set(names) < set(FEATURES) and len(support) == len(against) == len(names):
            # A decision fit before an input existed reads that input with weight 0.
            support = [dict(zip(names, support, strict=True)).get(n, 0.0) for n in FEATURES]
            against = [dict(zip(names, against, strict=True)).get(n, 0.0) for n in FEATURES]
            names = FEATURES
        return cls(
            tuple(support),
            float(data["support"]["bias"]),
            tuple(against),
            float(data["contradiction"]["bias"]),
            str(data.get("version", "dev")),
            names,
            dict(data.get("provenance") or {}),
        )


@cache
def _shipped() -> Decision:
    return Decision.load(DECISION_FILE)


def fit_decision(
    matrix: np.ndarray,
    supported: Sequence[int],
    contradicted: Sequence[int | None],
    *,
    l2: float = 1.0,
    version: str = "dev",
    provenance: Mapping[str, Any] | None = None,
) -> Decision:
    """Fit both models on rows of :data:`FEATURES`. ``supported`` is 1 or 0 for every row;
    ``contradicted`` is 1 (contradicted), 0 (unsupported) or None (not known: only "not
    supported") for each row, and only rows with a known value that are not supported fit the
    second model."""
    if matrix.ndim != 2 or matrix.shape[1] != len(FEATURES):
        raise InputError(f"need a (rows, {len(FEATURES)}) matrix, got {matrix.shape}")
    support_w, support_b = fit_logistic(matrix, supported, l2=l2)
    keep = [
        i for i, (s, c) in enumerate(zip(supported, contradicted, strict=True))
        if s == 0 and c is not None
    ]  # fmt: skip
    if not keep:
        raise InputError("fitting the contradiction model needs labelled contradicted rows")
    against_w, against_b = fit_logistic(
        matrix[keep], [int(contradicted[i] or 0) for i in keep], l2=l2
    )
    return Decision(
        tuple(float(w) for w in support_w),
        support_b,
        tuple(float(w) for w in against_w),
        against_b,
        version,
        FEATURES,
        dict(provenance or {}),
    )
