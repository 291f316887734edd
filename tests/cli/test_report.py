"""`veracity report` and `veracity verify-batch --report` through the CLI (fake verifier)."""

from __future__ import annotations

import json
from importlib.util import find_spec
from pathlib import Path

import pytest
from typer.testing import CliRunner

from veracity import cli
from veracity.testing import TablePairScorer

pytestmark = [
    pytest.mark.unit,
    pytest.mark.skipif(
        find_spec("matplotlib") is None,
        reason="install the [report] extra: pip install -e '.[report]'",
    ),
]

SOURCE = "Honey bees perform a waggle dance to show other workers where food is."
TABLE = {(SOURCE, "Honey bees perform a waggle dance."): (0.9, 0.02, 0.08)}
APP = cli.build_app(cli.Models(verifier=lambda name: TablePairScorer(TABLE)))
LINES = [
    {"id": "a", "answer": "Honey bees perform a waggle dance.", "docs": [SOURCE], "model": "m1"},
    {"id": "b", "answer": "Honey bees are green.", "docs": [SOURCE], "model": "m2"},
]


def _run(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(APP, list(args))
    return result.exit_code, result.stdout, " ".join(result.stderr.split())


@pytest.fixture
def answers(tmp_path: Path) -> Path:
    path = tmp_path / "answers.jsonl"
    path.write_text(
        "".join(json.dumps(line) + "\n" for line in LINES) + "{oops\n", encoding="utf-8"
    )
    return path


def test_verify_batch_writes_the_page_broken_down_by_an_input_field(
    answers: Path, tmp_path: Path
) -> None:
    out, page = tmp_path / "reports.jsonl", tmp_path / "page.html"
    code, stdout, _ = _run(
        "verify-batch",
        str(answers),
        "--out",
        str(out),
        "--sources-field",
        "docs",
        "--layers",
        "nli",
        "--workers",
        "1",
        "--report",
        str(page),
        "--report-by",
        "model",
    )
    assert code == 1  # the {oops line failed; the page is written all the same
    assert f"overview: {page}" in stdout
    html = page.read_text(encoding="utf-8")
    assert 'id="by-model"' in html
    assert "<td>m1</td>" in html
    assert "<td>m2</td>" in html
    assert "Failed records (1)" in html


def test_report_builds_the_same_page_from_the_output_without_running_again(
    answers: Path, tmp_path: Path
) -> None:
    out, first, second = tmp_path / "reports.jsonl", tmp_path / "1.html", tmp_path / "2.html"
    _run(
        "verify-batch",
        str(answers),
        "--out",
        str(out),
        "--sources-field",
        "docs",
        "--layers",
        "nli",
        "--workers",
        "1",
        "--report",
        str(first),
        "--report-by",
        "model",
    )
    code, stdout, _ = _run(
        "report",
        str(out),
        "--out",
        str(second),
        "--by",
        "model",
        "--answers",
        str(answers),
        "--json",
    )
    assert code == 0
    shown = json.loads(stdout)
    assert (shown["counts"]["records"], shown["counts"]["answers"], shown["counts"]["errors"]) == (
        3,
        2,
        1,
    )
    assert second.read_text(encoding="utf-8") == first.read_text(encoding="utf-8")


def test_report_on_a_file_that_is_not_an_output_names_the_line(
    answers: Path, tmp_path: Path
) -> None:
    code, _, stderr = _run("report", str(answers), "--out", str(tmp_path / "page.html"))
    assert code == 2
    assert f"{answers}:1: not a verify-batch record" in stderr
    assert not (tmp_path / "page.html").exists()


def test_an_unknown_field_names_the_flag_and_the_fields_there_are(
    answers: Path, tmp_path: Path
) -> None:
    out = tmp_path / "reports.jsonl"
    _run(
        "verify-batch",
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
    code, _, stderr = _run("report", str(out), "--out", str(tmp_path / "p.html"), "--by", "model")
    assert code == 2
    assert "--by 'model' is not allowed" in stderr
    assert "--answers FILE" in stderr


def test_report_by_without_report_fails_before_the_run(answers: Path, tmp_path: Path) -> None:
    out = tmp_path / "reports.jsonl"
    code, _, stderr = _run(
        "verify-batch",
        str(answers),
        "--out",
        str(out),
        "--sources-field",
        "docs",
        "--report-by",
        "model",
    )
    assert code == 2
    assert "--report overview.html" in stderr
    assert not out.exists()
