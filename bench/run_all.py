"""Run every benchmark of bench/README.md's index again, each with the command it records.

    .venv/bin/python bench/run_all.py [--list] [--only NAME ...] [--keep-going]

``make bench`` runs this. The sections are those of the index (what ships today; the history's
sections are not rerun), in its order; each section's command is the one its result file
records (``bench/results/<name>.json``), run from the repository root with the virtual
environment's ``bin`` first on ``PATH``. A command that names a file or folder this machine does
not have (a candidate model under ``/work/runs``, a scratch folder) is skipped with the path it
lacks, never run half-way: rebuild that input first (the section says how). Each script writes
its own section; this one prints what ran, what was skipped and why, and how long each took.
Exit 1 when a benchmark failed (after the others, with ``--keep-going``).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shlex
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

BENCH = Path(__file__).resolve().parent
ROOT = BENCH.parent
#: An index row's first cell: ``[name](#name)``.
_ROW = re.compile(r"^\| \[([a-z0-9_]+)\]\(#")


@dataclass(frozen=True)
class Planned:
    """One section to rerun: its name, its recorded command, and why it cannot run here."""

    name: str
    command: str
    missing: str | None


def indexed_sections(readme: Path = BENCH / "README.md") -> list[str]:
    """The section names of the README's index, in its order."""
    text = readme.read_text(encoding="utf-8")
    begin, end = text.index("<!-- bench-index -->"), text.index("<!-- /bench-index -->")
    return [m.group(1) for line in text[begin:end].splitlines() if (m := _ROW.match(line))]


#: An absolute path inside a word: at its start or after ``=`` or ``:`` (``--data=/x``,
#: ``label=embedded:/x``), not a URL's ``//``.
_PATH = re.compile(r"(?:^|[=:])(/(?!/)[^,:=]+)")


def missing_path(command: str) -> str | None:
    """The first absolute path the command names that does not exist here, or ``None``."""
    try:
        words = shlex.split(command)
    except ValueError:
        return None
    for word in words:
        for match in _PATH.finditer(word):
            if not Path(match.group(1)).exists():
                return match.group(1)
    return None


def plan(names: list[str]) -> list[Planned]:
    planned = []
    for name in names:
        result = BENCH / "results" / f"{name}.json"
        if not result.is_file():
            planned.append(Planned(name, "", f"bench/results/{name}.json"))
            continue
        command = str(json.loads(result.read_text(encoding="utf-8"))["command"])
        planned.append(Planned(name, command, missing_path(command)))
    return planned


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--list", action="store_true", help="print the plan, run nothing")
    parser.add_argument("--only", nargs="+", default=None, help="these sections only")
    parser.add_argument("--keep-going", action="store_true", help="run the rest after a failure")
    args = parser.parse_args()
    names = indexed_sections()
    if args.only:
        unknown = sorted(set(args.only) - set(names))
        if unknown:
            parser.error(f"not in bench/README.md's index: {', '.join(unknown)}")
        names = [name for name in names if name in args.only]
    steps = plan(names)
    if args.list:
        for step in steps:
            state = f"skip (no {step.missing})" if step.missing else "run"
            print(f"{step.name}: {state}: {step.command}")
        return 0
    env = dict(os.environ, PATH=f"{ROOT / '.venv' / 'bin'}{os.pathsep}{os.environ['PATH']}")
    failed = []
    for number, step in enumerate(steps, 1):
        head = f"[{number}/{len(steps)}] {step.name}"
        if step.missing:
            print(f"{head}: skipped, this machine has no {step.missing}", flush=True)
            continue
        print(f"{head}: {step.command}", flush=True)
        began = time.monotonic()
        done = subprocess.run(["bash", "-c", step.command], cwd=ROOT, env=env, check=False)
        took = time.monotonic() - began
        print(f"{head}: exit {done.returncode} after {took / 60:.1f} min", flush=True)
        if done.returncode != 0:
            failed.append(step.name)
            if not args.keep_going:
                break
    if failed:
        print(f"failed: {', '.join(failed)}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
