"""How the layers' findings on a claim become one verdict, by a declared rule.

- ``decision`` (default): the one fitted decision (:mod:`veracity.decision`) reads every signal
  about the claim (the network's reading of each passage, the knowledge rules' findings by kind,
  coverage, passages for and against) and gives the label; the layers' own labels are kept in
  the report but decide nothing. A claim whose every NLI pair failed is ``error``.

The other rules combine the layers' labels:

Every layer's :class:`~veracity.types.LayerResult` is kept in the report; the rule only decides
the combined label. A layer *abstains* on a claim when it has nothing to judge (the knowledge
layer on a claim without values: label ``unchecked``, no score, not flagged) and *fails* when its
``error`` is set; neither counts for or against the claim. A claim that no layer judged is
``error`` when a layer failed on it and ``unchecked`` otherwise: never ``supported``.

- ``any``: flagged when any layer flags it (highest recall);
- ``all``: flagged only when every layer that judged it flags it (highest precision);
- ``cascade``: layers in order; the first whose risk score lies outside the uncertain band
  ``(low, high)`` decides, the next layer is asked otherwise, and the last layer that judged
  decides when none is sure;
- ``logistic``: P(flag) from weights over the layers' risk scores, fit on a development set with
  :func:`fit_layer_weights` and saved as JSON (:meth:`LayerWeights.save`).

A flagged claim is ``contradicted`` when a flagging layer says so, else ``unsupported``.

>>> from veracity.types import LayerResult
>>> nli = LayerResult("nli", "supported", False, 0.1)
>>> knowledge = LayerResult("knowledge", "contradicted", True, 1.0)
>>> LayerCombiner("any").run([nli, knowledge]), LayerCombiner("all").run([nli, knowledge])
('contradicted', 'supported')
>>> LayerCombiner("any").run([LayerResult("knowledge", "unchecked", False, None)])
'unchecked'
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, get_args

import numpy as np

from veracity import defaults
from veracity.decision import Decision
from veracity.defaults import Rule
from veracity.errors import InputError, OptionError
from veracity.models.pairs.combiner import fit_logistic
from veracity.types import ClaimSignals, DecisionResult, LayerResult, VerdictLabel

__all__ = ["RULES", "LayerCombiner", "LayerWeights", "Rule", "fit_layer_weights", "layer_features"]

RULES: tuple[Rule, ...] = get_args(Rule)
WEIGHTS_FORMAT = "veracity-layer-weights/1"


def _judged(results: Sequence[LayerResult]) -> list[LayerResult]:
    """The layers that judged the claim: neither failed nor abstained."""
    return [
        r
        for r in results
        if r.error is None and r.label != "unchecked" and not (r.score is None and not r.flagged)
    ]


def _flag_label(flagging: Sequence[LayerResult]) -> VerdictLabel:
    return "contradicted" if any(r.label == "contradicted" for r in flagging) else "unsupported"


def layer_features(results: Sequence[LayerResult], layers: Sequence[str]) -> list[float]:
    """Risk scores of ``layers`` centred on 0.5, then a "judged" indicator per layer.

    A layer that abstained, failed or did not run contributes 0 to both.
    """
    by_name = {r.layer: r for r in _judged(results)}
    centred, present = [], []
    for name in layers:
        found = by_name.get(name)
        score = (
            None
            if found is None
            else (found.score if found.score is not None else float(found.flagged))
        )
        centred.append(0.0 if score is None else score - 0.5)
        present.append(0.0 if score is None else 1.0)
    return centred + present


@dataclass(frozen=True)
class LayerWeights:
    """Logistic weights over :func:`layer_features`, with where they were fit."""

    layers: tuple[str, ...]
    weights: tuple[float, ...]
    bias: float
    threshold: float = 0.5
    fitted_on: str = ""

    def __post_init__(self) -> None:
        if len(self.weights) != 2 * len(self.layers):
            raise InputError(
                f"{len(self.weights)} weights for layers {list(self.layers)}: "
                f"expected {2 * len(self.layers)} (a score and an indicator each)"
            )

    def probability(self, results: Sequence[LayerResult]) -> float:
        value = float(np.dot(layer_features(results, self.layers), self.weights)) + self.bias
        return 1.0 / (1.0 + math.exp(-value))

    def to_json(self) -> dict[str, Any]:
        return {
            "format": WEIGHTS_FORMAT,
            "layers": list(self.layers),
            "weights": list(self.weights),
            "bias": self.bias,
            "threshold": self.threshold,
            "fitted_on": self.fitted_on,
        }

    def save(self, path: str | Path) -> Path:
        path = Path(path)
        path.write_text(json.dumps(self.to_json(), indent=2) + "\n", encoding="utf-8")
        return path

    @classmethod
    def load(cls, path: str | Path) -> LayerWeights:
        """Read weights saved by :meth:`save`; a bad file raises naming it and the fix."""
        path = Path(path)
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except OSError as exc:
            raise InputError(f"cannot read layer weights {path}: {exc.strerror or exc}") from exc
        except json.JSONDecodeError as exc:
            raise InputError(
                f"{path}: not JSON ({exc.msg} at line {exc.lineno}); fit the "
                "weights again with fit_layer_weights(...).save(path)"
            ) from exc
        return cls.from_json(data, where=str(path))

    @classmethod
    def from_json(cls, data: Mapping[str, Any], *, where: str = "layer weights") -> LayerWeights:
        if not isinstance(data, Mapping) or data.get("format") != WEIGHTS_FORMAT:
            raise InputError(
                f"{where}: not a {WEIGHTS_FORMAT} file; fit the weights with "
                "fit_layer_weights(...).save(path)"
            )
        try:
            return cls(
                tuple(str(x) for x in data["layers"]),
                tuple(float(x) for x in data["weights"]),
                float(data["bias"]),
                float(data.get("threshold", 0.5)),
                str(data.get("fitted_on", "")),
            )
        except (KeyError, TypeError, ValueError) as exc:
            raise InputError(
                f"{where}: missing or bad field ({exc}); fit the weights again"
            ) from exc


def fit_layer_weights(
    findings: Sequence[Sequence[LayerResult]],
    labels: Sequence[bool],
    *,
    layers: Sequence[str],
    fitted_on: str,
    l2: float = 1.0,
) -> LayerWeights:
    """Fit logistic weights on a development set: ``labels[i]`` is True when claim ``i`` should
    be flagged. Classes are balanced; the threshold stays 0.5."""
    if len(findings) != len(labels):
        raise InputError(f"{len(findings)} claims but {len(labels)} labels: give one each")
    matrix = np.asarray([layer_features(f, layers) for f in findings], dtype=np.float64)
    weights, bias = fit_logistic(matrix, [int(bool(x)) for x in labels], l2=l2)
    return LayerWeights(tuple(layers), tuple(float(w) for w in weights), bias, fitted_on=fitted_on)


class LayerCombiner:
    """Combines the findings of the layers on one claim by ``rule`` (see the module docstring).

    ``order`` gives the cascade's layer order (default: the order the findings come in);
    ``weights`` are required for ``logistic``; ``decision`` is the fitted decision (default: the
    shipped one), which labels a claim supported when its P(supported) reaches ``tau`` and
    contradicted when P(contradicted | not supported) reaches ``contradiction``.
    """

    def __init__(
        self,
        rule: str = defaults.VERIFY_RULE,
        *,
        order: Sequence[str] = (),
        band: tuple[float, float] = defaults.CASCADE_BAND,
        weights: LayerWeights | None = None,
        decision: Decision | None = None,
        tau: float = defaults.VERIFY_TAU,
        contradiction: float = defaults.VERIFY_CONTRADICTION,
    ) -> None:
        if rule not in RULES:
            raise OptionError("rule", rule, f"one of {', '.join(RULES)}")
        if rule == "logistic" and weights is None:
            raise OptionError(
                "weights",
                None,
                "fitted LayerWeights for rule='logistic'",
                "Fit them on a development set with fit_layer_weights(...) and "
                "pass LayerWeights.load(path).",
            )
        low, high = band
        if not 0.0 <= low < high <= 1.0:
            raise OptionError("band", band, "(low, high) with 0 <= low < high <= 1")
        self.rule = rule
        self.order = tuple(order)
        self.band = (low, high)
        self.weights = weights
        self._decision = decision
        self.tau = tau
        self.contradiction = contradiction

    @property
    def decision(self) -> Decision:
        """The decision this combiner reports (the shipped one unless given), read on first
        use."""
        if self._decision is None:
            self._decision = Decision.shipped()
        return self._decision

    @property
    def description(self) -> str:
        if self.rule == "decision":
            return f"decision {self.decision.version}"
        if self.rule == "cascade":
            return f"cascade {self.band[0]:g}-{self.band[1]:g}"
        if self.rule == "logistic" and self.weights is not None:
            return f"logistic ({self.weights.fitted_on or 'fitted weights'})"
        return self.rule

    def decide(self, signals: ClaimSignals) -> DecisionResult:
        """The fitted decision on one claim's signals (whatever the rule: reports carry it)."""
        return self.decision.run(signals, tau=self.tau, contradiction=self.contradiction)

    def run(
        self, results: Sequence[LayerResult], decided: DecisionResult | None = None
    ) -> VerdictLabel:
        """The combined label of one claim's findings (``decided``: the decision's result,
        required by the ``decision`` rule)."""
        judged = _judged(results)
        if not judged:  # nothing checked the claim: say so, never "supported"
            return "error" if any(r.error is not None for r in results) else "unchecked"
        if self.rule == "decision":
            nli = [r for r in results if r.layer == "nli"]
            if nli and all(r.error is not None for r in nli):
                return "error"
            if decided is None:
                raise InputError(
                    "the decision rule needs the claim's decision: pass "
                    "combiner.decide(signals) as decided="
                )
            return decided.label
        if self.rule == "any":
            flagging = [r for r in judged if r.flagged]
            return _flag_label(flagging) if flagging else "supported"
        if self.rule == "all":
            return _flag_label(judged) if all(r.flagged for r in judged) else "supported"
        if self.rule == "cascade":
            return self._cascade(judged)
        return self._logistic(judged)

    def _cascade(self, judged: list[LayerResult]) -> VerdictLabel:
        rank = {name: i for i, name in enumerate(self.order)}
        ordered = sorted(judged, key=lambda r: rank.get(r.layer, len(rank)))
        low, high = self.band
        for result in ordered:
            score = result.score
            if score is not None and (score <= low or score >= high):
                return _flag_label([result]) if result.flagged else "supported"
        last = ordered[-1]
        return _flag_label([last]) if last.flagged else "supported"

    def _logistic(self, judged: list[LayerResult]) -> VerdictLabel:
        weights = self.weights
        if weights is None:  # refused in __init__
            raise OptionError("weights", None, "fitted LayerWeights for rule='logistic'")
        if weights.probability(judged) < weights.threshold:
            return "supported"
        return _flag_label([r for r in judged if r.flagged] or judged)
