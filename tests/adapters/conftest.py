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


#: The index's passage of frisch.md: its heading, a blank line and the source.
PASSAGE = f"# Frisch\n\n{SOURCE}"


@pytest.fixture
def scorer() -> TablePairScorer:
    """The verifier reads the wrong year as contradicted, the right one as supported, in the
    source alone and in the index's passage."""
    return TablePairScorer(
        {
            (premise, claim): probs
            for premise in (SOURCE, PASSAGE)
            for claim, probs in ((WRONG, (0.05, 0.9, 0.05)), (RIGHT, (0.95, 0.0, 0.05)))
        }
    )


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
