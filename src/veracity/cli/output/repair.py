"""What ``veracity repair`` (and ``ask --repair``) prints: the diff, what happened to each claim
and on what evidence, and the summary."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from veracity.cli.output.evidence import evidence_line
from veracity.cli.render import Part, console, show, styled

if TYPE_CHECKING:
    from rich.console import Console

    from veracity.repair.result import RepairResult

__all__ = ["print_repair"]


_ACTION_MARK = {
    "kept": ("✓", "green"),
    "revised": ("✎", "cyan"),
    "deleted": ("✗", "red"),
    "flagged": ("?", "yellow"),
    "rejected": ("!", "yellow"),
    "failed": ("⚠", "red"),
    "refused": ("∅", "red"),
}


def _diff(result: RepairResult) -> Any:
    """The original answer with what the repair removed as ``[-...-]`` (struck through, red)
    and what it added as ``{+...+}`` (green), readable without colours too."""
    from rich.text import Text

    text = Text()
    cursor = 0
    for edit in result.edits:
        text.append(result.original[cursor : edit.original.start])
        if edit.before:
            text.append(f"[-{edit.before}-]", style="strike red")
        if edit.after:
            text.append(f"{{+{edit.after}+}}", style="bold green")
        cursor = edit.original.end
    text.append(result.original[cursor:])
    return text


def print_repair(result: RepairResult) -> None:
    """The diff, what happened to each claim and on what evidence, and the summary."""

    def line(*parts: Part, indent: int = 0, out: Console = console) -> None:
        show(*parts, out=out, indent=indent)

    console.print(_diff(result))
    console.print()
    line(styled("claims", "bold"))
    for item in result.claims:
        mark, colour = _ACTION_MARK[item.action]
        claim = item.claim
        line(
            styled(f"{mark} {item.action}", colour),
            f"  {claim.text}  ",
            styled(f"({item.label}; chars {claim.span.start}-{claim.span.end})", "dim"),
            indent=2,
        )
        if (item.reason and item.action != "kept") or item.agreement != "agrees":
            line(styled(item.reason, colour if item.action != "kept" else "dim"), indent=6)
        if item.edit is None and item.proposed is not None:
            line(styled("proposed: ", "bold"), item.proposed, indent=6)
        if item.failure is not None:
            line(styled(item.failure, "red"), indent=6)
        if item.action in ("kept", "revised", "deleted", "refused"):
            continue
        for question in item.questions:
            line(styled("searched: ", "dim"), question, indent=6)
        for title, passages in (
            ("supported by", item.supporting[:2]),
            ("contradicted by", item.contradicting[:2]),
        ):
            for passage in passages:
                evidence_line(title, passage, 6)
    if result.edits:
        console.print()
        line(styled("edits", "bold"))
    for edit in result.edits:
        line(
            styled(edit.kind, "cyan"),
            f"  {edit.before!r} -> {edit.after!r}  ",
            styled(
                f"(chars {edit.original.start}-{edit.original.end} -> "
                f"{edit.new.start}-{edit.new.end}; {edit.method})",
                "dim",
            ),
            indent=2,
        )
        for passage in edit.evidence[:1]:
            evidence_line("evidence", passage, 6)
    console.print()
    for note in result.notes:
        line(styled(note, "yellow"))
    before, after = result.attribution_before, result.attribution_after
    shown = (
        "refused"
        if result.refused
        else (f"{after.supported}/{after.claims}" if after.claims else "no claims left")
    )
    line(
        styled("attribution", "bold"),
        f" {before.supported}/{before.claims} claims supported "
        f"before, {shown} after · preservation {result.preservation.chars:.3f} (characters), "
        f"{result.preservation.words:.3f} (words) · {len(result.edits)} edit(s)",
    )
    for passage in result.attribution:
        line(
            styled("attributed to", "dim"),
            f" {passage.doc_id}, chars {passage.start}-{passage.end}",
            indent=2,
        )
    timing = ", ".join(f"{stage} {seconds:.2f}s" for stage, seconds in result.timings.items())
    calls = ", ".join(f"{name} {count}" for name, count in result.calls.items())
    line(
        styled(
            f"policy {result.policy} · query {result.query_mode} · verifier "
            f"{result.before.verifier} · {calls} · {timing}",
            "dim",
        )
    )
