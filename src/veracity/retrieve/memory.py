"""BM25 over passages held in memory: the sources a user passes to ``veracity verify --sources``.

The index is built with the same :class:`BM25Builder` as a stored index (same analyzer, same
weights), into a private temporary folder that lives as long as the retriever.

>>> from veracity.types import Chunk
>>> chunks = [Chunk("a#0", "a", 0, "Bees dance to show where food is.", 0, 33),
...           Chunk("b#0", "b", 0, "Ants follow scent trails.", 0, 25)]
>>> MemoryBM25(chunks).run("why do bees dance", k=1).hits[0].chunk.id
'a#0'
"""

from __future__ import annotations

import tempfile
from collections.abc import Sequence
from pathlib import Path

from veracity import defaults
from veracity.corpus.base import InMemoryChunks
from veracity.errors import InputError
from veracity.retrieve.bm25 import BM25Builder, BM25Retriever
from veracity.types import Chunk, SearchResult

__all__ = ["MemoryBM25"]


class MemoryBM25:
    """A ``Retriever`` (BM25) over ``chunks``; the index is built on the first ``run``."""

    name = "bm25"

    def __init__(self, chunks: Sequence[Chunk]) -> None:
        if not chunks:
            raise InputError("no passages to search: give at least one source text")
        self.chunks = tuple(chunks)
        self._folder: tempfile.TemporaryDirectory[str] | None = None
        self._retriever: BM25Retriever | None = None

    def load(self) -> MemoryBM25:
        """Build the index once; later calls do nothing."""
        self._index()
        return self

    def _index(self) -> BM25Retriever:
        if self._retriever is None:
            lookup = InMemoryChunks(self.chunks)
            self._folder = tempfile.TemporaryDirectory(prefix="veracity-bm25-")
            BM25Builder().build(lookup, Path(self._folder.name), None)
            self._retriever = BM25Retriever(lookup, self._folder.name).load()
        return self._retriever

    def run(self, query: str, *, k: int = defaults.TOP_K) -> SearchResult:
        """The ``k`` best passages for ``query`` (only passages sharing a term with it)."""
        return self._index().run(query, k=k)
