"""`veracity search` through the CLI on a small BM25-only index built in the test."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from veracity import cli
from veracity.cli.application import Models, build_app
from veracity.testing import OverlapRelevanceScorer

pytestmark = pytest.mark.unit


@pytest.fixture
def index(tmp_path: Path) -> Path:
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "mites.txt").write_text("Varroa mites are the worst parasite of honeybees.\n")
    (docs / "wax.md").write_text("# Beeswax\n\nBeeswax melts at about 63 degrees.\n")
    folder = tmp_path / "index"
    result = CliRunner().invoke(cli.app, ["index", str(docs), "--index", str(folder), "--no-dense"])
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


# --- --rerank -------------------------------------------------------------------------------


def _reranked(index: Path, *args: str, reranker: OverlapRelevanceScorer | None = None):
    app = build_app(Models(reranker=lambda name: reranker or OverlapRelevanceScorer()))
    return CliRunner().invoke(
        app, ["search", "varroa mites", "--index", str(index), "--mode", "bm25", *args]
    )


def test_rerank_reorders_with_the_reranker_and_shows_its_relevance(index: Path) -> None:
    reranker = OverlapRelevanceScorer()
    result = _reranked(index, "--rerank", "--rerank-depth", "2", "-k", "1", reranker=reranker)
    assert result.exit_code == 0, result.output
    assert "(bm25+rerank;" in result.stdout
    assert "relevance 0.731 (first stage #1)" in result.stdout
    assert reranker.calls == [1]  # BM25 matched one chunk of the two
    payload = json.loads(_reranked(index, "--rerank", "--json").stdout)
    assert payload["mode"] == "bm25+rerank"
    assert payload["confidence"]["top_rerank"] == pytest.approx(0.7310585786)
    assert set(payload["hits"][0]["scores"]) == {
        "bm25",
        "rerank",
        "first_stage",
        "first_stage_rank",
    }


@pytest.mark.parametrize(
    ("args", "needle"),
    [
        (["--rerank", "--rerank-depth", "0"], "--rerank-depth 0"),
        (["--rerank", "--rerank-depth", "9"], "at most 2, the number of chunks in the index"),
        (["--rerank", "--rerank-depth", "1", "-k", "2"], "-k 2"),
        (["--rerank-depth", "5"], "--rerank when --rerank-depth is given"),
        (["--reranker", "hf:x"], "--rerank when --reranker is given"),
    ],
)
def test_bad_rerank_options_name_the_flag(index: Path, args: list[str], needle: str) -> None:
    result = _reranked(index, *args)
    assert result.exit_code == 2
    assert needle in " ".join(result.stderr.split())


def test_an_unknown_reranker_lists_the_choices(index: Path) -> None:
    result = CliRunner().invoke(
        cli.app,
        ["search", "varroa mites", "--index", str(index), "--rerank", "--reranker", "colbert"],
    )
    assert result.exit_code == 2
    assert "--reranker 'colbert' is not allowed" in result.stderr
    assert "hf:<model>" in result.stderr
