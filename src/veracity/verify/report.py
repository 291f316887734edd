"""A verification report as plain JSON-ready data (what ``veracity verify --json`` prints).

Every span is a ``[start, end]`` pair: claim and skipped-sentence spans index ``answer``;
evidence spans index the source document named by ``doc_id``; a value's ``span`` indexes its
claim's ``text``.
"""

from __future__ import annotations

from typing import Any

from veracity.types import ClaimVerdict, EvidenceJudgement, Report, Span, ValueCheck

__all__ = ["report_payload"]


def _span(span: Span | None) -> list[int] | None:
    return None if span is None else [span.start, span.end]


def _judgement(item: EvidenceJudgement) -> dict[str, Any]:
    return {"chunk_id": item.chunk_id, "doc_id": item.doc_id, "title": item.title,
            "section": list(item.section), "page": item.page, "page_end": item.page_end,
            "start": item.start,
            "end": item.end, "supported": item.supported, "contradicted": item.contradicted,
            "neither": item.neither, "evidence": [_span(s) for s in item.evidence],
            "cited": item.cited, "query": item.query, "error": item.error,
            "cannot_state": item.cannot_state, "text": item.text}


def _value(item: ValueCheck) -> dict[str, Any]:
    return {"kind": item.kind, "text": item.text, "span": _span(item.span), "value": item.value,
            "status": item.status, "found": item.found, "doc_id": item.doc_id,
            "evidence": _span(item.evidence), "source": item.source}


def _verdict(verdict: ClaimVerdict) -> dict[str, Any]:
    claim = verdict.claim
    return {
        "index": claim.index, "text": claim.text, "span": _span(claim.span),
        "sentence": claim.sentence, "markers": list(claim.markers), "edits": list(claim.edits),
        "label": verdict.label, "contested": verdict.contested,
        "layers": [{"layer": r.layer, "label": r.label, "flagged": r.flagged, "score": r.score,
                    "detail": r.detail, "error": r.error} for r in verdict.layers],
        "citations": [_judgement(j) for j in verdict.citations],
        "anti_citations": [_judgement(j) for j in verdict.anti_citations],
        "values": [_value(v) for v in verdict.values],
        "evidence": [_judgement(j) for j in verdict.evidence],
    }


def report_payload(report: Report) -> dict[str, Any]:
    """``report`` as a JSON-ready dict: summary, provenance, claims, skipped sentences."""
    return {
        "summary": report.summary,
        "answer": report.answer,
        "question": report.question,
        "layers": list(report.layers),
        "rule": report.rule,
        "query_mode": report.query_mode,
        "claims_method": report.claims_method,
        "verifier": report.verifier,
        "verifier_version": report.verifier_version,
        "claims": [_verdict(v) for v in report.verdicts],
        "skipped": [{"sentence": s.sentence, "span": _span(s.span), "text": s.text,
                     "reason": s.reason} for s in report.skipped],
        "timings": dict(report.timings),
        "calls": dict(report.calls),
        "warnings": list(report.warnings),
    }
