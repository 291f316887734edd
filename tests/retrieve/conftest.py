"""Fixtures for retrieval tests: chunks made in the test, a counting fake embedder, the real one."""

from __future__ import annotations

import re
import zlib
from collections.abc import Callable, Sequence
from pathlib import Path

import numpy as np
import pytest

from veracity.corpus.base import InMemoryChunks
from veracity.models.embedding import Embedder, Embeddings
from veracity.types import Chunk


def make_chunks(texts: Sequence[str]) -> InMemoryChunks:
    """One chunk per text, as if each were a whole document."""
    return InMemoryChunks(
        [
            Chunk(id=f"c{i}", doc_id=f"d{i}", index=0, text=t, start=0, end=len(t))
            for i, t in enumerate(texts)
        ]
    )


class WordHashEmbedder:
    """A fake embedder: bag of lowercase words hashed into 32 dimensions, L2-normalised.

    Texts that share words get a positive cosine; ``calls`` records every batch of texts so
    tests can see what was embedded. Texts of more than ``max_tokens`` words count as truncated.
    """

    model_id = "word-hash-32"
    dimension = 32

    def __init__(self, *, max_tokens: int = 12) -> None:
        self.max_tokens = max_tokens
        self.calls: list[list[str]] = []
        self.loads = 0

    def load(self) -> WordHashEmbedder:
        self.loads += 1
        return self

    def run(self, texts: Sequence[str]) -> Embeddings:
        self.calls.append(list(texts))
        vectors = np.zeros((len(texts), self.dimension), dtype=np.float32)
        truncated = []
        for row, text in enumerate(texts):
            words = re.findall(r"\w+", text.lower())
            if len(words) > self.max_tokens:
                truncated.append(row)
            for word in words[: self.max_tokens]:
                vectors[row, zlib.crc32(word.encode()) % self.dimension] += 1.0
            norm = np.linalg.norm(vectors[row])
            if norm:
                vectors[row] /= norm
        return Embeddings(vectors, self.model_id, tuple(truncated))


@pytest.fixture
def chunks_of() -> Callable[[Sequence[str]], InMemoryChunks]:
    return make_chunks


@pytest.fixture
def fake_embedder() -> WordHashEmbedder:
    return WordHashEmbedder()


@pytest.fixture(scope="session")
def minilm() -> Embedder:
    """The shipped int8 MiniLM, loaded once per session (integration tests only)."""
    return Embedder().load()


@pytest.fixture
def generation(tmp_path: Path) -> Path:
    path = tmp_path / "gen-000001"
    path.mkdir()
    return path
