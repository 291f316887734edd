"""The overview of a batch: one self-contained, offline HTML page over verify-batch's records.

:class:`BatchOverview` reads the records once, in three steps:

1. count: records, answers, claims by label, failures (:class:`~veracity.batch.log.Counts`,
   the totals ``verify-batch`` prints); an error record is a failure, never a score;
2. tally: every claim's support (the NLI layer's P(supported)) into a histogram, claim labels
   by the evidence document that decided each claim and by each field named in ``by`` (the
   record's own field, else its input line's), and the worst answers (fewest claims
   supported, then most contradicted), in :mod:`~veracity.batch.overview_stats`;
3. render: the page, its plots drawn as inline SVG by matplotlib (extra ``[report]``), the
   worst answers highlighted with the web page's verdict colours (``veracity/assets/
   verdicts.css``, inlined), in :mod:`~veracity.batch.overview_page`. Every text from the
   records is escaped; the page loads nothing (its Content-Security-Policy forbids scripts and
   every URL).

:func:`overview_of` is the one place that reads the files and builds the page: ``veracity
report`` and ``veracity verify-batch --report`` call it.

>>> records = [{"id": "a", "line": 1, "answer": "Bees dance.", "summary": {"claims": 1,
...             "supported": 1}, "claims": [{"text": "Bees dance.", "label": "supported",
...             "span": [0, 11], "sentence": 0, "layers": [{"layer": "nli", "score": 0.1}]}]},
...            {"id": "b", "line": 2, "error": {"reason": "no_answer", "message": "..."}}]
>>> overview = BatchOverview().run(records)                             # doctest: +SKIP
>>> overview.counts["records"], overview.counts["errors"], overview.support.scored
... # doctest: +SKIP
(2, 1, 1)
"""

from __future__ import annotations

import time
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from veracity import defaults
from veracity.batch.overview_page import Page
from veracity.batch.overview_stats import (
    EVIDENCE_FIELD,
    Breakdown,
    BreakdownRow,
    SupportHistogram,
    Tally,
)
from veracity.batch.results import check_record, input_fields, read_results
from veracity.errors import InputError, OptionError

__all__ = [
    "BatchOverview",
    "Breakdown",
    "BreakdownRow",
    "Overview",
    "SupportHistogram",
    "overview_of",
]


@dataclass(frozen=True)
class Overview:
    """The page (``html``) and what it shows: ``counts`` (``records`` and the totals of
    :class:`~veracity.batch.log.Counts`), the ``support`` histogram, the ``breakdowns``, the
    keys of the ``worst`` answers shown, and the ``seconds`` it took."""

    html: str
    counts: Mapping[str, int]
    support: SupportHistogram
    breakdowns: tuple[Breakdown, ...]
    worst: tuple[str, ...]
    seconds: float

    @property
    def failures(self) -> int:
        """Error records plus claims that could not be judged."""
        return self.counts["errors"] + self.counts["claim_failures"]

    def save(self, path: str | Path) -> Path:
        """Write the page to ``path`` (UTF-8); returns the path."""
        path = Path(path)
        if path.is_dir():
            raise InputError(
                f"the overview {path} is a folder; give a file name such as "
                f"{path / 'overview.html'}"
            )
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(self.html, encoding="utf-8")
        return path

    def to_dict(self) -> dict[str, Any]:
        """Everything but the page itself (its size in ``html_bytes``)."""
        return {
            "counts": dict(self.counts),
            "support": self.support.to_dict(),
            "breakdowns": [b.to_dict() for b in self.breakdowns],
            "worst": list(self.worst),
            "seconds": self.seconds,
            "html_bytes": len(self.html.encode("utf-8")),
        }


class BatchOverview:
    """Builds the overview page of verify-batch records (see the module docstring).

    ``by`` names record fields to break claim labels down by; ``worst`` answers are shown with
    their claims; ``bins`` divide [0, 1] for the support histogram; ``title`` heads the page.
    """

    def __init__(
        self,
        *,
        by: Sequence[str] = (),
        worst: int = defaults.OVERVIEW_WORST,
        bins: int = defaults.OVERVIEW_BINS,
        title: str = "verify-batch",
    ) -> None:
        if isinstance(by, str):
            raise OptionError("by", by, "a list of field names", f"Write by=[{by!r}].")
        names = tuple(by)
        if any(not isinstance(name, str) or not name.strip() for name in names):
            raise OptionError("by", list(names), "non-empty field names")
        if len(set(names)) != len(names):
            raise OptionError("by", list(names), "each field once")
        if worst < 0:
            raise OptionError("worst", worst, "0 or more")
        if not 1 <= bins <= 200:
            raise OptionError("bins", bins, "from 1 to 200")
        self.by = names
        self.worst = worst
        self.bins = bins
        self.title = title

    def run(
        self,
        records: Iterable[Mapping[str, Any]],
        *,
        inputs: Mapping[str, Mapping[str, Any]] | None = None,
    ) -> Overview:
        """The overview of ``records`` (verify-batch output records, in order); ``inputs``
        holds the fields of their input lines by record key (see
        :func:`~veracity.batch.results.input_fields`)."""
        start = time.perf_counter()
        tally = Tally(self.by, self.worst, inputs)
        for position, record in enumerate(records, start=1):
            problem = check_record(record)
            if problem is not None:
                raise InputError(
                    f"record {position} is not a verify-batch record: {problem}; "
                    "give the records verify-batch wrote"
                )
            tally.add(record)
        unseen = [name for name in self.by if not tally.fields_seen[name]]
        if unseen and tally.records:
            raise OptionError(
                "by",
                unseen[0],
                "a field of the records or of their input "
                f"lines; the records have {', '.join(sorted(tally.record_fields))}",
                "Name one of those, or give the input answers so that their "
                "fields can be used (veracity report --answers FILE).",
            )
        histogram = tally.histogram(self.bins)
        breakdowns = tuple(tally.breakdown(name) for name in (EVIDENCE_FIELD, *self.by))
        worst = tally.worst_records()
        counts = {"records": tally.records} | tally.counts.to_dict()
        page = Page(
            self.title, counts, histogram, breakdowns, worst, tally.failed, tally.failed_records
        ).html()
        return Overview(
            html=page,
            counts=counts,
            support=histogram,
            breakdowns=breakdowns,
            worst=tuple(_key(record) for record in worst),
            seconds=round(time.perf_counter() - start, 3),
        )


def overview_of(
    results: str | Path,
    *,
    answers: str | Path | None = None,
    by: Sequence[str] = (),
    worst: int = defaults.OVERVIEW_WORST,
) -> Overview:
    """The overview of the verify-batch output ``results``; ``answers`` is the input it read,
    needed only when a field of ``by`` is in the input lines and not in the records."""
    stage = BatchOverview(by=by, worst=worst, title=Path(results).name)
    inputs = input_fields(answers, stage.by) if answers is not None and stage.by else None
    return stage.run(read_results(results), inputs=inputs)


def _key(record: Mapping[str, Any]) -> str:
    from veracity.batch.items import record_key

    return record_key(record) or ""
