"""The ``veracity`` command: a thin adapter over the library.

Exit codes: 0 success; 1 partial success (some inputs failed, the rest was done);
2 failure (nothing was done: bad options, missing index, unreadable input).
"""

from __future__ import annotations

import dataclasses
import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from veracity import defaults
from veracity.errors import InputError, OptionError, VeracityError
from veracity.render import Part, make_console, show, styled
from veracity.types import (
    Answer,
    Chunk,
    Citation,
    EvidenceJudgement,
    Hit,
    InvalidCitation,
    PairScore,
    Report,
)
from veracity.verify.base import PairScorer

if TYPE_CHECKING:
    from rich.console import Console

    from veracity.generate.abstain import Abstainer
    from veracity.generate.calibration import StoredCalibration
    from veracity.llm.base import ChatModel

app = typer.Typer(
    name="veracity",
    help="Grounded answers with checkable citations, and claim verification, offline on a CPU.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,  # help text is shown as written: "[train]", "[n]" stay
)
console = make_console()
errors = make_console(stderr=True)

EXIT_OK = 0
EXIT_PARTIAL = 1
EXIT_FAILED = 2


#: Library option names that a command spells otherwise (``Chunker(size=...)`` is
#: ``--chunk-tokens``); any other name that is one of the command's options is spelt as its flag.
_LIBRARY_NAMES = {"index": {"size": "chunk_tokens"}, "calibrate": {"hits": "k"}}


def cli_names() -> dict[str, str]:
    """The current command's flags by library option name, e.g. ``{"k": "-k"}``."""
    try:  # typer 0.2x carries its own copy of click
        from typer._click.globals import get_current_context
    except ImportError:  # pragma: no cover - older typer
        from click import get_current_context  # type: ignore[no-redef,unused-ignore]

    context = get_current_context(silent=True)
    if context is None:
        return {}
    flags = {param.name: param.opts[0] for param in context.command.params
             if param.param_type_name == "option" and param.name and param.opts}
    names = dict(flags)
    for library, option in _LIBRARY_NAMES.get(context.info_name or "", {}).items():
        if option in flags:
            names[library] = flags[option]
    return names


def fail(exc: Exception) -> typer.Exit:
    """Print an error the user can act on and return the failure exit.

    An option error names the option as the user typed it (``--chunk-tokens 0``), not as the
    Python API spells it (``size=0``).
    """
    message = exc.message(cli_names()) if isinstance(exc, OptionError) else str(exc)
    show(styled("error:", "bold red"), f" {message}", out=errors)
    return typer.Exit(EXIT_FAILED)


@app.callback()
def _root() -> None:
    """Grounded answers with checkable citations, and claim verification, offline on a CPU."""


def emit_json(payload: Any) -> None:
    sys.stdout.write(json.dumps(payload, indent=2, ensure_ascii=False) + "\n")


#: Extensions of the files veracity reads; a value ending in one is taken for a file name.
_FILE_SUFFIXES = (".txt", ".md", ".markdown", ".html", ".htm", ".pdf", ".jsonl", ".json",
                  ".csv", ".text", ".rst")


def looks_like_path(value: str) -> bool:
    """Whether ``value`` reads as a file name rather than text: one word that ends in a file
    extension veracity reads, or starts like a path (``/``, ``./``, ``../``, ``~/``).

    >>> looks_like_path("examples/answer_to_chek.md"), looks_like_path("Bees dance.")
    (True, False)
    >>> looks_like_path("TCP/IP"), looks_like_path("./notes")
    (False, True)
    """
    word = value.strip()
    if not word or any(character.isspace() for character in word):
        return False
    return word.lower().endswith(_FILE_SUFFIXES) or word.startswith(("/", "./", "../", "~/"))


def read_text_or_file(value: str, option: str) -> str:
    """The text of the file ``value`` names, or ``value`` itself when it is text.

    ``-`` reads standard input. A value that looks like a file name (see
    :func:`looks_like_path`) but names no readable file is an error, never checked as text.
    """
    if value == "-":
        return sys.stdin.read()
    if len(value) >= 4096 or "\n" in value or "\0" in value:
        return value
    path = Path(value).expanduser()
    try:
        exists, is_dir, is_file = path.exists(), path.is_dir(), path.is_file()
    except OSError:  # a name too long to be a file
        exists = is_dir = is_file = False
    if looks_like_path(value):
        if not exists:
            raise InputError(
                f"{option} {value}: no such file (the current folder is {Path.cwd()}); check "
                f"the name, or to check this text itself write it in a file and give that")
        if is_dir:
            raise InputError(f"{option} {value}: is a folder; give a file")
    elif not is_file:
        return value
    try:
        return path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise InputError(f"{option} {value}: cannot read it as UTF-8 text ({exc})") from exc


def gives_probabilities(scorer: PairScorer) -> bool:
    """Whether ``scorer``'s ``supported`` is a probability (the baselines give similarities)."""
    return bool(getattr(scorer, "scores_are_probabilities", True))


def score_payload(premise: str, claim: str, score: PairScore, *,
                  probabilities: bool = True) -> dict[str, Any]:
    """One scored pair as JSON. A similarity scorer's pair has no label (``null``): its score
    is not a probability, so there is no threshold to read one off."""
    return {
        "claim": claim,
        "label": score.label if probabilities else None,
        "probabilities": probabilities,
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
        with Progress(TextColumn("{task.description:<10}", markup=False), BarColumn(),
                      MofNCompleteColumn(), console=errors, disable=as_json,
                      transient=True) as progress:
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
    show(f"indexed {report.files_indexed} file(s), {report.files_unchanged} unchanged, "
         f"{report.files_removed} removed, {report.files_failed} failed: {report.documents} "
         f"documents, {report.chunks} chunks in {report.index} ({report.generation})",
         out=console)
    for failure in report.failures:
        show(styled("skipped", "yellow"), f" {failure.path}: {failure.message}", out=errors)
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
    show(styled(result.query, "bold"), f"  ({result.mode}; " + ", ".join(
        f"{name} {value:.3f}" for name, value in confidence.items() if value is not None) + ")",
         out=console)
    if not result.hits:
        show("no passage matched", out=console)
    for hit in result.hits:
        chunk = hit.chunk
        where = " > ".join(chunk.section) or "—"
        page = "" if chunk.page is None else f"  page {chunk.page}" + (
            f"-{chunk.page_end}" if chunk.page_end not in (None, chunk.page) else "")
        show("\n", styled(f"{hit.rank}.", "bold cyan"), " ", styled(chunk.doc_id, "bold"),
             f"  {chunk.title}", out=console)
        show(f"section: {where}{page}  chars {chunk.start}-{chunk.end}  score {hit.score:.4f}",
             out=console, indent=3)
        show(chunk.text, out=console, indent=3)


@app.command("check")
def check(
    premise: Annotated[str | None, typer.Option(
        help="premise text, or a file holding it (- reads standard input)")] = None,
    claim: Annotated[str | None, typer.Option(help="the claim to check")] = None,
    batch: Annotated[Path | None, typer.Option(
        help="JSONL file of {premise, claim} rows (an `id` is passed through)")] = None,
    verifier: Annotated[str, typer.Option(help="embedded, lexical, cosine, align or hf:<model>")]
    = "embedded",
    as_json: Annotated[bool, typer.Option("--json", help="print JSON")] = False,
) -> None:
    """Does the premise support the claim? One pair, or a JSONL batch (JSONL out)."""
    try:
        scorer = verifier_factory(verifier).load()
        if batch is not None:
            raise typer.Exit(check_batch(scorer, batch))
        if premise is None or claim is None:
            raise VeracityError("give --premise and --claim, or --batch FILE.jsonl")
        text = read_text_or_file(premise, "--premise")
        result = scorer.run([text], [claim])
    except VeracityError as exc:
        raise fail(exc) from exc
    payload = score_payload(text, claim, result.scores[0],
                            probabilities=gives_probabilities(scorer))
    payload |= {"model": result.model_id, "version": result.model_version}
    if as_json:
        emit_json(payload)
        return
    if not payload["probabilities"]:
        show(f"similarity {payload['supported']:.3f}  ({result.model_id} "
             f"{result.model_version}: a similarity in [0, 1], not a probability; "
             "choose a threshold on your own data)", out=console)
    else:
        colour = {"supported": "green", "contradicted": "red"}.get(payload["label"], "yellow")
        show(styled(payload["label"], f"bold {colour}"),
             f"  supported {payload['supported']:.3f}  contradicted "
             f"{payload['contradicted']:.3f}  neither {payload['neither']:.3f}  "
             f"({result.model_id} {result.model_version})", out=console)
    for part in payload["evidence"]:
        show(f"evidence [{part['start']}:{part['end']}] {part['text']}", out=console, indent=2)


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
            show(f"{path}:{number}: skipped: {exc}", out=errors)
            failed += 1
            continue
        rows.append(row)
    probabilities = gives_probabilities(scorer)
    for first in track(range(0, len(rows), chunk), description="checking", console=errors):
        part = rows[first:first + chunk]
        claims = [str(row.get("claim", row.get("hypothesis"))) for row in part]
        result = scorer.run([row["premise"] for row in part], claims)
        for row, claim_text, score in zip(part, claims, result.scores, strict=True):
            out = score_payload(row["premise"], claim_text, score, probabilities=probabilities)
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
    exclude_kind: Annotated[list[str] | None, typer.Option(
        help="leave out training rows of this kind (repeat for more), e.g. public")] = None,
    init_from: Annotated[Path | None, typer.Option(
        help="start from this RUN/checkpoint folder instead of all-MiniLM-L6-v2")] = None,
    distill_weight: Annotated[float, typer.Option(
        help="weight of the term that pulls P(supported) toward the teacher's calibrated "
             "probability (0: labels only)")] = 0.0,
    teacher: Annotated[str, typer.Option(
        help="teacher to distil: align (token alignment on the selected evidence)")] = "align",
    distill_skip_contradicted: Annotated[bool, typer.Option(
        help="no distillation target for rows labelled contradicted (align cannot see a "
             "contradiction)")] = False,
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
                             learning_rate=learning_rate, threads=threads,
                             exclude_kinds=tuple(exclude_kind or ()), init_from=init_from,
                             distill_weight=distill_weight, teacher=teacher,
                             distill_skip_contradicted=distill_skip_contradicted)
        with Progress(TextColumn("{task.description}", markup=False), BarColumn(),
                      TextColumn("{task.completed}/{task.total} {task.fields[unit]}", markup=False),
                      TimeRemainingColumn(), console=errors, disable=as_json) as progress:
            task = progress.add_task("training", total=config.steps, unit="steps")
            teaching = None

            def update(step: int, total: int, loss: float) -> None:
                progress.update(task, completed=step, unit=f"steps loss {loss:.3f}")

            def update_teacher(done: int, total: int) -> None:
                nonlocal teaching
                if teaching is None:
                    teaching = progress.add_task(f"teacher ({teacher})", total=total,
                                                 unit="rows")
                progress.update(teaching, completed=done)

            report = Trainer(config, progress=update, teacher_progress=update_teacher).run(
                time_limit=time_limit)
    except VeracityError as exc:
        raise fail(exc) from exc
    payload = {"step": report.step, "steps": report.steps, "finished": report.finished,
               "seconds": round(report.seconds, 1), "checkpoint": str(report.checkpoint),
               "evaluations": list(report.evaluations)}
    if as_json:
        emit_json(payload)
    else:
        state = "finished" if report.finished else "stopped (run again to resume)"
        show(f"{state} at step {report.step}/{report.steps}; checkpoint {report.checkpoint}",
             out=console)
        for evaluation in report.evaluations[-3:]:
            show(json.dumps(evaluation, ensure_ascii=False), out=console)


@app.command("train-reranker")
def train_reranker(
    data: Annotated[Path, typer.Option(
        help="folder with train.jsonl and val.jsonl from python -m veracity.train.data.rerank")],
    out: Annotated[Path, typer.Option(help="run folder; an existing run is resumed")],
    seed: int = 13,
    examples: Annotated[int, typer.Option(help="training pairs to see in total")] = 32_000,
    max_tokens: Annotated[int, typer.Option(help="window of a (query, passage) pair")] = 192,
    batch_size: int = 16,
    learning_rate: float = 5e-5,
    threads: int = 2,
    eval_every: Annotated[int, typer.Option(help="steps between validation runs")] = 500,
    eval_rows: Annotated[int, typer.Option(help="validation pairs scored each time")] = 600,
    time_limit: Annotated[float | None, typer.Option(
        help="stop cleanly after this many seconds; run again to resume")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="print the report as JSON")] = False,
) -> None:
    """Fine-tune the (query, passage) reranker (needs the [train] extra); resumes from the last
    checkpoint."""
    from rich.progress import BarColumn, Progress, TextColumn, TimeRemainingColumn

    from veracity.train.trainer import TrainConfig, Trainer

    try:
        config = TrainConfig(data_dir=data, out_dir=out, seed=seed, examples=examples,
                             max_tokens=max_tokens, batch_size=batch_size,
                             learning_rate=learning_rate, threads=threads, eval_every=eval_every,
                             eval_rows=eval_rows, task="rerank")
        with Progress(TextColumn("{task.description}", markup=False), BarColumn(),
                      TextColumn("{task.completed}/{task.total} {task.fields[unit]}", markup=False),
                      TimeRemainingColumn(), console=errors, disable=as_json) as progress:
            task = progress.add_task("training", total=config.steps, unit="steps")

            def update(step: int, total: int, loss: float) -> None:
                progress.update(task, completed=step, unit=f"steps loss {loss:.3f}")

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
        show(f"{state} at step {report.step}/{report.steps}; checkpoint {report.checkpoint}",
             out=console)
        for evaluation in report.evaluations[-3:]:
            show(json.dumps(evaluation, ensure_ascii=False), out=console)


@app.command("export-verifier")
def export_verifier(
    data: Annotated[Path, typer.Option(help="the training data folder (card.json, val.jsonl)")],
    checkpoint: Annotated[Path | None, typer.Option(
        help="RUN/checkpoint folder of train-verifier")] = None,
    from_verifier: Annotated[Path | None, typer.Option(
        help="instead of a checkpoint: a verifier exported without an aligner, whose network is "
             "kept (to add the aligner and refit the combiner)")] = None,
    aligner: Annotated[bool, typer.Option(
        help="merge all-MiniLM-L6-v2 into the model for the combiner's alignment feature")] = True,
    out: Annotated[Path, typer.Option(help="where to write the verifier")] = Path(
        "src/veracity/assets/verifier"),
    version: Annotated[str, typer.Option(help="version string recorded in the model")] = "dev",
    combine: Annotated[bool, typer.Option(help="fit the combiner on validation rows")] = True,
    combiner_rows: Annotated[str, typer.Option(
        help="validation rows that fit the combiner: unseen (the kinds left out of training "
             "with --exclude-kind), rag (all but public NLI and contradiction perturbations), "
             "all (as 0.1.0 was), or auto (unseen if the run left kinds out, else rag)")] = "auto",
    combiner_train_rows: Annotated[int, typer.Option(
        help="with unseen rows: training rows of those kinds that join the fit")] = (
        defaults.COMBINER_TRAIN_ROWS),
    as_json: Annotated[bool, typer.Option("--json", help="print the report as JSON")] = False,
) -> None:
    """Export a checkpoint to int8 ONNX with its combiner and model card (needs [train])."""
    from veracity.train.release import release_verifier

    if (checkpoint is None) == (from_verifier is None):
        raise fail(OptionError("checkpoint", checkpoint, "either --checkpoint RUN/checkpoint or "
                                                        "--from-verifier DIR, not both or neither"))
    source = ("--checkpoint RUN/checkpoint" if checkpoint is not None
              else "--from-verifier VERIFIER")
    command = (f"veracity export-verifier {source} --data DATA "
               f"--version {version}" + ("" if combine else " --no-combine")
               + ("" if aligner else " --no-aligner")
               + ("" if combiner_rows == "auto" else f" --combiner-rows {combiner_rows}")
               + ("" if combiner_train_rows == defaults.COMBINER_TRAIN_ROWS
                  else f" --combiner-train-rows {combiner_train_rows}"))
    try:
        report = release_verifier(checkpoint, data, out, version=version, command=command,
                                  combine=combine, combiner=combiner_rows,
                                  train_rows=combiner_train_rows, aligner=aligner,
                                  from_verifier=from_verifier)
    except VeracityError as exc:
        raise fail(exc) from exc
    payload = {"directory": str(report.directory), "model_bytes": report.model_bytes,
               "validation": report.validation}
    if as_json:
        emit_json(payload)
    else:
        show(f"wrote {report.directory} ({report.model_bytes / 1e6:.1f} MB)", out=console)
        for name, value in report.validation.items():
            show(f"{name}: {value:.4f}", out=console, indent=2)


@app.command("export-embedder")
def export_embedder_command(
    out: Annotated[Path, typer.Option(help="where to write the embedder")] = Path(
        "src/veracity/assets/embedder"),
    as_json: Annotated[bool, typer.Option("--json", help="print the report as JSON")] = False,
) -> None:
    """Export all-MiniLM-L6-v2 as the shipped int8 embedder with its card (needs [train])."""
    from veracity.train.embedder import export_embedder

    command = "veracity export-embedder" + (
        "" if out == Path("src/veracity/assets/embedder") else " --out DIR")
    try:
        report = export_embedder(out, command=command)
    except VeracityError as exc:
        raise fail(exc) from exc
    payload = {"directory": str(report.directory), "model_bytes": report.model_bytes,
               "seconds": round(report.seconds, 1), "min_cosine_to_legacy": report.min_cosine}
    if as_json:
        emit_json(payload)
        return
    show(f"wrote {report.directory} ({report.model_bytes / 1e6:.1f} MB) in "
         f"{report.seconds:.0f} s; lowest cosine to the old embedder {report.min_cosine:.4f}",
         out=console)


# --- ask and calibrate ---------------------------------------------------------------------------
_MARKS = {
    "supported": ("✓", "green", "supported by its citation"),
    "unsupported": ("✗", "red", "unsupported"),
    "invalid_citation": ("!", "red", "invalid citation"),
    "citation_attached": ("+", "cyan", "citation attached"),
    "uncited": ("?", "yellow", "uncited"),
    "not_factual": ("·", "dim", "not factual"),
    "error": ("⚠", "red", "not verified"),
}


def chat_factory(spec: str, model: str | None, scorer: PairScorer) -> ChatModel:
    """The chat model of ``--llm``/``--model`` (tests replace this function)."""
    from veracity.generate.chat import make_chat

    return make_chat(spec, model=model, scorer=scorer)


def verifier_factory(name: str) -> PairScorer:
    """The verifier of ``--verifier`` (tests replace this function)."""
    from veracity.verify.registry import make_verifier

    return make_verifier(name)


def citation_payload(citation: Citation) -> dict[str, Any]:
    return {"marker": citation.marker,
            "span": None if citation.span is None else [citation.span.start, citation.span.end],
            "attached": citation.attached, "support": citation.support, "error": citation.error,
            "chunk_id": citation.chunk_id, "doc_id": citation.doc_id, "title": citation.title,
            "section": list(citation.section), "page": citation.page,
            "page_end": citation.page_end, "start": citation.start, "end": citation.end,
            "evidence": [[span.start, span.end] for span in citation.evidence]}


def answer_payload(answer: Answer) -> dict[str, Any]:
    def invalid(items: tuple[InvalidCitation, ...]) -> list[dict[str, Any]]:
        return [{"marker": item.marker, "span": [item.span.start, item.span.end],
                 "reason": item.reason} for item in items]

    status = "abstained" if answer.abstained else "refused" if answer.refused else "answered"
    abstention = None
    if answer.abstention is not None:
        abstention = dataclasses.asdict(answer.abstention) | {"reason": answer.abstention.reason}
    refusal = None
    if answer.refusal is not None:
        refusal = {"pattern": answer.refusal.pattern, "language": answer.refusal.language,
                   "span": [answer.refusal.span.start, answer.refusal.span.end],
                   "text": answer.refusal.text}
    provenance = None
    if answer.provenance is not None:
        provenance = dataclasses.asdict(answer.provenance) | {"prompt": answer.provenance.prompt}
    return {
        "question": answer.question,
        "status": status,
        "text": answer.text,
        "abstained": answer.abstained,
        "abstention": abstention,
        "refused": answer.refused,
        "refusal": refusal,
        "sentences": [
            {"index": s.index, "span": [s.span.start, s.span.end], "text": s.text,
             "claim": s.claim, "status": s.status, "support": s.support, "failure": s.failure,
             "citations": [citation_payload(c) for c in s.citations],
             "invalid": invalid(s.invalid)}
            for s in answer.sentences],
        "citations": [citation_payload(c) for c in answer.citations],
        "invalid_citations": invalid(answer.invalid_citations),
        "sources": [{"block": n} | hit_payload(hit) for n, hit in enumerate(answer.sources, 1)],
        "provenance": provenance,
        "timings": dataclasses.asdict(answer.timings) | {"total": answer.timings.total},
    }


def _abstainer(index_dir: Path, *, mode: str, signal: str | None, threshold: float | None,
               scorer: PairScorer, notes: list[str]) -> Abstainer:
    """The abstainer ``ask`` uses: ``--threshold``, else the index's own calibration, else the
    shipped default threshold (labelled as such on the answer: a stale or missing calibration
    never turns abstention off in silence)."""
    from veracity.generate.abstain import SIGNAL_MODES, Abstainer, make_signal
    from veracity.generate.calibration import (
        StaleCalibrationError,
        default_threshold,
        load_calibration,
    )

    if threshold is not None:
        name = signal or defaults.ABSTAIN_SIGNAL
        return Abstainer(make_signal(name, scorer=scorer), threshold, source="--threshold")
    if signal is not None:
        raise VeracityError(f"--signal {signal} needs --threshold (or run `veracity calibrate "
                            f"--index {index_dir} --dev FILE.jsonl --signal {signal}`)")
    why = ""
    try:
        stored = load_calibration(index_dir)
    except StaleCalibrationError as exc:
        stored, why = None, f"the index's content changed since its calibration ({exc}); "
    if stored is not None:
        calibration = stored.calibration
        if stored.mode != mode:
            notes.append(f"the threshold was calibrated with --mode {stored.mode}; this search "
                         f"uses --mode {mode}")
        return Abstainer(make_signal(calibration.signal, scorer=scorer, hits=stored.k),
                         calibration.threshold, source=stored.source)
    name = "top_cosine" if mode in SIGNAL_MODES["top_cosine"] else "top_support"
    default = default_threshold(name)
    if not why:
        why = f"no calibration was made for {index_dir}; "
    return Abstainer(make_signal(name, scorer=scorer), default.threshold,
                     source=why + default.source)


def _print_answer(answer: Answer) -> None:
    def line(*parts: Part, indent: int = 0, hang: int | None = None) -> None:
        show(*parts, out=console, indent=indent, hang=hang, wrap=True)

    if answer.abstained and answer.abstention is not None:
        check = answer.abstention
        line(styled(answer.text, "bold"), "  ", styled(
            f"(abstained without asking the model: {check.reason}; {check.source})", "yellow"))
        return
    line(answer.text)
    if answer.abstention is not None:
        check = answer.abstention
        console.print()
        line(styled("relevance: ", "bold"), styled(
            f"{check.reason}; threshold: {check.source}. A ✓ below means the cited passage "
            "supports the sentence, not that it answers the question.", "dim"))
    if answer.refused and answer.refusal is not None:
        console.print()
        line(styled(f"the model declined to answer (matched {answer.refusal.text!r}, "
                    f"{answer.refusal.pattern})", "yellow"))
    if answer.sentences:
        console.print()
        line(styled("sentences", "bold"))
    for sentence in answer.sentences:
        mark, colour, label = _MARKS[sentence.status]
        cited = "".join(f"[{c.marker}]" for c in sentence.citations)
        detail = [label]
        if sentence.support is not None:
            detail.append(f"{sentence.support:.2f}")
        if cited:
            detail.append(("attached " if any(c.attached for c in sentence.citations) else "")
                          + cited)
        detail += [f"[{item.marker}] {item.reason}" for item in sentence.invalid]
        line(styled(mark, colour), f" {sentence.claim}", indent=2, hang=4)
        line(styled(" · ".join(detail), colour), indent=4)
        if sentence.failure:
            line(styled(sentence.failure, "red"), indent=4)
    if answer.sources:
        console.print()
        line(styled("sources", "bold"))
    cited_blocks = {c.marker for c in answer.citations}
    for number, hit in enumerate(answer.sources, start=1):
        chunk = hit.chunk
        where = " > ".join(chunk.section) or "—"
        page = "" if chunk.page is None else f"  page {chunk.page}" + (
            f"-{chunk.page_end}" if chunk.page_end not in (None, chunk.page) else "")
        used = "" if number in cited_blocks else styled("  (not cited)", "dim")
        line(styled(f"[{number}]", "bold cyan"), " ", styled(chunk.doc_id, "bold"),
             f"  {chunk.title}", used, indent=2, hang=6)
        line(f"section: {where}{page}  chars {chunk.start}-{chunk.end}", indent=6)
        if number in cited_blocks:  # the passages an answer rests on are quoted in full
            line(f"“{chunk.text.strip()}”", indent=6)
    if answer.provenance is not None:
        p, t = answer.provenance, answer.timings
        console.print()
        line(styled(f"{p.model} · prompt {p.prompt} · temperature {p.temperature:g} · seed "
                    f"{p.seed} · verifier {p.verifier} (tau {p.tau:g}) · retrieve "
                    f"{t.retrieve:.2f}s, generate {t.generate:.2f}s, verify {t.verify:.2f}s",
                    "dim"))


@app.command("ask")
def ask(
    question: Annotated[str, typer.Argument(help="the question")],
    index_dir: Annotated[Path, typer.Option("--index", help="index folder")],
    llm: Annotated[str, typer.Option(
        help="extractive, llamacpp[:PATH] or openai:URL")] = defaults.CHAT_BACKEND,
    model: Annotated[str | None, typer.Option(help="model name (openai)")] = None,
    verifier: Annotated[str, typer.Option(help="embedded, lexical, cosine, align or hf:<model>")]
    = defaults.VERIFIER,
    mode: Annotated[str, typer.Option(help="bm25, dense or hybrid")] = defaults.SEARCH_MODE,
    k: Annotated[int, typer.Option("-k", help="passages given to the model")] = defaults.TOP_K,
    tau: Annotated[float, typer.Option(help="P(supported) a citation must reach")]
    = defaults.CITATION_TAU,
    abstain: Annotated[bool, typer.Option(
        help="abstain below the index's calibration, else the shipped default (or "
             "--threshold)")] = True,
    signal: Annotated[str | None, typer.Option(
        help="confidence signal for --threshold: top_bm25, top_cosine, top_support")] = None,
    threshold: Annotated[float | None, typer.Option(
        help="abstain below this signal value instead of the calibrated one")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="print JSON")] = False,
) -> None:
    """Answer from the index with checked [n] citations, or say "I don't know".

    The model is not asked when retrieval confidence is below the index's calibrated threshold,
    or, for an index never calibrated (or whose content changed since), below the shipped
    default, which the answer names. Every sentence is marked by whether the passage it cites
    supports it (whether it answers the question is the separate relevance line): ✓ supported,
    ✗ unsupported, ! invalid citation, + citation attached by the verifier, ? uncited, · not
    factual. Exit 0 when answered, abstained or refused; 1 when the verifier failed on some
    sentence; 2 on bad options or a missing index.
    """
    from veracity.generate.ask import Asker
    from veracity.generate.grounded import GroundedGenerator
    from veracity.retrieve.open import open_retriever

    notes: list[str] = []
    try:
        retriever = open_retriever(index_dir, mode=mode)
        scorer = verifier_factory(verifier)
        abstainer = _abstainer(index_dir, mode=mode, signal=signal, threshold=threshold,
                               scorer=scorer, notes=notes) if abstain else None
        generator = GroundedGenerator(chat_factory(llm, model, scorer), scorer, tau=tau)
        answer = Asker(retriever, generator, k=k, abstainer=abstainer).run(question)
    except VeracityError as exc:
        raise fail(exc) from exc
    code = EXIT_PARTIAL if answer.failures else EXIT_OK
    if as_json:
        emit_json(answer_payload(answer) | {"notes": notes, "exit_code": code})
        raise typer.Exit(code)
    for note in notes:
        show(styled(note, "dim"), out=errors, wrap=True)
    _print_answer(answer)
    raise typer.Exit(code)


def _dev_questions(path: Path) -> tuple[list[tuple[str, bool]], list[str]]:
    """(question, answerable) rows of a JSONL dev file, and a message per skipped line."""
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError) as exc:
        raise VeracityError(f"{path}: cannot read it ({exc})") from exc
    rows: list[tuple[str, bool]] = []
    skipped: list[str] = []
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
        except ValueError as exc:
            skipped.append(f"{path}:{number}: not JSON ({exc})")
            continue
        if not isinstance(row, dict) or not isinstance(row.get("question"), str) or \
                not row["question"].strip() or not isinstance(row.get("answerable"), bool):
            skipped.append(f"{path}:{number}: needs a string question and a true/false "
                           "answerable")
            continue
        rows.append((row["question"], row["answerable"]))
    return rows, skipped


def calibration_payload(stored: StoredCalibration) -> dict[str, Any]:
    return {"path": str(stored.path), "generation": stored.generation, "mode": stored.mode,
            "k": stored.k, "verifier": stored.verifier, "dev": stored.dev,
            "created": stored.created, **dataclasses.asdict(stored.calibration)}


@app.command("calibrate")
def calibrate_command(
    index_dir: Annotated[Path, typer.Option("--index", help="index folder")],
    dev: Annotated[Path, typer.Option(
        help="JSONL of {question, answerable: true/false} (e.g. examples/questions.jsonl)")],
    signal: Annotated[str, typer.Option(help="top_bm25, top_cosine or top_support")]
    = defaults.ABSTAIN_SIGNAL,
    mode: Annotated[str, typer.Option(help="bm25, dense or hybrid")] = defaults.SEARCH_MODE,
    k: Annotated[int, typer.Option("-k", help="passages retrieved per question")]
    = defaults.TOP_K,
    verifier: Annotated[str, typer.Option(help="verifier for top_support")] = defaults.VERIFIER,
    as_json: Annotated[bool, typer.Option("--json", help="print JSON")] = False,
) -> None:
    """Choose the abstention threshold of best F1 on dev questions and save it with the index.

    `ask` then says "I don't know" without calling the model when the signal is below it. The
    calibration records the index's content: it stays in use while re-indexing changes nothing,
    and once the content changes `ask` uses the shipped default and says so (calibrate again).
    Exit 0 when every row was used, 1 when some rows or signals failed, 2 when nothing was saved.
    """
    from rich.progress import track

    from veracity.generate.abstain import make_signal
    from veracity.generate.calibration import calibrate, save_calibration
    from veracity.retrieve.open import open_retriever

    try:
        scorer = verifier_factory(verifier) if signal == "top_support" else None
        confidence = make_signal(signal, scorer=scorer, hits=k)
        rows, skipped = _dev_questions(dev)
        if not rows:
            raise VeracityError(f"{dev} holds no usable {{question, answerable}} row")
        retriever = open_retriever(index_dir, mode=mode).load()
        results = [retriever.run(question, k=k) for question, _ in
                   track(rows, description="retrieving", console=errors, disable=as_json)]
        readings = confidence.run(results)
        calibration = calibrate([r.value for r in readings],
                                [not answerable for _, answerable in rows], signal=signal)
        stored = save_calibration(index_dir, calibration, mode=mode, k=k,
                                  verifier=None if scorer is None else scorer.model_id,
                                  dev=str(dev))
    except VeracityError as exc:
        raise fail(exc) from exc
    failures = [f"{question!r}: {r.error}" for (question, _), r in zip(rows, readings,
                                                                       strict=True) if r.error]
    code = EXIT_PARTIAL if skipped or failures else EXIT_OK
    if as_json:
        emit_json(calibration_payload(stored) | {"skipped": skipped, "failed_questions": failures,
                                                 "exit_code": code})
        raise typer.Exit(code)
    for message in skipped + failures:
        show(styled("skipped", "yellow"), f" {message}", out=errors)
    _print_calibration(stored)
    raise typer.Exit(code)


def _print_calibration(stored: StoredCalibration) -> None:
    from rich.table import Table

    c = stored.calibration
    show(f"abstain when {c.signal} < {c.threshold:.4g}: precision {c.precision:.3f}, recall "
         f"{c.recall:.3f}, F1 {c.f1:.3f}; {c.answered} of {c.answerable} answerable questions "
         f"still answered, {c.abstained} abstentions ({c.unanswerable} unanswerable, "
         f"{c.failed} failed)\nsaved to {stored.path} (generation {stored.generation}, "
         f"mode {stored.mode}, k {stored.k})", out=console)
    table = Table("threshold", "precision", "recall", "F1", "abstained", "answered")
    step = max(1, -(-len(c.curve) // 10))  # about ten rows, and the chosen one
    for position, point in enumerate(c.curve):
        if point.threshold != c.threshold and position % step:
            continue
        style = "bold green" if point.threshold == c.threshold else None
        table.add_row(f"{point.threshold:.4g}", f"{point.precision:.3f}", f"{point.recall:.3f}",
                      f"{point.f1:.3f}", str(point.abstained), str(point.answered), style=style)
    console.print(table)

_VERDICT_STYLE = {"contradicted": "bold white on red", "unsupported": "black on yellow",
                  "error": "underline red", "supported": ""}
_VERDICT_MARK = {"supported": ("✓", "green"), "contradicted": ("✗", "red"),
                 "unsupported": ("?", "yellow"), "error": ("⚠", "red")}


def _highlighted(report: Report) -> Any:
    """The answer with contradicted and unsupported claims highlighted (worst label wins)."""
    from rich.text import Text

    rank = {"supported": 0, "error": 1, "unsupported": 2, "contradicted": 3}
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


def _quote(judgement: EvidenceJudgement) -> str:
    parts = [judgement.text[s.start - judgement.start : s.end - judgement.start]
             for s in judgement.evidence] or [judgement.text]
    return " … ".join(" ".join(part.split()) for part in parts)


def _print_report(report: Report) -> None:
    def line(*parts: Part, indent: int = 0, out: Console = console) -> None:
        show(*parts, out=out, indent=indent)

    console.print(_highlighted(report))
    console.print()
    line(styled("claims", "bold"))
    for verdict in report.verdicts:
        mark, colour = _VERDICT_MARK[verdict.label]
        claim = verdict.claim
        line(styled(f"{mark} {verdict.label}", colour), f"  {claim.text}  ",
             styled(f"(chars {claim.span.start}-{claim.span.end})", "dim"), indent=2)
        if verdict.contested:
            line(styled("the sources conflict: some passages support this claim and others "
                        "contradict it", "magenta"), indent=6)
        for edit in claim.edits:
            line(styled(edit, "dim"), indent=6)
        for layer in verdict.layers:
            flag = styled("flags", "red") if layer.flagged else styled("clears", "green")
            if layer.error is not None:
                flag, detail = styled("failed", "red"), layer.error
            else:
                detail = layer.detail
            line(f"{layer.layer}: ", flag, f" {detail}", indent=6)
        for title, items in (("evidence", verdict.citations[:2]),
                             ("contradicted by", verdict.anti_citations[:2])):
            for item in items:
                where = " > ".join(item.section)
                page = "" if item.page is None else f", page {item.page}"
                line(styled(title, "bold"), f" {item.doc_id}"
                     f"{' · ' + where if where else ''}{page}, chars {item.start}-{item.end} "
                     f"(supported {item.supported:.2f}, contradicted {item.contradicted:.2f})",
                     indent=6)
                line(f"“{_quote(item)}”", indent=8)
        for value in verdict.values:
            if value.status != "match":
                found = f", evidence says {value.found!r}" if value.found else ""
                line(styled(f"{value.kind} {value.text}: {value.status}{found}", "yellow"),
                     indent=6)
    for skipped in report.skipped:
        line(styled(f"· skipped ({skipped.reason}): {skipped.text}", "dim"), indent=2)
    summary = report.summary
    console.print()
    line(styled(f"{summary['claims']} claims:", "bold"), f" {summary['supported']} supported, "
         f"{summary['contradicted']} contradicted, {summary['unsupported']} unsupported, "
         f"{summary['skipped']} sentences skipped, {summary['failed']} failed; "
         f"{summary['contested']} with conflicting sources")
    for warning in report.warnings:
        line(styled("warning:", "yellow"), f" {warning}", out=errors)
    timing = ", ".join(f"{stage} {seconds:.2f}s" for stage, seconds in report.timings.items())
    line(styled(f"layers {','.join(report.layers)} · rule {report.rule} · query "
                f"{report.query_mode} · claims {report.claims_method} · verifier "
                f"{report.verifier} · {timing}", "dim"))


def _more_sources(sources: list[Path] | None, extra: list[str]) -> list[Path] | None:
    """``--sources A B C``: the words after ``--sources`` that are no option are sources too."""
    if extra and not sources:
        raise InputError(f"unexpected argument {extra[0]!r}: give files to check against with "
                         f"--sources {' '.join(extra)}")
    unknown = [word for word in extra if word.startswith("-") and word != "-"]
    if unknown:
        raise InputError(f"no such option: {unknown[0]} (see veracity verify --help)")
    return None if sources is None else [*sources, *map(Path, extra)]


@app.command("verify", context_settings={"allow_extra_args": True})
def verify_command(
    ctx: typer.Context,
    answer: Annotated[str, typer.Option(
        help="the answer to check: a file, the text itself, or - for standard input")],
    sources: Annotated[list[Path] | None, typer.Option(
        "--sources", help="source files or folders to check against (txt, md, html, pdf, "
                          "jsonl): --sources A B C, or --sources A --sources B")] = None,
    index_dir: Annotated[Path | None, typer.Option(
        "--index", help="index folder to retrieve evidence from")] = None,
    question: Annotated[str | None, typer.Option(
        help="the question the answer replies to (needed by the consistency layer)")] = None,
    layers: Annotated[str, typer.Option(help="comma-separated: nli, knowledge, consistency")]
    = ",".join(defaults.VERIFY_LAYERS),
    rule: Annotated[str, typer.Option(help="combination: any, all, cascade or logistic")]
    = defaults.VERIFY_RULE,
    weights: Annotated[Path | None, typer.Option(
        help="fitted layer weights (JSON) for --rule logistic")] = None,
    query: Annotated[str, typer.Option(
        help="retrieval query per claim: claim, or question (made from the claim)")] = "claim",
    knowledge_base: Annotated[Path | None, typer.Option(
        "--kb", help="CSV or JSON of entity, attribute, value to cross-check")] = None,
    llm: Annotated[str | None, typer.Option(
        help="chat model for consistency and LLM claims: llamacpp[:PATH] or openai:URL")] = None,
    model: Annotated[str | None, typer.Option(help="model name (openai)")] = None,
    samples: Annotated[int, typer.Option(help="consistency: sampled answers")]
    = defaults.CONSISTENCY_SAMPLES,
    temperature: Annotated[float, typer.Option(help="consistency: sampling temperature")]
    = defaults.CONSISTENCY_TEMPERATURE,
    llm_claims: Annotated[bool, typer.Option(
        help="decompose and decontextualize with --llm instead of rules")] = False,
    verifier: Annotated[str, typer.Option(help="embedded, lexical, cosine, align or hf:<model>")]
    = defaults.VERIFIER,
    mode: Annotated[str, typer.Option(help="index search: bm25, dense or hybrid")]
    = defaults.SEARCH_MODE,
    k: Annotated[int, typer.Option("-k", help="passages per claim")] = defaults.VERIFY_TOP_K,
    tau: Annotated[float, typer.Option(help="P(supported) a claim must reach")]
    = defaults.VERIFY_TAU,
    as_json: Annotated[bool, typer.Option("--json", help="print JSON")] = False,
) -> None:
    """Check an answer claim by claim against source files or an index.

    Prints the answer with contradicted (red) and unsupported (yellow) claims highlighted, each
    claim's verdict with the layers' findings, the passages that support or contradict it, and
    a summary. Exit 0 when every claim was judged (whatever the verdicts); 1 when some claims
    could not be judged (a layer failed); 2 on bad options or unreadable input.
    """
    from veracity.verify.claims import ClaimExtractor
    from veracity.verify.combination import LayerCombiner, LayerWeights
    from veracity.verify.consistency import ConsistencyLayer
    from veracity.verify.gather import source_chunks, source_documents
    from veracity.verify.knowledge import KnowledgeBase, KnowledgeLayer
    from veracity.verify.pipeline import AnswerVerifier
    from veracity.verify.report import report_payload

    try:
        sources = _more_sources(sources, ctx.args)
        if bool(sources) == (index_dir is not None):
            raise VeracityError("give the sources to verify against: --sources FILE ... or "
                                "--index DIR (one of them, not both)")
        text = read_text_or_file(answer, "--answer")
        scorer = verifier_factory(verifier)
        chat = None if llm is None else chat_factory(llm, model, scorer)
        retriever = None
        chunks: tuple[Chunk, ...] = ()
        if index_dir is not None:
            from veracity.retrieve.open import open_retriever

            retriever = open_retriever(index_dir, mode=mode)
        else:
            chunks = source_chunks(source_documents(sources or ()))
        names = tuple(part.strip() for part in layers.split(",") if part.strip())
        consistency = None
        if "consistency" in names and chat is not None:
            consistency = ConsistencyLayer(chat, scorer, samples=samples, temperature=temperature)
        facts = None if knowledge_base is None else KnowledgeBase.from_file(knowledge_base)
        knowledge = KnowledgeLayer(knowledge_base=facts)
        combiner = LayerCombiner(rule, order=names,
                                 weights=None if weights is None else LayerWeights.load(weights))
        extractor = ClaimExtractor(chat=chat if llm_claims else None)
        pipeline = AnswerVerifier(scorer, retriever=retriever, sources=chunks, layers=names,
                                  rule=combiner, chat=chat, extractor=extractor,
                                  knowledge=knowledge, consistency=consistency,
                                  query=query, k=k, tau=tau)  # type: ignore[arg-type]
        report = pipeline.run(text, question=question)
    except VeracityError as exc:
        raise fail(exc) from exc
    code = EXIT_PARTIAL if report.failures else EXIT_OK
    if as_json:
        emit_json(report_payload(report) | {"exit_code": code})
        raise typer.Exit(code)
    _print_report(report)
    raise typer.Exit(code)


def main() -> None:
    app()


if __name__ == "__main__":
    main()
