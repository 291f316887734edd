"""The ``Retriever`` protocol and the small helpers every retriever shares.

A retriever is opened on one generation of an index, loads its arrays once in ``load()``, and
answers ``run(query, k=...)`` with a frozen :class:`~veracity.types.SearchResult`::

    >>> retriever = open_retriever("my-index", mode="bm25")   # doctest: +SKIP
    >>> result = retriever.run("who wrote the letter?", k=3)  # doctest: +SKIP
    >>> [hit.chunk.id for hit in result.hits]                 # doctest: +SKIP
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Protocol, runtime_checkable

import numpy as np

from veracity import defaults
from veracity.corpus.base import ChunkLookup
from veracity.errors import (
    IndexNotFoundError,
    IndexStoreError,
    IndexVersionError,
    InputError,
    OptionError,
)
from veracity.types import Hit, SearchResult

__all__ = [
    "Retriever",
    "check_k",
    "check_query",
    "hits_at",
    "meta_count",
    "read_meta",
    "top_k",
    "write_meta",
]


@runtime_checkable
class Retriever(Protocol):
    """Finds the chunks of an index that best answer a query, best first."""

    name: str

    def load(self) -> Retriever: ...

    def run(self, query: str, *, k: int = defaults.TOP_K) -> SearchResult: ...


def check_lookup(chunks: object) -> ChunkLookup:
    """``chunks`` if it is a :class:`ChunkLookup`, else an InputError that names its type."""
    if not isinstance(chunks, ChunkLookup):
        raise InputError(
            f"chunks must be a ChunkLookup (such as InMemoryChunks), got {type(chunks).__name__}"
        )
    return chunks


def check_query(query: object) -> str:
    """``query`` itself, or :class:`InputError` when it is not a string with some text."""
    if not isinstance(query, str):
        raise InputError(f"a query must be a string, got {type(query).__name__}")
    if not query.strip():
        raise InputError(f"the query {query!r} is empty; pass some words to search for")
    return query


def check_k(k: object) -> int:
    """``k`` itself, or :class:`OptionError` unless it is an integer of 1 or more."""
    if isinstance(k, bool) or not isinstance(k, int | np.integer) or k < 1:
        raise OptionError("k", k, "an integer of 1 or more (the number of hits to return)")
    return int(k)


def top_k(scores: np.ndarray, k: int, *, above: float | None = None) -> np.ndarray:
    """Ordinals of the ``k`` highest ``scores``, best first, ties broken by lower ordinal.

    With ``above`` set, only scores strictly greater than it are kept (so fewer than ``k`` may
    come back). ``k`` larger than ``len(scores)`` is clamped.
    """
    n = int(scores.shape[0])
    k = min(k, n)
    if k <= 0:
        return np.empty(0, dtype=np.int64)
    if k < n:
        kth = np.partition(scores, n - k)[n - k]  # the k-th largest value
        if above is not None and kth <= above:
            candidates = np.flatnonzero(scores > above)
        else:
            candidates = np.flatnonzero(scores >= kth)  # every tie at the boundary
    elif above is not None:
        candidates = np.flatnonzero(scores > above)
    else:
        candidates = np.arange(n)
    order = np.lexsort((candidates, -scores[candidates]))
    return candidates[order[:k]]


def hits_at(
    chunks: ChunkLookup,
    ordinals: np.ndarray,
    ranking: np.ndarray,
    retriever: str,
    signals: Mapping[str, np.ndarray],
) -> tuple[Hit, ...]:
    """Hits for ``ordinals`` (best first), fetched in one batched lookup.

    ``ranking`` holds each hit's ranking score, aligned with ``ordinals``; ``signals`` maps a
    signal name to its raw values, also aligned with ``ordinals``.
    """
    if ordinals.size == 0:
        return ()
    found = chunks.chunks(ordinals.tolist())
    scores = ranking.tolist()
    columns = {name: values.tolist() for name, values in signals.items()}
    return tuple(
        Hit(
            chunk=chunk,
            score=scores[i],
            rank=i + 1,
            retriever=retriever,
            scores={name: values[i] for name, values in columns.items()},
        )
        for i, chunk in enumerate(found)
    )


def write_meta(path: Path, meta: Mapping[str, object]) -> None:
    """Write ``meta`` as JSON with the index format version."""
    payload = {"format_version": defaults.INDEX_FORMAT_VERSION, **meta}
    path.write_text(json.dumps(payload, ensure_ascii=False), encoding="utf-8")


def read_meta(path: Path, what: str) -> dict[str, Any]:
    """The JSON object at ``path``, checked for the index format version.

    ``what`` names the structure for the error message (``"BM25 index"``).
    """
    if not path.is_file():
        raise IndexNotFoundError(
            f"no {what} at {path.parent}: {path.name} is missing. Build the index first "
            "(or re-index if it was written without this structure)."
        )
    try:
        meta = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise IndexStoreError(f"cannot read the {what} file {path}: {exc}. Re-index.") from exc
    if not isinstance(meta, dict):
        raise IndexStoreError(f"the {what} file {path} does not hold a JSON object. Re-index.")
    version = meta.get("format_version")
    if version != defaults.INDEX_FORMAT_VERSION:
        raise IndexVersionError(
            f"the {what} at {path.parent} has format version {version!r}, but this veracity "
            f"reads version {defaults.INDEX_FORMAT_VERSION}. Re-index the documents."
        )
    return meta


def meta_count(meta: Mapping[str, Any], key: str, path: Path) -> int:
    """The non-negative integer ``meta[key]`` read from ``path``, or :class:`IndexStoreError`."""
    value = meta.get(key)
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise IndexStoreError(f"{path} has no valid {key!r} (found {value!r}); re-index")
    return value
