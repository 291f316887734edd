"""``veracity search``: search an index."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from veracity import defaults
from veracity.cli import printers
from veracity.cli.application import emit_json, fail
from veracity.errors import VeracityError


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
    if as_json:
        emit_json(result.to_dict())
        return
    printers.print_search(result)
