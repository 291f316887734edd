"""The ``veracity`` command: a thin adapter over the library.

Exit codes: 0 success; 1 partial success (some inputs failed, the rest was done);
2 failure (nothing was done: bad options, missing index, unreadable input).
"""

from __future__ import annotations

import dataclasses
import json
import sys
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.console import Console

from veracity import defaults
from veracity.errors import VeracityError
from veracity.types import Hit, PairScore
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


@app.command("index")
def index(
    paths: Annotated[list[Path], typer.Argument(help="files and folders to index")],
    index_dir: Annotated[Path, typer.Option("--index", help="index folder (created if new)")],
    chunk_tokens: Annotated[int, typer.Option(help="chunk size in word tokens")]
    = defaults.CHUNK_TOKENS,
    overlap: Annotated[int, typer.Option(help="overlap between chunks in word tokens")]
    = defaults.CHUNK_OVERLAP,
    dense: Annotated[bool, typer.Option(help="also build dense (MiniLM) vectors")] = True,
    strict: Annotated[bool, typer.Option(help="stop at the first bad file; write nothing")]
    = False,
    as_json: Annotated[bool, typer.Option("--json", help="print the report as JSON")] = False,
) -> None:
    """Index documents (.txt .md .html .pdf .jsonl, or folders of them) for search.

    Unchanged files are skipped; a failure leaves the previous index live. Exit 0 when every
    file was indexed, 1 when some failed (the rest is indexed), 2 when nothing was written.
    """
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn

    from veracity.corpus.chunker import Chunker
    from veracity.corpus.indexer import Indexer
    from veracity.retrieve.bm25 import BM25Builder
    from veracity.retrieve.dense import DenseBuilder

    builders: list[Any] = [BM25Builder()]
    if dense:
        builders.append(DenseBuilder())
    try:
        with Progress(TextColumn("{task.description:<10}"), BarColumn(), MofNCompleteColumn(),
                      console=errors, disable=as_json, transient=True) as progress:
            tasks: dict[str, Any] = {}

            def update(stage: str, done: int, total: int) -> None:
                if stage not in tasks:
                    tasks[stage] = progress.add_task(stage, total=total)
                progress.update(tasks[stage], completed=done, total=total)

            report = Indexer(chunker=Chunker(size=chunk_tokens, overlap=overlap),
                             builders=builders, strict=strict, progress=update
                             ).run(paths, index_dir)
    except VeracityError as exc:
        raise fail(exc) from exc
    code = EXIT_PARTIAL if report.failures else EXIT_OK
    if as_json:
        emit_json(dataclasses.asdict(report) | {
            "failures": [f._asdict() for f in report.failures], "exit_code": code})
        raise typer.Exit(code)
    console.print(
        f"indexed {report.files_indexed} file(s), {report.files_unchanged} unchanged, "
        f"{report.files_removed} removed, {report.files_failed} failed: {report.documents} "
        f"documents, {report.chunks} chunks in {report.index} ({report.generation})")
    for failure in report.failures:
        errors.print(f"[yellow]skipped[/] {failure.path}: {failure.message}", highlight=False)
    raise typer.Exit(code)


def hit_payload(hit: Hit) -> dict[str, Any]:
    chunk = hit.chunk
    return {"rank": hit.rank, "score": hit.score, "scores": dict(hit.scores),
            "doc_id": chunk.doc_id, "title": chunk.title, "section": list(chunk.section),
            "page": chunk.page, "page_end": chunk.page_end, "start": chunk.start,
            "end": chunk.end, "chunk_id": chunk.id, "source": chunk.source, "text": chunk.text}


@app.command("search")
def search(
    query: Annotated[str, typer.Argument(help="what to look for")],
    index_dir: Annotated[Path, typer.Option("--index", help="index folder")],
    mode: Annotated[str, typer.Option(help="bm25, dense or hybrid")] = defaults.SEARCH_MODE,
    k: Annotated[int, typer.Option("-k", help="number of passages")] = defaults.TOP_K,
    as_json: Annotated[bool, typer.Option("--json", help="print JSON")] = False,
) -> None:
    """Search an index; each passage shows its document, section, page and character span."""
    from veracity.retrieve.open import open_retriever

    try:
        result = open_retriever(index_dir, mode=mode).run(query, k=k)
    except VeracityError as exc:
        raise fail(exc) from exc
    confidence = dataclasses.asdict(result.confidence)
    if as_json:
        emit_json({"query": result.query, "mode": result.mode, "confidence": confidence,
                   "hits": [hit_payload(hit) for hit in result.hits]})
        return
    console.print(f"[bold]{result.query}[/]  ({result.mode}; " + ", ".join(
        f"{name} {value:.3f}" for name, value in confidence.items() if value is not None) + ")")
    if not result.hits:
        console.print("no passage matched")
    for hit in result.hits:
        chunk = hit.chunk
        where = " > ".join(chunk.section) or "—"
        page = "" if chunk.page is None else f"  page {chunk.page}" + (
            f"-{chunk.page_end}" if chunk.page_end not in (None, chunk.page) else "")
        console.print(f"\n[bold cyan]{hit.rank}.[/] [bold]{chunk.doc_id}[/]  {chunk.title}\n"
                      f"   section: {where}{page}  chars {chunk.start}-{chunk.end}  "
                      f"score {hit.score:.4f}", highlight=False)
        console.print(f"   {chunk.text}", highlight=False, soft_wrap=False)


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
