"""The overview of a batch: one self-contained, offline HTML page over verify-batch's records.

:class:`BatchOverview` reads the records once, in three steps:

1. count: records, answers, claims by label, failures (:class:`~veracity.batch.log.Counts`,
   the totals ``verify-batch`` prints); an error record is a failure, never a score;
2. tally: every claim's support (the NLI layer's P(supported)) into a histogram, claim labels
   by the evidence document that decided each claim and by each field named in ``by`` (the
   record's own field, else its input line's), and the worst answers (fewest claims
   supported, then most contradicted);
3. render: the page, its plots drawn as inline SVG by matplotlib (extra ``[report]``), the
   worst answers highlighted with the web page's verdict colours (``veracity/assets/
   verdicts.css``, inlined). Every text from the records is escaped; the page loads nothing
   (its Content-Security-Policy forbids scripts and every URL).

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

import heapq
import itertools
import json
import math
import re
import time
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from html import escape
from pathlib import Path
from typing import Any

from veracity import defaults
from veracity.assets import VERDICTS_CSS
from veracity.batch.log import Counts
from veracity.batch.results import check_record, field_of, input_fields, read_results
from veracity.errors import InputError, OptionError
from veracity.types import VERDICT_LABELS

__all__ = [
    "BatchOverview",
    "Breakdown",
    "BreakdownRow",
    "Overview",
    "SupportHistogram",
    "overview_of",
]

#: Worst first: how a sentence is shaded when its claims differ (as on the web page).
WORST_FIRST = ("contradicted", "error", "unsupported", "unchecked", "supported")
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
        tally = _Tally(self.by, self.worst, inputs)
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
        page = _Page(
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


# --- step 2: tally -----------------------------------------------------------------------------


@dataclass
class _Group:
    records: int = 0
    failed: int = 0
    labels: dict[str, int] = field(default_factory=dict)


class _Tally:
    """Running totals over the records (one pass; the worst answers kept in a bounded heap)."""

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
        labels = [_label(claim) for claim in claims]
        for name in self.by:
            present, value = field_of(record, name, self.inputs)
            self.fields_seen[name] |= present
            self._group(name, _value_text(value) if present else _MISSING, failed, labels)
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


def _label(claim: Mapping[str, Any]) -> str:
    label = claim.get("label")
    return label if isinstance(label, str) and label in VERDICT_LABELS else "error"


def _ordered(labels: Mapping[str, int]) -> dict[str, int]:
    return {label: labels[label] for label in VERDICT_LABELS if labels.get(label)}


def _support(claim: Mapping[str, Any]) -> float | None:
    """The claim's support (1 minus the NLI layer's risk); ``None`` when it has none."""
    if _label(claim) == "error":
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


def _value_text(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, str):
        return value
    if isinstance(value, bool):
        return "true" if value else "false"
    return json.dumps(value, sort_keys=True, ensure_ascii=False, default=str)


def _key(record: Mapping[str, Any]) -> str:
    from veracity.batch.items import record_key

    return record_key(record) or ""


# --- step 3: render ----------------------------------------------------------------------------

_CSS = """
body { font: 15px/1.5 system-ui, sans-serif; margin: 0 auto; max-width: 70rem; padding: 1rem;
       color: #1a1a1a; background: #fafafa; overflow-wrap: anywhere; }
section { background: #fff; border: 1px solid #ddd; border-radius: 6px; padding: 1rem;
          margin: 1rem 0; }
h1 { font-size: 1.4rem; } h2 { font-size: 1.15rem; margin-top: 0; } h3 { font-size: 1rem; }
table { border-collapse: collapse; margin: .5rem 0; }
th, td { border-bottom: 1px solid #eee; padding: .2rem .6rem; text-align: right; }
th:first-child, td:first-child { text-align: left; }
td.message { text-align: left; }
figure { margin: .5rem 0; } figcaption, .legend, .note { color: #555; font-size: .9em; }
svg { max-width: 100%; height: auto; }
article { border-top: 1px solid #ddd; padding-top: .5rem; }
.answer { white-space: pre-wrap; border: 1px solid #eee; padding: .5rem; }
.claims { padding-left: 1.2rem; }
details.claim { box-sizing: border-box; } details.claim summary { cursor: pointer; }
"""
_CSP = (
    "default-src 'none'; style-src 'unsafe-inline'; img-src data:; "
    "base-uri 'none'; form-action 'none'"
)
_COLOUR = re.compile(r"\.verdict-(\w+)\s*\{\s*border-left:\s*\S+\s+solid\s+(#[0-9a-fA-F]{3,6})")
_COUNT_ROWS = (
    ("records", "records"),
    ("answers", "answers verified"),
    ("errors", "failed records (not verified)"),
    ("claims", "claims"),
    ("supported", "supported"),
    ("contradicted", "contradicted"),
    ("unsupported", "unsupported"),
    ("unchecked", "unchecked"),
    ("claim_failures", "claims not judged (error)"),
    ("skipped", "sentences skipped (not claims)"),
)


def verdict_colours(css: str) -> dict[str, str]:
    """Each verdict's colour: the left bar of ``.verdict-<label>`` in the shared stylesheet.

    >>> verdict_colours(".verdict-supported { border-left: 4px solid #2da44e; }")
    {'supported': '#2da44e'}
    """
    return {label: colour for label, colour in _COLOUR.findall(css)}


class _Page:
    def __init__(
        self,
        title: str,
        counts: Mapping[str, int],
        histogram: SupportHistogram,
        breakdowns: Sequence[Breakdown],
        worst: Sequence[Mapping[str, Any]],
        failed: int,
        failed_records: Sequence[Mapping[str, Any]],
    ) -> None:
        self.title = title
        self.counts = counts
        self.histogram = histogram
        self.breakdowns = breakdowns
        self.worst = worst
        self.failed = failed
        self.failed_records = failed_records
        self.css = VERDICTS_CSS.read_text(encoding="utf-8")
        self.colours = verdict_colours(self.css)

    def html(self) -> str:
        parts = [
            '<!doctype html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n',
            f'<meta http-equiv="Content-Security-Policy" content="{_CSP}">\n',
            '<meta name="viewport" content="width=device-width, initial-scale=1">\n',
            f"<title>veracity overview: {escape(self.title)}</title>\n",
            f"<style>{_CSS}{self.css}</style>\n</head>\n<body>\n",
            f"<h1>Overview of {escape(self.title)}</h1>\n",
            self._counts(),
            self._support(),
            *(self._breakdown(b) for b in self.breakdowns),
            self._worst(),
            self._failures(),
            "</body>\n</html>\n",
        ]
        return "".join(parts)

    def _counts(self) -> str:
        rows = "".join(
            f'<tr><th scope="row">{escape(name)}</th><td>{self.counts[key]}</td></tr>\n'
            for key, name in _COUNT_ROWS
        )
        return (
            f'<section id="counts"><h2>Counts</h2>\n<table class="counts">\n{rows}'
            '</table>\n<p class="note">A failed record is a failure, never a score: it '
            "has no claims and is left out of the plots.</p></section>\n"
        )

    def _support(self) -> str:
        from veracity.batch.plots import support_histogram

        h = self.histogram
        caption = (
            f"{h.scored} claims with a support score; {h.unscored} without (not "
            "judged, or no NLI layer ran); failed records have none."
        )
        plot = (
            support_histogram(h.counts, h.edges, colour=self.colours.get("supported", "#2da44e"))
            if h.scored
            else "<p>No claim has a support score.</p>"
        )
        return (
            f'<section id="support"><h2>Claim support</h2>\n<figure>{plot}'
            f"<figcaption>{escape(caption)}</figcaption></figure></section>\n"
        )

    def _breakdown(self, breakdown: Breakdown) -> str:
        from veracity.batch.plots import label_bars

        name = breakdown.field
        anchor = "by-" + re.sub(r"[^a-z0-9]+", "-", name.lower()).strip("-")
        what = (
            (
                "the document of the passage that decided each claim (its best citation, "
                "else its best contradicting passage); records count the answers with a claim "
                "there"
            )
            if name == EVIDENCE_FIELD
            else f"the field {name!r} of each record"
        )
        labels = [
            label
            for label in VERDICT_LABELS
            if any(row.labels.get(label) for row in breakdown.rows)
        ]
        drawn = [(row.value, row.labels) for row in breakdown.rows if row.claims]
        plot = (
            label_bars(drawn, labels, self.colours, title=f"claim labels by {name}")
            if drawn
            else "<p>No claims to draw.</p>"
        )
        head = "".join(f'<th scope="col">{escape(label)}</th>' for label in labels)
        rows = "".join(
            f"<tr><td>{escape(row.value)}</td><td>{row.records}</td><td>{row.failed}</td>"
            f"<td>{row.claims}</td>"
            + "".join(f"<td>{row.labels.get(label, 0)}</td>" for label in labels)
            + f"<td>{_share(row.labels.get('supported', 0), row.claims)}</td></tr>\n"
            for row in breakdown.rows
        )
        return (
            f'<section id="{anchor}" class="breakdown"><h2>Labels by {escape(name)}</h2>\n'
            f'<p class="note">By {escape(what)}.</p>\n<figure>{plot}</figure>\n'
            f'<table class="breakdown"><thead><tr><th scope="col">{escape(name)}</th>'
            '<th scope="col">records</th><th scope="col">failed</th>'
            f'<th scope="col">claims</th>{head}<th scope="col">supported share</th></tr>'
            f"</thead>\n<tbody>\n{rows}</tbody></table></section>\n"
        )

    def _worst(self) -> str:
        if not self.worst:
            return (
                '<section id="worst"><h2>Worst answers</h2><p>No answer with claims.</p>'
                "</section>\n"
            )
        legend = (
            '<p class="legend">Each claim is marked by its verdict: '
            + ", ".join(
                f'<span class="swatch verdict-{label}">{label}</span>' for label in VERDICT_LABELS
            )
            + ". A sentence is shaded by its worst claim; open a claim for each layer's "
            "finding.</p>\n"
        )
        return (
            f'<section id="worst"><h2>Worst answers</h2>\n<p class="note">The '
            f"{len(self.worst)} answers with the smallest share of supported claims, then "
            "the most contradicted ones.</p>\n"
            + legend
            + "".join(_answer(record) for record in self.worst)
            + "</section>\n"
        )

    def _failures(self) -> str:
        if not self.failed:
            return ""
        rows = "".join(
            f"<tr><td>{escape(_value_text(record.get('id')))}</td>"
            f"<td>{escape(_value_text(record.get('line')))}</td>"
            f"<td>{escape(_value_text(record['error'].get('reason')))}</td>"
            f'<td class="message">{escape(_value_text(record["error"].get("message")))}</td>'
            "</tr>\n"
            for record in self.failed_records
        )
        more = self.failed - len(self.failed_records)
        note = f'<p class="note">and {more} more in the results file.</p>' if more else ""
        return (
            f'<section id="failures"><h2>Failed records ({self.failed})</h2>\n'
            '<table class="failures"><thead><tr><th scope="col">id</th>'
            '<th scope="col">line</th><th scope="col">reason</th>'
            f'<th scope="col">message</th></tr></thead>\n<tbody>\n{rows}</tbody></table>'
            f"{note}</section>\n"
        )


def _share(part: int, whole: int) -> str:
    return f"{part / whole:.0%}" if whole else "–"


def _answer(record: Mapping[str, Any]) -> str:
    """One answer with its sentences shaded and its claims listed, as the web page shows it."""
    claims = [claim for claim in record["claims"] if isinstance(claim, dict)]
    given = record.get("answer")
    answer = given if isinstance(given, str) else ""
    labels = [_label(claim) for claim in claims]
    supported = labels.count("supported")
    question = record.get("question")
    asked = (
        f"<p><b>Question:</b> {escape(question)}</p>\n"
        if isinstance(question, str) and question
        else ""
    )
    items = "".join(_claim(claim) for claim in claims)
    return (
        f"<article><h3>{escape(_value_text(record.get('id')))} "
        f"(line {escape(_value_text(record.get('line')))}): {supported} of {len(claims)} "
        f'claims supported</h3>\n{asked}<div class="answer">{_shaded(answer, claims)}'
        f'</div>\n<ol class="claims">{items}</ol></article>\n'
    )


def _claim(claim: Mapping[str, Any]) -> str:
    label = _label(claim)
    given = claim.get("text")
    text = given if isinstance(given, str) else ""
    found = "".join(
        f"<p>{escape(_value_text(layer.get('layer')))}: "
        f"{escape(_value_text(layer.get('error') or layer.get('detail') or layer.get('label')))}"
        "</p>"
        for layer in claim.get("layers") or ()
        if isinstance(layer, dict)
    )
    return (
        f'<li><details class="claim verdict-{label}"><summary>{label} · {escape(text)}'
        f"</summary>{found}</details></li>\n"
    )


def _shaded(answer: str, claims: Sequence[Mapping[str, Any]]) -> str:
    """``answer`` escaped, each sentence with claims in a span shaded by its worst claim."""
    from veracity.verify.claims import split_answer

    spans = (
        {
            sentence.index: (sentence.span.start, sentence.span.end)
            for sentence in split_answer(answer)
        }
        if answer.strip()
        else {}
    )
    worst: dict[tuple[int, int], str] = {}
    for claim in claims:
        sentence = claim.get("sentence")
        where = (spans.get(sentence) if isinstance(sentence, int) else None) or _span(
            claim.get("span"), len(answer)
        )
        if where is None:
            continue
        label = _label(claim)
        if where not in worst or WORST_FIRST.index(label) < WORST_FIRST.index(worst[where]):
            worst[where] = label
    pieces: list[str] = []
    position = 0
    for (start, end), label in sorted(worst.items()):
        if start < position:  # overlaps the sentence before: left as it is
            continue
        pieces.append(escape(answer[position:start]))
        pieces.append(f'<span class="sentence verdict-{label}">{escape(answer[start:end])}</span>')
        position = end
    pieces.append(escape(answer[position:]))
    return "".join(pieces)


def _span(value: Any, length: int) -> tuple[int, int] | None:
    if (
        isinstance(value, list)
        and len(value) == 2
        and all(isinstance(v, int) and not isinstance(v, bool) for v in value)
        and 0 <= value[0] < value[1] <= length
    ):
        return value[0], value[1]
    return None
