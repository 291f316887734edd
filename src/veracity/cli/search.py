"""``veracity search``: search an index, optionally reranked by a cross-encoder."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from veracity import defaults
from veracity.cli.application import choice_list, models_of, run_and_show
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


def search(
    ctx: typer.Context,
    query: Annotated[str, typer.Argument(help="what to look for")],
    index_dir: Annotated[Path, typer.Option("--index", help="index folder")],
    mode: Annotated[
        str, typer.Option(help=choice_list(defaults.SEARCH_MODES))
    ] = defaults.SEARCH_MODE,
    k: Annotated[int, typer.Option("-k", help="number of passages")] = defaults.TOP_K,
    rerank: Annotated[bool, typer.Option("--rerank", help=RERANK_HELP)] = False,
    reranker: Annotated[str, typer.Option(help=RERANKER_HELP)] = defaults.RERANKER,
    rerank_depth: Annotated[int | None, typer.Option(help=DEPTH_HELP)] = None,
    as_json: Annotated[bool, typer.Option("--json", help="print JSON")] = False,
) -> None:
    """Search an index; each passage shows its document, section, page and character span."""
    from veracity.config import SearchConfig
    from veracity.retrieve.search import open_search

    def work() -> SearchResult:
        config = SearchConfig().with_options(
            index=index_dir,
            mode=mode,
            k=k,
            reranker=reranker_of(rerank=rerank, reranker=reranker, depth=rerank_depth),
            rerank_depth=rerank_depth,
            abstain=False,
        )
        return open_search(config, models_of(ctx)).run(query, k=k)

    run_and_show(work, print_search, as_json=as_json)
