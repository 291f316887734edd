"""What a client sees when a request fails: a status, and a JSON body that says what to do.

Every error body is ``{"error": {"status", "type", "message", "limit"?}}``. The messages are
the exception tree's (:mod:`veracity.errors`); a failure veracity did not foresee is logged
with its traceback on the server and reaches the client as a 500 naming only its log id.
"""

from __future__ import annotations

from typing import Any

from veracity.errors import (
    GenerationError,
    IndexStoreError,
    InputError,
    ModelError,
    VeracityError,
)

__all__ = ["ServiceError", "error_body", "status_of"]


class ServiceError(Exception):
    """A request the service refuses, with its HTTP status and message.

    ``limit`` names the limit that was reached (``{"name": "answer_chars", "value": 20000}``);
    ``headers`` go on the response (``Retry-After``, ``WWW-Authenticate``).
    """

    def __init__(
        self,
        status: int,
        kind: str,
        message: str,
        *,
        limit: tuple[str, float] | None = None,
        headers: dict[str, str] | None = None,
    ) -> None:
        self.status = status
        self.kind = kind
        self.message = message
        self.limit = limit
        self.headers = headers or {}
        super().__init__(message)

    @classmethod
    def over_limit(
        cls, name: str, value: float, what: str, *, status: int = 422, fix: str = "send less"
    ) -> ServiceError:
        """A request over the limit ``name`` (``what`` says what it sent, ``fix`` what to do)."""
        shown = int(value) if float(value).is_integer() else value
        return cls(
            status,
            "limit",
            f"{what}, over this server's limit {name} = {shown}; {fix} "
            "(the server's operator sets the limit)",
            limit=(name, value),
        )

    def body(self) -> dict[str, Any]:
        return error_body(self.status, self.kind, self.message, self.limit)


def error_body(
    status: int, kind: str, message: str, limit: tuple[str, float] | None = None
) -> dict[str, Any]:
    """The JSON body of an error response."""
    error: dict[str, Any] = {"status": status, "type": kind, "message": message}
    if limit is not None:
        error["limit"] = {"name": limit[0], "value": limit[1]}
    return {"error": error}


def status_of(exc: VeracityError) -> int:
    """The HTTP status of a library error: 400 bad input; 502 the chat model failed; 503 the
    index or a model cannot be used (the operator must fix it); 500 anything else."""
    if isinstance(exc, InputError):
        return 400
    if isinstance(exc, GenerationError):
        return 502
    if isinstance(exc, IndexStoreError | ModelError):
        return 503
    return 500
