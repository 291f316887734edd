"""bench/run_all.py (``make bench``): every indexed section has a recorded command, and one that
names a path this machine lacks is skipped, never run."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

import pytest

pytestmark = pytest.mark.unit

BENCH = Path(__file__).resolve().parents[2] / "bench"


def _run_all() -> ModuleType:
    spec = importlib.util.spec_from_file_location("run_all", BENCH / "run_all.py")
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["run_all"] = module
    spec.loader.exec_module(module)
    return module


def test_every_indexed_section_has_a_recorded_command_and_script() -> None:
    run_all = _run_all()
    names = run_all.indexed_sections()
    assert len(names) == len(set(names)) >= 30
    for step in run_all.plan(names):
        assert step.command, step.name
        scripts = [
            word
            for word in step.command.split()
            if word.startswith(("bench/", "training/bench/"))  # training's benchmarks
        ]
        assert scripts, step.name
        assert (BENCH.parent / scripts[0]).is_file(), step.name


def test_a_command_naming_a_missing_path_is_skipped(tmp_path: Path) -> None:
    run_all = _run_all()
    here = tmp_path / "model"
    here.mkdir()
    assert run_all.missing_path(f"python bench/x.py --verifier {here}") is None
    gone = tmp_path / "gone"
    assert run_all.missing_path(f"python bench/x.py --data={gone} --n 3") == str(gone)
    assert run_all.missing_path("python bench/x.py --verifier a=embedded:/nowhere") == "/nowhere"
    assert run_all.missing_path("python bench/x.py --llm openai:http://127.0.0.1:8093/v1") is None
