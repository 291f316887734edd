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
from collections.abc import AsyncIterator, Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import asynccontextmanager
from importlib.resources import files
from typing import Annotated, Any

from veracity._deps import require
from veracity.assets import VERDICTS_CSS
from veracity.errors import VeracityError
from veracity.server.errors import ServiceError, error_body
from veracity.server.gate import CHEAP_THREADS, Gate
from veracity.server.live import Generation
from veracity.server.middleware import BodyLimit, HostCheck, SecurityHeaders
from veracity.server.public import Public
from veracity.server.replies import Replies, json_response, stamped
from veracity.server.schema import (
    BEARER,
    ERRORS,
    GENERATION_HEADER,
    JSON_OBJECT,
    AskRequest,
    CheckRequest,
    RepairRequest,
    SearchRequest,
    VerifyRequest,
    declare_limits,
    sse_response,
)
from veracity.server.service import Job, Service
from veracity.server.settings import Settings
from veracity.server.stop import Stop

require("fastapi", extra="server", purpose="the web service (veracity serve)")

from fastapi import Depends, FastAPI, Request  # noqa: E402
from fastapi.exceptions import RequestValidationError  # noqa: E402
from fastapi.openapi.utils import get_openapi  # noqa: E402
from fastapi.responses import FileResponse, Response, StreamingResponse  # noqa: E402
from fastapi.security import HTTPAuthorizationCredentials  # noqa: E402
from starlette.exceptions import HTTPException as StarletteHTTPException  # noqa: E402

__all__ = ["create_app"]

log = logging.getLogger("veracity.server")
STATIC = files("veracity.server") / "static"


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
