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
from veracity.types import PairScore
from veracity.verify.base import PairScorer

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


def read_text_or_file(value: str) -> str:
    """``value`` itself, or the text of the file it names."""
    path = Path(value)
    if len(value) < 4096 and "\n" not in value and path.is_file():
        try:
            return path.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            raise fail(VeracityError(f"{path}: cannot read it as UTF-8 text ({exc})")) from exc
    return value


def score_payload(premise: str, claim: str, score: PairScore) -> dict[str, Any]:
    return {
        "claim": claim,
        "label": score.label,
        "supported": score.supported,
        "contradicted": score.contradicted,
        "neither": score.neither,
        "window": [score.window.start, score.window.end],
        "windows": score.windows,
        "evidence": [{"start": s.start, "end": s.end, "text": s.of(premise)}
                     for s in score.evidence],
    }


@app.command("check")
def check(
    premise: Annotated[str | None, typer.Option(help="premise text, or a file holding it")] = None,
    claim: Annotated[str | None, typer.Option(help="the claim to check")] = None,
    batch: Annotated[Path | None, typer.Option(
        help="JSONL file of {premise, claim} rows (an `id` is passed through)")] = None,
    verifier: Annotated[str, typer.Option(help="embedded, lexical, cosine or hf:<model>")]
    = "embedded",
    as_json: Annotated[bool, typer.Option("--json", help="print JSON")] = False,
) -> None:
    """Does the premise support the claim? One pair, or a JSONL batch (JSONL out)."""
    from veracity.verify.registry import make_verifier

    try:
        scorer = make_verifier(verifier).load()
        if batch is not None:
            raise typer.Exit(check_batch(scorer, batch))
        if premise is None or claim is None:
            raise VeracityError("give --premise and --claim, or --batch FILE.jsonl")
        text = read_text_or_file(premise)
        result = scorer.run([text], [claim])
    except VeracityError as exc:
        raise fail(exc) from exc
    payload = score_payload(text, claim, result.scores[0]) | {"model": result.model_id,
                                                               "version": result.model_version}
    if as_json:
        emit_json(payload)
        return
    colour = {"supported": "green", "contradicted": "red"}.get(payload["label"], "yellow")
    console.print(f"[bold {colour}]{payload['label']}[/]  supported {payload['supported']:.3f}  "
                  f"contradicted {payload['contradicted']:.3f}  neither {payload['neither']:.3f}"
                  f"  ({result.model_id} {result.model_version})")
    for part in payload["evidence"]:
        console.print(f"  evidence [{part['start']}:{part['end']}] {part['text']}",
                      highlight=False)


def check_batch(scorer: PairScorer, path: Path, chunk: int = 64) -> int:
    """Score a JSONL file of pairs to stdout as JSONL; returns the exit code."""
    from rich.progress import track

    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError) as exc:
        raise VeracityError(f"{path}: cannot read it ({exc})") from exc
    rows: list[dict[str, Any]] = []
    failed = 0
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
            if not isinstance(row, dict) or not isinstance(row.get("premise"), str) or \
                    not isinstance(row.get("claim", row.get("hypothesis")), str):
                raise ValueError("need string fields premise and claim")
        except ValueError as exc:
            errors.print(f"{path}:{number}: skipped: {exc}")
            failed += 1
            continue
        rows.append(row)
    for first in track(range(0, len(rows), chunk), description="checking", console=errors):
        part = rows[first:first + chunk]
        claims = [str(row.get("claim", row.get("hypothesis"))) for row in part]
        result = scorer.run([row["premise"] for row in part], claims)
        for row, claim_text, score in zip(part, claims, result.scores, strict=True):
            out = score_payload(row["premise"], claim_text, score)
            if "id" in row:
                out = {"id": row["id"]} | out
            sys.stdout.write(json.dumps(out, ensure_ascii=False) + "\n")
    return EXIT_PARTIAL if failed else EXIT_OK


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
