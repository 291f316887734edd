"""The statistics of a batch overview, apart from its page: one pass over verify-batch's records
(:class:`Tally`) gives the support histogram, the claim labels broken down by a field, and the
worst answers; :mod:`veracity.batch.overview_page` draws them.

>>> tally = Tally((), worst=1, inputs=None)
>>> tally.add({"id": "a", "line": 1, "summary": {"claims": 1}, "claims": [
...     {"text": "Bees dance.", "label": "supported", "layers": [{"layer": "nli", "score": 0.1}]}]})
>>> tally.histogram(2).counts, tally.breakdown(EVIDENCE_FIELD).rows[0].value
((0, 1), '(no passage)')
"""

from __future__ import annotations

import heapq
import itertools
import json
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from veracity import defaults
from veracity.batch.log import Counts
from veracity.batch.results import field_of
from veracity.types import VERDICT_LABELS

__all__ = [
    "EVIDENCE_FIELD",
    "Breakdown",
    "BreakdownRow",
    "SupportHistogram",
    "Tally",
    "claim_label",
    "value_text",
]

#: The breakdown every overview has: by the document of the passage that decided each claim.
EVIDENCE_FIELD = "evidence document"
_MISSING = "(missing)"
_NO_PASSAGE = "(no passage)"


@dataclass(frozen=True)
class SupportHistogram:
    """Claims per bin of support: ``edges`` over [0, 1], ``counts`` per bin, ``scored`` claims
    in all; ``unscored`` claims have no support (they failed, or no NLI layer ran)."""

    edges: tuple[float, ...]
    counts: tuple[int, ...]
    scored: int
    unscored: int

    def to_dict(self) -> dict[str, Any]:
        return {
            "edges": list(self.edges),
            "counts": list(self.counts),
            "scored": self.scored,
            "unscored": self.unscored,
        }


@dataclass(frozen=True)
class BreakdownRow:
    """One value of a field: its ``records``, how many ``failed``, its claims by label."""

    value: str
    records: int
    failed: int
    labels: Mapping[str, int]

    @property
    def claims(self) -> int:
        return sum(self.labels.values())

    def to_dict(self) -> dict[str, Any]:
        return {
            "value": self.value,
            "records": self.records,
            "failed": self.failed,
            "claims": self.claims,
            "labels": dict(self.labels),
        }


@dataclass(frozen=True)
class Breakdown:
    """Claim labels by the values of ``field``, most records first; values past the top few
    are summed in a last row ``(N other values)``."""

    field: str
    rows: tuple[BreakdownRow, ...]

    def to_dict(self) -> dict[str, Any]:
        return {"field": self.field, "rows": [row.to_dict() for row in self.rows]}


@dataclass
class _Group:
    records: int = 0
    failed: int = 0
    labels: dict[str, int] = field(default_factory=dict)


class Tally:
    """Running totals over the records, added one by one: claim labels by each of ``by``'s
    fields and by evidence document, the support scores, and the ``worst`` answers (kept in a
    bounded heap)."""

    def __init__(
        self, by: tuple[str, ...], worst: int, inputs: Mapping[str, Mapping[str, Any]] | None
    ) -> None:
        self.by = by
        self.inputs = inputs
        self.keep = worst
        self.records = 0
        self.counts = Counts()
        self.support: list[float] = []
        self.unscored = 0
        self.groups: dict[str, dict[str, _Group]] = {name: {} for name in (EVIDENCE_FIELD, *by)}
        self.fields_seen = dict.fromkeys(by, False)
        self.record_fields: set[str] = set()
        self.failed = 0
        self.failed_records: list[Mapping[str, Any]] = []
        self._heap: list[tuple[float, int, float, int, Mapping[str, Any]]] = []
        self._order = itertools.count()

    def add(self, record: Mapping[str, Any]) -> None:
        self.records += 1
        self.counts.add(record)
        if len(self.record_fields) < 200:
            self.record_fields.update(str(name) for name in record)
        failed = "error" in record
        claims = [] if failed else [c for c in record["claims"] if isinstance(c, dict)]
        labels = [claim_label(claim) for claim in claims]
        for name in self.by:
            present, value = field_of(record, name, self.inputs)
            self.fields_seen[name] |= present
            self._group(name, value_text(value) if present else _MISSING, failed, labels)
        by_document: dict[str, list[str]] = {}
        for claim, label in zip(claims, labels, strict=True):
            by_document.setdefault(_document(claim), []).append(label)
        for document, document_labels in by_document.items():
            self._group(EVIDENCE_FIELD, document, False, document_labels)
        if failed:
            self.failed += 1
            if len(self.failed_records) < defaults.OVERVIEW_FAILURES_SHOWN:
                self.failed_records.append(record)
            return
        scores = [_support(claim) for claim in claims]
        self.support.extend(s for s in scores if s is not None)
        self.unscored += sum(s is None for s in scores)
        if claims and self.keep:
            supported = labels.count("supported") / len(claims)
            lowest = min((s for s in scores if s is not None), default=1.0)
            entry = (-supported, labels.count("contradicted"), -lowest, -next(self._order), record)
            if len(self._heap) < self.keep:
                heapq.heappush(self._heap, entry)
            else:
                heapq.heappushpop(self._heap, entry)

    def _group(self, name: str, value: str, failed: bool, labels: Sequence[str]) -> None:
        group = self.groups[name].setdefault(value, _Group())
        group.records += 1
        group.failed += failed
        for label in labels:
            group.labels[label] = group.labels.get(label, 0) + 1

    def histogram(self, bins: int) -> SupportHistogram:
        counts = [0] * bins
        for value in self.support:
            counts[min(int(value * bins), bins - 1)] += 1
        edges = tuple(round(i / bins, 6) for i in range(bins + 1))
        return SupportHistogram(edges, tuple(counts), len(self.support), self.unscored)

    def breakdown(self, name: str) -> Breakdown:
        groups = sorted(
            self.groups[name].items(),
            key=lambda item: (-item[1].records, -sum(item[1].labels.values()), item[0]),
        )
        top, rest = groups[: defaults.OVERVIEW_TOP_VALUES], groups[defaults.OVERVIEW_TOP_VALUES :]
        rows = [BreakdownRow(value, g.records, g.failed, _ordered(g.labels)) for value, g in top]
        if rest:
            merged = _Group()
            for _, group in rest:
                merged.records += group.records
                merged.failed += group.failed
                for label, count in group.labels.items():
                    merged.labels[label] = merged.labels.get(label, 0) + count
            rows.append(
                BreakdownRow(
                    f"({len(rest)} other values)",
                    merged.records,
                    merged.failed,
                    _ordered(merged.labels),
                )
            )
        return Breakdown(name, tuple(rows))

    def worst_records(self) -> list[Mapping[str, Any]]:
        """The kept answers, worst first (ties: the earlier record first)."""
        return [entry[-1] for entry in sorted(self._heap, key=lambda e: e[:4], reverse=True)]


def claim_label(claim: Mapping[str, Any]) -> str:
    """The claim's verdict label; ``error`` when it has none that veracity writes."""
    label = claim.get("label")
    return label if isinstance(label, str) and label in VERDICT_LABELS else "error"


def _ordered(labels: Mapping[str, int]) -> dict[str, int]:
    return {label: labels[label] for label in VERDICT_LABELS if labels.get(label)}


def _support(claim: Mapping[str, Any]) -> float | None:
    """The claim's support (1 minus the NLI layer's risk); ``None`` when it has none."""
    if claim_label(claim) == "error":
        return None
    for layer in claim.get("layers") or ():
        if isinstance(layer, dict) and layer.get("layer") == "nli":
            score = layer.get("score")
            if (
                layer.get("error")
                or isinstance(score, bool)
                or not isinstance(score, int | float)
                or not math.isfinite(score)
            ):
                return None
            return min(max(1.0 - float(score), 0.0), 1.0)
    return None


def _document(claim: Mapping[str, Any]) -> str:
    """The document of the passage that decided the claim: its best citation, else its best
    anti-citation, else the first passage read."""
    for name in ("citations", "anti_citations", "evidence"):
        passages = claim.get(name)
        if isinstance(passages, list) and passages and isinstance(passages[0], dict):
            doc_id = passages[0].get("doc_id")
            if isinstance(doc_id, str) and doc_id:
                return doc_id
    return _NO_PASSAGE


def value_text(value: Any) -> str:
    """A record's field as shown: a string as it is, anything else as JSON."""
    if value is None:
        return "null"
    if isinstance(value, str):
        return value
    if isinstance(value, bool):
        return "true" if value else "false"
    return json.dumps(value, sort_keys=True, ensure_ascii=False, default=str)
