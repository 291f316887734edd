"""`veracity search` through the CLI on a small BM25-only index built in the test."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from veracity import cli

pytestmark = pytest.mark.unit


@pytest.fixture
def index(tmp_path: Path) -> Path:
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "mites.txt").write_text("Varroa mites are the worst parasite of honeybees.\n")
    (docs / "wax.md").write_text("# Beeswax\n\nBeeswax melts at about 63 degrees.\n")
    folder = tmp_path / "index"
    result = CliRunner().invoke(cli.app, ["index", str(docs), "--index", str(folder),
                                          "--no-dense"])
    assert result.exit_code == 0, result.output
    return folder


def _search(index: Path, *args: str):
    return CliRunner().invoke(cli.app, ["search", "varroa mites", "--index", str(index), *args])


def test_the_default_mode_falls_back_to_bm25_on_an_index_without_vectors(index: Path) -> None:
    result = _search(index)
    assert result.exit_code == 0, result.output
    assert "(bm25;" in result.stdout
    assert "mites.txt" in result.stdout
    assert "used BM25 alone" in " ".join(result.stderr.split())
    payload = json.loads(_search(index, "--json").stdout)
    assert payload["mode"] == "bm25"
    assert len(payload["notes"]) == 1
    assert "re-index without --no-dense" in payload["notes"][0]
    assert payload["hits"][0]["doc_id"] == "mites.txt"


def test_an_explicit_bm25_search_has_no_note(index: Path) -> None:
    payload = json.loads(_search(index, "--mode", "bm25", "--json").stdout)
    assert payload["notes"] == []


def test_an_explicit_dense_search_stays_an_error(index: Path) -> None:
    result = _search(index, "--mode", "dense")
    assert result.exit_code == 2
    assert "without --no-dense" in " ".join(result.stderr.split())
