"""``veracity search``: search an index, optionally reranked by a cross-encoder."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from veracity import defaults
from veracity.cli import printers
from veracity.cli.application import choice_list, models_of, run_and_show

if TYPE_CHECKING:
    from veracity.retrieve.base import Retriever

#: The help of the options ``search`` and ``ask`` share.
RERANK_HELP = "rerank the first-stage candidates with a cross-encoder (--reranker)"
RERANKER_HELP = "embedded (veracity's own), verifier, cosine or hf:<model>"
DEPTH_HELP = (
    f"first-stage candidates to rerank (default {defaults.RERANK_DEPTH}, or -k if more, "
    "at most the index's chunks)"
)


def reranked(
    ctx: typer.Context, retriever: Retriever, *, rerank: bool, reranker: str, depth: int | None
) -> Retriever:
    """``retriever`` itself, or wrapped in a :class:`RerankingRetriever` with ``--rerank``."""
    from veracity.errors import InputError
    from veracity.retrieve.rerank import RerankingRetriever

    if not rerank:
        if depth is not None or reranker != defaults.RERANKER:
            flag = "--rerank-depth" if depth is not None else "--reranker"
            raise InputError(
                f"{flag} only applies to a reranked search: add --rerank when "
                f"{flag} is given, or leave {flag} out"
            )
        return retriever
    return RerankingRetriever(retriever, models_of(ctx).reranker(reranker), depth=depth)


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
    from veracity.retrieve.open import open_retriever

    run_and_show(
        lambda: reranked(
            ctx,
            open_retriever(index_dir, mode=mode),
            rerank=rerank,
            reranker=reranker,
            depth=rerank_depth,
        ).run(query, k=k),
        printers.print_search,
        as_json=as_json,
    )
