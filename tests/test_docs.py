"""The README's contract and the documentation site.

The README starts with the two commands a fresh clone runs and stays short; the site builds with
``mkdocs build --strict`` (a broken link, a missing page or a docstring warning fails it) and its
CLI reference is rendered from the Typer app, so every command has a section.
"""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
import time
from pathlib import Path
from types import ModuleType

import pytest

REPO = Path(__file__).resolve().parents[1]
README = REPO / "README.md"
README_LINES = 250


def _cli_hook() -> ModuleType:
    spec = importlib.util.spec_from_file_location(
        "cli_reference", REPO / "docs" / "hooks" / "cli_reference.py"
    )
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.unit
def test_the_readme_starts_with_make_demo_and_make_test() -> None:
    lines = README.read_text(encoding="utf-8").splitlines()
    assert lines[0] == "# veracity"
    block = lines[lines.index("```sh") + 1 :]
    assert block[0].startswith("make demo ")
    assert block[1].startswith("make test ")
    assert lines.index("```sh") < 5


@pytest.mark.unit
def test_the_readme_is_at_most_250_lines() -> None:
    count = len(README.read_text(encoding="utf-8").splitlines())
    assert count <= README_LINES, f"README.md has {count} lines; move detail into docs/"


@pytest.mark.unit
def test_the_cli_reference_has_every_command_of_the_app() -> None:
    import typer

    from veracity.cli import app

    group = typer.main.get_command(app)
    assert isinstance(group, typer.core.TyperGroup)
    names = {command.name for command in group.commands.values()}
    page = _cli_hook().render()
    assert len(names) >= 10
    for name in names:
        assert f"## `veracity {name}`" in page
        assert f"Usage: veracity {name} [OPTIONS]" in page
    assert "### `python -m veracity_training.data`" in page


@pytest.mark.integration
def test_the_site_builds_strictly_and_offline(tmp_path: Path) -> None:
    pytest.importorskip("mkdocs", reason="the docs extra: pip install -e '.[docs]'")
    pytest.importorskip("mkdocstrings", reason="the docs extra: pip install -e '.[docs]'")
    site = tmp_path / "site"
    env = {
        **os.environ,
        "NO_MKDOCS_2_WARNING": "1",
        "PYTHONPATH": os.pathsep.join([str(REPO / "src"), os.environ.get("PYTHONPATH", "")]),
    }
    start = time.perf_counter()
    built = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(site)],
        cwd=REPO,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    seconds = time.perf_counter() - start
    assert built.returncode == 0, built.stderr[-4000:]
    for page in (
        "index.html",
        "getting-started.html",
        "cli.html",
        "api/verify.html",
        "api/adapters.html",
        "service.html",
        "training.html",
        "models.html",
        "changes.html",
        "benchmarks.html",
    ):
        assert (site / page).is_file(), page
    cli = (site / "cli.html").read_text(encoding="utf-8")
    assert "veracity verify-batch" in cli
    assert "--rerank-depth" in cli
    assert "make_answer_verifier" in (site / "api" / "verify.html").read_text(encoding="utf-8")
    # Offline: no web fonts, no stylesheet or script from another host.
    index = (site / "index.html").read_text(encoding="utf-8")
    assert "fonts.googleapis" not in index
    assert "fonts.gstatic" not in index
    assert 'src="http' not in index
    assert '<link rel="stylesheet" href="http' not in index
    assert seconds < 120, f"the docs build took {seconds:.0f} s"
