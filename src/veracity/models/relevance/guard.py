"""The reranker's guard: it must rank better than each of its own features on every development
set, or it ranks by the best feature instead and says so.

A combined reranker (:class:`~veracity.models.relevance.shipped.EmbeddedReranker`) scores a pair
from
its cross-encoder's logit, the query's alignment with the passage window and their embeddings'
cosine. Fit where the cross-encoder looks strong, the combination can rank worse than one of
those features alone where it is used. The guard holds what ``bench/rerank_fit.py`` measured on
the development sets (nDCG@10 of the reranker and of each feature alone) and a calibration of
each feature alone (a logistic fit of relevance on it, on the same sets, so its sigmoid stays a
P(relevant)); ``python -m veracity_training.rerank_guard`` writes it into the reranker's
``config.json``. When the reranker does not beat every feature on every set, :meth:`fallback`
names the feature with the best mean nDCG@10 over the sets, and the reranker ranks by it. A
feature that ties the reranker at a perfect ranking (nDCG@10 100 on an easy set) is no loss.

>>> guard = RerankGuard(
...     {"dl19": {"reranker": 61.9, "logit": 52.3, "alignment": 62.6, "cosine": 63.5},
...      "noveleval": {"reranker": 74.3, "logit": 70.6, "alignment": 72.7, "cosine": 72.0}},
...     {"logit": (1.0, 0.0), "alignment": (5.0, -3.0), "cosine": (6.0, -4.0)},
...     "bench rerank_fit at abc1234",
... )
>>> fallback = guard.fallback()
>>> fallback.feature, fallback.slope
('cosine', 6.0)
>>> fallback.reason.split(" on ", 1)[1]
'dl19 61.90 against alignment 62.60, cosine 63.50 (bench rerank_fit at abc1234)'
"""

from __future__ import annotations

import statistics
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from veracity.errors import ModelError

__all__ = ["CEILING", "RERANKER", "Fallback", "RerankGuard"]

#: The key of the combined reranker's figure in each set's row.
RERANKER = "reranker"
#: A perfect nDCG@10: a feature that ties the reranker there is not a loss.
CEILING = 100.0


@dataclass(frozen=True)
class Fallback:
    """Rank by ``feature`` alone, as ``sigmoid(slope * value + bias)``, because of ``reason``."""

    feature: str
    slope: float
    bias: float
    reason: str


@dataclass(frozen=True)
class RerankGuard:
    """Per development set, nDCG@10 of the reranker (:data:`RERANKER`) and of each feature
    alone; per feature, its calibration ``(slope, bias)``; where the figures come from."""

    figures: Mapping[str, Mapping[str, float]]
    calibration: Mapping[str, tuple[float, float]]
    source: str

    def losses(self, features: Sequence[str] | None = None) -> list[tuple[str, str]]:
        """(set, feature) wherever the feature alone ranks at least as well as the reranker,
        except where both rank perfectly (:data:`CEILING`): nothing can beat that."""
        names = list(self.calibration) if features is None else list(features)
        return [
            (name, feature)
            for name, row in self.figures.items()
            for feature in names
            if feature in row
            and row[feature] >= row[RERANKER]
            and not row[feature] == row[RERANKER] >= CEILING
        ]

    def ceiling_ties(self) -> list[str]:
        """The sets where the reranker and a feature alone both rank perfectly."""
        return [
            name
            for name, row in self.figures.items()
            if row[RERANKER] >= CEILING
            and any(row.get(f, 0.0) >= CEILING for f in self.calibration)
        ]

    def fallback(self) -> Fallback | None:
        """The feature to rank by, or None when the reranker beats every feature everywhere."""
        losses = self.losses()
        if not losses:
            return None
        feature = max(
            self.calibration,
            key=lambda f: statistics.fmean(row[f] for row in self.figures.values()),
        )
        lost = "; ".join(
            f"{name} {self.figures[name][RERANKER]:.2f} against "
            + ", ".join(f"{f} {self.figures[name][f]:.2f}" for s, f in losses if s == name)
            for name in dict.fromkeys(name for name, _ in losses)
        )
        slope, bias = self.calibration[feature]
        reason = f"its combined nDCG@10 was at or below a feature's alone on {lost}"
        return Fallback(feature, slope, bias, f"{reason} ({self.source})")

    def to_config(self) -> dict[str, Any]:
        return {
            "figures": {name: dict(row) for name, row in self.figures.items()},
            "calibration": {f: list(pair) for f, pair in self.calibration.items()},
            "source": self.source,
        }

    @classmethod
    def from_config(cls, block: Mapping[str, Any], *, where: str) -> RerankGuard:
        """Read a config's ``guard`` block; ``where`` names the file in errors."""
        try:
            figures = {
                str(name): {str(k): float(v) for k, v in row.items()}
                for name, row in block["figures"].items()
            }
            calibration = {
                str(f): (float(pair[0]), float(pair[1])) for f, pair in block["calibration"].items()
            }
            source = str(block["source"])
        except (KeyError, TypeError, ValueError, IndexError, AttributeError) as error:
            raise ModelError(
                f"{where}: the reranker's guard block cannot be read ({error!r}); write it again "
                "with `python -m veracity_training.rerank_guard`"
            ) from error
        if not figures or any(RERANKER not in row for row in figures.values()):
            raise ModelError(
                f"{where}: the guard needs the reranker's figure ({RERANKER!r}) on every set; "
                "write it again with `python -m veracity_training.rerank_guard`"
            )
        return cls(figures, calibration, source)
