"""What ``veracity index`` prints: the summary of the run, and each failure on standard error."""

from __future__ import annotations

from typing import TYPE_CHECKING

from veracity.cli.render import console, errors, show, styled

if TYPE_CHECKING:
    from veracity.corpus.indexer import IndexReport

__all__ = ["print_index"]


def print_index(report: IndexReport) -> None:
    """The summary line of an indexing run, and each failure (on standard error)."""
    show(
        f"indexed {report.files_indexed} file(s), {report.files_unchanged} unchanged, "
        f"{report.files_removed} removed, {_failed_summary(report)}: {report.documents} "
        f"documents, {report.chunks} chunks in {report.index} ({report.generation})",
        out=console,
    )
    dense = report.builders.get("dense", {})
    truncated = dense.get("truncated", 0)
    if isinstance(truncated, int) and truncated:
        window = dense.get("max_tokens", "its")
        show(
            styled("note:", "yellow"),
            f" {truncated} of {report.chunks} chunks are longer than "
            f"the dense model's window of {window} tokens, so their vectors stand for their "
            "beginning only (BM25 reads them whole); a smaller --chunk-tokens avoids it",
            out=console,
            wrap=True,
        )
    for failure in report.failures:  # the message starts with the path
        show(styled("skipped", "yellow"), f" {failure.message}", out=errors)


def _failed_summary(report: IndexReport) -> str:
    """``"2 failed (1 file, 1 line)"``: every failure the exit code counts, by kind."""
    kinds = [
        (report.files_failed, "file"),
        (report.lines_failed, "line"),
        (report.paths_failed, "path"),
    ]
    parts = [f"{count} {kind}{'' if count == 1 else 's'}" for count, kind in kinds if count]
    total = sum(count for count, _ in kinds)
    return f"{total} failed" + (f" ({', '.join(parts)})" if parts else "")
