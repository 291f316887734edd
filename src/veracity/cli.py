"""The ``veracity`` command: a thin adapter over the library.

Exit codes: 0 success; 1 partial success (some inputs failed, the rest was done);
2 failure (nothing was done: bad options, missing index, unreadable input).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.console import Console

from veracity.errors import VeracityError

app = typer.Typer(
    name="veracity",
    help="Grounded answers with checkable citations, and claim verification, offline on a CPU.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)
console = Console()
errors = Console(stderr=True)

EXIT_OK = 0
EXIT_PARTIAL = 1
EXIT_FAILED = 2


def fail(exc: Exception) -> typer.Exit:
    """Print an error the user can act on and return the failure exit."""
    errors.print(f"[bold red]error:[/] {exc}", highlight=False)
    return typer.Exit(EXIT_FAILED)


@app.callback()
def _root() -> None:
    """Grounded answers with checkable citations, and claim verification, offline on a CPU."""


def emit_json(payload: Any) -> None:
    sys.stdout.write(json.dumps(payload, indent=2, ensure_ascii=False) + "\n")


@app.command("train-verifier")
def train_verifier(
    data: Annotated[Path, typer.Option(help="folder with train.jsonl and val.jsonl")],
    out: Annotated[Path, typer.Option(help="run folder; an existing run is resumed")],
    seed: int = 13,
    examples: Annotated[int, typer.Option(help="training examples to see in total")] = 60_000,
    max_tokens: int = 128,
    batch_size: int = 16,
    learning_rate: float = 5e-5,
    threads: int = 2,
    time_limit: Annotated[float | None, typer.Option(
        help="stop cleanly after this many seconds; run again to resume")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="print the report as JSON")] = False,
) -> None:
    """Fine-tune the verifier (needs the [train] extra); resumes from the last checkpoint."""
    from rich.progress import BarColumn, Progress, TextColumn, TimeRemainingColumn

    from veracity.train.trainer import TrainConfig, Trainer

    try:
        config = TrainConfig(data_dir=data, out_dir=out, seed=seed, examples=examples,
                             max_tokens=max_tokens, batch_size=batch_size,
                             learning_rate=learning_rate, threads=threads)
        with Progress(TextColumn("training"), BarColumn(), TextColumn("{task.completed}/"
                      "{task.total} steps loss {task.fields[loss]:.3f}"), TimeRemainingColumn(),
                      console=errors, disable=as_json) as progress:
            task = progress.add_task("train", total=config.steps, loss=float("nan"))

            def update(step: int, total: int, loss: float) -> None:
                progress.update(task, completed=step, loss=loss)

            report = Trainer(config, progress=update).run(time_limit=time_limit)
    except VeracityError as exc:
        raise fail(exc) from exc
    payload = {"step": report.step, "steps": report.steps, "finished": report.finished,
               "seconds": round(report.seconds, 1), "checkpoint": str(report.checkpoint),
               "evaluations": list(report.evaluations)}
    if as_json:
        emit_json(payload)
    else:
        state = "finished" if report.finished else "stopped (run again to resume)"
        console.print(f"{state} at step {report.step}/{report.steps}; "
                      f"checkpoint {report.checkpoint}")
        for evaluation in report.evaluations[-3:]:
            console.print(evaluation)


def main() -> None:
    app()


if __name__ == "__main__":
    main()
