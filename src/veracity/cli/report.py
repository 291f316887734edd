"""``veracity report``: the overview page of a finished verify-batch output."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from veracity import defaults
from veracity.cli.application import EXIT_OK, emit_json, fail
from veracity.cli.render import console, show
from veracity.errors import VeracityError

if TYPE_CHECKING:
    from veracity.batch.overview import Overview


def report_command(
    results: Annotated[
        Path, typer.Argument(help="the JSONL that `veracity verify-batch --out` wrote")
    ],
    out: Annotated[Path, typer.Option(help="the HTML page to write (one offline file)")],
    by: Annotated[
        list[str] | None,
        typer.Option(
            help="break claim labels down by this field of the records, or of their input lines "
            "with --answers (repeat for more)"
        ),
    ] = None,
    answers: Annotated[
        Path | None,
        typer.Option(help="the JSONL verify-batch read, for --by fields only its lines hold"),
    ] = None,
    worst: Annotated[
        int, typer.Option(help="answers shown with their claims, worst first")
    ] = defaults.OVERVIEW_WORST,
    as_json: Annotated[
        bool, typer.Option("--json", help="print what the page shows as JSON")
    ] = False,
) -> None:
    """Write the overview page of a verify-batch output: counts, the histogram of claim
    support, claim labels by evidence document and by --by fields, the worst answers with
    their claims highlighted, and the failed records.

    The page is one self-contained HTML file that loads nothing (no scripts, no URLs). Needs
    the [report] extra (matplotlib). Exit 0 when the page is written, 2 on bad input (the
    error names the file, the line and the fix).
    """
    from veracity.batch.overview import overview_of

    try:
        overview = overview_of(results, answers=answers, by=tuple(by or ()), worst=worst)
        overview.save(out)
    except VeracityError as exc:
        raise fail(exc) from exc
    if as_json:
        emit_json(overview.to_dict() | {"output": str(out), "exit_code": EXIT_OK})
        raise typer.Exit(EXIT_OK)
    print_overview(overview, out)


def print_overview(overview: Overview, out: Path) -> None:
    """One line: where the page is and what it covers."""
    counts = overview.counts
    show(
        f"{out}: overview of {counts['records']} records ({counts['answers']} answers, "
        f"{counts['errors']} failed; {counts['claims']} claims) in {overview.seconds:.1f} s",
        out=console,
    )
