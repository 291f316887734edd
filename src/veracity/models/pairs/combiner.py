"""A small calibrated layer over the cross-encoder: P(supported) from the model and other signals.

The cross-encoder reads at most one window of evidence; cheap exact signals read the whole
premise: the share of the claim's content words, numbers and capitalised entities the premise
contains. A logistic layer, fit on held-out training rows (never on evaluation data), combines
them into the final P(supported).

Two feature sets exist; a verifier's config.json names the one its weights are for:

- :data:`FEATURES` (verifier 0.1 and 0.2): the network's supported logit and the exact signals;
  P(contradicted) and P(neither) keep their ratio.
- :data:`ALIGNED_FEATURES` (verifier 0.4): the network's supported-versus-neither log ratio
  (its contradiction head is left out: it rates close restatements of a source as contradicted,
  bench/HISTORY.md, verifier_heads), the exact signals, and the token alignment of the claim with
  the evidence window (:func:`~veracity.models.pairs.features.alignment`), which the verifier's
  aligner
  computes.

With the aligned set the network's P(contradicted) is kept only where the evidence lacks one of
the claim's numbers or capitalised names (the swapped year or person of a real contradiction);
elsewhere it is set to 0, since on close restatements it is wrong more often than right. The
combined support q then gives P(supported) = q × (1 − P(contradicted)) and P(neither) the rest
(:meth:`Combiner.outputs`). That threw away what the network reads: a claim and its negation
got the same support (issue Verifier-reads).

Verifier 0.5 and later use :class:`ThreeWayCombiner` instead: a softmax layer over the three
labels whose inputs include the network's contradicted-versus-neither log ratio
(:data:`THREE_WAY_FEATURES`), fit on held-out rows that hold contradictions as well as partial
support, and a *gate*: where the network's own P(contradicted) reaches ``gate``, the output's
P(supported) is at most 1 − that P(contradicted) and its P(contradicted) at least that much, so
no other input can outvote a contradiction the network is sure of.

Verifier 0.6 drops the aligner: its combiner reads only the network's two log ratios and the
exact signals (:data:`NETWORK_FEATURES`). Without the aligner's second pass over the evidence a
pair costs one network call instead of two, for at most 0.6 points of balanced accuracy on the
development sets (bench/README.md, verifier_gate), and no input reads word alignment.

>>> combiner = Combiner(weights=(1.0, 0.0, 0.0, 0.0, 0.0, 0.0), bias=0.0)
>>> row = features([(0.8, 0.1, 0.1)], ["The sky is blue."], ["The sky is blue."])
>>> round(combiner.support(row)[0], 3)
0.8
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from veracity.errors import InputError, ModelError
from veracity.models.pairs.features import content_word_agreement, entity_coverage, number_agreement

__all__ = [
    "ALIGNED_FEATURES",
    "FEATURES",
    "FEATURE_SETS",
    "NETWORK_FEATURES",
    "SUPPORT_BALANCED",
    "THREE_WAY_FEATURES",
    "THREE_WAY_SETS",
    "Combiner",
    "ThreeWayCombiner",
    "features",
    "fit_combiner",
    "fit_logistic",
    "fit_softmax",
    "fit_three_way",
    "load_combiner",
    "three_way_features",
]

_EXACT = ("content_coverage", "number_share", "has_numbers", "entity_share", "has_entities")
#: Feature order of verifier 0.1 and 0.2's weights.
FEATURES = ("model_logit", *_EXACT)
#: Feature order of a verifier with an aligner.
ALIGNED_FEATURES = ("support_neither_log_ratio", *_EXACT, "alignment")
FEATURE_SETS = (FEATURES, ALIGNED_FEATURES)
#: Feature order of the three-way combiner without an aligner: the network's two log ratios and
#: the exact signals (verifier 0.6 and later).
NETWORK_FEATURES = ("support_neither_log_ratio", "contradicted_neither_log_ratio", *_EXACT)
#: Feature order of the three-way combiner with an aligner (verifier 0.5).
THREE_WAY_FEATURES = (*NETWORK_FEATURES, "alignment", "contradiction_on_topic")
THREE_WAY_SETS = (NETWORK_FEATURES, THREE_WAY_FEATURES)
#: The three-way combiner's output classes, in the verifier's label order.
_CLASSES = ("supported", "contradicted", "neither")
_EPSILON = 1e-4


def features(
    probabilities: Sequence[Sequence[float]],
    premises: Sequence[str],
    claims: Sequence[str],
    alignment: Sequence[float] | None = None,
) -> np.ndarray:
    """The feature matrix, one row per pair: :data:`FEATURES` without ``alignment``,
    :data:`ALIGNED_FEATURES` with it. ``probabilities`` are the network's (supported,
    contradicted, neither) per pair."""
    rows = []
    for i, (probability, premise, claim) in enumerate(
        zip(probabilities, premises, claims, strict=True)
    ):
        supported, _, neither = (min(max(float(p), _EPSILON), 1 - _EPSILON) for p in probability)
        numbers = number_agreement(premise, claim)
        entities = entity_coverage(premise, claim)
        exact = [
            content_word_agreement(premise, claim).share,
            numbers.share,
            float(numbers.total > 0),
            entities.share,
            float(entities.total > 0),
        ]
        if alignment is None:
            rows.append([np.log(supported / (1 - supported)), *exact])
        else:
            rows.append([np.log(supported / neither), *exact, float(alignment[i])])
    width = len(FEATURES if alignment is None else ALIGNED_FEATURES)
    return np.asarray(rows, dtype=np.float64).reshape(len(rows), width)


def _row_products(matrix: np.ndarray, weights: np.ndarray) -> np.ndarray:
    """``matrix @ weights`` one row at a time: a matrix product's blocking (and so its last
    bit) depends on how many rows it holds, and a pair's score must not depend on its batch."""
    rows = [np.asarray(row) @ weights for row in np.asarray(matrix, dtype=np.float64)]
    shape = (len(rows), *weights.shape[1:])
    return np.array(rows, dtype=np.float64).reshape(shape)


@dataclass(frozen=True)
class Combiner:
    """Logistic weights over one of :data:`FEATURE_SETS`, as saved in the verifier's
    config.json."""

    weights: tuple[float, ...]
    bias: float
    names: tuple[str, ...] = FEATURES

    def __post_init__(self) -> None:
        if self.names not in FEATURE_SETS:
            raise ModelError(
                f"combiner features {list(self.names)} are none of "
                f"{[list(names) for names in FEATURE_SETS]}: re-export the "
                "verifier with this veracity"
            )
        if len(self.weights) != len(self.names):
            raise ModelError(
                f"combiner has {len(self.weights)} weights, expected "
                f"{len(self.names)} ({', '.join(self.names)})"
            )

    @property
    def aligned(self) -> bool:
        """Whether the weights need the aligner's ``alignment`` feature."""
        return self.names == ALIGNED_FEATURES

    def support(self, matrix: np.ndarray) -> list[float]:
        """Combined P(supported) per row of a :func:`features` matrix."""
        if matrix.shape[1:] != (len(self.names),):
            raise InputError(f"need a (n, {len(self.names)}) feature matrix, got {matrix.shape}")
        logits = _row_products(matrix, np.asarray(self.weights)) + self.bias
        return [float(v) for v in 1.0 / (1.0 + np.exp(-logits))]

    def outputs(
        self, matrix: np.ndarray, probabilities: Sequence[Sequence[float]]
    ) -> list[tuple[float, float, float]]:
        """Combined (supported, contradicted, neither) per row of a :func:`features` matrix
        and the network's probabilities of the same pairs.

        :data:`FEATURES` weights replace P(supported) and keep the ratio of the other two (as
        verifier 0.1 and 0.2 did); :data:`ALIGNED_FEATURES` weights keep P(contradicted) only
        where the claim names a number or entity the premise lacks (see the module's notes).
        """
        support = self.support(matrix)
        out = []
        for q, row, (_, contradicted, neither) in zip(support, matrix, probabilities, strict=True):
            if self.aligned:
                named = dict(zip(self.names, row, strict=True))
                lacks = (named["has_numbers"] and named["number_share"] < 1) or (
                    named["has_entities"] and named["entity_share"] < 1
                )
                against = float(contradicted) if lacks else 0.0
                supported = q * (1 - against)
                out.append((supported, against, max(1 - supported - against, 0.0)))
                continue
            rest = float(contradicted) + float(neither)
            share = float(contradicted) / rest if rest > 0 else 0.5
            out.append((q, (1 - q) * share, (1 - q) * (1 - share)))
        return out

    def to_json(self) -> dict[str, object]:
        return {"features": list(self.names), "weights": list(self.weights), "bias": self.bias}

    @classmethod
    def from_json(cls, data: Mapping[str, object]) -> Combiner:
        weights = data["weights"]
        bias = data["bias"]
        if not isinstance(weights, list) or not isinstance(bias, int | float):
            raise ModelError("combiner weights must be a list and bias a number")
        names = data.get("features", [])
        if not isinstance(names, list):
            raise ModelError(f"combiner features must be a list, got {names!r}")
        return cls(tuple(float(w) for w in weights), float(bias), tuple(str(n) for n in names))


def fit_combiner(
    matrix: np.ndarray, labels: Sequence[int], *, l2: float = 1.0, iterations: int = 50
) -> Combiner:
    """Fit the combiner's logistic weights on a :func:`features` matrix (see :func:`fit_logistic`).

    ``labels`` are 1 for supported and 0 otherwise.
    """
    widths = {len(option): option for option in FEATURE_SETS}
    names = widths.get(matrix.shape[-1]) if matrix.ndim == 2 else None
    if names is None:
        raise InputError(
            f"need a (n, {len(FEATURES)}) or (n, {len(ALIGNED_FEATURES)}) feature "
            f"matrix, got {matrix.shape}"
        )
    if len(set(labels)) < 2:
        raise InputError("fitting the combiner needs both supported and unsupported rows")
    weights, bias = fit_logistic(matrix, labels, l2=l2, iterations=iterations)
    return Combiner(tuple(float(v) for v in weights), bias, names)


def fit_logistic(
    matrix: np.ndarray, labels: Sequence[int], *, l2: float = 1.0, iterations: int = 50
) -> tuple[np.ndarray, float]:
    """Logistic weights and bias by Newton's method with an L2 penalty (the bias not penalised).

    ``labels`` are 1 for the positive class and 0 otherwise. Classes are weighted to balance,
    since detectors here are judged by balanced accuracy.
    """
    y = np.asarray(labels, dtype=np.float64)
    if matrix.ndim != 2 or matrix.shape[0] != y.shape[0]:
        raise InputError(
            f"need a ({len(y)}, features) matrix for {len(y)} labels, got {matrix.shape}"
        )
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


def three_way_features(
    probabilities: Sequence[Sequence[float]],
    premises: Sequence[str],
    claims: Sequence[str],
    alignment: Sequence[float] | None,
) -> np.ndarray:
    """The three-way feature matrix, one row per pair: the network's log ratios of supported
    and of contradicted to neither and the exact signals (:data:`NETWORK_FEATURES`, when
    ``alignment`` is None); with an ``alignment`` per pair also the alignment and
    ``contradiction_on_topic`` (the alignment times the contradicted log ratio: a contradiction
    counts more where the claim is about what the evidence says), :data:`THREE_WAY_FEATURES`."""
    names = NETWORK_FEATURES if alignment is None else THREE_WAY_FEATURES
    rows = []
    for probability, premise, claim, aligned in zip(
        probabilities,
        premises,
        claims,
        [0.0] * len(claims) if alignment is None else alignment,
        strict=True,
    ):
        supported, contradicted, neither = (
            min(max(float(p), _EPSILON), 1 - _EPSILON) for p in probability
        )
        numbers = number_agreement(premise, claim)
        entities = entity_coverage(premise, claim)
        against = float(np.log(contradicted / neither))
        row = [
            np.log(supported / neither),
            against,
            content_word_agreement(premise, claim).share,
            numbers.share,
            float(numbers.total > 0),
            entities.share,
            float(entities.total > 0),
        ]
        if alignment is not None:
            row += [float(aligned), float(aligned) * against]
        rows.append(row)
    return np.asarray(rows, dtype=np.float64).reshape(len(rows), len(names))


@dataclass(frozen=True)
class ThreeWayCombiner:
    """Softmax weights (one row per label: supported, contradicted, neither) over
    :data:`THREE_WAY_FEATURES` or :data:`NETWORK_FEATURES`, and the network's contradiction
    gate (see the module notes).

    >>> combiner = ThreeWayCombiner(weights=((1.0,) + (0.0,) * 8, (0.0, 1.0) + (0.0,) * 7,
    ...                             (0.0,) * 9), bias=(0.0, 0.0, 0.0), gate=0.5)
    >>> [round(p, 2) for p in combiner.outputs(np.zeros((1, 9)), [(0.2, 0.7, 0.1)])[0]]
    [0.3, 0.7, 0.0]
    """

    weights: tuple[tuple[float, ...], ...]
    bias: tuple[float, ...]
    gate: float = 1.0
    names: tuple[str, ...] = THREE_WAY_FEATURES

    def __post_init__(self) -> None:
        if self.names not in THREE_WAY_SETS:
            raise ModelError(
                f"three-way combiner features {list(self.names)} are none of "
                f"{[list(names) for names in THREE_WAY_SETS]}: re-export the "
                "verifier with this veracity"
            )
        if (
            len(self.weights) != len(_CLASSES)
            or len(self.bias) != len(_CLASSES)
            or any(len(row) != len(self.names) for row in self.weights)
        ):
            raise ModelError(
                f"a three-way combiner needs {len(_CLASSES)} rows of "
                f"{len(self.names)} weights and {len(_CLASSES)} biases"
            )
        if not 0.0 <= self.gate <= 1.0:
            raise ModelError(f"combiner gate {self.gate} is not a probability")

    @property
    def aligned(self) -> bool:
        """Whether the features include the aligner's ``alignment``."""
        return self.names == THREE_WAY_FEATURES

    def probabilities(self, matrix: np.ndarray) -> np.ndarray:
        """The softmax layer's (supported, contradicted, neither) per row, before the gate."""
        if matrix.ndim != 2 or matrix.shape[1] != len(self.names):
            raise InputError(f"need a (n, {len(self.names)}) feature matrix, got {matrix.shape}")
        logits = _row_products(matrix, np.asarray(self.weights).T) + np.asarray(self.bias)
        logits -= logits.max(axis=1, keepdims=True)
        exp = np.exp(logits)
        return np.asarray(exp / exp.sum(axis=1, keepdims=True))

    def outputs(
        self, matrix: np.ndarray, probabilities: Sequence[Sequence[float]] | np.ndarray
    ) -> list[tuple[float, float, float]]:
        """Combined (supported, contradicted, neither) per row of a
        :func:`three_way_features` matrix and the network's probabilities of the same pairs,
        the gate applied."""
        out = []
        for (s, c, n), network in zip(self.probabilities(matrix), probabilities, strict=True):
            against = float(network[1])
            if against >= self.gate:
                s, c = min(float(s), 1.0 - against), max(float(c), against)
                n = max(1.0 - s - c, 0.0)
            out.append((float(s), float(c), float(n)))
        return out

    def contributions(self, matrix: np.ndarray) -> dict[str, dict[str, float]]:
        """Per label and feature, the weight times the feature's standard deviation on
        ``matrix``: how far one typical step of that input moves the label's logit."""
        spread = matrix.std(axis=0)
        return {
            label: {
                name: float(w * sd) for name, w, sd in zip(self.names, row, spread, strict=True)
            }
            for label, row in zip(_CLASSES, self.weights, strict=True)
        }

    def to_json(self) -> dict[str, object]:
        return {
            "kind": "three_way",
            "features": list(self.names),
            "classes": list(_CLASSES),
            "weights": [list(row) for row in self.weights],
            "bias": list(self.bias),
            "gate": self.gate,
        }

    @classmethod
    def from_json(cls, data: Mapping[str, object]) -> ThreeWayCombiner:
        weights, bias = data.get("weights"), data.get("bias")
        if not isinstance(weights, list) or not isinstance(bias, list):
            raise ModelError("three-way combiner weights and bias must be lists")
        names = data.get("features", [])
        gate = data.get("gate", 1.0)
        if not isinstance(names, list) or not isinstance(gate, int | float):
            raise ModelError("three-way combiner features must be a list and gate a number")
        return cls(
            tuple(tuple(float(w) for w in row) for row in weights),
            tuple(float(b) for b in bias),
            float(gate),
            tuple(str(n) for n in names),
        )


def load_combiner(data: Mapping[str, object]) -> Combiner | ThreeWayCombiner:
    """The combiner a verifier's config.json describes (three-way from 0.5 on)."""
    if data.get("kind") == "three_way":
        return ThreeWayCombiner.from_json(data)
    return Combiner.from_json(data)


#: Class shares of the fitting weight that balance the decision veracity makes with a three-way
#: verdict, P(supported) >= tau: supported against the other two together, each of those two
#: half of the rest. Equal thirds instead put a prior of 1/3 on supported, so that P(supported)
#: reaches 0.5 only well above an even call.
SUPPORT_BALANCED = (0.5, 0.25, 0.25)


def fit_three_way(
    matrix: np.ndarray,
    labels: Sequence[int],
    *,
    gate: float,
    l2: float = 1.0,
    shares: Sequence[float] | None = SUPPORT_BALANCED,
) -> ThreeWayCombiner:
    """Fit a :class:`ThreeWayCombiner` on a :func:`three_way_features` matrix (with or without
    the aligner's columns); ``labels`` are 0 supported, 1 contradicted, 2 neither, weighted so
    that each class holds its ``shares`` of the total weight (None: equal shares)."""
    names = next(
        (n for n in THREE_WAY_SETS if matrix.ndim == 2 and matrix.shape[1] == len(n)), None
    )
    if names is None:
        raise InputError(
            f"need a (n, {len(NETWORK_FEATURES)}) or (n, "
            f"{len(THREE_WAY_FEATURES)}) feature matrix, got {matrix.shape}"
        )
    weights, bias = fit_softmax(matrix, labels, classes=len(_CLASSES), l2=l2, shares=shares)
    return ThreeWayCombiner(
        tuple(tuple(float(w) for w in row) for row in weights),
        tuple(float(b) for b in bias),
        gate,
        names,
    )


def fit_softmax(
    matrix: np.ndarray,
    labels: Sequence[int],
    *,
    classes: int,
    l2: float = 1.0,
    iterations: int = 100,
    shares: Sequence[float] | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    """Softmax (multinomial logistic) weights ``(classes, features)`` and biases by Newton's
    method with an L2 penalty (biases not penalised), rows weighted so that each class holds its
    ``shares`` of the total weight (None: classes weighted to balance).

    Every class must have rows: a class the data never shows cannot be fit.
    """
    y = np.asarray(labels, dtype=np.int64)
    if matrix.ndim != 2 or matrix.shape[0] != y.shape[0]:
        raise InputError(
            f"need a ({len(y)}, features) matrix for {len(y)} labels, got {matrix.shape}"
        )
    counts = np.bincount(y, minlength=classes)
    if len(counts) != classes or (counts == 0).any():
        raise InputError(
            f"fitting a {classes}-class layer needs rows of every class; the "
            f"rows hold {counts.tolist()} per class"
        )
    if shares is None:
        shares = [1.0 / classes] * classes
    if len(shares) != classes or min(shares) <= 0 or abs(sum(shares) - 1.0) > 1e-9:
        raise InputError(
            f"class shares {list(shares)} must be {classes} positive numbers that sum to 1"
        )
    x = np.hstack([matrix, np.ones((len(y), 1))])
    n, width = x.shape
    sample = (n * np.asarray(shares) / counts)[y]
    onehot = np.eye(classes)[y]
    penalty = np.full(width, l2)
    penalty[-1] = 0.0
    w = np.zeros((classes, width))
    for _ in range(iterations):
        logits = x @ w.T
        logits -= logits.max(axis=1, keepdims=True)
        p = np.exp(logits)
        p /= p.sum(axis=1, keepdims=True)
        gradient = ((p - onehot) * sample[:, None]).T @ x + penalty * w
        hessian = np.zeros((classes * width, classes * width))
        for a in range(classes):
            for b in range(classes):
                coupling = sample * p[:, a] * ((a == b) - p[:, b])
                block = (x * coupling[:, None]).T @ x
                if a == b:
                    block += np.diag(penalty + 1e-6)
                hessian[a * width : (a + 1) * width, b * width : (b + 1) * width] = block
        step = np.linalg.lstsq(hessian, gradient.reshape(-1), rcond=None)[0]
        w -= step.reshape(classes, width)
        if np.abs(step).max() < 1e-8:
            break
    return w[:, :-1], w[:, -1]
