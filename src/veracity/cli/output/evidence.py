"""One passage read as evidence, as ``verify`` and ``repair`` print it."""

from __future__ import annotations

from typing import TYPE_CHECKING

from veracity.cli.render import console, show, styled

if TYPE_CHECKING:
    from veracity.types import EvidenceJudgement

__all__ = ["evidence_line", "quote"]


def quote(judgement: EvidenceJudgement) -> str:
    """The passage's evidence spans joined by " … ", each on one line (the whole passage when
    it has none)."""
    parts = [
        judgement.text[s.start - judgement.start : s.end - judgement.start]
        for s in judgement.evidence
    ] or [judgement.text]
    return " … ".join(" ".join(part.split()) for part in parts)


def evidence_line(title: str, item: EvidenceJudgement, indent: int) -> None:
    """A passage's document, section, page, span and scores, then its quoted evidence."""
    where = " > ".join(item.section)
    page = (
        ""
        if item.page is None
        else f", page {item.page}"
        + (f"-{item.page_end}" if item.page_end not in (None, item.page) else "")
    )
    show(
        styled(title, "bold"),
        f" {item.doc_id}{' · ' + where if where else ''}{page}, chars "
        f"{item.start}-{item.end} (supported {item.supported:.2f}, contradicted "
        f"{item.contradicted:.2f})",
        out=console,
        indent=indent,
    )
    show(f"“{quote(item)}”", out=console, indent=indent + 2)
