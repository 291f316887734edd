"""What ``veracity search`` prints: the hits of a search."""

from __future__ import annotations

from typing import TYPE_CHECKING

from veracity.cli.render import console, errors, show, styled

if TYPE_CHECKING:
    from veracity.types import SearchResult

__all__ = ["print_search"]


def print_search(result: SearchResult) -> None:
    """The hits of a search, each with its document, section, page and character span."""
    confidence = result.confidence.to_dict()
    for note in result.notes:
        show(styled(note, "dim"), out=errors)
    show(
        styled(result.query, "bold"),
        f"  ({result.mode}; "
        + ", ".join(
            f"{name} {value:.3f}" for name, value in confidence.items() if value is not None
        )
        + ")",
        out=console,
    )
    if not result.hits:
        show("no passage matched", out=console)
    for hit in result.hits:
        chunk = hit.chunk
        where = " > ".join(chunk.section) or "—"
        page = (
            ""
            if chunk.page is None
            else f"  page {chunk.page}"
            + (f"-{chunk.page_end}" if chunk.page_end not in (None, chunk.page) else "")
        )
        show(
            "\n",
            styled(f"{hit.rank}.", "bold cyan"),
            " ",
            styled(chunk.doc_id, "bold"),
            f"  {chunk.title}",
            out=console,
        )
        reranked = ""
        if "rerank" in hit.scores:
            reranked = (
                f"  relevance {hit.scores['rerank']:.3f} (first stage "
                f"#{hit.scores['first_stage_rank']:.0f})"
            )
        show(
            f"section: {where}{page}  chars {chunk.start}-{chunk.end}  score {hit.score:.4f}"
            f"{reranked}",
            out=console,
            indent=3,
        )
        show(chunk.text, out=console, indent=3)
