"""The on-disk index folder, written in atomic generations.

Layout::

    DIR/CURRENT            names the live generation ("gen-000002"); replaced atomically
    DIR/LOCK               flock()ed by the one process allowed to write at a time
    DIR/gen-000001/        the previous generation (kept for readers still using it)
    DIR/gen-000002/        the live generation
        manifest.json      format version, veracity version, creation time, chunker, counts,
                           what each retrieval builder wrote
        store.sqlite       documents and chunks (see ``corpus.store``)

A new generation is written into ``gen-XXXXXX.tmp``, renamed to ``gen-XXXXXX`` when complete
and only then made live by replacing ``CURRENT``; on any error the temporary folder is removed
and the previous generation stays live and untouched. Generations older than the previous one
are removed after a successful write, except those a reader holds (:meth:`IndexDir.hold`: a
shared ``flock`` on the generation's folder, as a server holds the generation its requests
read); a later write removes them once they are let go.

>>> import tempfile, pathlib
>>> index = IndexDir(pathlib.Path(tempfile.mkdtemp()) / "index")
>>> with index.write() as new:
...     new.write_manifest({"counts": {"chunks": 0}})
>>> index.current().name, index.manifest()["counts"]
('gen-000001', {'chunks': 0})
"""

from __future__ import annotations

import contextlib
import datetime
import fcntl
import json
import os
import re
import shutil
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from veracity import defaults
from veracity.corpus.store import ChunkStore
from veracity.errors import IndexNotFoundError, IndexStoreError, IndexVersionError

__all__ = ["MANIFEST", "STORE", "IndexDir", "NewGeneration"]

CURRENT = "CURRENT"
LOCK = "LOCK"
MANIFEST = "manifest.json"
STORE = "store.sqlite"
_GENERATION = re.compile(r"gen-(\d{6})(\.tmp)?")
_OURS = frozenset({CURRENT, LOCK, f"{CURRENT}.tmp"})


def _version() -> str:
    from veracity import __version__

    return __version__


def _fsync(path: Path) -> None:
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def _fsync_tree(folder: Path) -> None:
    for parent, _, names in os.walk(folder):
        for name in names:
            _fsync(Path(parent, name))
        _fsync(Path(parent))


@dataclass(frozen=True)
class NewGeneration:
    """A generation being written: put files into ``path``, then call :meth:`write_manifest`.

    ``path`` is the temporary folder (renamed when the write succeeds), so store paths inside
    it relative to it; ``previous`` is the live generation's folder, or ``None``.
    """

    name: str
    path: Path
    previous: Path | None

    def write_manifest(self, fields: Mapping[str, object]) -> None:
        """Write ``manifest.json`` from ``fields`` plus the format and version stamps."""
        manifest = {
            **fields,
            "format_version": defaults.INDEX_FORMAT_VERSION,
            "veracity_version": _version(),
            "created": datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds"),
            "generation": self.name,
        }
        try:
            text = json.dumps(manifest, indent=2, sort_keys=True)
        except (TypeError, ValueError) as exc:
            raise IndexStoreError(f"the manifest of {self.name} is not JSON: {exc}") from exc
        (self.path / MANIFEST).write_text(text + "\n", encoding="utf-8")


def _held(folder: Path) -> bool:
    """Whether a reader holds ``folder`` (:meth:`IndexDir.hold`)."""
    try:
        handle = os.open(folder, os.O_RDONLY | os.O_DIRECTORY)
    except OSError:
        return False
    try:
        fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        return True
    finally:
        os.close(handle)
    return False


class IndexDir:
    """An index folder: the live generation, its manifest, and writing a new one.

    >>> IndexDir("does-not-exist").exists()
    False
    """

    def __init__(self, path: str | os.PathLike[str]) -> None:
        self.path = Path(path)

    def exists(self) -> bool:
        """Whether the folder holds an index (a ``CURRENT`` file)."""
        return (self.path / CURRENT).is_file()

    def current(self) -> Path:
        """The live generation's folder, after checking that this veracity can read it."""
        return self._live()[0]

    def manifest(self) -> dict[str, Any]:
        """The live generation's manifest."""
        return self._live()[1]

    def store(self) -> ChunkStore:
        """The live generation's chunk store, opened read-only."""
        return ChunkStore.open(self.current() / STORE)

    @staticmethod
    def hold(generation: Path) -> Callable[[], None]:
        """Keep ``generation`` (a generation folder) from being removed by a later write until
        the returned function is called (a shared ``flock`` on the folder; it also ends with
        the process)."""
        handle = os.open(generation, os.O_RDONLY | os.O_DIRECTORY)
        fcntl.flock(handle, fcntl.LOCK_SH)
        released = False

        def release() -> None:
            nonlocal released
            if not released:
                released = True
                os.close(handle)  # closing the last descriptor drops the lock

        return release

    @contextlib.contextmanager
    def write(self) -> Iterator[NewGeneration]:
        """Write a new generation; it becomes live only if the ``with`` block succeeds.

        Raises :class:`~veracity.errors.IndexStoreError` when another process is writing, or
        when the folder exists but is not an index (it is never written into).
        """
        self._prepare()
        with self._locked():
            previous = self.current() if self.exists() else None
            self._remove(lambda match: match.group(2) is not None)  # leftovers of a crash
            name = f"gen-{self._next_number():06d}"
            temporary, final = self.path / f"{name}.tmp", self.path / name
            temporary.mkdir()
            try:
                yield NewGeneration(name, temporary, previous)
                if not (temporary / MANIFEST).is_file():
                    raise IndexStoreError(f"{name} was not given a manifest; nothing was changed")
                _fsync_tree(temporary)
                os.replace(temporary, final)
                _fsync(self.path)
                self._swap_current(name)
            except BaseException:
                shutil.rmtree(temporary, ignore_errors=True)
                if not self._names_current(name):
                    shutil.rmtree(final, ignore_errors=True)
                raise
            keep = {name, previous.name if previous else name}
            self._remove(lambda match: match.group(2) is None and match.group() not in keep)

    # --- reading ------------------------------------------------------------------------------
    def _live(self) -> tuple[Path, dict[str, Any]]:
        try:
            name = (self.path / CURRENT).read_text(encoding="utf-8").strip()
        except (FileNotFoundError, NotADirectoryError):
            if self.path.exists() and not self.path.is_dir():  # indexing there would fail too
                raise IndexNotFoundError(
                    f"{self.path} is a file, not an index folder: give the folder of an index "
                    "(--index DIR), or make one with `veracity index PATH --index DIR` in a new "
                    "folder"
                ) from None
            raise IndexNotFoundError(
                f"no index at {self.path}: run `veracity index PATH --index {self.path}` first"
            ) from None
        generation = self.path / name
        match = _GENERATION.fullmatch(name)
        if match is None or match.group(2) or not generation.is_dir():
            raise IndexStoreError(
                f"{self.path / CURRENT} names {name!r}, which is not a generation folder there; "
                "the index is damaged: re-index into a new folder"
            )
        return generation, self._read_manifest(generation)

    def _read_manifest(self, generation: Path) -> dict[str, Any]:
        try:
            manifest = json.loads((generation / MANIFEST).read_text(encoding="utf-8"))
            version = manifest["format_version"]
        except (OSError, ValueError, KeyError, TypeError) as exc:
            raise IndexStoreError(
                f"{generation / MANIFEST} is missing or damaged ({exc}); re-index into a new folder"
            ) from exc
        supported = defaults.INDEX_FORMAT_VERSION
        if not isinstance(version, int) or isinstance(version, bool) or version < 1:
            raise IndexStoreError(
                f"{generation / MANIFEST} has an invalid format_version {version!r}; re-index"
            )
        if version > supported:
            raise IndexVersionError(
                f"the index at {self.path} has format version {version}, but veracity "
                f"{_version()} reads format version {supported} at most: upgrade veracity "
                "(pip install -U veracity) or re-index into a new folder"
            )
        if version < supported:
            raise IndexVersionError(
                f"the index at {self.path} has the old format version {version}, and veracity "
                f"{_version()} reads format version {supported}: re-index into a new folder"
            )
        return dict(manifest)

    # --- writing ------------------------------------------------------------------------------
    def _prepare(self) -> None:
        if self.path.exists() and not self.path.is_dir():
            raise IndexStoreError(
                f"{self.path} is a file, not an index folder; choose another --index path"
            )
        self.path.mkdir(parents=True, exist_ok=True)
        if self.exists():
            return
        foreign = sorted(
            entry.name
            for entry in self.path.iterdir()
            if entry.name not in _OURS and not _GENERATION.fullmatch(entry.name)
        )
        if foreign:
            shown = ", ".join(foreign[:3]) + (", ..." if len(foreign) > 3 else "")
            raise IndexStoreError(
                f"{self.path} exists and is not a veracity index (it holds {shown}); refusing "
                "to write into it. Choose a new or empty folder for --index"
            )

    @contextlib.contextmanager
    def _locked(self) -> Iterator[None]:
        with open(self.path / LOCK, "a+b") as handle:
            try:
                fcntl.flock(handle.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                raise IndexStoreError(
                    f"another process is writing the index at {self.path} (it holds "
                    f"{self.path / LOCK}); wait for it to finish and try again"
                ) from None
            try:
                yield
            finally:
                fcntl.flock(handle.fileno(), fcntl.LOCK_UN)

    def _generations(self) -> list[re.Match[str]]:
        found = (_GENERATION.fullmatch(entry.name) for entry in self.path.iterdir())
        return [match for match in found if match]

    def _next_number(self) -> int:
        return max((int(match.group(1)) for match in self._generations()), default=0) + 1

    def _remove(self, which: Callable[[re.Match[str]], bool]) -> None:
        for match in self._generations():
            if which(match) and not _held(self.path / match.group()):
                shutil.rmtree(self.path / match.group(), ignore_errors=True)

    def _names_current(self, name: str) -> bool:
        try:
            return (self.path / CURRENT).read_text(encoding="utf-8").strip() == name
        except OSError:
            return False

    def _swap_current(self, name: str) -> None:
        staged = self.path / f"{CURRENT}.tmp"
        with open(staged, "w", encoding="utf-8") as handle:
            handle.write(name + "\n")
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(staged, self.path / CURRENT)
        _fsync(self.path)
