"""Where batch work runs: this process, a local pool of worker processes, or Ray Data.

An engine is started with a factory of the worker's stage (``start(make)``: the models are
loaded once per worker) and then maps a function over tasks (``map(work, tasks)`` yields
``work(stage, task)`` for every task, in the order they finish). Both engines are context
managers; leaving the block stops the workers (and a Ray that the engine started itself). The
workers of a local pool also end when the process that started them dies, even by SIGKILL.

>>> def make() -> str:
...     return "stage"
>>> def work(stage: str, task: int) -> str:
...     return f"{stage} {task}"
>>> with LocalPool(workers=1).start(make) as pool:
...     sorted(pool.map(work, [1, 2]))
['stage 1', 'stage 2']
"""

from __future__ import annotations

import contextlib
import ctypes
import multiprocessing
import os
import pickle
import signal
import sys
import threading
import time
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from types import TracebackType
from typing import Any, Protocol, TypeVar

from veracity import defaults
from veracity._deps import require
from veracity.errors import InputError, OptionError

__all__ = ["Engine", "LocalPool", "RayData", "default_workers"]

S = TypeVar("S")
T = TypeVar("T")
R = TypeVar("R")

#: The stage of this worker process (set once by the pool's initializer).
_STAGE: Any = None


def default_workers() -> int:
    """The cores this process may run on (the default number of workers)."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # pragma: no cover - not Linux
        return max(1, os.cpu_count() or 1)


def _check_workers(workers: int | None) -> int:
    if workers is None:
        return default_workers()
    if isinstance(workers, bool) or not isinstance(workers, int) or workers < 1:
        raise OptionError(
            "workers",
            workers,
            "1 or more worker processes",
            f"Leave it out for one per core ({default_workers()} here).",
        )
    return workers


class Engine(Protocol):
    """What :class:`LocalPool` and :class:`RayData` share."""

    name: str
    workers: int

    def start(self, make: Callable[[], Any]) -> Engine: ...

    def map(self, work: Callable[[Any, T], R], tasks: Iterable[T]) -> Iterator[R]: ...

    def close(self) -> None: ...

    def __enter__(self) -> Engine: ...

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        trace: TracebackType | None,
    ) -> None: ...


class _Closing:
    def close(self) -> None:
        raise NotImplementedError

    def __enter__(self: S) -> S:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        trace: TracebackType | None,
    ) -> None:
        self.close()


#: prctl(2) option: the signal this process gets when the thread that forked it ends.
_PR_SET_PDEATHSIG = 1


def _end_with_parent(parent: int, kernel: bool) -> None:
    """End this worker when its parent ``parent`` dies, whatever kills it (SIGKILL included):
    a worker left behind would hold its models' memory and never get work again.

    On Linux (``kernel``) the kernel sends SIGKILL at once (``PR_SET_PDEATHSIG``); everywhere a
    daemon thread checks every ``BATCH_PARENT_POLL_S`` seconds that the parent is still the
    parent and ends the worker otherwise (the fallback, and the case of a parent that died
    before this ran).
    """
    if kernel and sys.platform.startswith("linux"):
        # without prctl in this libc, the thread below still watches
        with contextlib.suppress(OSError, AttributeError):
            ctypes.CDLL(None, use_errno=True).prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
    if os.getppid() != parent:
        os._exit(1)

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(defaults.BATCH_PARENT_POLL_S)
        os._exit(1)

    threading.Thread(target=watch, name="veracity-parent-watch", daemon=True).start()


def _initialize(make: Callable[[], Any], parent: int, kernel: bool) -> None:
    _end_with_parent(parent, kernel)
    global _STAGE
    _STAGE = make()


def _started() -> None:
    """A no-op task: submitting it makes the pool fork its workers."""


def _call(work: Callable[[Any, T], R], task: T) -> R:
    return work(_STAGE, task)


class LocalPool(_Closing):
    """``workers`` processes on this machine (default: one per core); with one worker the
    work runs in this process. Workers are forked, so the stage factory need not pickle.

    The workers end when this process dies, even by SIGKILL (see :func:`_end_with_parent`).
    On Linux the kernel's signal is tied to the thread that forked them, so it is used only
    when :meth:`start`, which forks them, runs on the main thread; elsewhere the workers watch
    their parent with a thread.
    """

    name = "local"

    def __init__(self, *, workers: int | None = None) -> None:
        self.workers = _check_workers(workers)
        self._stage: Any = None
        self._pool: ProcessPoolExecutor | None = None

    def start(self, make: Callable[[], Any]) -> LocalPool:
        """Make the stage in every worker (in this process when there is one worker)."""
        self.close()
        if self.workers == 1:
            self._stage = make()
        else:
            main = threading.current_thread() is threading.main_thread()
            self._pool = ProcessPoolExecutor(
                self.workers,
                mp_context=multiprocessing.get_context("fork"),
                initializer=_initialize,
                initargs=(make, os.getpid(), main),
            )
            self._pool.submit(_started)  # forks every worker now, from this thread
        return self

    def map(self, work: Callable[[Any, T], R], tasks: Iterable[T]) -> Iterator[R]:
        """``work(stage, task)`` for every task, as they finish; a bounded queue of tasks."""
        if self._pool is None:
            if self._stage is None:
                raise InputError("the pool is not started: call start(make) first")
            for task in tasks:
                yield work(self._stage, task)
            return
        limit = self.workers * defaults.BATCH_TASKS_PER_WORKER
        running: set[Future[R]] = set()
        for task in tasks:
            running.add(self._pool.submit(_call, work, task))
            if len(running) >= limit:
                done, running = wait(running, return_when=FIRST_COMPLETED)
                yield from (future.result() for future in done)
        while running:
            done, running = wait(running, return_when=FIRST_COMPLETED)
            yield from (future.result() for future in done)

    def close(self) -> None:
        if self._pool is not None:
            self._pool.shutdown(wait=True, cancel_futures=True)
            self._pool = None
        self._stage = None


class _RayStage:
    """The callable class of ``map_batches``: one stage per actor, tasks as pickled rows
    (pickle only carries work between this run's own processes; nothing saved uses it)."""

    def __init__(self, make: Callable[[], Any], work: Callable[[Any, Any], Any]) -> None:
        self.stage = make()
        self.work = work

    def __call__(self, batch: dict[str, Any]) -> dict[str, Any]:
        import numpy as np

        results = [
            pickle.dumps(self.work(self.stage, pickle.loads(task))) for task in batch["task"]
        ]
        return {"result": np.array(results, dtype=object)}


def ray_module(purpose: str) -> Any:
    """Ray, or an error naming the ``[ray]`` extra."""
    return require("ray", extra="ray", purpose=purpose)


def _windows(tasks: Iterable[T], size: int) -> Iterator[list[T]]:
    """``tasks`` in lists of ``size`` (the last may be shorter), read as they are needed."""
    window: list[T] = []
    for task in tasks:
        window.append(task)
        if len(window) >= size:
            yield window
            window = []
    if window:
        yield window


class RayData(_Closing):
    """Ray Data: tasks become a dataset, ``map_batches`` runs them on an actor pool of
    ``workers`` actors (``ActorPoolStrategy``), each making the stage once. Tasks are read in
    windows (a dataset each) so that the driver never holds the whole input.

    ``address`` is an existing cluster (``ray://host:10001`` or ``host:6379``); without one a
    local Ray of ``workers`` CPUs is started on 127.0.0.1 and stopped on :meth:`close`. A Ray
    already initialised in this process is used as it is.
    """

    name = "ray"

    def __init__(self, *, address: str | None = None, workers: int | None = None) -> None:
        self.address = address or None
        self.workers = _check_workers(workers)
        self._started = False
        self._make: Callable[[], Any] | None = None

    def start(self, make: Callable[[], Any]) -> RayData:
        ray = ray_module("running on Ray (--ray)")
        if not ray.is_initialized():
            if self.address is None:
                ray.init(
                    num_cpus=self.workers,
                    include_dashboard=False,
                    _node_ip_address="127.0.0.1",
                    configure_logging=False,
                    log_to_driver=False,
                )
            else:
                self._connect(ray)
            self._started = True
        context = ray.data.DataContext.get_current()
        context.enable_progress_bars = False
        context.print_on_execution_start = False
        self._make = make
        return self

    def _connect(self, ray: Any) -> None:
        host = str(self.address).removeprefix("ray://").rpartition(":")[0]
        local = {"_node_ip_address": "127.0.0.1"} if host in ("127.0.0.1", "localhost") else {}
        try:
            ray.init(address=self.address, configure_logging=False, log_to_driver=False, **local)
        except (ConnectionError, RuntimeError, ValueError) as exc:
            raise OptionError(
                "address",
                self.address,
                "the address of a running Ray cluster",
                f"Ray could not connect ({exc}). Start one with `ray start "
                "--head`, or leave the address out for a local Ray.",
            ) from exc

    def map(self, work: Callable[[Any, T], R], tasks: Iterable[T]) -> Iterator[R]:
        if self._make is None:
            raise InputError("Ray is not started: call start(make) first")
        ray = ray_module("running on Ray (--ray)")
        for window in _windows(tasks, self.workers * defaults.BATCH_RAY_TASKS_PER_WORKER):
            rows = [{"task": pickle.dumps(task)} for task in window]
            # a block per task, so that every actor gets work
            dataset = ray.data.from_items(rows, override_num_blocks=len(rows)).map_batches(
                _RayStage,
                fn_constructor_args=(self._make, work),
                batch_size=1,
                compute=ray.data.ActorPoolStrategy(size=self.workers),
                num_cpus=1,
                batch_format="numpy",
            )
            for batch in dataset.iter_batches(batch_size=None, batch_format="numpy"):
                for result in batch["result"]:
                    yield pickle.loads(result)

    def close(self) -> None:
        if self._started:
            import ray

            ray.shutdown()
            self._started = False
        self._make = None
