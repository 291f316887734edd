"""`veracity verify-batch` through the CLI with a fake verifier (given to ``cli.build_app``)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from veracity import cli
from veracity.corpus.indexer import Indexer
from veracity.retrieve.bm25 import BM25Builder
from veracity.testing import TablePairScorer

pytestmark = pytest.mark.unit

SOURCE = "Honey bees perform a waggle dance to show other workers where food is."
TABLE = {(SOURCE, "Honey bees perform a waggle dance."): (0.9, 0.02, 0.08)}
APP = cli.build_app(cli.Models(verifier=lambda name: TablePairScorer(TABLE)))
LINES: list[dict[str, Any]] = [
    {"id": "a", "answer": "Honey bees perform a waggle dance.", "docs": [SOURCE]},
    {
        "id": "b",
        "answer": "Honey bees perform a waggle dance [1].",
        "docs": [SOURCE],
        "cited": {"1": "text-1#0"},
    },
]


def _run(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(APP, ["verify-batch", *args])
    return result.exit_code, result.stdout, " ".join(result.stderr.split())


@pytest.fixture
def answers(tmp_path: Path) -> Path:
    path = tmp_path / "answers.jsonl"
    path.write_text("".join(json.dumps(line) + "\n" for line in LINES), encoding="utf-8")
    return path


def test_each_line_is_the_report_verify_json_prints(answers: Path, tmp_path: Path) -> None:
    out = tmp_path / "reports.jsonl"
    code, stdout, _ = _run(
        str(answers),
        "--out",
        str(out),
        "--sources-field",
        "docs",
        "--layers",
        "nli",
        "--workers",
        "1",
    )
    assert code == 0
    assert "2 answers verified, 0 failed" in stdout
    assert "answers/s" in stdout
    records = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    verify = CliRunner().invoke(
        APP,
        [
            "verify",
            "--answer",
            LINES[0]["answer"],
            "--sources",
            str(_source_file(tmp_path)),
            "--layers",
            "nli",
            "--json",
        ],
    )
    single = json.loads(verify.stdout)
    first = next(r for r in records if r["id"] == "a")
    assert set(first) - {"id", "line"} == set(single) - {"exit_code"}
    assert first["summary"] == single["summary"]
    cited = next(r for r in records if r["id"] == "b")
    assert cited["claims"][0]["citations"][0]["chunk_id"] == "text-1#0"


def _source_file(tmp_path: Path) -> Path:
    path = tmp_path / "source.md"
    path.write_text(SOURCE + "\n", encoding="utf-8")
    return path


def test_json_summary_and_exit_1_when_a_line_fails(answers: Path, tmp_path: Path) -> None:
    with answers.open("a", encoding="utf-8") as handle:
        handle.write("{not json\n")
    out = tmp_path / "reports.jsonl"
    code, stdout, _ = _run(
        str(answers), "--out", str(out), "--sources-field", "docs", "--json", "--workers", "2"
    )
    assert code == 1
    summary = json.loads(stdout)
    assert summary["counts"]["answers"] == 2
    assert summary["counts"]["errors"] == 1
    assert summary["workers"] == 2
    assert summary["exit_code"] == 1
    code, stdout, _ = _run(str(answers), "--out", str(out), "--sources-field", "docs", "--json")
    assert json.loads(stdout)["written"] == 0
    assert json.loads(stdout)["done_before"] == 3
    assert len(out.read_text(encoding="utf-8").splitlines()) == 3


def test_against_an_index(tmp_path: Path) -> None:
    docs = _source_file(tmp_path)
    Indexer(builders=[BM25Builder()]).run([docs], tmp_path / "index")
    source = tmp_path / "answers.jsonl"
    source.write_text(
        json.dumps(
            {
                "id": 1,
                "answer": "Honey bees perform a waggle dance [1].",
                "cited": {"1": "source.md#0"},
            }
        )
        + "\n",
        encoding="utf-8",
    )
    out = tmp_path / "out.jsonl"
    code, _, err = _run(
        str(source),
        "--out",
        str(out),
        "--index",
        str(tmp_path / "index"),
        "--mode",
        "bm25",
        "--workers",
        "1",
    )
    assert code == 0, err
    record = json.loads(out.read_text(encoding="utf-8"))
    assert record["claims"][0]["label"] == "supported"
    assert record["claims"][0]["citations"][0]["doc_id"] == "source.md"


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--sources-field", "docs", "--index", "somewhere"], "not both"),
        (["--layers", "consistency"], "chat model"),
        (["--workers", "0"], "--workers 0"),
        (["--index", "no-such-index"], "no-such-index"),
    ],
)
def test_bad_options_exit_2_with_the_fix(
    answers: Path, tmp_path: Path, args: list[str], message: str
) -> None:
    code, _, err = _run(str(answers), "--out", str(tmp_path / "out.jsonl"), *args)
    assert code == 2
    assert message in err


def test_a_missing_ray_names_the_extra(
    answers: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import sys

    monkeypatch.setitem(sys.modules, "ray", None)
    code, _, err = _run(
        str(answers), "--out", str(tmp_path / "out.jsonl"), "--ray", "--sources-field", "docs"
    )
    assert code == 2
    assert "pip install 'veracity[ray]'" in err
