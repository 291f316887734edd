"""`veracity index --embedder`: a static embedder's index, searched with the embedder it names."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from veracity import cli, defaults

pytestmark = pytest.mark.unit


def test_an_index_built_with_a_static_embedder_is_searched_with_it(
    static_model, tmp_path: Path
) -> None:
    model = static_model(tmp_path / "static")
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "bees.txt").write_text("The bees dance in the hive.", encoding="utf-8")
    (docs / "paris.txt").write_text("The treaty was signed in Paris.", encoding="utf-8")
    index = tmp_path / "i"
    built = CliRunner().invoke(
        cli.app,
        ["index", str(docs), "--index", str(index), "--embedder", f"static:{model}", "--json"],
    )
    assert built.exit_code == 0, built.output
    assert json.loads(built.stdout)["builders"]["dense"]["model_id"] == f"static:{model}"
    found = CliRunner().invoke(
        cli.app,
        ["search", "where do bees dance", "--index", str(index), "--mode", "dense", "--json"],
    )
    assert found.exit_code == 0, found.output
    assert json.loads(found.stdout)["hits"][0]["doc_id"] == "bees.txt"


def test_an_unknown_embedder_or_one_with_workers_is_refused(tmp_path: Path) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "a.txt").write_text("Bees dance.", encoding="utf-8")
    unknown = CliRunner().invoke(
        cli.app, ["index", str(docs), "--index", str(tmp_path / "i"), "--embedder", "glove"]
    )
    assert unknown.exit_code == 2
    said = " ".join(unknown.output.split())
    assert "--embedder 'glove' is not allowed" in said
    assert defaults.EMBED_STATIC in said
    parallel = CliRunner().invoke(
        cli.app,
        [
            "index",
            str(docs),
            "--index",
            str(tmp_path / "j"),
            "--embedder",
            "static",
            "--workers",
            "2",
        ],
    )
    assert parallel.exit_code == 2
    assert "Leave out --workers" in " ".join(parallel.output.split())
