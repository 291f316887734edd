"""The service under uvicorn on 127.0.0.1 with fake models: what raw HTTP clients can do to it
(a body shorter than declared, another Host), as the fuzzer and curl found them."""

from __future__ import annotations

import socket
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import urlsplit

import pytest

from .conftest import LiveServer, settings_for

pytestmark = pytest.mark.integration


@pytest.fixture(scope="module")
def server(index_dir: Path) -> Iterator[LiveServer]:
    with LiveServer(settings_for(index_dir, body_seconds=1)) as live:
        yield live


def exchange(server: LiveServer, request: bytes, *, wait: float = 10.0) -> bytes:
    """Send raw ``request`` bytes and read the reply until the server closes (or ``wait``)."""
    where = urlsplit(server.url)
    with socket.create_connection((where.hostname, where.port), timeout=wait) as connection:
        connection.sendall(request)
        reply = b""
        try:
            while chunk := connection.recv(65536):
                reply += chunk
                if b"\r\n\r\n" in reply and reply.endswith(b"}"):
                    break
        except TimeoutError:
            pass
    return reply


def test_a_body_shorter_than_declared_gets_408(server: LiveServer) -> None:
    reply = exchange(
        server,
        b"POST /v1/search HTTP/1.1\r\nHost: 127.0.0.1\r\n"
        b"Content-Type: application/json\r\nContent-Length: 500\r\n\r\n"
        b'{"query":',
    )
    assert reply.startswith(b"HTTP/1.1 408"), reply[:200]
    assert b"body_seconds" in reply


def test_another_host_name_gets_400(server: LiveServer) -> None:
    reply = exchange(
        server, b"GET /v1/documents HTTP/1.1\r\nHost: evil.example\r\nConnection: close\r\n\r\n"
    )
    assert reply.startswith(b"HTTP/1.1 400"), reply[:200]
    assert b"--allowed-host evil.example" in reply
    assert b"waggle" not in reply


# --- connections: slow headers, too many connections, idle keep-alive ---------------------------
@pytest.fixture(scope="module")
def guarded(index_dir: Path) -> Iterator[LiveServer]:
    settings = settings_for(index_dir, header_seconds=1, client_connections=4, keep_alive_seconds=1)
    with LiveServer(settings) as live:
        yield live


def _connect(server: LiveServer, source: str = "127.0.0.1") -> socket.socket:
    connection = socket.socket()
    connection.bind((source, 0))
    connection.connect(("127.0.0.1", server.port))
    return connection


def _seconds_until_closed(connection: socket.socket, *, trickle: bytes = b"") -> float:
    """Seconds until the server closes ``connection``, sending one byte of ``trickle`` every
    0.2 s meanwhile (at most 8 s)."""
    import time

    started = time.monotonic()
    connection.settimeout(0.2)
    sent = 0
    while time.monotonic() - started < 8:
        try:
            if not connection.recv(65536):
                break
        except TimeoutError:
            if sent < len(trickle):
                try:
                    connection.send(trickle[sent : sent + 1])
                except OSError:
                    break
                sent += 1
        except OSError:
            break
    return time.monotonic() - started


def test_headers_that_never_end_are_closed(guarded: LiveServer) -> None:
    """The slowloris request of issue 45, held still and trickled a byte at a time; before,
    both held their connection open for good (uvicorn times out idle keep-alive only)."""
    still = _connect(guarded)
    still.sendall(b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nX: ")
    trickled = _connect(guarded)
    with still, trickled:
        assert _seconds_until_closed(still) < 3
        assert _seconds_until_closed(trickled, trickle=b"GET / HTTP/1.1\r\nX-" + b"a" * 100) < 3


def test_connections_per_client_are_capped(guarded: LiveServer) -> None:
    """Four connections from 127.0.0.2 are held; its fifth is answered 503 and closed, while
    another client (127.0.0.1) is served."""
    held = [_connect(guarded, "127.0.0.2") for _ in range(4)]
    try:
        extra = _connect(guarded, "127.0.0.2")
        with extra:
            extra.settimeout(3)
            reply = extra.recv(65536)
        assert reply.startswith(b"HTTP/1.1 503"), reply[:100]
        assert b"client_connections" in reply
        health = exchange(
            guarded, b"GET /v1/health HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n"
        )
        assert health.startswith(b"HTTP/1.1 200"), health[:100]
    finally:
        for connection in held:
            connection.close()


def test_an_idle_keep_alive_connection_is_closed(guarded: LiveServer) -> None:
    connection = _connect(guarded)
    with connection:
        connection.sendall(b"GET /v1/health HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
        connection.settimeout(3)
        assert connection.recv(65536).startswith(b"HTTP/1.1 200")
        assert _seconds_until_closed(connection) < 2.5
