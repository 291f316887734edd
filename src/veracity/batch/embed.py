"""Dense embedding of a large corpus on several workers (``veracity index --workers/--ray``).

:class:`ParallelEmbedder` is a :class:`~veracity.models.embedding.TextEmbedder`: hand it to
:class:`~veracity.retrieve.dense.DenseBuilder` with a large ``block``, and each call is cut
into tasks of ``DENSE_BLOCK`` texts, each embedded by one worker's own embedder exactly as the
single-process builder embeds that block, so the vectors are the same.

>>> from veracity.batch.engines import LocalPool
>>> from veracity.retrieve.dense import DenseBuilder
>>> embedder = ParallelEmbedder(LocalPool(workers=2))                    # doctest: +SKIP
>>> DenseBuilder(embedder, block=defaults.BATCH_EMBED_BLOCK)             # doctest: +SKIP
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from functools import partial
from typing import Any

import numpy as np

from veracity import defaults
from veracity.batch.engines import Engine
from veracity.errors import InputError
from veracity.models.embedding import Embedder, Embeddings, TextEmbedder

__all__ = ["ParallelEmbedder"]


def _load(make: Callable[[], TextEmbedder]) -> TextEmbedder:
    embedder = make()
    embedder.load()
    return embedder


def _embed_task(
    embedder: TextEmbedder, task: tuple[int, list[str]]
) -> tuple[int, np.ndarray, tuple[int, ...]]:
    first, texts = task
    result = embedder.run(texts)
    return first, result.vectors, tuple(first + i for i in result.truncated)


class ParallelEmbedder:
    """Embeds texts on ``engine``'s workers, ``unit`` texts per task, each worker with its own
    embedder from ``make`` (the shipped MiniLM by default). ``close()`` stops the workers."""

    def __init__(
        self,
        engine: Engine,
        make: Callable[[], TextEmbedder] = Embedder,
        *,
        unit: int = defaults.DENSE_BLOCK,
    ) -> None:
        if unit < 1:
            raise InputError(f"unit={unit} must be 1 or more texts per task")
        probe = make()  # cheap: an embedder loads nothing until load()
        if not isinstance(probe, TextEmbedder):
            raise InputError(f"make must build a TextEmbedder, got {type(probe).__name__}")
        self.engine = engine
        self.make = make
        self.unit = unit
        self.model_id = probe.model_id
        self.max_tokens = probe.max_tokens
        self._dimension = probe.dimension
        self._started = False

    @property
    def dimension(self) -> int:
        return self._dimension

    def load(self) -> ParallelEmbedder:
        """Start the workers, each loading its embedder once; repeat calls are free."""
        if not self._started:
            self.engine.start(partial(_load, self.make))
            self._started = True
        return self

    def run(self, texts: Sequence[str]) -> Embeddings:
        self.load()
        vectors = np.zeros((len(texts), self.dimension), dtype=np.float32)
        tasks = [
            (first, list(texts[first : first + self.unit]))
            for first in range(0, len(texts), self.unit)
        ]
        truncated: list[int] = []
        for first, block, cut in self.engine.map(_embed_task, tasks):
            vectors[first : first + len(block)] = block
            truncated.extend(cut)
        return Embeddings(vectors, self.model_id, tuple(sorted(truncated)))

    def close(self) -> None:
        if self._started:
            self.engine.close()
            self._started = False

    def __enter__(self) -> ParallelEmbedder:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()
