"""`veracity index` through the CLI: exit codes, failure reports and the summary line."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from veracity import cli

pytestmark = pytest.mark.unit


@pytest.fixture
def docs(tmp_path: Path) -> Path:
    root = tmp_path / "docs"
    root.mkdir()
    (root / "a.txt").write_text("Alpha is the first letter.", encoding="utf-8")
    (root / "b.md").write_text("# Bees\n\nBees make honey.\n", encoding="utf-8")
    return root


def _index(*args: str) -> tuple[int, str, str]:
    """Exit code, stdout, and stderr with Rich's line wrapping undone."""
    result = CliRunner().invoke(cli.app, ["index", *args, "--no-dense"])
    return result.exit_code, result.stdout, " ".join(result.stderr.split())


def _cli(*args: str, timeout: float = 60) -> subprocess.CompletedProcess[str]:
    """The real command in a child process, killed after ``timeout`` (a hang fails the test)."""
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path))
    return subprocess.run(
        [sys.executable, "-m", "veracity.cli", *args],
        capture_output=True,
        text=True,
        timeout=timeout,
        env=env,
        stdin=subprocess.DEVNULL,
        check=False,
    )


def test_a_fifo_in_an_indexed_folder_is_skipped_with_a_reason(docs: Path, tmp_path: Path) -> None:
    os.mkfifo(docs / "pipe.txt")
    index = tmp_path / "index"
    done = _cli("index", str(docs), "--index", str(index), "--no-dense", "--json")
    assert done.returncode == 1, done.stderr
    payload = json.loads(done.stdout)
    assert [(f["path"], f["reason"]) for f in payload["failures"]] == [
        (str(docs / "pipe.txt"), "special_file")
    ]
    assert payload["files_indexed"] == 2
    assert sorted(p.name for p in index.iterdir()) == ["CURRENT", "LOCK", "gen-000001"]


def test_verify_refuses_a_fifo_source_instead_of_hanging(tmp_path: Path) -> None:
    fifo = tmp_path / "source.txt"
    os.mkfifo(fifo)
    done = _cli(
        "verify",
        "--answer",
        "Bees make honey.",
        "--sources",
        str(fifo),
        "--verifier",
        "lexical",
        "--layers",
        "nli",
    )
    assert done.returncode == 2
    assert f"{fifo}: is a named pipe (FIFO), not a regular file" in " ".join(done.stderr.split())


def test_a_missing_path_beside_good_ones_exits_1_with_the_rest_indexed(
    docs: Path, tmp_path: Path
) -> None:
    index = tmp_path / "index"
    code, out, err = _index(str(docs), str(tmp_path / "typo"), "--index", str(index))
    assert code == 1
    assert "indexed 2 file(s)" in out
    assert f"skipped {tmp_path / 'typo'}: does not exist" in err
    code, out, err = _index(
        str(tmp_path / "typo"), str(docs), "--index", str(tmp_path / "two"), "--json"
    )
    assert code == 1
    payload = json.loads(out)
    assert (payload["files_indexed"], payload["paths_failed"], payload["exit_code"]) == (2, 1, 1)


def test_strict_stops_at_a_missing_path_with_exit_2_and_writes_nothing(
    docs: Path, tmp_path: Path
) -> None:
    index = tmp_path / "index"
    code, _, err = _index(str(docs), str(tmp_path / "typo"), "--index", str(index), "--strict")
    assert code == 2
    assert "does not exist" in err
    assert not index.exists()


def test_the_summary_counts_failed_lines_as_the_exit_code_does(docs: Path, tmp_path: Path) -> None:
    (docs / "rows.jsonl").write_text(
        '{"id": "r1", "text": "Row one."}\nnot json\n', encoding="utf-8"
    )
    index = tmp_path / "index"
    for run in ("first", "unchanged"):
        code, out, err = _index(str(docs), "--index", str(index))
        assert code == 1, run
        assert "1 failed (1 line)" in " ".join(out.split()), run
        assert f"skipped {docs / 'rows.jsonl'}:2:" in err
    (docs / "broken.txt").write_bytes(b"\x00\x01")
    code, out, _ = _index(str(docs), str(tmp_path / "typo"), "--index", str(index))
    assert code == 1
    assert "3 failed (1 file, 1 line, 1 path)" in " ".join(out.split())
    (docs / "rows.jsonl").write_text('{"id": "r1", "text": "Row one."}\n', encoding="utf-8")
    (docs / "broken.txt").unlink()
    code, out, _ = _index(str(docs), "--index", str(index))
    assert code == 0
    assert "0 failed:" in out


def test_a_corrupt_pdf_shows_our_error_and_no_pypdf_log_line(docs: Path, tmp_path: Path) -> None:
    from fpdf import FPDF

    pdf = FPDF()
    pdf.add_page()
    pdf.set_font("Helvetica", size=12)
    pdf.multi_cell(0, 8, "Bees make honey.")
    (docs / "cut.pdf").write_bytes(bytes(pdf.output())[:-8])  # no %%EOF marker
    done = _cli("index", str(docs), "--index", str(tmp_path / "index"), "--no-dense")
    assert done.returncode == 1, done.stderr
    err = " ".join(done.stderr.split())
    assert f"skipped {docs / 'cut.pdf'}: cannot be read as a PDF" in err
    assert "EOF marker" not in err
    assert "startxref" not in err


def test_a_link_that_loops_is_reported_as_a_loop(docs: Path, tmp_path: Path) -> None:
    # Harden-2 #13: a loop was "does not exist", and one inside a folder was not mentioned
    (docs / "loop").symlink_to("loop")
    given = tmp_path / "given.md"
    given.symlink_to("given.md")
    code, out, err = _index(str(docs), str(given), "--index", str(tmp_path / "index"))
    assert code == 1
    assert "indexed 2 file(s)" in out
    assert (
        f"skipped {docs / 'loop'}: is a symbolic link that loops ({docs / 'loop'} -> loop)" in err
    )
    assert f"skipped {given}: is a symbolic link that loops" in err
    assert "does not exist" not in err


def test_ctrl_c_says_what_was_kept(
    docs: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Harden-2 #14: Ctrl-C exited 130 without a word
    from veracity.corpus.index_dir import IndexDir
    from veracity.retrieve.bm25 import BM25Builder

    index = tmp_path / "index"
    assert _index(str(docs), "--index", str(index))[0] == 0
    (docs / "a.txt").write_text("Alpha changed.", encoding="utf-8")

    def interrupted(*args: object, **kwargs: object) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(BM25Builder, "build", interrupted)
    code, _, err = _index(str(docs), "--index", str(index))
    assert code == 130
    assert (
        f"interrupted: the index in {index} is as it was before this run (gen-000001); "
        "nothing of this run was kept"
    ) in err
    assert IndexDir(index).current().name == "gen-000001"
    code, _, err = _index(str(docs), "--index", str(tmp_path / "new"))
    assert code == 130
    assert f"interrupted: nothing was written: {tmp_path / 'new'} holds no index" in err
