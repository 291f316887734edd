"""Shared fixtures of the adapter tests: a source, a table verifier, a small BM25 index."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

os.environ.setdefault("HAYSTACK_TELEMETRY_ENABLED", "False")  # no phoning home from tests

from veracity.testing import TablePairScorer

SOURCE = "Karl von Frisch won the Nobel Prize in 1973."
RIGHT = SOURCE
WRONG = "Karl von Frisch won the Nobel Prize in 1983."


@pytest.fixture
def scorer() -> TablePairScorer:
    return TablePairScorer({(SOURCE, WRONG): (0.05, 0.9, 0.05), (SOURCE, RIGHT): (0.95, 0.0, 0.05)})


@pytest.fixture
def index_dir(tmp_path: Path) -> Path:
    from veracity.corpus.indexer import Indexer
    from veracity.retrieve.bm25 import BM25Builder

    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "frisch.md").write_text(f"# Frisch\n\n{SOURCE}\n", encoding="utf-8")
    (docs / "hive.md").write_text(
        "# Hives\n\nLangstroth patented the movable-frame hive in 1852.\n", encoding="utf-8"
    )
    Indexer(builders=[BM25Builder()]).run([docs], tmp_path / "index")
    return tmp_path / "index"
