"""``veracity serve``: the REST service and its web page on one index (extra ``[server]``)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from veracity import defaults
from veracity.cli.application import VerifierOption, choice_list, fail, models_of
from veracity.cli.render import errors, show
from veracity.cli.search import DEPTH_HELP, RERANK_HELP, RERANKER_HELP
from veracity.errors import MissingDependencyError, OptionError, VeracityError

if TYPE_CHECKING:
    from veracity.server.settings import Settings


def free_port(host: str, port: int) -> None:
    """Raise :class:`OptionError` (exit 2) when ``port`` cannot be listened on at ``host``."""
    import errno
    import socket

    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    with socket.socket(family, socket.SOCK_STREAM) as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # as uvicorn binds
        try:
            probe.bind((host, port))
        except OSError as exc:
            why = "another process listens on it" if exc.errno == errno.EADDRINUSE else exc.strerror
            raise OptionError(
                "port", port, f"a port free at {host}", f"{why}: pick another with --port"
            ) from None


def urls_of(settings: Settings) -> list[str]:
    """The addresses clients can open: on a wildcard host, loopback, the machine's names and
    its addresses (never ``http://0.0.0.0/``)."""
    import socket

    from veracity.server.settings import wildcard

    def url(name: str) -> str:
        return (
            f"http://[{name}]:{settings.port}/"
            if ":" in name
            else (f"http://{name}:{settings.port}/")
        )

    if not wildcard(settings.host):
        return [url(settings.host)]
    found = ["127.0.0.1", *settings.machine_names]
    try:
        infos = socket.getaddrinfo(socket.gethostname(), None, socket.AF_INET)
        found += sorted({str(info[4][0]) for info in infos} - {"127.0.0.1", "127.0.1.1"})
    except OSError:
        pass
    return [url(name) for name in dict.fromkeys(found)]


def serve(
    ctx: typer.Context,
    index_dir: Annotated[Path, typer.Option("--index", help="index folder to serve")],
    host: Annotated[
        str,
        typer.Option(
            help="address to listen on; any but 127.0.0.1, ::1 or localhost needs --token"
        ),
    ] = "127.0.0.1",
    port: Annotated[int, typer.Option(help="port")] = 8000,
    token: Annotated[
        str | None,
        typer.Option(
            help="bearer token clients must send (Authorization: Bearer T)", envvar="VERACITY_TOKEN"
        ),
    ] = None,
    llm: Annotated[
        str, typer.Option(help="extractive, llamacpp[:PATH] or openai:URL")
    ] = defaults.CHAT_BACKEND,
    model: Annotated[str | None, typer.Option(help="model name (openai)")] = None,
    verifier: VerifierOption = defaults.VERIFIER,
    mode: Annotated[
        str, typer.Option(help=f"search mode: {choice_list(defaults.SEARCH_MODES)}")
    ] = defaults.SEARCH_MODE,
    rerank: Annotated[bool, typer.Option("--rerank", help=RERANK_HELP)] = False,
    reranker: Annotated[str, typer.Option(help=RERANKER_HELP)] = defaults.RERANKER,
    rerank_depth: Annotated[int | None, typer.Option(help=DEPTH_HELP)] = None,
    seconds: Annotated[
        float,
        typer.Option(
            "--time-limit",
            help="seconds one request may take, queueing included; past it: 408, its work stops",
        ),
    ] = 120.0,
    claims: Annotated[
        int,
        typer.Option(
            "--max-claims",
            help="claims of one answer to verify or repair; more: 422 before any model work",
        ),
    ] = 100,
    pairs: Annotated[
        int,
        typer.Option(
            "--max-pairs",
            help="(passage, claim) pairs one request may have scored (claims x passages each, or "
            "check's pairs); more: 422 before any model work",
        ),
    ] = 500,
    queue: Annotated[int, typer.Option(help="requests that may wait; more get 503")] = 32,
    workers: Annotated[
        int | None,
        typer.Option(
            help="model jobs that run at once, sharing the loaded models (default: one per two "
            "cores)"
        ),
    ] = None,
    body_seconds: Annotated[
        float,
        typer.Option(
            "--body-time-limit",
            help="seconds to receive a request's body; a slower or shorter one gets 408",
        ),
    ] = 10.0,
    stall_seconds: Annotated[
        float,
        typer.Option(
            "--stall-time-limit",
            help="seconds a stream waits for its client to read an event; then its work stops",
        ),
    ] = 10.0,
    header_seconds: Annotated[
        float,
        typer.Option(
            "--header-time-limit",
            help="seconds to receive a request's headers; a slower connection is closed",
        ),
    ] = 10.0,
    client_connections: Annotated[
        int,
        typer.Option(
            "--max-connections-per-client",
            help="connections open at once from one client address; more are answered 503 "
            "and closed (behind a proxy, raise it: every request comes from the proxy)",
        ),
    ] = 32,
    keep_alive_seconds: Annotated[
        float,
        typer.Option("--keep-alive", help="seconds an idle connection is kept open"),
    ] = 5.0,
    spans: Annotated[
        str | None,
        typer.Option(
            help="token-level span detector for verify, hf:<model id or folder>[@label] (extra "
            "[hf]): each claim's unsupported_spans, marked on the page"
        ),
    ] = None,
    allowed_host: Annotated[
        list[str] | None,
        typer.Option(
            "--allowed-host",
            help="another name clients reach the server by (repeatable); "
            "requests naming any other host than these, 127.0.0.1, localhost, ::1 and --host get "
            "400",
        ),
    ] = None,
) -> None:
    """Serve the index over HTTP: /v1/search, ask, verify, check, documents (see the README),
    and the web page at http://HOST:PORT/ where clicking [n] shows the cited passage.

    Exit 2 on bad options (an address other than loopback without --token) or a missing index.
    """
    try:
        from veracity.server.settings import Limits, Settings

        settings = Settings(
            index=index_dir,
            host=host,
            port=port,
            token=token,
            llm=llm,
            model=model,
            verifier=verifier,
            mode=mode,
            reranker=reranker if rerank else None,
            rerank_depth=rerank_depth,
            spans=spans,
            limits=Limits(
                seconds=seconds,
                queue=queue,
                claims=claims,
                pairs=pairs,
                body_seconds=body_seconds,
                stall_seconds=stall_seconds,
                header_seconds=header_seconds,
                client_connections=client_connections,
                keep_alive_seconds=keep_alive_seconds,
                **({} if workers is None else {"workers": workers}),
            ),
            models=models_of(ctx),
            allowed_hosts=tuple(allowed_host or ()),
        )
        try:
            import uvicorn

            from veracity.server.app import create_app
            from veracity.server.connections import uvicorn_options
        except ImportError as exc:
            raise MissingDependencyError(exc.name or "uvicorn", "server", "veracity serve") from exc
        from veracity.corpus.index_dir import IndexDir

        IndexDir(index_dir).current()  # a missing index stops here, before the server starts
        app = create_app(settings)
        free_port(host, port)  # a port in use stops here, before anything says it serves
    except VeracityError as exc:
        raise fail(exc) from exc
    urls = " and ".join(urls_of(settings))
    show(f"veracity serves {index_dir} at {urls} (Ctrl-C stops it)", out=errors)
    uvicorn.run(
        app,
        host=host,
        port=port,
        log_level="warning",
        access_log=False,
        **uvicorn_options(settings.limits),
    )
