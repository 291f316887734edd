"""What ``veracity verify`` prints: the answer with its claims highlighted, each claim's verdict
with the layers' findings and evidence, and the summary."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from veracity.cli.output.evidence import evidence_line
from veracity.cli.render import Part, console, errors, show, styled

if TYPE_CHECKING:
    from rich.console import Console

    from veracity.types import Report

__all__ = ["print_report"]


_VERDICT_STYLE = {
    "contradicted": "bold white on red",
    "unsupported": "black on yellow",
    "error": "underline red",
    "unchecked": "underline cyan",
    "supported": "",
}


_VERDICT_MARK = {
    "supported": ("✓", "green"),
    "contradicted": ("✗", "red"),
    "unsupported": ("?", "yellow"),
    "unchecked": ("○", "cyan"),
    "error": ("⚠", "red"),
}


def _highlighted(report: Report) -> Any:
    """The answer with contradicted, unsupported, failed and unchecked claims highlighted
    (worst label wins)."""
    from rich.text import Text

    rank = {"supported": 0, "unchecked": 1, "error": 2, "unsupported": 3, "contradicted": 4}
    worst = [0] * len(report.answer)
    for verdict in report.verdicts:
        for position in range(verdict.claim.span.start, verdict.claim.span.end):
            worst[position] = max(worst[position], rank[verdict.label])
    names = {value: key for key, value in rank.items()}
    text = Text()
    start = 0
    for position in range(1, len(worst) + 1):
        if position == len(worst) or worst[position] != worst[start]:
            text.append(report.answer[start:position], style=_VERDICT_STYLE[names[worst[start]]])
            start = position
    return text


def print_report(report: Report) -> None:
    def line(*parts: Part, indent: int = 0, out: Console = console) -> None:
        show(*parts, out=out, indent=indent)

    console.print(_highlighted(report))
    console.print()
    line(styled("claims", "bold"))
    for verdict in report.verdicts:
        mark, colour = _VERDICT_MARK[verdict.label]
        claim = verdict.claim
        line(
            styled(f"{mark} {verdict.label}", colour),
            f"  {claim.text}  ",
            styled(f"(chars {claim.span.start}-{claim.span.end})", "dim"),
            indent=2,
        )
        if verdict.contested:
            line(
                styled(
                    "the sources conflict: some passages support this claim and others "
                    "contradict it",
                    "magenta",
                ),
                indent=6,
            )
        for edit in claim.edits:
            line(styled(edit, "dim"), indent=6)
        if verdict.unsupported_spans:
            line(
                styled("not supported by its passages:", "yellow"),
                " "
                + ", ".join(
                    f"{found.text!r} (chars {found.span.start}-{found.span.end})"
                    for found in verdict.unsupported_spans
                ),
                indent=6,
            )
        for layer in verdict.layers:
            flag = styled("flags", "red") if layer.flagged else styled("clears", "green")
            detail = layer.detail
            if layer.error is not None:
                flag, detail = styled("failed", "red"), layer.error
            elif layer.label == "unchecked":
                flag = styled("abstains:", "cyan")
            line(f"{layer.layer}: ", flag, f" {detail}", indent=6)
        for title, items in (
            ("evidence", verdict.citations[:2]),
            ("contradicted by", verdict.anti_citations[:2]),
        ):
            for item in items:
                evidence_line(title, item, 6)
        for value in verdict.values:
            if value.status != "match":
                found = f", evidence says {value.found!r}" if value.found else ""
                where = ""
                if value.evidence is not None:
                    where = f" ({value.doc_id}, chars {value.evidence.start}-{value.evidence.end})"
                line(
                    styled(
                        f"{value.kind} {value.text!r}: {value.status}{found}{where}",
                        "red" if value.status == "mismatch" else "yellow",
                    ),
                    indent=6,
                )
    for skipped in report.skipped:
        why = "skipped" if skipped.checkable else "not checkable"
        line(styled(f"· {why} ({skipped.reason}): {skipped.text}", "dim"), indent=2)
    summary = report.summary
    console.print()
    line(
        styled(f"{summary['claims']} claims:", "bold"),
        f" {summary['supported']} supported, "
        f"{summary['contradicted']} contradicted, {summary['unsupported']} unsupported, "
        f"{summary['unchecked']} unchecked, {summary['skipped']} sentences skipped, "
        f"{summary['failed']} failed; "
        f"{summary['contested']} with conflicting sources",
    )
    for warning in report.warnings:
        line(styled("warning:", "yellow"), f" {warning}", out=errors)
    timing = ", ".join(f"{stage} {seconds:.2f}s" for stage, seconds in report.timings.items())
    line(
        styled(
            f"layers {','.join(report.layers)} · rule {report.rule} · query "
            f"{report.query_mode} · claims {report.claims_method} · verifier "
            f"{report.verifier} · {timing}",
            "dim",
        )
    )
