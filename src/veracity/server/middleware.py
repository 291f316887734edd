"""The ASGI middleware in front of the app: the body size and time limit, the Host check
(DNS rebinding) and the page's security headers."""

from __future__ import annotations

import asyncio

from veracity._deps import require
from veracity.server.errors import ServiceError, error_body
from veracity.server.replies import json_response
from veracity.server.settings import host_name, is_host_name

require("fastapi", extra="server", purpose="the web service (veracity serve)")

from fastapi.responses import Response  # noqa: E402
from starlette.types import ASGIApp, Message, Receive, Scope, Send  # noqa: E402

__all__ = ["SECURITY_HEADERS", "BodyLimit", "HostCheck", "SecurityHeaders"]

#: The page loads only its own files; nothing inline, nothing from elsewhere.
SECURITY_HEADERS = {
    "Content-Security-Policy": "default-src 'none'; script-src 'self'; style-src 'self'; "
    "img-src 'self'; connect-src 'self'; base-uri 'none'; "
    "form-action 'none'; frame-ancestors 'none'",
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
    "Cache-Control": "no-store",
}


class BodyLimit:
    """Reads a request's body before any endpoint does: over ``limit`` bytes is a 413, and a
    body not all there within ``seconds`` (a ``Content-Length`` of 500 with 9 bytes sent) is a
    408, so a client cannot hold a connection open by sending less than it declared."""

    def __init__(self, app: ASGIApp, limit: int, seconds: float) -> None:
        self.app = app
        self.limit = limit
        self.seconds = seconds

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        too_large = ServiceError.over_limit(
            "body_bytes", self.limit, "the request body is larger", status=413
        )
        for name, value in scope.get("headers", ()):
            if name == b"content-length" and value.isdigit() and int(value) > self.limit:
                await _send(json_response(too_large.body(), 413), scope, receive, send)
                return
        body = bytearray()
        more = True
        loop = asyncio.get_running_loop()
        deadline = loop.time() + self.seconds
        while more:
            try:
                message = await asyncio.wait_for(receive(), max(0.0, deadline - loop.time()))
            except TimeoutError:
                late = ServiceError.over_limit(
                    "body_seconds",
                    self.seconds,
                    f"the request body was not all there after "
                    f"{self.seconds:g} s ({len(body)} bytes arrived)",
                    status=408,
                    fix="send the whole body at once, as many bytes as its Content-Length says",
                )
                await _send(
                    json_response(late.body(), 408, {"Connection": "close"}), scope, receive, send
                )
                return
            if message["type"] != "http.request":
                break
            body += message.get("body", b"")
            more = message.get("more_body", False)
            if len(body) > self.limit:
                await _send(json_response(too_large.body(), 413), scope, receive, send)
                return
        replayed = False

        async def replay() -> Message:
            nonlocal replayed
            if not replayed:
                replayed = True
                return {"type": "http.request", "body": bytes(body), "more_body": False}
            return await receive()

        await self.app(scope, replay, send)


async def _send(response: Response, scope: Scope, receive: Receive, send: Send) -> None:
    await response(scope, receive, send)


class HostCheck:
    """Refuses a request whose ``Host`` header names the server by a name it was not started
    for (400): a page on another site whose name resolves to 127.0.0.1 (DNS rebinding) must not
    reach the token-less loopback service."""

    def __init__(self, app: ASGIApp, names: frozenset[str]) -> None:
        self.app = app
        self.names = names

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        given = next(
            (
                value.decode("latin-1")
                for name, value in scope.get("headers", ())
                if name == b"host"
            ),
            "",
        )
        name = host_name(given)
        server = scope.get("server") or ("",)
        arrived_on = host_name(str(server[0] or ""))
        if name in self.names or (name and name == arrived_on):
            # the address the connection came in on names this server (no DNS involved)
            await self.app(scope, receive, send)
            return
        known = ", ".join(sorted(self.names))
        if not name:
            message = f"the request has no Host header; send one that names this server ({known})"
        elif is_host_name(given):
            message = (
                f"this server does not answer to the name {name!r} (the request's Host "
                f"header), only to {known} and the address a request arrives on; if clients "
                f"reach it by that name, start it with --allowed-host {name}"
            )
        else:
            message = (
                f"the request's Host header {given[:100]!r} is not a host name; send one that "
                f"names this server ({known})"
            )
        await _send(json_response(error_body(400, "host", message), 400), scope, receive, send)


class SecurityHeaders:
    """Adds :data:`SECURITY_HEADERS` to every response."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app
        self.headers = [(k.lower().encode(), v.encode()) for k, v in SECURITY_HEADERS.items()]

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        async def with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                message["headers"] = [*message.get("headers", []), *self.headers]
            await send(message)

        await self.app(scope, receive, with_headers if scope["type"] == "http" else send)


# --- the app ---------------------------------------------------------------------------------
