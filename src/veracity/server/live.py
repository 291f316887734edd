"""The live index: each request reads one generation, the newest when it began.

``veracity index`` writes a new generation beside the live one and then replaces ``CURRENT``
(:mod:`veracity.corpus.index_dir`). :class:`Live` looks at ``CURRENT`` (one ``stat``) as each
request begins; when it names a new generation, the first request to see it opens it (its
store, the server's search mode, its abstention calibration) while the others go on with the
one before, and from then on new requests lease the new one. A request holds its lease until
its response is sent (a stream: until its last event), so its search, documents, citations and
calibration all come from one generation, which ``/v1/version`` and every response's
``X-Veracity-Generation`` header name. A generation is held (:meth:`IndexDir.hold`) while it is
live or leased, so that a later ``veracity index`` does not remove it under a request; when its
last request ends it is let go, and the next write removes it. A ``CURRENT`` that names a
generation which cannot be opened (a damaged index) is logged, and the one before is served.

The library opens only an index folder's live generation, so each generation is opened through
a *view*: a private folder whose ``CURRENT`` names it, with a link to it and a copy of the
index's calibration file.
"""

from __future__ import annotations

import logging
import os
import shutil
import tempfile
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Generic, TypeVar

from veracity import defaults

__all__ = ["Generation", "Live"]

log = logging.getLogger("veracity.server")

S = TypeVar("S")


@dataclass(eq=False)
class Generation(Generic[S]):
    """One opened generation: its name, what serves it, and its readers."""

    name: str
    served: S
    view: Path
    release: Callable[[], None]
    users: int = 0
    retired: bool = field(default=False)


class Live(Generic[S]):
    """The generation new requests read (see the module docstring); ``open(view, name)`` opens
    one (a :class:`~veracity.server.service.Service` on it, sharing the loaded models)."""

    def __init__(self, index: str | Path, open: Callable[[Path, str], S]) -> None:
        self.index = Path(index)
        self._open = open
        self._lock = threading.Lock()  # guards the leases
        self._opening = threading.Lock()  # one request opens a new generation
        self._seen: tuple[int, int] | None = None
        self.views = Path(tempfile.mkdtemp(prefix="veracity-serve-"))
        self.current: Generation[S] | None = None

    def load(self) -> Generation[S]:
        """Open the live generation (at start-up)."""
        self._refresh(wait=True)
        if self.current is None:  # _refresh(wait=True) opens one or raises
            raise RuntimeError(f"no generation of {self.index} was opened")
        return self.current

    @contextmanager
    def lease(self) -> Iterator[Generation[S]]:
        """The generation this request reads, held until the block ends."""
        generation = self.take()
        try:
            yield generation
        finally:
            self.give_back(generation)

    def take(self) -> Generation[S]:
        """Lease the newest opened generation (give it back with :meth:`give_back`)."""
        self._refresh(wait=False)
        with self._lock:
            generation = self.current
            if generation is None:
                raise RuntimeError("the index was not loaded: call load() first")
            generation.users += 1
            return generation

    def give_back(self, generation: Generation[S]) -> None:
        with self._lock:
            generation.users -= 1
            done = generation.retired and generation.users == 0
        if done:
            self._close(generation)

    def close(self) -> None:
        """Let every generation go (at shutdown)."""
        with self._lock:
            current, self.current = self.current, None
        if current is not None:
            current.retired = True
            if current.users == 0:
                self._close(current)
        shutil.rmtree(self.views, ignore_errors=True)

    def _refresh(self, *, wait: bool) -> None:
        from veracity.corpus.index_dir import CURRENT

        try:
            info = os.stat(self.index / CURRENT)
        except OSError:
            if wait:
                raise
            return  # keep serving the generation opened; the index folder may be rewritten
        seen = (info.st_ino, info.st_mtime_ns)
        if seen == self._seen:
            return
        if not self._opening.acquire(blocking=wait):
            return  # another request is opening it: this one reads the one before
        try:
            if seen != self._seen:
                try:
                    self._switch()
                except Exception:
                    if wait or self.current is None:
                        raise
                    # a damaged or half-written index: keep serving the generation opened
                    log.warning(
                        "kept %s: the index's new CURRENT cannot be opened",
                        self.current.name,
                        exc_info=True,
                    )
                self._seen = seen
        finally:
            self._opening.release()

    def _switch(self) -> None:
        from veracity.corpus.index_dir import CURRENT, IndexDir

        folder = IndexDir(self.index)
        generation_path = folder.current()
        name = generation_path.name
        if self.current is not None and self.current.name == name:
            return
        release = IndexDir.hold(generation_path)
        view = self.views / name
        try:
            shutil.rmtree(view, ignore_errors=True)
            view.mkdir()
            (view / CURRENT).write_text(name + "\n", encoding="utf-8")
            (view / name).symlink_to(generation_path.resolve(), target_is_directory=True)
            calibration = self.index / defaults.CALIBRATION_FILE
            if calibration.is_file():
                shutil.copyfile(calibration, view / defaults.CALIBRATION_FILE)
            opened = Generation(name, self._open(view, name), view, release)
        except BaseException:
            release()
            shutil.rmtree(view, ignore_errors=True)
            raise
        with self._lock:
            before, self.current = self.current, opened
            done = before is not None and before.users == 0
            if before is not None:
                before.retired = True
        if before is not None and done:
            self._close(before)

    @staticmethod
    def _close(generation: Generation[S]) -> None:
        generation.release()
        shutil.rmtree(generation.view, ignore_errors=True)
