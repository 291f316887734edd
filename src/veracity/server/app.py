"""The FastAPI app: ``create_app(settings)``, its endpoints under ``/v1`` and the web page.

Endpoints (JSON bodies are the ``to_dict()`` shapes that the CLI prints with ``--json``):

- ``POST /v1/search`` ``{query, k, mode?}``: a ``SearchResult``;
- ``POST /v1/ask`` ``{question, k, tau, mode?}``: an ``Answer``; ``POST /v1/ask/stream``: the
  same as Server-Sent Events, ``sentence`` (a ``SentenceCheck``) as each is written and checked,
  then ``answer``;
- ``POST /v1/verify`` ``{answer, question?, sources? | doc_ids?, layers, rule, k, tau, mode?}``: a
  ``Report``; ``POST /v1/verify/stream``: ``sentence`` events (its claims' verdicts), then
  ``report``;
- ``POST /v1/check`` ``{pairs: [{premise, claim, id?}]}``: one ``ScoredPair`` per pair;
- ``POST /v1/repair``: the repaired answer, without a chat model (``veracity repair --json``);
- ``GET /v1/documents`` (ids and titles) and ``GET /v1/documents/{doc_id}`` (a stored text,
  by id only);
- ``GET /v1/health``, ``GET /v1/version``, ``GET /v1/openapi.json``; ``GET /`` the page.

A stream that fails after it began sends an ``error`` event with the error body.

>>> from veracity.server.settings import Settings
>>> app = create_app(Settings(index="my-index"))   # the models load when the app starts
>>> sorted(route.path for route in app.routes if route.path.startswith("/v1/"))[:3]
['/v1/ask', '/v1/ask/stream', '/v1/check']
"""

from __future__ import annotations

import asyncio
import hmac
import logging
import uuid
from collections.abc import AsyncIterator, Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import asynccontextmanager
from importlib.resources import files
from typing import Annotated, Any

from veracity import defaults
from veracity._deps import require
from veracity._json import strict_json
from veracity.assets import VERDICTS_CSS
from veracity.defaults import SearchMode  # a type, so the schema lists the modes
from veracity.errors import OptionError, VeracityError
from veracity.repair.pipeline import POLICIES
from veracity.server.errors import ServiceError, error_body, status_of
from veracity.server.gate import CHEAP_THREADS, Gate
from veracity.server.live import Generation
from veracity.server.public import Public
from veracity.server.service import SERVED_LAYERS, SERVED_RULES, Job, Service, VerifyOptions
from veracity.server.settings import Limits, Settings, host_name, is_host_name
from veracity.server.stop import Stop

require("fastapi", extra="server", purpose="the web service (veracity serve)")

from fastapi import Depends, FastAPI, Request, Security  # noqa: E402
from fastapi.exceptions import RequestValidationError  # noqa: E402
from fastapi.openapi.utils import get_openapi  # noqa: E402
from fastapi.responses import FileResponse, Response, StreamingResponse  # noqa: E402
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer  # noqa: E402
from fastapi.sse import format_sse_event  # noqa: E402
from pydantic import BaseModel, ConfigDict, Field  # noqa: E402
from starlette.exceptions import HTTPException as StarletteHTTPException  # noqa: E402
from starlette.types import ASGIApp, Message, Receive, Scope, Send  # noqa: E402

__all__ = ["create_app"]

log = logging.getLogger("veracity.server")
STATIC = files("veracity.server") / "static"
#: The page loads only its own files; nothing inline, nothing from elsewhere.
SECURITY_HEADERS = {
    "Content-Security-Policy": "default-src 'none'; script-src 'self'; style-src 'self'; "
    "img-src 'self'; connect-src 'self'; base-uri 'none'; "
    "form-action 'none'; frame-ancestors 'none'",
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
    "Cache-Control": "no-store",
}


def sse_response(*names: str) -> dict[int | str, dict[str, Any]]:
    """The declared answer of a stream: events named ``names`` (and ``error``), each with a
    JSON ``data`` (comments keep the connection alive)."""
    return {
        200: {
            "description": "Server-Sent Events (see the endpoint's description)",
            "content": {
                "text/event-stream": {
                    "schema": {
                        "type": "object",
                        "properties": {
                            "event": {"type": "string", "enum": [*names, "error"]},
                            "data": {"type": "string", "contentMediaType": "application/json"},
                        },
                        "required": ["event", "data"],
                    }
                }
            },
        }
    }


JSON_OBJECT: dict[int | str, dict[str, Any]] = {
    200: {"content": {"application/json": {"schema": {"type": "object"}}}}
}


class LimitReached(BaseModel):
    name: str = Field(description="the limit, as `veracity serve --help` and Limits name it")
    value: float = Field(description="its value on this server")


class ErrorDetail(BaseModel):
    status: int
    type: str = Field(description="limit, invalid, unauthorized, not_found, overloaded, ...")
    message: str = Field(description="what went wrong and what to send instead")
    limit: LimitReached | None = Field(None, description="the limit reached, if one was")


class ErrorBody(BaseModel):
    """Every error response: ``{"error": {status, type, message, limit?}}``."""

    error: ErrorDetail


#: The errors any endpoint may answer, with the body they are sent with.
ERRORS: dict[int | str, dict[str, Any]] = {
    status: {"model": ErrorBody, "description": description}
    for status, description in {
        400: "bad input, or a Host this server does not answer to",
        401: "a bearer token is needed (the server was started with --token) or is wrong",
        404: "no such document",
        408: "the body or the work took longer than its time limit",
        413: "the body is over body_bytes",
        422: "a field of the wrong type, or over a limit (the limit is named)",
        500: "an unforeseen failure (its id is in the server's log)",
        503: "busy (Retry-After says when to retry), or the index or a model cannot be used",
    }.items()
}


def declare_limits(schema: dict[str, Any], limits: Limits) -> dict[str, Any]:
    """``schema`` (the OpenAPI document) with this server's limits on the request fields."""
    bounds = {
        "query": {"maxLength": limits.question_chars},
        "question": {"maxLength": limits.question_chars},
        "answer": {"maxLength": limits.answer_chars},
        "k": {"maximum": limits.k},
        "sources": {"maxItems": limits.sources},
        "doc_ids": {"maxItems": limits.sources},
        "pairs": {"maxItems": limits.pairs},
    }
    for model in schema.get("components", {}).get("schemas", {}).values():
        for name, field in model.get("properties", {}).items():
            if name in bounds:
                target = next(
                    (option for option in field.get("anyOf", ()) if option.get("type")), field
                )
                target.update(bounds[name])
    return schema


#: The bearer scheme, declared in the API description (the token is checked by ``authorized``).
BEARER = Security(
    HTTPBearer(
        auto_error=False,
        description="the --token the server was started with (none needed without one)",
    )
)


# --- requests -------------------------------------------------------------------------------
class _Body(BaseModel):
    """Every request body: no unknown fields, and each field of its own JSON type (``"k": true``
    or ``"k": "5"`` is a 422, never read as 1 or 5)."""

    model_config = ConfigDict(extra="forbid", strict=True)


MODE_HELP = (
    f"how the index is searched: {', '.join(defaults.SEARCH_MODES[:-1])} or "
    f"{defaults.SEARCH_MODES[-1]} (default: the server's --mode)"
)


class SearchRequest(_Body):
    query: str = Field(min_length=1, description="what to look for")
    k: int = Field(defaults.TOP_K, ge=1, description="passages to return")
    mode: SearchMode | None = Field(None, description=MODE_HELP)


class AskRequest(_Body):
    question: str = Field(min_length=1)
    k: int = Field(defaults.TOP_K, ge=1, description="passages given to the model")
    tau: float = Field(
        defaults.CITATION_TAU, ge=0.0, le=1.0, description="P(supported) a citation must reach"
    )
    mode: SearchMode | None = Field(None, description=MODE_HELP)


class VerifyRequest(_Body):
    answer: str = Field(min_length=1, description="the answer to check, from any system")
    question: str | None = Field(None, description="the question it replies to")
    sources: list[str] = Field(
        default_factory=list, description="source texts to check against (ids text-1, ...)"
    )
    doc_ids: list[str] = Field(
        default_factory=list, description="documents of the index to check against"
    )
    layers: list[str] = Field(
        default_factory=lambda: list[str](defaults.VERIFY_LAYERS),
        description=", ".join(SERVED_LAYERS),
        json_schema_extra={"items": {"type": "string", "enum": list(SERVED_LAYERS)}},
    )
    rule: str = Field(
        defaults.VERIFY_RULE,
        description=" or ".join((", ".join(SERVED_RULES[:-1]), SERVED_RULES[-1])),
        json_schema_extra={"enum": list(SERVED_RULES)},
    )
    k: int = Field(defaults.VERIFY_TOP_K, ge=1, description="passages per claim")
    tau: float = Field(defaults.VERIFY_TAU, ge=0.0, le=1.0)
    mode: SearchMode | None = Field(
        None, description=MODE_HELP + "; unused with sources or doc_ids"
    )

    def options(self) -> VerifyOptions:
        return VerifyOptions(
            answer=self.answer,
            question=self.question,
            sources=tuple(self.sources),
            doc_ids=tuple(self.doc_ids),
            layers=tuple(self.layers),
            rule=self.rule,
            k=self.k,
            tau=self.tau,
            mode=self.mode,
        )


class RepairRequest(_Body):
    answer: str = Field(min_length=1, description="the answer to repair, from any system")
    question: str | None = Field(None, description="the question it replies to")
    sources: list[str] = Field(
        default_factory=list, description="source texts to repair against (ids text-1, ...)"
    )
    doc_ids: list[str] = Field(
        default_factory=list, description="documents of the index to repair against"
    )
    policy: str = Field(
        defaults.REPAIR_POLICY,
        description=" or ".join((", ".join(POLICIES[:-1]), POLICIES[-1])),
        json_schema_extra={"enum": list(POLICIES)},
    )
    k: int = Field(defaults.VERIFY_TOP_K, ge=1, description="passages per claim")
    tau: float = Field(defaults.VERIFY_TAU, ge=0.0, le=1.0)
    mode: SearchMode | None = Field(
        None, description=MODE_HELP + "; unused with sources or doc_ids"
    )

    def options(self) -> VerifyOptions:
        return VerifyOptions(
            answer=self.answer,
            question=self.question,
            sources=tuple(self.sources),
            doc_ids=tuple(self.doc_ids),
            k=self.k,
            tau=self.tau,
            policy=self.policy,
            mode=self.mode,
        )


class Pair(_Body):
    premise: str
    claim: str
    id: str | None = None


class CheckRequest(_Body):
    pairs: list[Pair] = Field(min_length=1)


# --- responses ------------------------------------------------------------------------------
#: The index generation a response was read from.
GENERATION_HEADER = "X-Veracity-Generation"


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
def create_app(settings: Settings, *, service: Service | None = None) -> FastAPI:
    """The service's app; the models load once, when it starts (its lifespan).

    ``service`` replaces the one made from ``settings`` (tests pass one over fakes through
    ``settings.models`` instead, which is what ``veracity serve`` does with the real ones).
    """
    served = service or Service(settings)
    gate = Gate(
        queue=settings.limits.queue,
        seconds=settings.limits.seconds,
        workers=settings.limits.workers,
        clock=served.clock,
        stall=settings.limits.stall_seconds,
    )
    #: The lane of work that needs no model (BM25 search, the documents): beside the gate's.
    cheap = ThreadPoolExecutor(CHEAP_THREADS, thread_name_prefix="veracity-index")

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        await asyncio.get_running_loop().run_in_executor(None, served.load)
        gate.clock = served.clock  # measured as the models loaded
        reply.public.add_views(served.live.views)
        try:
            yield
        finally:
            served.live.close()
            gate.executor.shutdown(wait=False, cancel_futures=True)
            cheap.shutdown(wait=False, cancel_futures=True)

    app = FastAPI(
        title="veracity",
        version="v1",
        lifespan=lifespan,
        docs_url=None,
        redoc_url=None,
        openapi_url="/openapi.json",
        description="Grounded answers with exact-span citations, and claim "
        "verification of any answer. JSON bodies are the shapes "
        "`veracity ... --json` prints.",
    )
    reply = Replies(Public(settings.index))
    app.state.service = served
    app.state.gate = gate

    async def authorized(
        request: Request,
        credentials: HTTPAuthorizationCredentials | None = BEARER,  # declares the scheme
    ) -> None:
        """Bearer token check (constant time) when the server was started with a token."""
        token = settings.token
        if token is None:
            return
        given = request.headers.get("authorization", "")
        scheme, _, value = given.partition(" ")
        if not given:
            raise ServiceError(
                401,
                "unauthorized",
                "this server needs a bearer token: send "
                "Authorization: Bearer <token> (the --token it was started "
                "with)",
                headers={"WWW-Authenticate": "Bearer"},
            )
        if scheme.lower() != "bearer" or not hmac.compare_digest(
            value.strip().encode(), token.encode()
        ):
            raise ServiceError(
                401,
                "unauthorized",
                "the bearer token is wrong",
                headers={"WWW-Authenticate": 'Bearer error="invalid_token"'},
            )

    guarded = [Depends(authorized)]

    def openapi() -> dict[str, Any]:
        """The API description, with this server's limits (and its bearer scheme when it has
        a token); at /openapi.json and /v1/openapi.json."""
        if app.openapi_schema is None:
            app.openapi_schema = declare_limits(
                get_openapi(
                    title=app.title,
                    version=app.version,
                    description=app.description,
                    routes=app.routes,
                ),
                settings.limits,
            )
            if settings.token is None:  # nothing to send: declare no scheme
                app.openapi_schema.get("components", {}).pop("securitySchemes", None)
                for path in app.openapi_schema.get("paths", {}).values():
                    for operation in path.values():
                        operation.pop("security", None)
                        operation.get("responses", {}).pop("401", None)
        return app.openapi_schema

    app.openapi = openapi  # type: ignore[method-assign]

    @app.get("/v1/openapi.json", include_in_schema=False)
    async def openapi_v1() -> Response:
        return json_response(openapi())

    @app.get("/docs", include_in_schema=False)
    async def docs() -> Response:
        """The API description as a page: the schema, every endpoint and its fields, read
        from /openapi.json by the page's own script (no CDN, no inline script)."""
        return _static("docs.html")

    @app.exception_handler(ServiceError)
    @app.exception_handler(VeracityError)
    async def library_error(request: Request, exc: Exception) -> Response:
        return reply.failure(exc)

    @app.exception_handler(RequestValidationError)
    async def invalid(request: Request, exc: RequestValidationError) -> Response:
        broken = next((e for e in exc.errors() if e.get("type") == "json_invalid"), None)
        if broken is not None:
            where = broken["loc"][-1] if broken.get("loc") else "?"
            why = str((broken.get("ctx") or {}).get("error", "")).strip()
            return reply.json(
                error_body(
                    422,
                    "invalid",
                    f"the body is not JSON ({why or 'unreadable'} at character {where}); send "
                    "one JSON object, as /openapi.json describes each endpoint's",
                ),
                422,
            )
        problems = "; ".join(
            f"{'.'.join(str(part) for part in error['loc'][1:]) or 'body'}: {error['msg']}"
            for error in exc.errors()
        )
        return reply.json(error_body(422, "invalid", f"the request is not valid: {problems}"), 422)

    @app.exception_handler(StarletteHTTPException)
    async def http_error(request: Request, exc: StarletteHTTPException) -> Response:
        message = str(exc.detail)
        if message == "There was an error parsing the body":  # FastAPI's words for any reason
            message = (
                "the body could not be read as JSON (not UTF-8, or nested deeper than a JSON "
                "reader allows); send one JSON object in UTF-8, as /openapi.json describes"
            )
        return reply.json(
            error_body(exc.status_code, "http", message),
            exc.status_code,
            dict(exc.headers or {}),
        )

    @app.exception_handler(Exception)
    async def unexpected(request: Request, exc: Exception) -> Response:
        return reply.failure(exc)

    @asynccontextmanager
    async def leased() -> AsyncIterator[Generation[Service]]:
        """The index generation this request reads, held until the block ends (taken in the
        lane without models: it opens a new generation when ``veracity index`` made one)."""
        generation = await asyncio.get_running_loop().run_in_executor(cheap, served.live.take)
        try:
            yield generation
        finally:
            served.live.give_back(generation)

    async def call(
        request: Request, check: Callable[[Service], Job[Any]], *, inline: bool = False
    ) -> Response:
        """Checks the request outside the models' queue (a refusal never waits behind model
        work; ``inline``: a check of a few fields, made at once), then runs its job: in the
        lane beside the models when it needs none, else in its turn while its client is
        there. The body is made in the job's thread, not in the loop that serves every
        request."""
        generation = None
        try:
            async with leased() as generation:
                on = generation.served
                job = check(on) if inline else await asyncio.to_thread(check, on)

                def work(stop: Stop) -> Response:
                    return reply.json(job.run(stop))

                if not job.models:
                    response = await asyncio.get_running_loop().run_in_executor(cheap, work, Stop())
                else:
                    response = await gate.call(
                        work, gone=request.is_disconnected, kind=job.kind, pairs=job.pairs
                    )
                return stamped(response, generation)
        except Exception as exc:  # logged with its traceback; the client gets the message
            return reply.failure(exc, generation)

    async def stream(
        request: Request, check: Callable[[Service], Job[Iterator[tuple[str, Any]]]]
    ) -> Response:
        """Checks the request outside the queue, then starts its job in its turn (an error
        until then is a plain HTTP error), then streams its events; the generation it reads
        is held until its last event."""
        gone = request.is_disconnected
        generation = await asyncio.get_running_loop().run_in_executor(cheap, served.live.take)
        try:
            job = await asyncio.to_thread(check, generation.served)
            turn = await gate.enter(gone, kind=job.kind, pairs=job.pairs)
            stop = gate.stop_at(turn)
            events = await gate.run(job.run, stop, turn, gone=gone, keep=True)
        except Exception as exc:
            served.live.give_back(generation)
            return reply.failure(exc)
        items = gate.stream(events, stop, turn, gone=gone)

        async def body() -> AsyncIterator[bytes]:
            try:
                async for item in items:
                    yield b": keep-alive\n\n" if item is None else reply.event(*item)
            except Exception as exc:  # the status is sent: the error is an event
                yield reply.failure_event(exc)
            finally:
                served.live.give_back(generation)

        return StreamingResponse(
            body(),
            media_type="text/event-stream",
            headers={"X-Accel-Buffering": "no", GENERATION_HEADER: generation.name},
        )

    @app.get("/v1/health", responses=JSON_OBJECT | {400: ERRORS[400], 500: ERRORS[500]})
    async def health() -> Response:
        """Whether the service is up; ``auth`` says whether requests need a bearer token."""
        return reply.json(
            {"status": "ok", "auth": settings.token is not None, "busy": gate.pending}
        )

    @app.get("/v1/version", dependencies=guarded, responses=JSON_OBJECT | ERRORS)
    async def version() -> Response:
        """veracity's version, the models loaded and the index generation served."""
        async with leased() as generation:
            return stamped(reply.json(generation.served.version()), generation)

    @app.post("/v1/search", dependencies=guarded, responses=JSON_OBJECT | ERRORS)
    async def search(body: SearchRequest, request: Request) -> Response:
        """Search the index (a ``SearchResult``, as `veracity search --json`)."""
        return await call(request, lambda on: on.search(body.query, body.k, body.mode), inline=True)

    @app.post("/v1/ask", dependencies=guarded, responses=JSON_OBJECT | ERRORS)
    async def ask(body: AskRequest, request: Request) -> Response:
        """A grounded answer with checked [n] citations (an ``Answer``, as `veracity ask
        --json`), or "I don't know"."""
        return await call(request, lambda on: on.ask(body.question, body.k, body.tau, body.mode))

    @app.post(
        "/v1/ask/stream",
        dependencies=guarded,
        responses=sse_response("sentence", "answer") | ERRORS,
    )
    async def ask_stream(body: AskRequest, request: Request) -> Response:
        """``ask`` as Server-Sent Events: ``sentence`` (a ``SentenceCheck``) as soon as each
        sentence is written and checked, then ``answer`` (the ``Answer``); ``error`` if it
        fails after it began."""
        return await stream(
            request, lambda on: on.ask_stream(body.question, body.k, body.tau, body.mode)
        )

    @app.post("/v1/verify", dependencies=guarded, responses=JSON_OBJECT | ERRORS)
    async def verify(body: VerifyRequest, request: Request) -> Response:
        """Check an answer claim by claim (a ``Report``, as `veracity verify --json`)."""
        return await call(request, lambda on: on.verify(body.options()))

    @app.post(
        "/v1/verify/stream",
        dependencies=guarded,
        responses=sse_response("sentence", "report") | ERRORS,
    )
    async def verify_stream(body: VerifyRequest, request: Request) -> Response:
        """``verify`` as Server-Sent Events: ``sentence`` ({index, span, text, claims,
        skipped}) as soon as each sentence is verified, then ``report`` (the ``Report``)."""
        return await stream(request, lambda on: on.verify_stream(body.options()))

    @app.post("/v1/check", dependencies=guarded, responses=JSON_OBJECT | ERRORS)
    async def check(body: CheckRequest, request: Request) -> Response:
        """Does each premise support its claim? One batch; each pair as `veracity check
        --json` prints it."""
        pairs = [(pair.premise, pair.claim, pair.id) for pair in body.pairs]
        return await call(request, lambda on: on.check(pairs))

    @app.post("/v1/repair", dependencies=guarded, responses=JSON_OBJECT | ERRORS)
    async def repair(body: RepairRequest, request: Request) -> Response:
        """Repair an answer against its sources without a chat model (a ``RepairResult``, as
        `veracity repair --json`): values substituted, claims deleted or flagged, or the
        answer refused, by ``policy``."""
        return await call(request, lambda on: on.repair(body.options()))

    @app.get("/v1/documents", dependencies=guarded, responses=JSON_OBJECT | ERRORS)
    async def documents() -> Response:
        """The ids, titles and lengths of the index's documents."""
        async with leased() as generation:
            response = await asyncio.get_running_loop().run_in_executor(
                cheap, lambda: reply.json(generation.served.documents())
            )
            return stamped(response, generation)

    @app.get("/v1/documents/{doc_id:path}", dependencies=guarded, responses=JSON_OBJECT | ERRORS)
    async def document(doc_id: Annotated[str, "a document id of the index"]) -> Response:
        """A stored document by id (its text, title, sections, pages): the text that
        citations' ``start``/``end`` index. Ids are looked up in the index, never as paths."""
        async with leased() as generation:
            response = await asyncio.get_running_loop().run_in_executor(
                cheap, lambda: reply.json(generation.served.document(doc_id))
            )
            return stamped(response, generation)

    @app.api_route("/", methods=["GET", "HEAD"], include_in_schema=False)
    async def page() -> Response:
        return _static("index.html")

    @app.get("/static/{name}", include_in_schema=False)
    async def asset(name: str) -> Response:
        return _static(name)

    @app.get("/favicon.ico", include_in_schema=False)
    async def favicon() -> Response:
        """The page's icon, for browsers that ask for it where it used to be."""
        return _static("icon.svg")

    app.add_middleware(
        BodyLimit, limit=settings.limits.body_bytes, seconds=settings.limits.body_seconds
    )
    app.add_middleware(HostCheck, names=settings.host_names)
    app.add_middleware(SecurityHeaders)
    return app


_ASSETS = {
    "index.html": "text/html; charset=utf-8",
    "app.js": "text/javascript; charset=utf-8",
    "app.css": "text/css; charset=utf-8",
    "icon.svg": "image/svg+xml",
    "docs.html": "text/html; charset=utf-8",
    "docs.js": "text/javascript; charset=utf-8",
    "verdicts.css": "text/css; charset=utf-8",
}


def _static(name: str) -> Response:
    """One of the page's shipped files, by a name from a fixed list (never a path). The
    verdict colours come from the library's stylesheet, which the batch overview shares."""
    if name not in _ASSETS:
        raise ServiceError(404, "not_found", f"no file {name!r} here")
    path = VERDICTS_CSS if name == "verdicts.css" else STATIC / name
    return FileResponse(str(path), media_type=_ASSETS[name])
