"""A small calibrated layer over the cross-encoder: P(supported) from the model and exact signals.

The cross-encoder reads at most one window of evidence; cheap exact signals read the whole
premise: the share of the claim's content words, numbers and capitalised entities the premise
contains. A logistic layer, fit on held-out training rows (never on evaluation data), combines
them into the final P(supported); P(contradicted) and P(neither) keep their ratio.

>>> combiner = Combiner(weights=(1.0, 0.0, 0.0, 0.0, 0.0, 0.0), bias=0.0)
>>> round(combiner.support([0.8], ["The sky is blue."], ["The sky is blue."])[0], 3)
0.8
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from veracity.errors import InputError, ModelError
from veracity.verify.signals import content_word_agreement, entity_coverage, number_agreement

__all__ = ["FEATURES", "Combiner", "features", "fit_combiner", "fit_logistic"]

#: Feature order of the weights.
FEATURES = (
    "model_logit",
    "content_coverage",
    "number_share",
    "has_numbers",
    "entity_share",
    "has_entities",
)
_EPSILON = 1e-4


def features(supported: Sequence[float], premises: Sequence[str],
             claims: Sequence[str]) -> np.ndarray:
    """The feature matrix, one row per pair, columns in :data:`FEATURES` order."""
    rows = []
    for probability, premise, claim in zip(supported, premises, claims, strict=True):
        p = min(max(float(probability), _EPSILON), 1 - _EPSILON)
        numbers = number_agreement(premise, claim)
        entities = entity_coverage(premise, claim)
        rows.append([
            np.log(p / (1 - p)),
            content_word_agreement(premise, claim).share,
            numbers.share,
            float(numbers.total > 0),
            entities.share,
            float(entities.total > 0),
        ])
    return np.asarray(rows, dtype=np.float64).reshape(len(rows), len(FEATURES))


@dataclass(frozen=True)
class Combiner:
    """Logistic weights over :data:`FEATURES`, as saved in the verifier's config.json."""

    weights: tuple[float, ...]
    bias: float

    def __post_init__(self) -> None:
        if len(self.weights) != len(FEATURES):
            raise ModelError(f"combiner has {len(self.weights)} weights, expected "
                             f"{len(FEATURES)} ({', '.join(FEATURES)})")

    def support(self, supported: Sequence[float], premises: Sequence[str],
                claims: Sequence[str]) -> list[float]:
        logits = features(supported, premises, claims) @ np.asarray(self.weights) + self.bias
        return [float(v) for v in 1.0 / (1.0 + np.exp(-logits))]

    def to_json(self) -> dict[str, object]:
        return {"features": list(FEATURES), "weights": list(self.weights), "bias": self.bias}

    @classmethod
    def from_json(cls, data: Mapping[str, object]) -> Combiner:
        if list(data.get("features", [])) != list(FEATURES):  # type: ignore[call-overload]
            raise ModelError(f"combiner features {data.get('features')} are not "
                             f"{list(FEATURES)}: re-export the verifier with this veracity")
        weights = data["weights"]
        bias = data["bias"]
        if not isinstance(weights, list) or not isinstance(bias, int | float):
            raise ModelError("combiner weights must be a list and bias a number")
        return cls(tuple(float(w) for w in weights), float(bias))


def fit_combiner(matrix: np.ndarray, labels: Sequence[int], *, l2: float = 1.0,
                 iterations: int = 50) -> Combiner:
    """Fit the combiner's logistic weights on a :func:`features` matrix (see :func:`fit_logistic`).

    ``labels`` are 1 for supported and 0 otherwise.
    """
    if matrix.shape[1:] != (len(FEATURES),):
        raise InputError(f"need a (n, {len(FEATURES)}) feature matrix, got {matrix.shape}")
    if len(set(labels)) < 2:
        raise InputError("fitting the combiner needs both supported and unsupported rows")
    weights, bias = fit_logistic(matrix, labels, l2=l2, iterations=iterations)
    return Combiner(tuple(float(v) for v in weights), bias)


def fit_logistic(matrix: np.ndarray, labels: Sequence[int], *, l2: float = 1.0,
                 iterations: int = 50) -> tuple[np.ndarray, float]:
    """Logistic weights and bias by Newton's method with an L2 penalty (the bias not penalised).

    ``labels`` are 1 for the positive class and 0 otherwise. Classes are weighted to balance,
    since detectors here are judged by balanced accuracy.
    """
    y = np.asarray(labels, dtype=np.float64)
    if matrix.ndim != 2 or matrix.shape[0] != y.shape[0]:
        raise InputError(f"need a ({len(y)}, features) matrix for {len(y)} labels, "
                         f"got {matrix.shape}")
    if y.size == 0 or y.min() == y.max():
        raise InputError("fitting logistic weights needs rows of both classes")
    x = np.hstack([matrix, np.ones((len(y), 1))])
    sample = np.where(y == 1, 0.5 / y.mean(), 0.5 / (1 - y.mean()))
    penalty = np.full(x.shape[1], l2)
    penalty[-1] = 0.0
    w = np.zeros(x.shape[1])
    for _ in range(iterations):
        p = 1.0 / (1.0 + np.exp(-(x @ w)))
        gradient = x.T @ (sample * (p - y)) + penalty * w
        hessian = (x * (sample * p * (1 - p))[:, None]).T @ x + np.diag(penalty + 1e-9)
        step = np.linalg.solve(hessian, gradient)
        w -= step
        if np.abs(step).max() < 1e-8:
            break
    return w[:-1], float(w[-1])
