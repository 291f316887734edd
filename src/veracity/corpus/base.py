"""Protocols shared by the corpus and the retrievers that index it."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Protocol, runtime_checkable

from veracity.types import Chunk

__all__ = ["BuildProgress", "ChunkLookup", "InMemoryChunks", "IndexBuilder", "ProgressBuilder"]

#: Called by a builder as ``progress(done, total)`` while it works (see :class:`IndexBuilder`).
BuildProgress = Callable[[int, int], None]


@runtime_checkable
class ChunkLookup(Protocol):
    """Chunks addressed by ordinal ``0 .. len-1``, the row order of every index array."""

    def __len__(self) -> int: ...

    def chunks(self, ordinals: Sequence[int]) -> list[Chunk]: ...

    def __iter__(self) -> Iterator[Chunk]: ...


class InMemoryChunks:
    """A ``ChunkLookup`` over a list, for tests and small corpora."""

    def __init__(self, chunks: Sequence[Chunk]) -> None:
        self._chunks = list(chunks)

    def __len__(self) -> int:
        return len(self._chunks)

    def chunks(self, ordinals: Sequence[int]) -> list[Chunk]:
        return [self._chunks[i] for i in ordinals]

    def __iter__(self) -> Iterator[Chunk]:
        return iter(self._chunks)


@runtime_checkable
class IndexBuilder(Protocol):
    """Writes one retrieval structure for a generation of the index.

    ``build`` receives every chunk of the new generation in ordinal order, the generation's
    folder to write into, and the previous generation's folder (or ``None``) so that work on
    unchanged chunks can be reused. It returns what the manifest should record about it.

    A slow builder may also report its own progress: see :class:`ProgressBuilder`.
    """

    name: str

    def build(
        self, chunks: ChunkLookup, directory: Path, previous: Path | None
    ) -> Mapping[str, object]: ...


@runtime_checkable
class ProgressBuilder(Protocol):
    """An :class:`IndexBuilder` that reports its own progress while it builds.

    When ``reports_progress`` is true, the indexer calls ``build`` with a fourth argument,
    ``progress(done, total)``, which the builder calls as it goes (``DenseBuilder`` does,
    once per batch of embedded chunks).
    """

    name: str
    reports_progress: bool

    def build(
        self,
        chunks: ChunkLookup,
        directory: Path,
        previous: Path | None,
        progress: BuildProgress | None = None,
    ) -> Mapping[str, object]: ...
