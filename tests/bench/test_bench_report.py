"""bench/_report.py refuses figures measured with uncommitted changes unless told to write them,
and rewrites a section in whichever of README.md and HISTORY.md holds it.

Each test runs the stamp writer on a git repository of its own (a copy of nothing but one
source file), so the checkout's own state never matters.
"""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import pytest

pytestmark = pytest.mark.unit

REPORT = Path(__file__).resolve().parents[2] / "bench" / "_report.py"


def _git(repo: Path, *args: str) -> None:
    subprocess.run(
        ["git", "-c", "user.name=t", "-c", "user.email=t@example.org", *args],
        cwd=repo,
        check=True,
        capture_output=True,
    )


@pytest.fixture
def report(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> ModuleType:
    """The stamp writer, pointed at a fresh repository with one committed source file."""
    spec = importlib.util.spec_from_file_location("bench_report_under_test", REPORT)
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    monkeypatch.setitem(sys.modules, spec.name, module)
    spec.loader.exec_module(module)
    repo = tmp_path / "repo"
    (repo / "src").mkdir(parents=True)
    (repo / "bench").mkdir()
    (repo / "src" / "code.py").write_text("x = 1\n", encoding="utf-8")
    _git(repo, "init", "-q")
    _git(repo, "add", ".")
    _git(repo, "commit", "-q", "-m", "start")
    monkeypatch.setattr(module, "REPO", repo)
    monkeypatch.setattr(module, "RESULTS", repo / "bench" / "results")
    monkeypatch.setattr(module, "README", repo / "bench" / "README.md")
    monkeypatch.setattr(module, "HISTORY", repo / "bench" / "HISTORY.md")
    monkeypatch.delenv(module.DIRTY_ENV, raising=False)
    return module


def _write(report: ModuleType, **options: bool) -> Path:
    path: Path = report.write_result(
        "speed", {"qps": 3}, "| a |\n| - |", "bench/speed.py", **options
    )
    return path


def _dirty(report: ModuleType) -> None:
    (report.REPO / "src" / "code.py").write_text("x = 2\n", encoding="utf-8")


def test_a_clean_tree_is_stamped_with_its_commit_alone(report: ModuleType) -> None:
    stamp = json.loads(_write(report).read_text(encoding="utf-8"))["commit"]
    assert stamp != "unknown"
    assert "uncommitted" not in stamp
    assert f"commit {stamp}." in report.README.read_text(encoding="utf-8")


def test_a_dirty_tree_is_refused_and_nothing_is_written(report: ModuleType) -> None:
    _dirty(report)
    with pytest.raises(report.DirtyTreeError, match=r"src/code\.py.*VERACITY_BENCH_DIRTY=1") as e:
        _write(report)
    assert not report.RESULTS.exists()
    assert not report.README.exists()
    kept = Path(str(e.value).split("kept in ")[1].split(")")[0])
    assert json.loads(kept.read_text(encoding="utf-8"))["figures"] == {"qps": 3}
    kept.unlink()


def test_an_untracked_file_does_not_make_the_tree_dirty(report: ModuleType) -> None:
    (report.REPO / "src" / "new.py").write_text("y = 1\n", encoding="utf-8")
    assert "uncommitted" not in json.loads(_write(report).read_text(encoding="utf-8"))["commit"]


def test_the_environment_variable_writes_it_stamped_as_dirty(
    report: ModuleType, monkeypatch: pytest.MonkeyPatch
) -> None:
    _dirty(report)
    monkeypatch.setenv(report.DIRTY_ENV, "1")
    stamp = json.loads(_write(report).read_text(encoding="utf-8"))["commit"]
    assert stamp.endswith(" (with uncommitted changes)")
    assert "(with uncommitted changes)." in report.README.read_text(encoding="utf-8")


def test_allow_dirty_overrides_the_environment_both_ways(
    report: ModuleType, monkeypatch: pytest.MonkeyPatch
) -> None:
    _dirty(report)
    assert "uncommitted" in json.loads(_write(report, allow_dirty=True).read_text())["commit"]
    monkeypatch.setenv(report.DIRTY_ENV, "1")
    with pytest.raises(report.DirtyTreeError):
        _write(report, allow_dirty=False)


def test_the_allow_dirty_option_parses_to_the_keyword(report: ModuleType) -> None:
    import argparse

    parser = argparse.ArgumentParser()
    report.add_allow_dirty(parser)
    assert parser.parse_args(["--allow-dirty"]).allow_dirty is True
    assert parser.parse_args([]).allow_dirty is False


_INDEX = (
    "# Benchmarks\n\n<!-- bench-index -->\n\n"
    "| section | figure | script | data | result file | measured |\n"
    "| --- | --- | --- | --- | --- | --- |\n"
    "| [speed](#speed) | queries/s | bench/speed.py | a corpus | results/speed.json "
    "| 2020-01-01, abc1234 |\n"
    "\n<!-- /bench-index -->\n\n"
)
_OLD_SECTION = "<!-- {name} -->\n### {name}\n\nold figures\n<!-- /{name} -->\n"


def _files(report: ModuleType, *, readme: str, history: str) -> None:
    report.README.write_text(readme, encoding="utf-8")
    report.HISTORY.write_text(history, encoding="utf-8")


def test_a_section_in_history_is_rewritten_there_and_not_added_to_the_readme(
    report: ModuleType,
) -> None:
    readme = _INDEX + _OLD_SECTION.format(name="other")
    history = "# History\n\nbefore\n\n" + _OLD_SECTION.format(name="speed") + "\nafter\n"
    _files(report, readme=readme, history=history)
    _write(report)
    assert report.README.read_text(encoding="utf-8") == readme
    text = report.HISTORY.read_text(encoding="utf-8")
    assert "old figures" not in text
    assert text.startswith("# History\n\nbefore\n\n<!-- speed -->\n### speed\n")
    assert text.endswith("| a |\n| - |\n<!-- /speed -->\n\nafter\n")
    assert report.home_of("speed") == report.HISTORY
    assert report.home_of("other") == report.README


def test_a_section_in_the_readme_is_rewritten_there_and_its_index_row_restamped(
    report: ModuleType,
) -> None:
    history = "# History\n\n" + _OLD_SECTION.format(name="speed_old")
    _files(report, readme=_INDEX + _OLD_SECTION.format(name="speed") + "\nnote\n", history=history)
    payload = json.loads(_write(report).read_text(encoding="utf-8"))
    text = report.README.read_text(encoding="utf-8")
    assert report.HISTORY.read_text(encoding="utf-8") == history
    assert "old figures" not in text
    assert text.count("<!-- speed -->") == 1
    assert text.endswith("| a |\n| - |\n<!-- /speed -->\n\nnote\n")
    row = (
        "| [speed](#speed) | queries/s | bench/speed.py | a corpus | results/speed.json "
        f"| {payload['date'][:10]}, {payload['commit']} |"
    )
    assert row in text.splitlines()
    assert "2020-01-01" not in text


def test_a_new_section_is_appended_to_the_readme_with_a_row_of_its_own(
    report: ModuleType,
) -> None:
    history = "# History\n\n" + _OLD_SECTION.format(name="speed")
    _files(report, readme=_INDEX, history=history)
    payload = json.loads(
        report.write_result(
            "latency", {"s": 1}, "| b |", "python bench/latency.py --runs 3"
        ).read_text(encoding="utf-8")
    )
    text = report.README.read_text(encoding="utf-8")
    assert report.HISTORY.read_text(encoding="utf-8") == history
    assert text.rstrip("\n").endswith("| b |\n<!-- /latency -->")
    index = text[text.index("<!-- bench-index -->") : text.index("<!-- /bench-index -->")]
    assert text.count("|\n\n<!-- /bench-index -->\n") == 1  # the blank line stays after the rows
    assert [line for line in index.splitlines() if line][-1] == (
        "| [latency](#latency) | (new: describe it) | bench/latency.py | — "
        f"| results/latency.json | {payload['date'][:10]}, {payload['commit']} |"
    )
    assert "| [speed](#speed) |" in index


def test_a_section_whose_markers_are_in_neither_file_starts_the_readme(
    report: ModuleType,
) -> None:
    _write(report)
    text = report.README.read_text(encoding="utf-8")
    assert text.startswith("# Benchmarks\n")
    assert "<!-- speed -->\n### speed\n" in text
    assert not report.HISTORY.exists()
