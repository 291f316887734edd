"""Responses of the API: JSON and Server-Sent Events stamped with the index generation they
read, and failures turned into the error body (an unexpected one logged with an id)."""

from __future__ import annotations

import logging
import uuid
from typing import Any

from veracity._deps import require
from veracity._json import strict_json
from veracity.errors import OptionError, VeracityError
from veracity.server.errors import ServiceError, error_body, status_of
from veracity.server.live import Generation
from veracity.server.public import Public
from veracity.server.schema import GENERATION_HEADER

require("fastapi", extra="server", purpose="the web service (veracity serve)")

from fastapi.responses import Response  # noqa: E402
from fastapi.sse import format_sse_event  # noqa: E402

__all__ = ["Replies", "error_of", "json_response", "sse", "stamped"]

log = logging.getLogger("veracity.server")


def stamped(response: Response, generation: Generation[Any]) -> Response:
    """``response`` with the name of the generation it was read from."""
    response.headers[GENERATION_HEADER] = generation.name
    return response


def json_response(
    payload: Any, status: int = 200, headers: dict[str, str] | None = None
) -> Response:
    """Strict JSON (a non-finite score is ``null``), as ``--json`` prints it."""
    return Response(
        strict_json(payload), status_code=status, headers=headers, media_type="application/json"
    )


def sse(event: str, payload: Any) -> bytes:
    return format_sse_event(event=event, data_str=strict_json(payload))


def error_of(exc: Exception) -> tuple[int, dict[str, Any], dict[str, str]]:
    """The status, body and headers of the response to a failed request."""
    if isinstance(exc, ServiceError):
        return exc.status, exc.body(), exc.headers
    if isinstance(exc, VeracityError):
        status = status_of(exc)
        message = exc.message() if isinstance(exc, OptionError) else str(exc)
        return status, error_body(status, type(exc).__name__, message), {}
    ident = uuid.uuid4().hex[:12]
    log.error("request failed (error id %s)", ident, exc_info=exc)
    return (
        500,
        error_body(
            500,
            "internal",
            f"the server failed on this request (error id {ident} in the server's log)",
        ),
        {},
    )


class Replies:
    """Every response body the endpoints send, JSON or event, passes here: through
    :class:`~veracity.server.public.Public`, so that none shows a path on the server."""

    def __init__(self, public: Public) -> None:
        self.public = public

    def json(
        self, payload: Any, status: int = 200, headers: dict[str, str] | None = None
    ) -> Response:
        return json_response(self.public(payload), status, headers)

    def event(self, name: str, payload: Any) -> bytes:
        return sse(name, self.public(payload))

    def failure(self, exc: Exception, generation: Generation[Any] | None = None) -> Response:
        status, body, headers = error_of(exc)
        response = self.json(body, status, headers)
        return response if generation is None else stamped(response, generation)

    def failure_event(self, exc: Exception) -> bytes:
        return self.event("error", error_of(exc)[1])


# --- middleware ------------------------------------------------------------------------------
