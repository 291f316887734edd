"""The real `veracity verify-batch` killed with SIGKILL at random points and run again: every
input line ends up in the output exactly once, with the records of a run never killed."""

from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

pytestmark = pytest.mark.integration

WORDS = (
    "honey bees perform a waggle dance to show other workers where food is found near the "
    "hive in summer"
).split()


def _input(path: Path, lines: int, seed: int) -> Path:
    chance = random.Random(seed)

    def sentence(words: int) -> str:
        return " ".join(chance.choice(WORDS) for _ in range(words)).capitalize() + "."

    with path.open("w", encoding="utf-8") as handle:
        for number in range(lines):
            if number == lines // 2:
                handle.write("{a bad line\n")
            row = {
                "id": f"a{number}",
                "answer": " ".join(sentence(8) for _ in range(4)),
                "sources": [sentence(12) for _ in range(3)],
            }
            handle.write(json.dumps(row) + "\n")
    return path


def _command(source: Path, out: Path) -> list[str]:
    return [
        sys.executable,
        "-m",
        "veracity.cli",
        "verify-batch",
        str(source),
        "--out",
        str(out),
        "--verifier",
        "lexical",
        "--layers",
        "nli",
        "--workers",
        "2",
        "--json",
    ]


def _env() -> dict[str, str]:
    return dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path))


def _records(out: Path) -> dict[str, dict[str, object]]:
    found: dict[str, dict[str, object]] = {}
    for text in out.read_text(encoding="utf-8").split("\n")[:-1]:
        record = json.loads(text)  # a torn line would fail here
        record.pop("timings", None)
        key = f"{record['id']}@{record['line']}"
        assert key not in found, f"{key} is in the output twice"
        found[key] = record
    return found


def test_killed_runs_resume_to_exactly_once(tmp_path: Path) -> None:
    seed = random.randrange(1 << 30)
    chance = random.Random(seed)
    source = _input(tmp_path / "answers.jsonl", 200, seed)
    out = tmp_path / "reports.jsonl"
    sizes = []
    for _ in range(4):
        child = subprocess.Popen(
            _command(source, out),
            env=_env(),
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,
        )
        time.sleep(chance.uniform(0.5, 4.0))
        os.killpg(child.pid, signal.SIGKILL)  # the command and its workers, mid-write or not
        child.wait(timeout=30)
        sizes.append(len(out.read_bytes()) if out.exists() else 0)
    finished = subprocess.run(
        _command(source, out),
        env=_env(),
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert finished.returncode == 1, finished.stderr  # the bad line is an error record
    summary = json.loads(finished.stdout)
    assert summary["pending"] == 0
    assert summary["lines"] == 201
    whole = tmp_path / "whole.jsonl"
    subprocess.run(
        _command(source, whole),
        env=_env(),
        stdin=subprocess.DEVNULL,
        capture_output=True,
        timeout=120,
        check=False,
    )
    assert _records(out) == _records(whole), f"seed {seed}, sizes after kills {sizes}"
    assert len(_records(out)) == 201
    assert sizes[-1] > 0, f"no kill came after the first record (seed {seed})"
