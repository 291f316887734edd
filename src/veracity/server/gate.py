"""One model job at a time, a bounded queue, a time limit, and stopping work nobody reads.

The models (ONNX sessions, tokenizers, a llama.cpp context) run in worker threads, one job at a
time: they are not made to be shared between threads, and on a small CPU two jobs at once only
share the same cores. A request waits in a queue of at most ``queue``; one more gets 503 with
``Retry-After``. A job that passes its time limit answers 408 at once; a job already running
cannot be interrupted, so it finishes in its thread and keeps its turn until then (the queue
never runs two jobs at once). A streamed job checks between items whether its reader is still
there and stops (closing its iterator, which stops the model) when it is not.
"""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import AsyncIterator, Callable, Iterator
from typing import Any, TypeVar

from veracity.server.errors import ServiceError

__all__ = ["Gate"]

T = TypeVar("T")
_END = object()


class Gate:
    """Admits model jobs one at a time (see the module docstring)."""

    def __init__(self, *, queue: int, seconds: float, retry_after: int = 5) -> None:
        self.queue = queue
        self.seconds = seconds
        self.retry_after = retry_after
        self.pending = 0  # running and waiting
        self.stopped = 0  # streamed jobs stopped because their reader left or time ran out
        self._turn: asyncio.Semaphore | None = None
        self._loop: asyncio.AbstractEventLoop | None = None

    def _semaphore(self) -> asyncio.Semaphore:
        loop = asyncio.get_running_loop()
        if self._turn is None or self._loop is not loop:  # made in the loop that serves
            self._turn, self._loop = asyncio.Semaphore(1), loop
        return self._turn

    def time_limit(self) -> ServiceError:
        return ServiceError.over_limit(
            "seconds", self.seconds, "the request took longer than the time limit", status=408)

    async def enter(self) -> float:
        """Wait for this request's turn; returns its deadline (``loop.time()``). Raises 503
        when the queue is full and 408 when the turn does not come within the time limit."""
        if self.pending >= 1 + self.queue:
            raise ServiceError(
                503, "overloaded", f"the server is busy ({self.pending} requests running or "
                f"waiting, limit queue = {self.queue}); retry after {self.retry_after} s",
                limit=("queue", self.queue), headers={"Retry-After": str(self.retry_after)})
        loop = asyncio.get_running_loop()
        deadline = loop.time() + self.seconds
        self.pending += 1
        try:
            await asyncio.wait_for(self._semaphore().acquire(), self.seconds)
        except TimeoutError:
            self.pending -= 1
            raise self.time_limit() from None
        except BaseException:
            self.pending -= 1
            raise
        return deadline

    def leave(self) -> None:
        self._semaphore().release()
        self.pending -= 1

    async def call(self, work: Callable[[], T]) -> T:
        """``work()`` in a worker thread, in its turn, within the time limit."""
        deadline = await self.enter()
        loop = asyncio.get_running_loop()
        try:
            future = loop.run_in_executor(None, work)
        except BaseException:
            self.leave()
            raise
        future.add_done_callback(lambda _: self.leave())
        try:
            return await asyncio.wait_for(asyncio.shield(future), deadline - loop.time())
        except TimeoutError:
            raise self.time_limit() from None

    async def stream(self, items: Callable[[], Iterator[Any]], deadline: float, *,
                     gone: Callable[[], Any], tick: float = 0.25,
                     ping: float = 15.0) -> AsyncIterator[Any]:
        """The items of ``items()`` (run in a worker thread) as they come; ``None`` now and
        then as a keep-alive. Call after :meth:`enter` (whose turn this gives back).

        Stops when ``await gone()`` says the reader left, or at the deadline (raising 408):
        the worker closes the iterator after the item it is making.
        """
        loop = asyncio.get_running_loop()
        queue: asyncio.Queue[tuple[str, Any]] = asyncio.Queue()
        stop = threading.Event()

        def put(kind: str, value: Any) -> None:
            loop.call_soon_threadsafe(queue.put_nowait, (kind, value))

        def work() -> None:
            try:
                iterator = items()
                try:
                    for item in iterator:
                        if stop.is_set():
                            break
                        put("item", item)
                        if stop.is_set():
                            break
                finally:
                    close = getattr(iterator, "close", None)
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
        quiet_since = time.monotonic()
        finished = False
        try:
            while True:
                if loop.time() >= deadline:
                    raise self.time_limit()
                try:
                    kind, value = await asyncio.wait_for(queue.get(), tick)
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
            stop.set()  # the reader left (or was cancelled), or time ran out
            if not finished:
                self.stopped += 1
