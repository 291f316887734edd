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
