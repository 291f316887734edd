"""`veracity index` with the shipped MiniLM embedder: what its summary says of the vectors."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from veracity import cli

pytestmark = pytest.mark.integration


def test_the_summary_says_how_many_chunks_the_dense_vectors_cut(tmp_path: Path) -> None:
    # Harden-2 #14: chunks cut to the dense model's window went unmentioned
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "short.txt").write_text("Bees make honey.", encoding="utf-8")
    (docs / "long.txt").write_text(
        " ".join(["antidisestablishmentarianism"] * 150), encoding="utf-8"
    )
    result = CliRunner().invoke(cli.app, ["index", str(docs), "--index", str(tmp_path / "i")])
    assert result.exit_code == 0, result.output
    out = " ".join(result.stdout.split())
    assert "note: 1 of 2 chunks are longer than the dense model's window of 256 tokens" in out
    short = CliRunner().invoke(
        cli.app, ["index", str(docs / "short.txt"), "--index", str(tmp_path / "j")]
    )
    assert "note:" not in short.stdout
