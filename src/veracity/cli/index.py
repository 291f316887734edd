"""``veracity index``: index documents for search."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import typer

from veracity import defaults
from veracity.cli.application import EXIT_OK, EXIT_PARTIAL, emit_json, fail
from veracity.cli.output.index import print_index
from veracity.cli.render import errors, show, styled
from veracity.errors import OptionError, VeracityError

#: The exit code of a run stopped by Ctrl-C (128 + SIGINT, as shells report it).
EXIT_INTERRUPTED = 130


def _live_generation(index_dir: Path) -> str | None:
    """The name of the index's live generation, ``None`` when there is no readable index."""
    from veracity.corpus.index_dir import IndexDir

    try:
        return IndexDir(index_dir).current().name
    except VeracityError:
        return None


def _interrupted(index_dir: Path, before: str | None) -> typer.Exit:
    """Say what Ctrl-C left behind: a generation becomes live only once it is complete, so the
    index is the one from before this run (or, if the run had just finished, the new one)."""
    after = _live_generation(index_dir)
    if after is None:
        kept = f"nothing was written: {index_dir} holds no index"
    elif after == before:
        kept = (
            f"the index in {index_dir} is as it was before this run ({after}); nothing of "
            "this run was kept"
        )
    else:
        kept = f"the run had finished: {index_dir} holds its new generation {after}"
    show(
        styled("interrupted:", "bold yellow"),
        f" {kept}. Run the command again to index.",
        out=errors,
        wrap=True,
    )
    return typer.Exit(EXIT_INTERRUPTED)


def index(
    paths: Annotated[list[Path], typer.Argument(help="files and folders to index")],
    index_dir: Annotated[Path, typer.Option("--index", help="index folder (created if new)")],
    chunk_tokens: Annotated[
        int, typer.Option(help="chunk size in word tokens")
    ] = defaults.CHUNK_TOKENS,
    overlap: Annotated[
        int, typer.Option(help="overlap between chunks in word tokens")
    ] = defaults.CHUNK_OVERLAP,
    dense: Annotated[bool, typer.Option(help="also build dense (MiniLM) vectors")] = True,
    embedder: Annotated[
        str,
        typer.Option(
            help="the dense vectors' embedder: static (the distilled static one, see "
            "distill-embedder), static:DIR, or a MiniLM model id"
        ),
    ] = defaults.EMBED_MODEL_ID,
    strict: Annotated[bool, typer.Option(help="stop at the first bad file; write nothing")] = False,
    workers: Annotated[
        int | None,
        typer.Option(help="embed the dense vectors on this many worker processes (Ray: actors)"),
    ] = None,
    ray: Annotated[
        bool,
        typer.Option(
            "--ray", help="embed on Ray Data (a local Ray of --workers CPUs on 127.0.0.1)"
        ),
    ] = False,
    ray_address: Annotated[
        str | None, typer.Option(help="embed on the Ray cluster at this address (implies --ray)")
    ] = None,
    as_json: Annotated[bool, typer.Option("--json", help="print the report as JSON")] = False,
) -> None:
    """Index documents (.txt .md .html .pdf .jsonl, or folders of them) for search.

    Unchanged files are skipped; a failure leaves the previous index live. Bad paths, files
    and JSONL lines are reported and skipped (--strict: stop at the first, write nothing).
    Exit 0 when every file was indexed, 1 when some failed (the rest is indexed), 2 when
    nothing was written, 130 when stopped by Ctrl-C (the index stays as it was). --workers N
    or --ray spread the dense embedding, where a large corpus spends its time, over worker
    processes or a Ray cluster; the vectors are the same.
    """
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn

    from veracity.corpus.chunker import Chunker
    from veracity.corpus.indexer import Indexer
    from veracity.retrieve import make_embedder
    from veracity.retrieve.bm25 import BM25Builder
    from veracity.retrieve.dense import DenseBuilder

    builders: list[Any] = [BM25Builder()]
    parallel = None
    before = _live_generation(index_dir)
    try:
        if dense and (workers is not None or ray or ray_address):
            if embedder != defaults.EMBED_MODEL_ID:
                raise OptionError(
                    "embedder",
                    embedder,
                    f"{defaults.EMBED_MODEL_ID} with workers= or ray=",
                    "Leave out workers= and ray= to index with another embedder on this process.",
                )
            from veracity.batch import ParallelEmbedder
            from veracity.cli.verify_batch import engine_of

            parallel = ParallelEmbedder(engine_of(workers, ray, ray_address))
            builders.append(DenseBuilder(parallel, block=defaults.BATCH_EMBED_BLOCK))
        elif dense:
            builders.append(DenseBuilder(make_embedder(embedder)))
        with Progress(
            TextColumn("{task.description:<10}", markup=False),
            BarColumn(),
            MofNCompleteColumn(),
            console=errors,
            disable=as_json,
            transient=True,
        ) as progress:
            tasks: dict[str, Any] = {}

            def update(stage: str, done: int, total: int) -> None:
                if stage not in tasks:
                    tasks[stage] = progress.add_task(stage, total=total)
                progress.update(tasks[stage], completed=done, total=total)

            report = Indexer(
                chunker=Chunker(size=chunk_tokens, overlap=overlap),
                builders=builders,
                strict=strict,
                progress=update,
            ).run(paths, index_dir)
    except VeracityError as exc:
        raise fail(exc) from exc
    except KeyboardInterrupt:
        raise _interrupted(index_dir, before) from None
    finally:
        if parallel is not None:
            parallel.close()
    code = EXIT_PARTIAL if report.failures else EXIT_OK
    if as_json:
        emit_json(report.to_dict() | {"exit_code": code})
        raise typer.Exit(code)
    print_index(report)
    raise typer.Exit(code)
