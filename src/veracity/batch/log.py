"""The batch output: an append-only JSONL log whose newline is the commit marker.

A record is committed once its whole line, newline included, is in the file. Records are
appended with one ``write`` of whole lines; a run killed at any point (``kill -9``, a crash, a
full disk) can leave at most a torn last line. :meth:`ResultLog.open` reads the file, keeps the
committed records up to the first line that is not a complete JSON record with a key, and cuts
the file there, so the lines after a torn one are done again and every key is in the output
exactly once. A record whose key is already in the file (which these rules never write) is
dropped on opening too.

>>> import tempfile, pathlib
>>> path = pathlib.Path(tempfile.mkdtemp()) / "out.jsonl"
>>> _ = path.write_text('{"id": "a", "line": 1, "summary": {"claims": 2}}\\n{"id": "b", "li')
>>> log = ResultLog(path)
>>> sorted(log.open().keys), path.read_text().count("\\n")
(['id:a'], 1)
>>> log.close()
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from veracity.batch.items import record_key
from veracity.errors import InputError

__all__ = ["Counts", "LogState", "ResultLog"]

_LABELS = ("supported", "contradicted", "unsupported", "unchecked", "skipped")


@dataclass
class Counts:
    """Running totals over output records: ``answers`` verified, their claims by label,
    ``claim_failures`` (claims no layer could judge) and ``errors`` (error records)."""

    answers: int = 0
    claims: int = 0
    supported: int = 0
    contradicted: int = 0
    unsupported: int = 0
    unchecked: int = 0
    skipped: int = 0
    claim_failures: int = 0
    errors: int = 0

    def add(self, record: Mapping[str, Any]) -> None:
        if "error" in record:
            self.errors += 1
            return
        summary = record.get("summary") or {}
        self.answers += 1
        self.claims += int(summary.get("claims", 0))
        for label in _LABELS:
            setattr(self, label, getattr(self, label) + int(summary.get(label, 0)))
        self.claim_failures += int(summary.get("failed", 0))

    def to_dict(self) -> dict[str, int]:
        return dict(self.__dict__)


@dataclass
class LogState:
    """What an opened log holds: the committed keys, their totals, and how many bytes of a
    torn tail (and how many duplicate records) were cut."""

    keys: set[str] = field(default_factory=set)
    counts: Counts = field(default_factory=Counts)
    cut_bytes: int = 0
    duplicates: int = 0


class ResultLog:
    """Append-only JSONL output (see the module docstring). ``open()`` recovers and returns
    the committed state; ``append(lines)`` commits whole lines; ``close()`` syncs to disk."""

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        if self.path.is_dir():
            raise InputError(
                f"--out {self.path} is a folder; give a file name such as "
                f"{self.path / 'reports.jsonl'}"
            )
        self._fd: int | None = None

    def open(self) -> LogState:
        """Recover the file (cut a torn tail, drop duplicates) and open it for appending."""
        state = LogState()
        self.path.parent.mkdir(parents=True, exist_ok=True)
        data = self.path.read_bytes() if self.path.exists() else b""
        kept: list[bytes] = []
        good = 0
        for raw in _lines(data):
            record = _committed(raw)
            key = None if record is None else record_key(record)
            if record is None or key is None:
                break
            good += len(raw)
            if key in state.keys:
                state.duplicates += 1
                continue
            state.keys.add(key)
            state.counts.add(record)
            kept.append(raw)
        state.cut_bytes = len(data) - good
        if state.duplicates:
            _replace(self.path, b"".join(kept))
        elif state.cut_bytes:
            with self.path.open("r+b") as handle:
                handle.truncate(good)
                os.fsync(handle.fileno())
        self._fd = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
        return state

    def append(self, lines: Iterable[str]) -> None:
        """Commit ``lines`` (JSON texts without newlines), in one write."""
        if self._fd is None:
            raise InputError("the result log is not open: call open() first")
        data = "".join(line + "\n" for line in lines).encode("utf-8")
        view = memoryview(data)
        while view:
            written = os.write(self._fd, view)
            view = view[written:]

    def close(self) -> None:
        if self._fd is not None:
            os.fsync(self._fd)
            os.close(self._fd)
            self._fd = None


def _lines(data: bytes) -> Iterator[bytes]:
    """The lines of ``data``, each with its newline (the last one may lack it)."""
    start = 0
    while start < len(data):
        end = data.find(b"\n", start)
        end = len(data) if end < 0 else end + 1
        yield data[start:end]
        start = end


def _committed(raw: bytes) -> dict[str, Any] | None:
    """The record on ``raw`` when it is a whole line holding a JSON object."""
    if not raw.endswith(b"\n"):
        return None
    try:
        record = json.loads(raw)
    except ValueError:
        return None
    return record if isinstance(record, dict) else None


def _replace(path: Path, data: bytes) -> None:
    """Write ``data`` to ``path`` through a temporary file and an atomic rename."""
    temporary = path.with_name(path.name + ".tmp")
    with temporary.open("wb") as handle:
        handle.write(data)
        handle.flush()
        os.fsync(handle.fileno())
    os.replace(temporary, path)
