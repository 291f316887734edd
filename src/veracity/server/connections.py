"""Connections: how slow, idle or numerous clients are kept from starving the service.

uvicorn (h11) times out an idle keep-alive connection, but not a request whose headers never
end: a client that sends ``GET / HTTP/1.1\\r\\nX: `` and nothing more holds its connection (and
a file descriptor) forever, and 1,100 of them made ``/v1/health`` time out for everyone (issue
45). :func:`guarded_protocol` makes uvicorn's h11 protocol with three bounds, from
:class:`~veracity.server.settings.Limits`:

- ``header_seconds``: a request's headers must all arrive within that many seconds of the
  connection's start (or of the last answer on it); else the connection is closed;
- ``client_connections``: connections open at once from one client address; the next one is
  answered 503 with ``Retry-After`` and closed before anything is read;
- ``keep_alive_seconds``: an idle connection between requests is closed (uvicorn's own timer).

A body sent too slowly is the app's to refuse (408, ``body_seconds``:
:class:`~veracity.server.app.BodyLimit`).

>>> from veracity.server.settings import Limits
>>> protocol = guarded_protocol(Limits(header_seconds=10, client_connections=32))
>>> protocol.header_seconds, protocol.client_connections
(10.0, 32)
"""

from __future__ import annotations

import asyncio
import json
from collections import Counter
from typing import Any, ClassVar

import h11
from uvicorn.protocols.http.h11_impl import H11Protocol

from veracity.server.errors import error_body
from veracity.server.settings import Limits

__all__ = ["guarded_protocol", "uvicorn_options"]


def _too_many(limit: int) -> bytes:
    body = json.dumps(
        error_body(
            503,
            "connections",
            f"this client has {limit} connections open, the most this server allows "
            f"(client_connections = {limit}); close some, or reuse one (keep-alive)",
            ("client_connections", limit),
        )
    ).encode()
    head = (
        "HTTP/1.1 503 Service Unavailable\r\ncontent-type: application/json\r\n"
        f"content-length: {len(body)}\r\nretry-after: 1\r\nconnection: close\r\n\r\n"
    )
    return head.encode("ascii") + body


class GuardedH11Protocol(H11Protocol):
    """uvicorn's h11 protocol with a deadline on request headers and a cap on connections per
    client address (see the module docstring); :func:`guarded_protocol` sets the bounds."""

    header_seconds: ClassVar[float] = 10.0
    client_connections: ClassVar[int] = 32
    #: Open connections per client address, shared by every connection of one server.
    open_by_client: ClassVar[Counter[str]] = Counter()

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        self._head_timer: asyncio.TimerHandle | None = None
        self._address = self.client[0] if self.client else ""
        self.open_by_client[self._address] += 1
        if self.open_by_client[self._address] > self.client_connections:
            transport.write(_too_many(self.client_connections))
            transport.close()
            return
        self._await_head()

    def connection_lost(self, exc: Exception | None) -> None:
        self.open_by_client[self._address] -= 1
        if self.open_by_client[self._address] <= 0:
            del self.open_by_client[self._address]
        self._cancel_head_timer()
        super().connection_lost(exc)

    def on_response_complete(self) -> None:
        super().on_response_complete()
        if not self.transport.is_closing():
            self._await_head()  # the next request's headers have the same time

    def _await_head(self) -> None:
        self._cancel_head_timer()
        self._head_timer = self.loop.call_later(self.header_seconds, self._head_late)

    def _cancel_head_timer(self) -> None:
        timer = getattr(self, "_head_timer", None)
        if timer is not None:
            timer.cancel()
            self._head_timer = None

    def _head_late(self) -> None:
        """Close the connection when no request head arrived in time (h11 still waits for
        one: the client is idle or between requests)."""
        self._head_timer = None
        if self.conn.their_state is h11.IDLE and not self.transport.is_closing():
            self.transport.close()


def guarded_protocol(limits: Limits) -> type[GuardedH11Protocol]:
    """A protocol class for ``uvicorn.Config(http=...)`` with the bounds of ``limits`` and its
    own count of connections per client."""
    return type(
        "GuardedH11Protocol",
        (GuardedH11Protocol,),
        {
            "header_seconds": float(limits.header_seconds),
            "client_connections": int(limits.client_connections),
            "open_by_client": Counter(),
        },
    )


def uvicorn_options(limits: Limits) -> dict[str, Any]:
    """The options of ``uvicorn.run`` / ``uvicorn.Config`` that bound connections."""
    return {
        "http": guarded_protocol(limits),
        "timeout_keep_alive": limits.keep_alive_seconds,
        "h11_max_incomplete_event_size": 16 * 1024,  # a request head over 16 KiB is a 400
    }
