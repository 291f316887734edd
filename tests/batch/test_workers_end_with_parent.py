"""The real `veracity verify-batch` on a pool of workers, its own process killed with SIGKILL
(not its process group): its workers end within seconds instead of living on (Harden-2 #12)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest

pytestmark = [
    pytest.mark.integration,
    pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc"),
]


def _children(pid: int) -> set[int]:
    found = set()
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:  # it ended meanwhile
            continue
        # pid (comm) state ppid ...: comm may hold spaces, so read after its ")"
        if int(stat.rsplit(")", 1)[1].split()[1]) == pid:
            found.add(int(entry.name))
    return found


def _alive(pid: int) -> bool:
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat.rsplit(")", 1)[1].split()[0] != "Z"  # a zombie has ended


def _wait(condition: Callable[[], bool], seconds: float) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(0.1)
    return condition()


def test_killing_verify_batch_ends_its_workers(tmp_path: Path) -> None:
    source = tmp_path / "answers.jsonl"
    with source.open("w", encoding="utf-8") as handle:
        for number in range(5000):
            row = {
                "id": f"a{number}",
                "answer": "Honey bees perform a waggle dance. " * 4,
                "sources": ["Honey bees dance to show where food is."],
            }
            handle.write(json.dumps(row) + "\n")
    command = [
        sys.executable,
        "-m",
        "veracity.cli",
        "verify-batch",
        str(source),
        "--out",
        str(tmp_path / "out.jsonl"),
        "--verifier",
        "lexical",
        "--layers",
        "nli",
        "--workers",
        "2",
        "--json",
    ]
    child = subprocess.Popen(
        command,
        env=dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path)),
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    workers: set[int] = set()
    try:
        assert _wait(lambda: len(_children(child.pid)) >= 2, 60), "the workers never started"
        workers = _children(child.pid)
        os.kill(child.pid, signal.SIGKILL)  # the command alone, as `kill -9 PID` does
        child.wait(timeout=30)
        assert _wait(lambda: not any(_alive(pid) for pid in workers), 5), (
            f"workers {sorted(p for p in workers if _alive(p))} outlived their parent"
        )
    finally:
        for pid in workers:  # the workers this test started, should the check fail
            if _alive(pid):
                os.kill(pid, signal.SIGKILL)
        if child.poll() is None:
            child.kill()


POOL_IN_A_THREAD = """
import os, sys, threading, time
from veracity.batch.engines import LocalPool

def stage():
    return "stage"

def pid(stage, task):
    time.sleep(0.2)
    return os.getpid()

def run():
    pool = LocalPool(workers=2).start(stage)
    print(*sorted(set(pool.map(pid, range(8)))), flush=True)
    time.sleep(600)

thread = threading.Thread(target=run)
thread.start()
thread.join()
"""


def test_workers_started_off_the_main_thread_watch_their_parent(tmp_path: Path) -> None:
    # the kernel's signal follows the forking thread, so there only the watching thread acts
    child = subprocess.Popen(
        [sys.executable, "-c", POOL_IN_A_THREAD],
        env=dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path)),
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )
    workers: set[int] = set()
    try:
        assert child.stdout is not None
        workers = {int(pid) for pid in child.stdout.readline().split()}
        assert len(workers) == 2
        assert workers <= _children(child.pid)
        os.kill(child.pid, signal.SIGKILL)
        child.wait(timeout=30)
        assert _wait(lambda: not any(_alive(pid) for pid in workers), 5), (
            f"workers {sorted(p for p in workers if _alive(p))} outlived their parent"
        )
    finally:
        for pid in workers:
            if _alive(pid):
                os.kill(pid, signal.SIGKILL)
        if child.poll() is None:
            child.kill()
