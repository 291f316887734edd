"""The batch overview's page: one self-contained, offline HTML page over the statistics of
:mod:`veracity.batch.overview_stats`, its plots drawn as inline SVG by matplotlib (extra
``[report]``), the worst answers highlighted with the web page's verdict colours
(``veracity/assets/verdicts.css``, inlined). Every text from the records is escaped; the page
loads nothing (its Content-Security-Policy forbids scripts and every URL).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from html import escape
from typing import Any

from veracity.assets import VERDICTS_CSS
from veracity.batch.overview_stats import (
    EVIDENCE_FIELD,
    Breakdown,
    SupportHistogram,
    claim_label,
    value_text,
)
from veracity.types import VERDICT_LABELS

__all__ = ["WORST_FIRST", "Page", "verdict_colours"]

#: Worst first: how a sentence is shaded when its claims differ (as on the web page).
WORST_FIRST = ("contradicted", "error", "unsupported", "unchecked", "supported")

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


class Page:
    """The page of an overview's statistics (:meth:`html`)."""

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
            f"<tr><td>{escape(value_text(record.get('id')))}</td>"
            f"<td>{escape(value_text(record.get('line')))}</td>"
            f"<td>{escape(value_text(record['error'].get('reason')))}</td>"
            f'<td class="message">{escape(value_text(record["error"].get("message")))}</td>'
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
    labels = [claim_label(claim) for claim in claims]
    supported = labels.count("supported")
    question = record.get("question")
    asked = (
        f"<p><b>Question:</b> {escape(question)}</p>\n"
        if isinstance(question, str) and question
        else ""
    )
    items = "".join(_claim(claim) for claim in claims)
    return (
        f"<article><h3>{escape(value_text(record.get('id')))} "
        f"(line {escape(value_text(record.get('line')))}): {supported} of {len(claims)} "
        f'claims supported</h3>\n{asked}<div class="answer">{_shaded(answer, claims)}'
        f'</div>\n<ol class="claims">{items}</ol></article>\n'
    )


def _claim(claim: Mapping[str, Any]) -> str:
    label = claim_label(claim)
    given = claim.get("text")
    text = given if isinstance(given, str) else ""
    found = "".join(
        f"<p>{escape(value_text(layer.get('layer')))}: "
        f"{escape(value_text(layer.get('error') or layer.get('detail') or layer.get('label')))}"
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
        label = claim_label(claim)
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
