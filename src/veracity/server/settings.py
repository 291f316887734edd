"""What ``veracity serve`` runs with: the index, the models, the address, the token, the limits.

>>> Settings(index="my-index").host
'127.0.0.1'
>>> Settings(index="my-index", host="0.0.0.0")
Traceback (most recent call last):
...
veracity.errors.OptionError: host='0.0.0.0' is not allowed: a loopback address (127.0.0.1, ::1, \
localhost) unless a token is given. Start it with --token T (clients then send Authorization: \
Bearer T), or serve on 127.0.0.1.
"""

from __future__ import annotations

import ipaddress
import re
import socket
from dataclasses import dataclass, field, fields
from pathlib import Path

from veracity import defaults
from veracity.errors import OptionError
from veracity.models import Models
from veracity.server.gate import serve_workers

__all__ = [
    "LOOPBACK_NAMES",
    "Limits",
    "Settings",
    "host_name",
    "is_host_name",
    "is_loopback",
    "wildcard",
]

#: The names of this machine a server on any address answers to.
LOOPBACK_NAMES = ("127.0.0.1", "localhost", "::1")


#: The limits that are durations in seconds, and the least each may be.
DURATIONS = frozenset(
    {"seconds", "body_seconds", "stall_seconds", "header_seconds", "keep_alive_seconds"}
)
MIN_SECONDS = 0.1


@dataclass(frozen=True)
class Limits:
    """Bounds on one request; each has the name a client sees in the error that enforces it.

    ``body_bytes``: the request body; ``question_chars``, ``answer_chars``: the question and the
    answer to verify; ``sources``: source texts or document ids of one verify request (200, as
    Vertex AI check-grounding's facts); ``k``: passages per search, question or claim.

    The budget of one request's model work, checked before it queues: ``claims``: the claims
    of an answer to verify or repair (made by the verifier's rules); ``pairs``: the (passage,
    claim) pairs the verifier scores, a check request's pairs or an answer's claims times the
    passages each is checked against (``k``, or the pasted passages when fewer; repair reads
    them again after its research and its edits); ``seconds``: one request, queueing included
    (past it the request gets 408 and its work stops at its next batch).

    ``body_seconds``: reading one request's body (a client that declares more bytes than it
    sends, or sends them slowly, is answered 408 instead of holding the connection open);
    ``workers``: model jobs that run at once (by default one per two cores,
    :func:`~veracity.server.gate.serve_workers`); ``queue``: requests waiting while ``workers``
    run, beyond which the service answers 503 with ``Retry-After``; ``pair_ms``: the
    milliseconds one (passage, claim) pair takes, which turn a request's pairs into its
    estimated time (``None``: measured when the service starts, then on every slice scored);
    ``stall_seconds``: a stream whose reader takes no event for that long is stopped.

    The connections (:mod:`veracity.server.connections`): ``header_seconds``: a request's
    headers must all arrive within that many seconds of the connection's start or of the last
    answer on it; ``client_connections``: connections open at once from one client address;
    ``keep_alive_seconds``: an idle connection is closed after that many seconds.
    """

    body_bytes: int = 1_000_000
    question_chars: int = 2_000
    answer_chars: int = 20_000
    sources: int = 200
    k: int = 20
    claims: int = 100
    pairs: int = 500
    seconds: float = 120.0
    body_seconds: float = 10.0
    queue: int = 32
    workers: int = field(default_factory=serve_workers)
    pair_ms: float | None = None
    stall_seconds: float = 10.0
    header_seconds: float = 10.0
    client_connections: int = 32
    keep_alive_seconds: float = 5.0

    def __post_init__(self) -> None:
        for item in fields(self):
            value = getattr(self, item.name)
            if value is None and item.name == "pair_ms":
                continue
            # a time limit may be a fraction of a second (a latency gate); a count is whole
            least = MIN_SECONDS if item.name in DURATIONS else 1
            if isinstance(value, bool) or not isinstance(value, int | float) or value < least:
                raise OptionError(item.name, value, f"a number of {least:g} or more")


def is_loopback(host: str) -> bool:
    """Whether ``host`` names this machine only.

    >>> is_loopback("127.0.0.1"), is_loopback("::1"), is_loopback("0.0.0.0")
    (True, True, False)
    """
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def host_name(value: str) -> str:
    """The host name of an address or a ``Host`` header, without its port, brackets or case.

    >>> host_name("[::1]:8000"), host_name("LocalHost:80"), host_name("example.org.")
    ('::1', 'localhost', 'example.org')
    """
    value = value.strip().lower()
    if value.startswith("["):
        value = value[1:].partition("]")[0]
    elif value.count(":") == 1:  # name:port (an IPv6 address without brackets has several)
        value = value.partition(":")[0]
    return value.rstrip(".")


_NAME = re.compile(r"[a-z0-9_]([a-z0-9_.-]*[a-z0-9_])?")


def is_host_name(value: str) -> bool:
    """Whether ``value`` is a host name or an IP address a client could put in ``Host``.

    >>> is_host_name("box.example.org"), is_host_name("192.0.2.2"), is_host_name("[::1]")
    (True, True, True)
    >>> is_host_name("evil@127.0.0.1"), is_host_name("http://box/"), is_host_name("")
    (False, False, False)
    """
    name = host_name(value)
    if not name or any(mark in value for mark in " /\\*@,?#"):
        return False
    try:
        ipaddress.ip_address(name)
        return True
    except ValueError:
        return len(name) <= 253 and _NAME.fullmatch(name) is not None


def wildcard(host: str) -> bool:
    """Whether ``host`` listens on every address of the machine (``0.0.0.0``, ``::``)."""
    return host in ("0.0.0.0", "::", "")


@dataclass(frozen=True)
class Settings:
    """The service's configuration (see ``veracity serve --help``).

    ``models`` makes the verifier, the chat model and the span detector (the CLI's factories;
    tests pass fakes). ``spans`` names a span detector (``veracity verify --spans`` names): with
    one, every verified claim carries its ``unsupported_spans`` and the page marks them.
    A ``host`` other than a loopback address needs a ``token``: without one, anyone who can
    reach the port could use the models. Requests must name the server (their ``Host`` header)
    by one of :attr:`host_names`: a web page from another site that points its own name at
    127.0.0.1 (DNS rebinding) is refused, not served.
    """

    index: str | Path
    host: str = "127.0.0.1"
    port: int = 8000
    token: str | None = None
    llm: str = defaults.CHAT_BACKEND
    model: str | None = None
    verifier: str = defaults.VERIFIER
    mode: str = defaults.SEARCH_MODE
    #: The reranker of every search and answer (``veracity search --reranker`` names), or none.
    reranker: str | None = None
    rerank_depth: int | None = None
    #: The span detector of every verify request (``hf:<model>[@label]``), or none.
    spans: str | None = None
    limits: Limits = field(default_factory=Limits)
    models: Models = field(default_factory=Models)
    #: Other names clients reach the server by (``--allowed-host``), e.g. the machine's name.
    allowed_hosts: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        if self.token is not None and len(self.token) < 8:
            raise OptionError(
                "token",
                "***",
                "at least 8 characters",
                "Use a long random one, e.g. `python -c 'import secrets; "
                "print(secrets.token_urlsafe())'`.",
            )
        if not is_loopback(self.host) and not self.token:
            raise OptionError(
                "host",
                self.host,
                "a loopback address (127.0.0.1, ::1, localhost) unless a token is given",
                "Start it with --token T (clients then send Authorization: "
                "Bearer T), or serve on 127.0.0.1.",
            )
        if not 0 < self.port < 65536:
            raise OptionError("port", self.port, "a port from 1 to 65535")
        if self.mode not in defaults.SEARCH_MODES:
            raise OptionError("mode", self.mode, f"one of {', '.join(defaults.SEARCH_MODES)}")
        for name in self.allowed_hosts:
            if not isinstance(name, str) or not is_host_name(name):
                raise OptionError(
                    "allowed_host",
                    name,
                    "a host name or address, such as "
                    "veracity.example.org or 192.168.1.5, without scheme or path",
                )
        if self.rerank_depth is not None and self.reranker is None:
            raise OptionError(
                "rerank_depth",
                self.rerank_depth,
                "given with a reranker",
                "Pass --rerank as well, or leave --rerank-depth out.",
            )

    @property
    def host_names(self) -> frozenset[str]:
        """The names a request's ``Host`` header may give: the loopback names, ``host`` and
        ``allowed_hosts``.

        >>> sorted(Settings(index="i", allowed_hosts=("Box.local",)).host_names)
        ['127.0.0.1', '::1', 'box.local', 'localhost']
        """
        return frozenset(
            host_name(name)
            for name in (*LOOPBACK_NAMES, self.host, *self.allowed_hosts, *self.machine_names)
        )

    @property
    def machine_names(self) -> tuple[str, ...]:
        """The machine's own names (its host name and fully qualified name) when the service
        listens on every address (with a token): clients that reach it by them are answered.
        Its addresses are answered too, each on the connections that arrive through it
        (:class:`~veracity.server.app.HostCheck`)."""
        if not wildcard(self.host):
            return ()
        names = {socket.gethostname(), socket.getfqdn()}
        return tuple(sorted(name for name in names if name and is_host_name(name)))
