"""A pool of model jobs sized to the machine, a bounded queue, a time limit, and stopping work
nobody reads.

The models (ONNX sessions, tokenizers, a llama.cpp context) run in worker threads, at most
``workers`` jobs at once (by default one per two cores, :func:`serve_workers`: on a small CPU
two jobs at once only share the same cores, while on a larger one a short request need not wait
behind a long one). The jobs share the loaded models: onnxruntime sessions and tokenizers are
safe to call from several threads, and the llama.cpp chat model takes one generation at a time
(its own lock). Only model work comes here: a request is checked (its limits and budgets)
before it queues, so a refusal never waits behind another request's work. A request waits in a
queue of at most ``queue``; one more gets 503 with ``Retry-After``.

Each job gets a :class:`~veracity.server.stop.Stop`. While it waits or runs, the gate looks
every ``tick`` seconds at whether its client is still there and whether its time is up; when
either fails, it sets the stop (the work stops at its next batch, see
:mod:`veracity.server.stop`) and answers at once: 408 when the time ran out, 499 when the client
left (nobody reads that one). The job keeps its turn until its worker has stopped, so no more
than ``workers`` jobs ever run at once. A streamed job also stops when its reader leaves: the
worker closes its iterator after the item it is making.
"""

from __future__ import annotations

import asyncio
import os
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from typing import Any, TypeVar

from veracity.server.errors import ServiceError
from veracity.server.stop import Stop

__all__ = ["Gate", "Gone", "serve_workers"]

T = TypeVar("T")
#: ``await gone()`` says whether the request's client has left (``Request.is_disconnected``).
Gone = Callable[[], Awaitable[bool]]


def serve_workers(cores: int | None = None) -> int:
    """Model jobs at once on a machine of ``cores`` (this one's by default): one per two cores,
    at least one.

    >>> serve_workers(2), serve_workers(8), serve_workers(1)
    (1, 4, 1)
    """
    return max(1, (cores or os.cpu_count() or 1) // 2)


class Gate:
    """Admits at most ``workers`` model jobs at once (see the module docstring)."""

    def __init__(
        self,
        *,
        queue: int,
        seconds: float,
        workers: int = 1,
        retry_after: int = 5,
        tick: float = 0.25,
    ) -> None:
        self.workers = workers
        self.queue = queue
        self.seconds = seconds
        self.retry_after = retry_after
        self.tick = tick
        self.pending = 0  # running and waiting
        self.stopped = 0  # jobs stopped because their client left or their time ran out
        self._turn: asyncio.Semaphore | None = None
        self._loop: asyncio.AbstractEventLoop | None = None

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

    async def enter(self, gone: Gone | None = None) -> float:
        """Wait for this request's turn; returns its deadline (``loop.time()``). Raises 503
        when the queue is full, 408 when the turn does not come within the time limit and 499
        when the client leaves while it waits (it then leaves the queue)."""
        if self.pending >= self.workers + self.queue:
            raise ServiceError(
                503,
                "overloaded",
                f"the server is busy ({self.pending} requests running or "
                f"waiting, limit queue = {self.queue}); retry after {self.retry_after} s",
                limit=("queue", self.queue),
                headers={"Retry-After": str(self.retry_after)},
            )
        loop = asyncio.get_running_loop()
        deadline = loop.time() + self.seconds
        self.pending += 1
        turn = asyncio.ensure_future(self._semaphore().acquire())  # keeps its place in line
        try:
            while not turn.done():
                await self._watch(turn, deadline, gone)
        except BaseException:
            if turn.done() and not turn.cancelled():
                self._semaphore().release()
            turn.cancel()
            self.pending -= 1
            raise
        return deadline

    def leave(self) -> None:
        self._semaphore().release()
        self.pending -= 1

    async def call(self, work: Callable[[Stop], T], *, gone: Gone | None = None) -> T:
        """``work(stop)`` in a worker thread, in its turn, within the time limit, while its
        client is there (see the module docstring)."""
        deadline = await self.enter(gone)
        return await self.run(work, self.stop_at(deadline), deadline, gone=gone, keep=False)

    @staticmethod
    def stop_at(deadline: float) -> Stop:
        """The stop of a job whose turn ends at ``deadline`` (``loop.time()``)."""
        return Stop(seconds=deadline - asyncio.get_running_loop().time())

    async def run(
        self,
        work: Callable[[Stop], T],
        stop: Stop,
        deadline: float,
        *,
        gone: Gone | None = None,
        keep: bool,
    ) -> T:
        """``work(stop)`` in a worker thread, in a turn already entered. The turn is given back
        when the worker ends, unless ``keep`` and the work succeeded (a stream goes on)."""
        loop = asyncio.get_running_loop()
        try:
            future = loop.run_in_executor(None, work, stop)
        except BaseException:
            self.leave()
            raise

        given_up = False

        def finished(done: asyncio.Future[T]) -> None:
            failed = done.cancelled() or done.exception() is not None  # (retrieves it)
            if failed or not keep or given_up:
                self.leave()

        future.add_done_callback(finished)
        try:
            while not future.done():
                await self._watch(future, deadline, gone)
        except BaseException as exc:  # 408, 499 or cancelled: the worker stops at its next look
            given_up = True
            stop.set(
                "the client left"
                if isinstance(exc, ServiceError) and exc.status == 499
                else "the time ran out"
            )
            self.stopped += 1
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
        self, items: Iterator[Any], stop: Stop, deadline: float, *, gone: Gone, ping: float = 15.0
    ) -> AsyncIterator[Any]:
        """The items of ``items`` (iterated in a worker thread, started now) as they come;
        ``None`` now and then as a keep-alive. Call in a turn kept by :meth:`run` (the worker
        gives it back when it ends).

        Stops when ``await gone()`` says the reader left, or at the deadline (raising 408):
        ``stop`` is set and the worker closes the iterator after the item it is making.
        """
        loop = asyncio.get_running_loop()
        queue: asyncio.Queue[tuple[str, Any]] = asyncio.Queue()

        def put(kind: str, value: Any) -> None:
            loop.call_soon_threadsafe(queue.put_nowait, (kind, value))

        def work() -> None:
            try:
                try:
                    for item in items:
                        if stop.is_set():
                            break
                        put("item", item)
                        if stop.is_set():
                            break
                finally:
                    close = getattr(items, "close", None)
                    if close is not None:
                        close()
            except BaseException as exc:  # handed to the reader, which reports it
                put("error", exc)
            finally:
                put("end", None)
                loop.call_soon_threadsafe(self.leave)

        try:
            loop.run_in_executor(None, work)
        except BaseException:
            self.leave()
            raise
        return self._read(queue, stop, deadline, gone, ping)

    async def _read(
        self,
        queue: asyncio.Queue[tuple[str, Any]],
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
        finally:
            if not finished:  # the reader left (or was cancelled), or time ran out
                stop.set("the client left")
                self.stopped += 1
