"""Open a retriever on the live generation of an index folder.

>>> retriever = open_retriever("my-index", mode="hybrid")      # doctest: +SKIP
>>> result = retriever.run("when was the treaty signed?", k=5)  # doctest: +SKIP
>>> result.hits[0].chunk.doc_id, result.confidence.top_cosine   # doctest: +SKIP
"""

from __future__ import annotations

from pathlib import Path

from veracity import defaults
from veracity.errors import IndexStoreError, OptionError
from veracity.retrieve.base import Retriever
from veracity.retrieve.bm25 import BM25Retriever
from veracity.retrieve.dense import DENSE_META, DenseRetriever, TextEmbedder
from veracity.retrieve.hybrid import HybridRetriever

__all__ = ["open_retriever"]


def open_retriever(
    index: str | Path,
    *,
    mode: str = defaults.SEARCH_MODE,
    embedder: TextEmbedder | None = None,
) -> Retriever:
    """A retriever of ``mode`` over the current generation of the index at ``index``.

    Nothing heavy is read until the first ``run`` (or ``load()``). ``embedder`` embeds queries
    for ``dense`` and ``hybrid`` (the shipped MiniLM by default); it must be the model the index
    was built with.
    """
    if mode not in defaults.SEARCH_MODES:
        raise OptionError("mode", mode, f"one of {', '.join(defaults.SEARCH_MODES)}")
    from veracity.corpus.index_dir import STORE, IndexDir
    from veracity.corpus.store import ChunkStore

    generation = IndexDir(Path(index)).current()
    if mode != "bm25" and not (generation / DENSE_META).is_file():
        raise IndexStoreError(
            f"the index at {index} was built without dense vectors, so mode={mode!r} cannot "
            "run. Re-index with dense vectors (`veracity index` without --no-dense, or "
            "Indexer(builders=[BM25Builder(), DenseBuilder()])), or search with mode='bm25'."
        )
    chunks = ChunkStore.open(generation / STORE)
    bm25 = BM25Retriever(chunks, generation)
    if mode == "bm25":
        return bm25
    dense = DenseRetriever(chunks, generation, embedder)
    if mode == "dense":
        return dense
    return HybridRetriever(bm25, dense)
