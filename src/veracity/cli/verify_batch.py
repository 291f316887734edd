"""``veracity verify-batch``: verify a JSONL of answers into a resumable JSONL of reports."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, get_args

import typer

from veracity import defaults
from veracity.cli.application import (
    EXIT_OK,
    EXIT_PARTIAL,
    ConfigOption,
    IndexSearchOption,
    VerifierOption,
    choice_list,
    command_config,
    emit_json,
    fail,
    models_of,
    read_saved,
)
from veracity.cli.render import console, errors, show, styled
from veracity.errors import InputError, VeracityError

if TYPE_CHECKING:
    from veracity.batch import BatchSummary, Engine


#: What a batch can run: no consistency layer (it needs a chat model) and no logistic rule (it
#: needs --weights, which verify-batch has not).
_LAYERS = tuple(layer for layer in get_args(defaults.Layer) if layer != "consistency")
_RULES = tuple(rule for rule in get_args(defaults.Rule) if rule != "logistic")


def engine_of(workers: int | None, ray: bool, ray_address: str | None) -> Engine:
    """The engine of ``--workers``, ``--ray`` and ``--ray-address``."""
    from veracity.batch import LocalPool, RayData

    if ray or ray_address:
        return RayData(address=ray_address, workers=workers)
    return LocalPool(workers=workers)


def batch_progress(total_label: str, *, disable: bool) -> Any:
    """A progress bar on standard error with items per second and the time left."""
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        Progress,
        ProgressColumn,
        Task,
        TextColumn,
        TimeRemainingColumn,
    )
    from rich.text import Text

    class Rate(ProgressColumn):
        def render(self, task: Task) -> Text:
            speed = task.finished_speed or task.speed
            return Text("" if speed is None else f"{speed:.1f} {total_label}/s")

    return Progress(
        TextColumn("{task.description}", markup=False),
        BarColumn(),
        MofNCompleteColumn(),
        Rate(),
        TextColumn("eta"),
        TimeRemainingColumn(),
        console=errors,
        disable=disable,
        transient=True,
    )


def verify_batch_command(
    ctx: typer.Context,
    source: Annotated[
        Path,
        typer.Argument(
            help="JSONL input: one {id, answer, question?, sources?, cited?} object per line"
        ),
    ],
    out: Annotated[
        Path,
        typer.Option(
            help="JSONL output, one report per input line; run again with the same --out to resume"
        ),
    ],
    sources_field: Annotated[
        str | None,
        typer.Option(
            help="the field of each line holding its source texts, a list of strings (default: "
            "sources, unless --index is given)"
        ),
    ] = None,
    index_dir: Annotated[
        Path | None, typer.Option("--index", help="index folder to retrieve evidence from instead")
    ] = None,
    workers: Annotated[
        int | None, typer.Option(help="worker processes (Ray: actors); default one per core")
    ] = None,
    ray: Annotated[
        bool,
        typer.Option("--ray", help="run on Ray Data (a local Ray of --workers CPUs on 127.0.0.1)"),
    ] = False,
    ray_address: Annotated[
        str | None, typer.Option(help="run on the Ray cluster at this address (implies --ray)")
    ] = None,
    layers: Annotated[str, typer.Option(help=f"comma-separated: {', '.join(_LAYERS)}")] = ",".join(
        defaults.VERIFY_LAYERS
    ),
    rule: Annotated[
        str, typer.Option(help=f"combination: {choice_list(_RULES)}")
    ] = defaults.VERIFY_RULE,
    verifier: VerifierOption = defaults.VERIFIER,
    mode: IndexSearchOption = defaults.SEARCH_MODE,
    k: Annotated[int, typer.Option("-k", help="passages per claim")] = defaults.VERIFY_TOP_K,
    tau: Annotated[
        float, typer.Option(help="P(supported) a claim must reach")
    ] = defaults.VERIFY_TAU,
    window: Annotated[
        str,
        typer.Option(
            help="what the verifier reads per claim: "
            f"{choice_list(get_args(defaults.EvidenceWindow))}"
            " (passage: each passage on its own; focused: on its own each passage whose best "
            "sentences say the claim's words; claim: one window across its passages, about "
            "k times fewer pairs)"
        ),
    ] = defaults.NLI_WINDOW,
    report: Annotated[
        Path | None,
        typer.Option(
            help="also write the overview page of the whole output here (one offline HTML file; "
            "extra [report]); `veracity report` builds it later"
        ),
    ] = None,
    report_by: Annotated[
        list[str] | None,
        typer.Option(
            help="break the page's claim labels down by this field of the input lines or "
            "records (repeat for more)"
        ),
    ] = None,
    config_file: ConfigOption = None,
    as_json: Annotated[bool, typer.Option("--json", help="print the summary as JSON")] = False,
) -> None:
    """Verify every answer of a JSONL file; write one report per line to --out.

    With --report, the overview page of the whole output is written when the run ends (see
    `veracity report`, which builds it from an output without running again).

    Each output line is the report of one input id (what `veracity verify --json` prints, with
    the id and line in front), or an error record {id, line, error: {reason, message}} for a
    line that could not be verified. A run killed at any point and run again with the same
    --out finishes the job: every input line ends up in the output exactly once. Exit 0 when
    every line was verified and every claim judged; 1 when some lines or claims failed (the
    rest is written); 2 on bad options or unreadable input.
    """
    from veracity.batch import VerifyBatch
    from veracity.config import BatchConfig

    try:
        if report_by and report is None:
            raise InputError(
                "--report-by names the fields of the overview page: give the "
                "page's file too, e.g. --report overview.html"
            )
        saved = None if config_file is None else read_saved(config_file)
        if saved is None and (sources_field is None) == (index_dir is None):
            if sources_field is None and index_dir is None:
                sources_field = defaults.BATCH_SOURCES_FIELD
            else:
                raise InputError(
                    "give the evidence one way: --sources-field FIELD (each line "
                    "brings its source texts) or --index DIR, not both"
                )
        config = command_config(
            ctx,
            BatchConfig,
            saved,
            {
                "sources_field": ("sources_field", sources_field),
                "index_dir": ("index", None if index_dir is None else str(index_dir)),
                "layers": ("layers", layers),
                "rule": ("rule", rule),
                "verifier": ("verifier", verifier),
                "mode": ("mode", mode),
                "k": ("k", k),
                "tau": ("tau", tau),
                "window": ("window", window),
            },
        )
        job = VerifyBatch(config, models_of(ctx), engine_of(workers, ray, ray_address))
        with batch_progress("answers", disable=as_json) as progress:
            task = progress.add_task(
                f"verify ({job.engine.name}, {job.engine.workers} "
                f"worker{'s' if job.engine.workers != 1 else ''})",
                total=None,
            )

            def update(done: int, total: int, claims: int) -> None:
                progress.update(task, completed=done, total=total)

            summary = job.run(source, out, progress=update)
    except VeracityError as exc:
        raise fail(exc) from exc
    code = EXIT_PARTIAL if summary.failures or summary.pending else EXIT_OK
    overview = None
    if report is not None:
        from veracity.batch.overview import overview_of

        try:
            overview = overview_of(out, answers=source, by=tuple(report_by or ()))
            overview.save(report)
        except VeracityError as exc:
            show(
                styled("the batch is done, the overview is not:", "yellow"),
                " build it with "
                f"`veracity report {out} --answers {source} --out {report}` once this is "
                "fixed",
                out=errors,
            )
            raise fail(exc) from exc
    if as_json:
        extra = (
            {} if overview is None else {"report": str(report), "report_seconds": overview.seconds}
        )
        emit_json(summary.to_dict() | extra | {"exit_code": code})
        raise typer.Exit(code)
    print_batch(summary)
    if overview is not None:
        show(f"overview: {report} ({overview.seconds:.1f} s)", out=console)
    raise typer.Exit(code)


def print_batch(summary: BatchSummary) -> None:
    """The totals of the output and the run's throughput line."""
    counts = summary.counts
    show(
        f"{summary.output}: {counts['answers']} answers verified, {counts['errors']} failed; "
        f"{counts['claims']} claims: {counts['supported']} supported, "
        f"{counts['contradicted']} contradicted, {counts['unsupported']} unsupported"
        + (f", {counts['unchecked']} unchecked" if counts["unchecked"] else "")
        + (f", {counts['claim_failures']} not judged" if counts["claim_failures"] else ""),
        out=console,
    )
    if summary.done_before:
        show(styled(f"resumed: {summary.done_before} line(s) were already done", "dim"), out=errors)
    if counts["errors"]:
        show(
            styled(f"{counts['errors']} line(s) failed:", "yellow"),
            f" their records in {summary.output} hold an error with the reason and the fix",
            out=errors,
        )
    show(
        f"{summary.written} record(s) in {summary.seconds:.1f} s: "
        f"{summary.answers_per_second:.2f} answers/s, {summary.claims_per_second:.2f} "
        f"claims/s ({summary.engine}, {summary.workers} worker"
        f"{'s' if summary.workers != 1 else ''})",
        out=console,
    )
