"""Errors of the chat backends, all :class:`~veracity.errors.GenerationError` subclasses::

    GenerationError
    ├── ServerUnreachableError   no reply at all: connection refused, timeout, broken stream
    ├── ServerStatusError        the server replied with an error status (``status``, ``body``)
    └── MalformedReplyError      the reply is not a chat completion (``body`` quotes it)

Each carries ``url`` (the endpoint that was called) and says what to check. None of them is ever
turned into a made-up reply.
"""

from __future__ import annotations

from veracity.errors import GenerationError

__all__ = ["MalformedReplyError", "ServerStatusError", "ServerUnreachableError", "quote"]

#: How much of a server's reply an error message quotes.
QUOTE_CHARS = 300


def quote(body: str, limit: int = QUOTE_CHARS) -> str:
    """``body`` as a repr, cut to ``limit`` characters with the full length noted."""
    if len(body) <= limit:
        return repr(body)
    return f"{body[:limit]!r}... ({len(body)} characters in all)"


class ServerUnreachableError(GenerationError):
    """The server could not be reached, or stopped answering (after any retries)."""

    def __init__(self, url: str, message: str) -> None:
        self.url = url
        super().__init__(message)


class ServerStatusError(GenerationError):
    """The server answered with an error status (after any retries)."""

    def __init__(self, url: str, status: int, body: str, message: str) -> None:
        self.url = url
        self.status = status
        self.body = body
        super().__init__(message)


class MalformedReplyError(GenerationError):
    """The server answered 2xx, but not with a chat completion that can be read."""

    def __init__(self, url: str, body: str, message: str) -> None:
        self.url = url
        self.body = body
        super().__init__(message)
