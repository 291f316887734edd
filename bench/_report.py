"""Shared output of the benchmarks: ``results/<name>.json`` and a section of ``README.md``.

Every benchmark ends with one call::

    from _report import write_result
    write_result("retrieval_speed", figures, table_md, command)

The JSON file holds the date, the machine (platform, CPU model, usable cores, memory, Python),
the git commit, the exact command and the figures. The text between ``<!-- NAME -->`` and
``<!-- /NAME -->`` is replaced by a ``### NAME`` heading, the date, machine, commit and command,
followed by ``table_md``, in whichever of ``README.md`` (the current figures) and ``HISTORY.md``
(figures of what no longer ships) holds those markers; a new section is appended to
``README.md``. The README opens with an index, one row per section between
``<!-- bench-index -->`` and ``<!-- /bench-index -->``: writing a README section updates the
date and commit of its row, or adds a row for a new section (its figure and data to be filled
in by hand).

A figure names the commit it was measured on, so it is refused while tracked files under
``src/``, ``bench/*.py``, ``training/src/`` or ``training/bench/`` have uncommitted changes:
:func:`write_result` raises
:class:`DirtyTreeError` (the figures are kept in a temporary file it names). To write it anyway,
stamped "(with uncommitted changes)", set ``VERACITY_BENCH_DIRTY=1`` or pass
``allow_dirty=True``; a script that wants an ``--allow-dirty`` option adds it with
:func:`add_allow_dirty` and passes ``args.allow_dirty`` on.
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import platform
import re
import subprocess
import tempfile
from pathlib import Path
from typing import Any

__all__ = [
    "BENCH",
    "DIRTY_ENV",
    "HISTORY",
    "REPO",
    "RESULTS",
    "DirtyTreeError",
    "add_allow_dirty",
    "git_commit",
    "home_of",
    "machine",
    "uncommitted",
    "write_result",
]

BENCH = Path(__file__).resolve().parent
REPO = BENCH.parent
RESULTS = BENCH / "results"
README = BENCH / "README.md"
#: Sections of what no longer ships; a section whose markers are here is rewritten here.
HISTORY = BENCH / "HISTORY.md"
#: Markers around the README's index table (a hyphen, so no benchmark name can clash).
INDEX_BEGIN, INDEX_END = "<!-- bench-index -->", "<!-- /bench-index -->"
#: Set to ``1`` to write figures measured with uncommitted changes (stamped so).
DIRTY_ENV = "VERACITY_BENCH_DIRTY"
#: The code a figure depends on: a change here makes the commit stamp approximate.
_TRACKED = ("src", "bench/*.py", "training/src", "training/bench")
_HEADER = (
    "# Benchmarks\n\n"
    "Measured figures, written by the scripts in this folder (each section names its exact "
    "command). These are benchmarks, not tests; raw figures are in `results/`.\n"
)


def _cpu_model() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text(encoding="utf-8").splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown CPU"


def _memory_gib() -> float | None:
    try:
        for line in Path("/proc/meminfo").read_text(encoding="utf-8").splitlines():
            if line.startswith("MemTotal:"):
                return round(int(line.split()[1]) / 1024**2, 1)
    except (OSError, ValueError):
        pass
    return None


def machine() -> dict[str, Any]:
    """Where the benchmark ran: platform, CPU model, usable cores, memory, Python."""
    try:
        cores = len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        cores = os.cpu_count() or 0
    return {
        "platform": platform.platform(),
        "cpu": _cpu_model(),
        "cores": cores,
        "memory_gib": _memory_gib(),
        "python": platform.python_version(),
    }


def _git(*args: str) -> str:
    try:
        done = subprocess.run(
            ["git", *args], cwd=REPO, capture_output=True, text=True, timeout=10, check=True
        )
    except (OSError, subprocess.SubprocessError):
        return ""
    return done.stdout.strip()


class DirtyTreeError(RuntimeError):
    """Figures measured with uncommitted changes to the code, and not allowed to be written."""


def uncommitted() -> list[str]:
    """Tracked files under ``src/`` and ``bench/*.py`` with uncommitted changes."""
    status = _git("status", "--porcelain", "--untracked-files=no", "--", *_TRACKED)
    return [line.split(maxsplit=1)[1] for line in status.splitlines() if line.strip()]


def git_commit() -> str:
    commit = _git("rev-parse", "--short", "HEAD") or "unknown"
    # uncommitted changes to tracked code make the commit only approximate
    if uncommitted():
        commit += " (with uncommitted changes)"
    return commit


def add_allow_dirty(parser: argparse.ArgumentParser) -> None:
    """Give a benchmark's parser ``--allow-dirty`` (pass ``args.allow_dirty`` to write_result)."""
    parser.add_argument(
        "--allow-dirty",
        action="store_true",
        help="write the figures even with uncommitted changes (the commit is stamped so)",
    )


def _dirty_allowed(allow_dirty: bool | None) -> bool:
    if allow_dirty is not None:
        return allow_dirty
    return os.environ.get(DIRTY_ENV, "") == "1"


def _refuse(name: str, changed: list[str], payload: dict[str, Any]) -> DirtyTreeError:
    """The error for figures from a dirty tree; keeps the figures in a temporary file."""
    with tempfile.NamedTemporaryFile(
        "w", prefix=f"veracity-bench-{name}-", suffix=".json", delete=False, encoding="utf-8"
    ) as kept:
        kept.write(json.dumps(payload, indent=2, ensure_ascii=False) + "\n")
    shown = ", ".join(changed[:5]) + (f" and {len(changed) - 5} more" if len(changed) > 5 else "")
    return DirtyTreeError(
        f"benchmark {name!r} ran with uncommitted changes to {shown}, so its figures would not "
        f"name the code that made them; nothing was written to {RESULTS.name}/ or the README "
        f"(the figures are kept in {kept.name}). Commit the changes and run it again, or set "
        f"{DIRTY_ENV}=1 (or pass --allow-dirty where the script offers it) to write them "
        "stamped '(with uncommitted changes)'."
    )


def _describe(info: dict[str, Any]) -> str:
    memory = f", {info['memory_gib']} GiB RAM" if info["memory_gib"] else ""
    return (
        f"{info['cpu']}, {info['cores']} cores{memory}, {info['platform']}, Python {info['python']}"
    )


def write_result(
    name: str,
    figures: dict[str, Any],
    table_md: str,
    command: str,
    *,
    allow_dirty: bool | None = None,
) -> Path:
    """Write ``results/<name>.json`` and replace the ``name`` section of the README or HISTORY.

    ``figures`` must be JSON-serialisable; ``table_md`` is Markdown (a table, maybe with notes);
    ``command`` is the exact command line that produced the figures. Returns the JSON path.
    With uncommitted changes under ``src/`` or ``bench/*.py`` it raises
    :class:`DirtyTreeError` unless ``allow_dirty`` is true (``None``: ``VERACITY_BENCH_DIRTY=1``
    decides).
    """
    if not re.fullmatch(r"[A-Za-z0-9_]+", name):
        raise ValueError(f"benchmark name {name!r} must be a plain word like 'retrieval_speed'")
    now = datetime.datetime.now(datetime.UTC).replace(microsecond=0)
    info = machine()
    commit = git_commit()
    payload = {
        "name": name,
        "date": now.isoformat(),
        "machine": info,
        "commit": commit,
        "command": command,
        "figures": figures,
    }
    changed = uncommitted()
    if changed and not _dirty_allowed(allow_dirty):
        raise _refuse(name, changed, payload)
    RESULTS.mkdir(exist_ok=True)
    path = RESULTS / f"{name}.json"
    path.write_text(json.dumps(payload, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")

    begin, end = f"<!-- {name} -->", f"<!-- /{name} -->"
    section = "\n".join(
        [
            begin,
            f"### {name}",
            "",
            f"Measured {now:%Y-%m-%d %H:%M} UTC on {_describe(info)}; commit {commit}.",
            "",
            f"Command: `{command}`",
            "",
            table_md.strip(),
            end,
        ]
    )
    home = home_of(name)
    text = home.read_text(encoding="utf-8") if home.is_file() else _HEADER
    if begin in text and end in text:
        text = text[: text.index(begin)] + section + text[text.index(end) + len(end) :]
    else:
        text = text.rstrip("\n") + "\n\n" + section + "\n"
    if home == README:
        text = _index_row(text, name, f"{now:%Y-%m-%d}, {commit}", command)
    home.write_text(text, encoding="utf-8")
    return path


def home_of(name: str) -> Path:
    """The file that holds section ``name``: ``HISTORY.md`` if its markers are there, else the
    README (where a new section is appended)."""
    begin, end = f"<!-- {name} -->", f"<!-- /{name} -->"
    if HISTORY.is_file():
        history = HISTORY.read_text(encoding="utf-8")
        if begin in history and end in history:
            return HISTORY
    return README


def _index_row(text: str, name: str, stamp: str, command: str) -> str:
    """``text`` with the index row of ``name`` stamped ``stamp`` (added if missing).

    A row starts ``| [name](#name) |`` and ends with the date and commit cell. Without the index
    markers the text is returned unchanged.
    """
    if INDEX_BEGIN not in text or INDEX_END not in text:
        return text
    start, stop = text.index(INDEX_BEGIN), text.index(INDEX_END)
    lines = text[start:stop].split("\n")
    lead = f"| [{name}](#{name}) |"
    for i, line in enumerate(lines):
        if line.startswith(lead):
            cells = line.rstrip().rstrip("|").split(" | ")
            lines[i] = " | ".join([*cells[:-1], stamp]) + " |"
            break
    else:
        script = re.search(r"bench/[\w/]+\.py", command)
        row = (
            f"{lead} (new: describe it) | {script.group(0) if script else '—'} | — "
            f"| results/{name}.json | {stamp} |"
        )
        last = max((i for i, line in enumerate(lines) if line.strip()), default=0)
        lines.insert(last + 1, row)  # after the last row, before the blank lines that end it
    return text[:start] + "\n".join(lines) + text[stop:]
