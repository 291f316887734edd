"""Two lanes: model work through a pool sized to the machine, admitted by its estimated time;
everything else beside it, never behind it.

The models (ONNX sessions, tokenizers, a llama.cpp context) run in the gate's own worker
threads, at most ``workers`` jobs at once (by default one per two cores, :func:`serve_workers`:
on a small CPU two jobs at once only share the same cores, while on a larger one a short request
need not wait behind a long one). The jobs share the loaded models: onnxruntime sessions and
tokenizers are safe to call from several threads, and the llama.cpp chat model takes one
generation at a time (its own lock). Only model work comes here: requests that need no model
(search in bm25 mode, the documents, health, version, the page) run in a lane of their own
(:data:`CHEAP_THREADS` threads) and never wait for a model job, and a request is checked (its
limits and budgets) before it queues, so a refusal never waits behind another request's work.

A job is admitted by its estimated time, not only by counts: its pairs times the seconds per
pair measured on this machine, plus what its kind of request took beyond its pairs
(:class:`~veracity.server.clock.Clock`). A job whose estimate alone exceeds the time limit is
refused at once (422, limit ``seconds``: it could never finish); one that would finish past the
time limit behind the work already admitted (the estimated time left of each job, shared by the
workers) gets 503 with ``Retry-After`` (when it would fit); and at most ``queue`` requests wait
beyond those running (503 with ``Retry-After``).

Each job gets a :class:`~veracity.server.stop.Stop`. While it waits or runs, the gate looks
every ``tick`` seconds at whether its client is still there and whether its time is up; when
either fails, it sets the stop (the work stops at its next batch, see
:mod:`veracity.server.stop`) and answers at once: 408 when the time ran out, 499 when the client
left (nobody reads that one). The job keeps its turn until its worker has stopped, so no more
than ``workers`` jobs ever run at once. A streamed job makes at most ``ahead`` events before its
reader has taken them; when the reader takes none for ``stall`` seconds (a client that stopped
reading but keeps the connection open: its socket buffers are full), or leaves, the worker
closes its iterator and gives its turn back.
"""

from __future__ import annotations

import asyncio
import math
import os
import threading
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any, TypeVar

from veracity.server.clock import Clock
from veracity.server.errors import ServiceError
from veracity.server.stop import Stop

__all__ = ["CHEAP_THREADS", "Gate", "Gone", "Turn", "serve_workers"]

T = TypeVar("T")
#: ``await gone()`` says whether the request's client has left (``Request.is_disconnected``).
Gone = Callable[[], Awaitable[bool]]
#: Threads of the lane of requests that need no model (BM25 search, documents): each takes
#: milliseconds, so a few serve many clients.
CHEAP_THREADS = 4


def serve_workers(cores: int | None = None) -> int:
    """Model jobs at once on a machine of ``cores`` (this one's by default): one per two cores,
    at least one.

    >>> serve_workers(2), serve_workers(8), serve_workers(1)
    (1, 4, 1)
    """
    return max(1, (cores or os.cpu_count() or 1) // 2)


@dataclass(eq=False)
class Turn:
    """One admitted model job: when it must end (``loop.time()``), its estimated seconds,
    and when it began to run (``None`` while it waits)."""

    deadline: float
    cost: float
    kind: str
    pairs: int
    started: float | None = field(default=None)

    def left(self, now: float) -> float:
        """Estimated seconds of work left."""
        return max(0.0, self.cost - (0.0 if self.started is None else now - self.started))


class Gate:
    """Admits at most ``workers`` model jobs at once, by their estimated time (see the module
    docstring)."""

    def __init__(
        self,
        *,
        queue: int,
        seconds: float,
        workers: int = 1,
        clock: Clock | None = None,
        retry_after: int = 5,
        tick: float = 0.25,
        stall: float = 10.0,
        ahead: int = 4,
    ) -> None:
        self.workers = workers
        self.queue = queue
        self.seconds = seconds
        self.clock = clock or Clock(0.02)
        self.retry_after = retry_after
        self.tick = tick
        self.stall = stall
        self.ahead = ahead
        self.stopped = 0  # jobs stopped because their client left or their time ran out
        self.turns: set[Turn] = set()  # running and waiting
        self.executor = ThreadPoolExecutor(workers, thread_name_prefix="veracity-model")
        self._turn: asyncio.Semaphore | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._count = threading.Lock()

    @property
    def pending(self) -> int:
        """Model jobs running and waiting."""
        return len(self.turns)

    def _semaphore(self) -> asyncio.Semaphore:
        loop = asyncio.get_running_loop()
        if self._turn is None or self._loop is not loop:  # made in the loop that serves
            self._turn, self._loop = asyncio.Semaphore(self.workers), loop
        return self._turn

    def time_limit(self) -> ServiceError:
        return ServiceError.over_limit(
            "seconds", self.seconds, "the request took longer than the time limit", status=408
        )

    @staticmethod
    def left() -> ServiceError:
        return ServiceError(
            499, "left", "the client left before the answer was ready; its work was stopped"
        )

    def backlog(self, now: float) -> float:
        """Estimated seconds before a job admitted now would begin: the work left of every
        admitted job, shared by the workers."""
        return sum(turn.left(now) for turn in self.turns) / self.workers

    def _admit(self, kind: str, pairs: int, now: float) -> float:
        """The estimated seconds of a job, or the refusal that it cannot finish in time."""
        if self.pending >= self.workers + self.queue:
            raise ServiceError(
                503,
                "overloaded",
                f"the server is busy ({self.pending} requests running or "
                f"waiting, limit queue = {self.queue}); retry after {self.retry_after} s",
                limit=("queue", self.queue),
                headers={"Retry-After": str(self.retry_after)},
            )
        cost = self.clock.estimate(kind, pairs)
        per_pair = f"{pairs} pairs at {self.clock.per_pair * 1000:.0f} ms each on this machine"
        if cost > self.seconds:
            raise ServiceError.over_limit(
                "seconds",
                self.seconds,
                f"this request's model work is estimated at {cost:.1f} s ({per_pair})",
                fix="send fewer claims or pairs, or a smaller k",
            )
        wait = self.backlog(now)
        if wait + cost > self.seconds:
            retry = max(1, math.ceil(wait + cost - self.seconds))
            raise ServiceError(
                503,
                "overloaded",
                f"the server is busy: this request ({cost:.1f} s estimated, {per_pair}) would "
                f"begin in {wait:.1f} s and end past the time limit seconds = "
                f"{self.seconds:g}; retry after {retry} s",
                limit=("seconds", self.seconds),
                headers={"Retry-After": str(retry)},
            )
        return cost

    async def enter(self, gone: Gone | None = None, *, kind: str = "job", pairs: int = 0) -> Turn:
        """Wait for this request's turn (see :meth:`_admit` for the refusals). Raises 408 when
        the turn does not come within the time limit and 499 when the client leaves while it
        waits (it then leaves the queue)."""
        loop = asyncio.get_running_loop()
        now = loop.time()
        turn = Turn(now + self.seconds, self._admit(kind, pairs, now), kind, pairs)
        self.turns.add(turn)
        acquired = asyncio.ensure_future(self._semaphore().acquire())  # keeps its place in line
        try:
            while not acquired.done():
                await self._watch(acquired, turn.deadline, gone)
        except BaseException:
            if acquired.done() and not acquired.cancelled():
                self._semaphore().release()
            acquired.cancel()
            self.turns.discard(turn)
            raise
        turn.started = loop.time()
        return turn

    def leave(self, turn: Turn, *, finished: bool = False) -> None:
        """Give the turn back; a ``finished`` job's time is measured for the next estimates."""
        if turn not in self.turns:
            return
        self._semaphore().release()
        self.turns.discard(turn)
        if finished and turn.started is not None:
            seconds = asyncio.get_running_loop().time() - turn.started
            self.clock.record_job(turn.kind, pairs=turn.pairs, seconds=seconds)

    def _give_up(self, stop: Stop, reason: str) -> None:
        """Set ``stop`` (from any thread), counting it once."""
        with self._count:
            if not stop.is_set():
                self.stopped += 1
            stop.set(reason)

    async def call(
        self,
        work: Callable[[Stop], T],
        *,
        gone: Gone | None = None,
        kind: str = "job",
        pairs: int = 0,
    ) -> T:
        """``work(stop)`` in a worker thread, in its turn, within the time limit, while its
        client is there (see the module docstring)."""
        turn = await self.enter(gone, kind=kind, pairs=pairs)
        return await self.run(work, self.stop_at(turn), turn, gone=gone, keep=False)

    @staticmethod
    def stop_at(turn: Turn) -> Stop:
        """The stop of a job whose turn ends at its deadline (``loop.time()``)."""
        return Stop(seconds=turn.deadline - asyncio.get_running_loop().time())

    async def run(
        self,
        work: Callable[[Stop], T],
        stop: Stop,
        turn: Turn,
        *,
        gone: Gone | None = None,
        keep: bool,
    ) -> T:
        """``work(stop)`` in a worker thread, in a turn already entered. The turn is given back
        when the worker ends, unless ``keep`` and the work succeeded (a stream goes on)."""
        loop = asyncio.get_running_loop()
        try:
            future = loop.run_in_executor(self.executor, work, stop)
        except BaseException:
            self.leave(turn)
            raise

        given_up = False

        def finished(done: asyncio.Future[T]) -> None:
            failed = done.cancelled() or done.exception() is not None  # (retrieves it)
            if failed or not keep or given_up:
                self.leave(turn, finished=not (failed or given_up))

        future.add_done_callback(finished)
        try:
            while not future.done():
                await self._watch(future, turn.deadline, gone)
        except BaseException as exc:  # 408, 499 or cancelled: the worker stops at its next look
            given_up = True
            self._give_up(
                stop,
                "the client left"
                if isinstance(exc, ServiceError) and exc.status == 499
                else "the time ran out",
            )
            raise
        return future.result()

    async def _watch(
        self, waiting: asyncio.Future[Any], deadline: float, gone: Gone | None
    ) -> None:
        """Wait up to one tick for ``waiting``; raise 408 past the deadline, 499 when the
        client has left."""
        loop = asyncio.get_running_loop()
        remaining = deadline - loop.time()
        if remaining <= 0:
            raise self.time_limit()
        await asyncio.wait({waiting}, timeout=min(self.tick, remaining))
        if not waiting.done():
            if loop.time() >= deadline:
                raise self.time_limit()
            if gone is not None and await gone():
                raise self.left()

    def stream(
        self, items: Iterator[Any], stop: Stop, turn: Turn, *, gone: Gone, ping: float = 15.0
    ) -> AsyncIterator[Any]:
        """The items of ``items`` (iterated in a worker thread, started now) as they come;
        ``None`` now and then as a keep-alive. Call in a turn kept by :meth:`run` (the worker
        gives it back when it ends).

        Stops when ``await gone()`` says the reader left, when the reader takes nothing for
        ``stall`` seconds while ``ahead`` items wait for it, or at the deadline (raising 408):
        ``stop`` is set and the worker closes the iterator after the item it is making.
        """
        loop = asyncio.get_running_loop()
        queue: asyncio.Queue[tuple[str, Any]] = asyncio.Queue()
        room = threading.Semaphore(self.ahead)  # items made that the reader has not taken

        def put(kind: str, value: Any) -> None:
            loop.call_soon_threadsafe(queue.put_nowait, (kind, value))

        def wait_for_room() -> bool:
            waited = 0.0
            while not room.acquire(timeout=self.tick):
                if stop.is_set():
                    return False
                waited += self.tick
                if waited >= self.stall:
                    self._give_up(stop, "the client stopped reading")
                    return False
            return True

        def work() -> None:
            ended = False
            try:
                try:
                    for item in items:
                        if stop.is_set() or not wait_for_room() or stop.is_set():
                            if stop.reason == "the time ran out":
                                put("error", self.time_limit())
                            break
                        put("item", item)
                    else:
                        ended = True
                finally:
                    close = getattr(items, "close", None)
                    if close is not None:
                        close()
            except BaseException as exc:  # handed to the reader, which reports it
                ended = False
                put("error", exc)
            finally:
                put("end", None)
                loop.call_soon_threadsafe(lambda: self.leave(turn, finished=ended))

        try:
            loop.run_in_executor(self.executor, work)
        except BaseException:
            self.leave(turn)
            raise
        return self._read(queue, room, stop, turn.deadline, gone, ping)

    async def _read(
        self,
        queue: asyncio.Queue[tuple[str, Any]],
        room: threading.Semaphore,
        stop: Stop,
        deadline: float,
        gone: Gone,
        ping: float,
    ) -> AsyncIterator[Any]:
        loop = asyncio.get_running_loop()
        quiet_since = time.monotonic()
        finished = False
        try:
            while True:
                if loop.time() >= deadline:
                    raise self.time_limit()
                try:
                    kind, value = await asyncio.wait_for(queue.get(), self.tick)
                except TimeoutError:
                    if await gone():
                        return
                    if time.monotonic() - quiet_since >= ping:
                        quiet_since = time.monotonic()
                        yield None
                    continue
                if kind == "end":
                    finished = True
                    return
                if kind == "error":
                    finished = True
                    raise value
                quiet_since = time.monotonic()
                yield value
                room.release()  # the reader took it: the worker may make one more
        finally:
            if not finished:  # the reader left (or was cancelled), or time ran out
                self._give_up(stop, "the client left")
