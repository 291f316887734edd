"""Dense retrieval: MiniLM sentence vectors of every chunk, searched by cosine similarity.

``DenseBuilder`` writes two files into a generation folder: ``dense.npy`` (float32 unit rows in
chunk ordinal order) and ``dense.json`` (model id, dimension, count, max tokens, the sha256 of
each chunk text in order, and the ordinals whose text was truncated to the model's window). A
chunk whose text hash is already in the previous generation gets its vector copied from there, so
re-indexing embeds only new text.

>>> new, old = Path("idx/gen-000002"), Path("idx/gen-000001")               # doctest: +SKIP
>>> DenseBuilder().build(chunks, new, old)["embedded"]                       # doctest: +SKIP
20
>>> DenseRetriever(chunks, new).run("a film about spiders").hits            # doctest: +SKIP
"""

from __future__ import annotations

import contextlib
import hashlib
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from veracity import defaults
from veracity.corpus.base import BuildProgress, ChunkLookup
from veracity.errors import IndexStoreError, InputError, OptionError, VeracityError
from veracity.models.embedding import Embedder, TextEmbedder, make_embedder
from veracity.retrieve.base import (
    check_k,
    check_lookup,
    check_query,
    hits_at,
    meta_count,
    read_meta,
    top_k,
    write_meta,
)
from veracity.types import Confidence, SearchResult

__all__ = ["DENSE_META", "DENSE_VECTORS", "DenseBuilder", "DenseRetriever", "TextEmbedder"]

DENSE_VECTORS = "dense.npy"
DENSE_META = "dense.json"


def _embedder(embedder: TextEmbedder | None) -> TextEmbedder:
    if embedder is None:
        return Embedder()
    if not isinstance(embedder, TextEmbedder):
        raise InputError(
            f"embedder must be a veracity Embedder (or have model_id, max_tokens, dimension, "
            f"load() and run(texts)), got {type(embedder).__name__}"
        )
    return embedder


def text_hash(text: str) -> str:
    """The sha256 hex digest of ``text`` as UTF-8: the key for reusing a chunk's vector."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


class DenseBuilder:
    """Embeds every chunk of a generation into ``dense.npy`` + ``dense.json``.

    The summary it returns counts the texts ``embedded`` now, the rows ``reused`` from the
    previous generation, and the rows whose text was ``truncated`` to the embedder's window of
    ``max_tokens`` tokens (those are embedded from their first ``max_tokens`` tokens only).
    ``block`` texts go to the embedder per call, and progress is reported after each call.

    >>> summary = DenseBuilder().build(chunks, Path("idx/gen-000001"), None)  # doctest: +SKIP
    >>> summary["truncated"]                                                  # doctest: +SKIP
    0
    """

    name = "dense"
    #: ``build`` takes ``progress`` (see :class:`~veracity.corpus.base.IndexBuilder`).
    reports_progress = True

    def __init__(
        self, embedder: TextEmbedder | None = None, *, block: int = defaults.DENSE_BLOCK
    ) -> None:
        if isinstance(block, bool) or not isinstance(block, int) or block < 1:
            raise OptionError(
                "block",
                block,
                "1 or more texts per embedder call",
                f"The default is {defaults.DENSE_BLOCK}.",
            )
        self.embedder = _embedder(embedder)
        self.block = block

    def build(
        self,
        chunks: ChunkLookup,
        directory: Path,
        previous: Path | None,
        progress: BuildProgress | None = None,
    ) -> Mapping[str, object]:
        """Write the vectors of ``chunks`` (ordinal order) into ``directory``.

        ``progress(done, total)`` is called after each batch of texts is embedded (``total``
        counts the texts to embed, not those whose vectors are reused).
        """
        embedder = self.embedder
        texts = [chunk.text for chunk in chunks]
        hashes = [text_hash(text) for text in texts]
        dimension = embedder.dimension
        vectors = np.zeros((len(texts), dimension), dtype=np.float32)
        known = _previous_vectors(previous, embedder)
        truncated_hashes: set[str] = set()
        todo: dict[str, list[int]] = {}  # each distinct new text is embedded once
        reused = 0
        for ordinal, digest in enumerate(hashes):
            found = known.get(digest)
            if found is None:
                todo.setdefault(digest, []).append(ordinal)
                continue
            vectors[ordinal] = found[0]
            reused += 1
            if found[1]:
                truncated_hashes.add(digest)
        pending = list(todo)
        if pending:
            embedder.load()
        for first in range(0, len(pending), self.block):
            block = pending[first : first + self.block]
            result = embedder.run([texts[todo[digest][0]] for digest in block])
            if result.vectors.shape != (len(block), dimension):
                raise IndexStoreError(
                    f"the embedder returned vectors of shape {result.vectors.shape} for "
                    f"{len(block)} texts; expected ({len(block)}, {dimension})"
                )
            for row, digest in enumerate(block):
                vectors[todo[digest]] = result.vectors[row]
            truncated_hashes.update(block[row] for row in result.truncated)
            if progress is not None:
                progress(first + len(block), len(pending))
        truncated = [i for i, digest in enumerate(hashes) if digest in truncated_hashes]
        directory = Path(directory)
        directory.mkdir(parents=True, exist_ok=True)
        np.save(directory / DENSE_VECTORS, vectors, allow_pickle=False)
        meta = {
            "model_id": embedder.model_id,
            "dimension": dimension,
            "count": len(texts),
            "max_tokens": embedder.max_tokens,
            "sha256": hashes,
            "truncated": truncated,
        }
        write_meta(directory / DENSE_META, meta)
        return {
            "model_id": embedder.model_id,
            "dimension": dimension,
            "count": len(texts),
            "embedded": len(pending),
            "reused": reused,
            "truncated": len(truncated),
            "max_tokens": embedder.max_tokens,
        }


def _previous_vectors(
    previous: Path | None, embedder: TextEmbedder
) -> dict[str, tuple[np.ndarray, bool]]:
    """Vectors of the previous generation by text hash, when they came from the same model.

    The previous generation is only a cache: when it is missing, unreadable or from another
    model, everything is embedded again.
    """
    if previous is None:
        return {}
    try:
        meta = read_meta(Path(previous) / DENSE_META, "dense index")
        matrix = np.load(Path(previous) / DENSE_VECTORS, mmap_mode="r", allow_pickle=False)
    except (VeracityError, OSError, ValueError):
        return {}
    same_model = (
        meta.get("model_id") == embedder.model_id
        and meta.get("max_tokens") == embedder.max_tokens
        and meta.get("dimension") == embedder.dimension
    )
    hashes = meta.get("sha256")
    if (
        not same_model
        or not isinstance(hashes, list)
        or matrix.shape
        != (
            len(hashes),
            embedder.dimension,
        )
    ):
        return {}
    truncated = set(meta.get("truncated", []))
    return {digest: (matrix[row], row in truncated) for row, digest in enumerate(hashes)}


@dataclass(frozen=True)
class _Loaded:
    matrix: np.ndarray
    count: int


class DenseRetriever:
    """Cosine search over the chunk vectors of one index generation.

    ``directory`` is the generation folder holding ``dense.npy``; the vectors are memory-mapped.
    The query is embedded with the same model (checked against ``dense.json``); a query longer
    than the embedder's window is embedded from its first ``max_tokens`` tokens. Confidence:
    ``top_cosine`` is the best cosine and ``margin`` the best minus the second best, both over
    the whole index whatever ``k`` is.

    >>> retriever = DenseRetriever(chunks, Path("idx/gen-000001")).load()   # doctest: +SKIP
    >>> retriever.run("who directed the film?", k=3).confidence.top_cosine  # doctest: +SKIP
    0.61
    """

    name = "dense"

    def __init__(
        self,
        chunks: ChunkLookup,
        directory: str | Path,
        embedder: TextEmbedder | None = None,
    ) -> None:
        self.chunks = check_lookup(chunks)
        self.directory = Path(directory)
        self.embedder = _embedder(embedder)
        self._chosen = embedder is not None  # else: the embedder the index was built with
        self._loaded: _Loaded | None = None

    def load(self) -> DenseRetriever:
        """Map the vectors and load the embedder once; later calls do nothing."""
        self._index()
        return self

    def _index(self) -> _Loaded:
        if self._loaded is None:
            self._loaded = self._open()
        return self._loaded

    def _open(self) -> _Loaded:
        meta = read_meta(self.directory / DENSE_META, "dense index")
        count = meta_count(meta, "count", self.directory / DENSE_META)
        if count != len(self.chunks):
            raise IndexStoreError(
                f"the dense index at {self.directory} holds {count} chunks but the chunk store "
                f"holds {len(self.chunks)}; they come from different generations. Re-index."
            )
        built_with = str(meta.get("model_id"))
        if not self._chosen and built_with != self.embedder.model_id:
            with contextlib.suppress(OptionError):  # the index's, when veracity can make it
                self.embedder = make_embedder(built_with)
        if built_with != self.embedder.model_id:
            index = self.directory.parent
            raise IndexStoreError(
                f"the dense index at {self.directory} was embedded with {built_with!r} but the "
                f"query embedder is {self.embedder.model_id!r}, and the vectors of two embedders "
                "cannot be compared. Search with the embedder the index was built with (leave "
                "the embedder out and the index chooses it), or re-index with this one: "
                f"`veracity index PATHS --index {index} --embedder {self.embedder.model_id}`."
            )
        try:
            matrix = np.load(self.directory / DENSE_VECTORS, mmap_mode="r", allow_pickle=False)
        except (OSError, ValueError) as exc:
            raise IndexStoreError(
                f"cannot read {self.directory / DENSE_VECTORS}: {exc}. Re-index."
            ) from exc
        if matrix.shape != (count, self.embedder.dimension) or matrix.dtype != np.float32:
            raise IndexStoreError(
                f"{self.directory / DENSE_VECTORS} holds {matrix.dtype} {matrix.shape}; expected "
                f"float32 ({count}, {self.embedder.dimension}). Re-index."
            )
        self.embedder.load()
        return _Loaded(matrix, count)

    def score_all(self, query: str) -> np.ndarray:
        """Cosine of ``query`` with every chunk (float32, ordinal order)."""
        return self._scores(check_query(query))

    def _scores(self, query: str) -> np.ndarray:
        index = self._index()
        if index.count == 0:
            return np.zeros(0, dtype=np.float32)
        vector = self.embedder.run([query]).vectors[0].astype(np.float32, copy=False)
        return np.asarray(index.matrix @ vector)

    def run(self, query: str, *, k: int = defaults.TOP_K) -> SearchResult:
        """The ``k`` chunks closest to ``query`` (all of them when there are fewer), best first."""
        query = check_query(query)
        k = check_k(k)
        scores = self._scores(query)
        best = top_k(scores, max(k, 2))
        first = float(scores[best[0]]) if best.size else None
        margin = float(scores[best[0]] - scores[best[1]]) if best.size > 1 else None
        top = best[:k]
        values = scores[top]
        hits = hits_at(self.chunks, top, values, self.name, {"cosine": values})
        confidence = Confidence(top_cosine=first, margin=margin)
        return SearchResult(query=query, mode=self.name, hits=hits, confidence=confidence)
