"""``veracity search``: search an index, optionally reranked by a cross-encoder."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from veracity import defaults
from veracity.cli.application import (
    ConfigOption,
    choice_list,
    command_config,
    models_of,
    read_saved,
    run_and_show,
)
from veracity.cli.output.search import print_search

if TYPE_CHECKING:
    from veracity.types import SearchResult

#: The help of the options ``search`` and ``ask`` share.
RERANK_HELP = "rerank the first-stage candidates with a cross-encoder (--reranker)"
RERANKER_HELP = "embedded (veracity's own), verifier, cosine or hf:<model>"
DEPTH_HELP = (
    f"first-stage candidates to rerank (default {defaults.RERANK_DEPTH}, or -k if more, "
    "at most the index's chunks)"
)


def reranker_of(*, rerank: bool, reranker: str, depth: int | None) -> str | None:
    """The name of the reranker ``--reranker`` names with ``--rerank``, else ``None``.

    ``--reranker`` and ``--rerank-depth`` choose how to rerank, and ``--rerank`` whether to: it
    is the command's flags that disagree when either comes without it, so they are checked here.
    """
    from veracity.errors import InputError

    if not rerank:
        if depth is not None or reranker != defaults.RERANKER:
            flag = "--rerank-depth" if depth is not None else "--reranker"
            raise InputError(
                f"{flag} only applies to a reranked search: add --rerank when "
                f"{flag} is given, or leave {flag} out"
            )
        return None
    return reranker


def search_options(
    *,
    index_dir: Path | None,
    mode: str,
    k: int,
    rerank: bool,
    reranker: str,
    rerank_depth: int | None,
) -> dict[str, tuple[str, Any]]:
    """The search flags a command shares (``search``, ``ask``) as :func:`command_config` takes
    them: each parameter's name -> (its config option, its value)."""
    chosen = ("reranker", reranker_of(rerank=rerank, reranker=reranker, depth=rerank_depth))
    return {
        "index_dir": ("index", None if index_dir is None else str(index_dir)),
        "mode": ("mode", mode),
        "k": ("k", k),
        "rerank": chosen,
        "reranker": chosen,
        "rerank_depth": ("rerank_depth", rerank_depth),
    }


def search(
    ctx: typer.Context,
    query: Annotated[str, typer.Argument(help="what to look for")],
    index_dir: Annotated[
        Path | None, typer.Option("--index", help="index folder (or from --config)")
    ] = None,
    mode: Annotated[
        str, typer.Option(help=choice_list(defaults.SEARCH_MODES))
    ] = defaults.SEARCH_MODE,
    k: Annotated[int, typer.Option("-k", help="number of passages")] = defaults.TOP_K,
    rerank: Annotated[bool, typer.Option("--rerank", help=RERANK_HELP)] = False,
    reranker: Annotated[str, typer.Option(help=RERANKER_HELP)] = defaults.RERANKER,
    rerank_depth: Annotated[int | None, typer.Option(help=DEPTH_HELP)] = None,
    config_file: ConfigOption = None,
    as_json: Annotated[bool, typer.Option("--json", help="print JSON")] = False,
) -> None:
    """Search an index; each passage shows its document, section, page and character span."""
    from veracity.config import SearchConfig
    from veracity.errors import InputError
    from veracity.retrieve.search import open_search

    def work() -> SearchResult:
        saved = None if config_file is None else read_saved(config_file)
        given = search_options(
            index_dir=index_dir,
            mode=mode,
            k=k,
            rerank=rerank,
            reranker=reranker,
            rerank_depth=rerank_depth,
        )
        config = command_config(ctx, SearchConfig, saved, given).with_options(
            abstain=False
        )  # a search shows what it found; only ask abstains
        if config.evidence.index is None:
            raise InputError("give the index to search: --index DIR (or --config FILE)")
        return open_search(config, models_of(ctx)).run(query, k=config.evidence.k)

    run_and_show(work, print_search, as_json=as_json)
