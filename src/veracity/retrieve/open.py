"""Open a retriever on the live generation of an index folder.

>>> retriever = open_retriever("my-index", mode="hybrid")      # doctest: +SKIP
>>> result = retriever.run("when was the treaty signed?", k=5)  # doctest: +SKIP
>>> result.hits[0].chunk.doc_id, result.confidence.top_cosine   # doctest: +SKIP
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

from veracity import defaults
from veracity.errors import IndexStoreError, OptionError
from veracity.retrieve.base import Retriever
from veracity.retrieve.bm25 import BM25Retriever
from veracity.retrieve.dense import DENSE_META, DenseRetriever, TextEmbedder
from veracity.retrieve.hybrid import HybridRetriever
from veracity.types import SearchResult

__all__ = ["FallbackRetriever", "open_retriever"]


class FallbackRetriever:
    """A retriever used in place of the mode asked for; every result carries ``note``.

    >>> from veracity.retrieve.memory import MemoryBM25
    >>> from veracity.types import Chunk
    >>> inner = MemoryBM25([Chunk("a#0", "a", 0, "Bees dance.", 0, 11)])
    >>> FallbackRetriever(inner, "searched with BM25").run("bees", k=1).notes
    ('searched with BM25',)
    """

    def __init__(self, retriever: Retriever, note: str) -> None:
        self.retriever = retriever
        self.name = retriever.name
        self.note = note

    def load(self) -> FallbackRetriever:
        self.retriever.load()
        return self

    def run(self, query: str, *, k: int = defaults.TOP_K) -> SearchResult:
        result = self.retriever.run(query, k=k)
        return dataclasses.replace(result, notes=(*result.notes, self.note))


def open_retriever(
    index: str | Path,
    *,
    mode: str = defaults.SEARCH_MODE,
    embedder: TextEmbedder | None = None,
) -> Retriever:
    """A retriever of ``mode`` over the current generation of the index at ``index``.

    Nothing heavy is read until the first ``run`` (or ``load()``). ``embedder`` embeds queries
    for ``dense`` and ``hybrid`` (the shipped MiniLM by default); it must be the model the index
    was built with. On an index built without dense vectors (``--no-dense``), ``hybrid`` falls
    back to BM25 (a :class:`FallbackRetriever` whose results say so in ``notes``) and
    ``dense`` raises :class:`~veracity.errors.IndexStoreError`.
    """
    if mode not in defaults.SEARCH_MODES:
        raise OptionError("mode", mode, f"one of {', '.join(defaults.SEARCH_MODES)}")
    from veracity.corpus.index_dir import STORE, IndexDir
    from veracity.corpus.store import ChunkStore

    generation = IndexDir(Path(index)).current()
    has_vectors = (generation / DENSE_META).is_file()
    if mode == "dense" and not has_vectors:
        raise IndexStoreError(
            f"the index at {index} was built without dense vectors, so mode={mode!r} cannot "
            "run. Re-index with dense vectors (`veracity index` without --no-dense, or "
            "Indexer(builders=[BM25Builder(), DenseBuilder()])), or search with mode='bm25'."
        )
    chunks = ChunkStore.open(generation / STORE)
    bm25 = BM25Retriever(chunks, generation)
    if mode == "bm25":
        return bm25
    if not has_vectors:  # hybrid, the default mode: BM25 is the half that exists
        return FallbackRetriever(
            bm25,
            f"the index at {index} has no dense vectors (it was built with --no-dense), so "
            "this hybrid search used BM25 alone; re-index without --no-dense for hybrid "
            "search, or pass --mode bm25",
        )
    dense = DenseRetriever(chunks, generation, embedder)
    if mode == "dense":
        return dense
    return HybridRetriever(bm25, dense)
