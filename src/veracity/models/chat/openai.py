"""A ``ChatModel`` for any OpenAI-compatible ``/v1/chat/completions`` server.

Ollama, vLLM, llama.cpp's server (``python -m llama_cpp.server``), LM Studio and hosted APIs all
speak this protocol. Settings come from the arguments first, then the environment:

========  ===========================================================================
base URL  ``base_url=`` > ``$VERACITY_LLM_BASE_URL`` > ``$OPENAI_BASE_URL`` >
          ``defaults.LLM_BASE_URL`` (``http://127.0.0.1:8080/v1``)
model     ``model=`` > ``$VERACITY_LLM_MODEL`` (one of the two is required)
API key   ``api_key=`` (``None``: send none) > ``$VERACITY_LLM_API_KEY`` > ``$OPENAI_API_KEY``
          > no key
========  ===========================================================================

A 408, 409, 429, 500, 502, 503 or 504 reply and a failed connection are retried up to
``max_retries`` times; the n-th retry waits ``backoff * 2**n`` seconds, or the server's
``Retry-After`` when that is longer, and a wait longer than ``max_wait`` is not made. A read
timeout is not retried: the model is slow, and asking again would only wait longer. Failures
raise the errors of :mod:`veracity.models.chat.errors`, which name the server, the status and what
to
check. Tests pass ``transport=httpx.MockTransport(...)`` and never touch the network.

>>> chat = OpenAIChat(model="qwen2.5:3b", base_url="http://127.0.0.1:11434/v1")  # Ollama
>>> chat.url
'http://127.0.0.1:11434/v1/chat/completions'
>>> chat.run(ChatRequest.of("Say hi.", seed=0)).text                    # doctest: +SKIP
'Hi!'
"""

from __future__ import annotations

import email.utils
import enum
import functools
import json
import math
import os
import threading
import time
from collections.abc import Callable, Generator, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from types import TracebackType
from typing import Any, Literal

import httpx

from veracity import defaults
from veracity.errors import GenerationError, OptionError
from veracity.models.chat.base import ChatRequest, ChatResponse
from veracity.models.chat.errors import (
    MalformedReplyError,
    ServerStatusError,
    ServerUnreachableError,
    quote,
)
from veracity.models.chat.wire import (
    iter_sse_data,
    parse_completion,
    parse_stream_choice,
    request_body,
)

__all__ = [
    "NOT_GIVEN",
    "RETRY_STATUSES",
    "HttpPolicy",
    "OpenAIChat",
]

#: Statuses worth asking again: timeout, conflict, rate limit, transient server failures.
RETRY_STATUSES = frozenset({408, 409, 429, 500, 502, 503, 504})
#: Most retries one client may be configured with.
MAX_RETRIES_LIMIT = 10
#: Request fields set from the ChatRequest; ``extra_body`` may not override them.
RESERVED_FIELDS = ("model", "messages", "stream", "temperature", "max_tokens", "seed", "stop")
_START_HINT = (
    "start one with `python -m llama_cpp.server --model <file.gguf> --host 127.0.0.1 "
    "--port 8080` (pip install 'veracity[llm]') or `ollama serve`, or point "
    "VERACITY_LLM_BASE_URL at yours"
)


class _Unset(enum.Enum):
    NOT_GIVEN = "NOT_GIVEN"

    def __repr__(self) -> str:
        return "NOT_GIVEN"


#: "Not given": read the setting from the environment (``None`` means "none").
NOT_GIVEN = _Unset.NOT_GIVEN


@dataclass(frozen=True)
class HttpPolicy:
    """How long :class:`OpenAIChat` waits and how often it asks again.

    ``timeout`` bounds the wait for a reply (or for each streamed piece) and ``connect_timeout``
    the wait for a connection; a failed request (a status of :data:`RETRY_STATUSES`, or no
    connection) is sent again up to ``max_retries`` times, after ``backoff`` × 2^attempt seconds
    (or the server's Retry-After), never waiting more than ``max_wait``; ``sleep`` waits (tests
    replace it).
    """

    timeout: float = defaults.LLM_TIMEOUT_S
    connect_timeout: float = defaults.LLM_CONNECT_TIMEOUT_S
    max_retries: int = defaults.LLM_MAX_RETRIES
    backoff: float = defaults.LLM_BACKOFF_S
    max_wait: float = defaults.LLM_MAX_WAIT_S
    sleep: Callable[[float], None] = field(default=time.sleep, compare=False, repr=False)

    def __post_init__(self) -> None:
        for name in ("timeout", "connect_timeout"):
            value = getattr(self, name)
            if not (isinstance(value, int | float) and value > 0 and math.isfinite(value)):
                raise OptionError(name, value, "a number of seconds above 0")
        if not (isinstance(self.max_retries, int) and 0 <= self.max_retries <= MAX_RETRIES_LIMIT):
            raise OptionError(
                "max_retries",
                self.max_retries,
                f"an integer from 0 to {MAX_RETRIES_LIMIT}",
                "Use 0 to fail on the first error.",
            )
        for name in ("backoff", "max_wait"):
            value = getattr(self, name)
            if not (isinstance(value, int | float) and value >= 0 and math.isfinite(value)):
                raise OptionError(name, value, "a number of seconds, 0 or more")


class OpenAIChat:
    """Chat completions from an OpenAI-compatible server; a ``StreamingChatModel``.

    ``policy`` says how long it waits and how often it asks again (:class:`HttpPolicy`).
    ``extra_body`` adds server-specific request fields (``top_p``, ``repeat_penalty``, ...).
    ``client`` is an ``httpx.Client`` to share (it is then not closed here) or a transport to
    build one with (tests); ``env`` replaces ``os.environ``.
    """

    def __init__(
        self,
        *,
        model: str | None = None,
        base_url: str | None = None,
        api_key: str | Literal[_Unset.NOT_GIVEN] | None = NOT_GIVEN,
        policy: HttpPolicy | None = None,
        extra_body: Mapping[str, Any] | None = None,
        headers: Mapping[str, str] | None = None,
        client: httpx.Client | httpx.BaseTransport | None = None,
        env: Mapping[str, str] | None = None,
    ) -> None:
        environ = os.environ if env is None else env
        self.base_url = _base_url(base_url, environ)
        self.model_id = _model(model, environ, self.base_url)
        self._api_key, self._key_source = _api_key(api_key, environ)
        policy = HttpPolicy() if policy is None else policy
        if not isinstance(policy, HttpPolicy):
            raise OptionError("policy", policy, "an HttpPolicy", "Use HttpPolicy(timeout=...).")
        clash = sorted(set(extra_body or {}) & set(RESERVED_FIELDS))
        if clash:
            raise OptionError(
                "extra_body",
                dict(extra_body or {}),
                f"fields other than {', '.join(RESERVED_FIELDS)}",
                f"Set {', '.join(clash)} on the ChatRequest or the constructor.",
            )
        self.policy = policy
        self.timeout = float(policy.timeout)
        self.connect_timeout = float(policy.connect_timeout)
        self.max_retries = policy.max_retries
        self.backoff = float(policy.backoff)
        self.max_wait = float(policy.max_wait)
        self.extra_body: dict[str, Any] = dict(extra_body or {})
        self.headers: dict[str, str] = dict(headers or {})
        shared = client if isinstance(client, httpx.Client) else None
        self._client = shared
        self._owns_client = shared is None
        self._transport = client if isinstance(client, httpx.BaseTransport) else None
        self._sleep = policy.sleep
        self._lock = threading.Lock()

    def __repr__(self) -> str:  # never shows the API key
        key = "set" if self._api_key else "none"
        return f"OpenAIChat(model={self.model_id!r}, base_url={self.base_url!r}, api_key={key})"

    @property
    def url(self) -> str:
        """The chat completions endpoint."""
        return f"{self.base_url}/chat/completions"

    def load(self) -> OpenAIChat:
        """Open the HTTP client (no request is made); calling it again does nothing."""
        with self._lock:
            if self._client is None:
                self._client = httpx.Client(
                    timeout=httpx.Timeout(self.timeout, connect=self.connect_timeout),
                    transport=self._transport,
                )
        return self

    def close(self) -> None:
        """Close the HTTP client if this object opened it; ``load()`` opens a new one."""
        with self._lock:
            if self._owns_client and self._client is not None:
                self._client.close()
                self._client = None

    def __enter__(self) -> OpenAIChat:
        return self.load()

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        trace: TracebackType | None,
    ) -> None:
        self.close()

    def run(self, request: ChatRequest) -> ChatResponse:
        """One chat completion; raises a ``GenerationError`` subclass, never makes one up."""
        body = request_body(request, model=self.model_id, stream=False, extra=self.extra_body)
        response = self._send(body, stream=False)
        return parse_completion(response.text, url=self.url, model=self.model_id, request=request)

    def stream(self, request: ChatRequest) -> Generator[str, None, str]:
        """The reply's text deltas as the server sends them (server-sent events); returns the
        finish reason (``"length"`` when cut at ``max_tokens``, ``"unknown"`` if none came).

        A failed connection or an error status is retried like :meth:`run`; once the server has
        started streaming, a break raises :class:`ServerUnreachableError` saying how much had
        arrived (the deltas already yielded stay valid).
        """
        body = request_body(request, model=self.model_id, stream=True, extra=self.extra_body)
        response = self._send(body, stream=True)
        received = 0
        finish: str | None = None
        try:
            if response.headers.get("content-type", "").startswith("application/json"):
                # The server ignored "stream": true and sent the whole completion at once.
                response.read()
                whole = parse_completion(
                    response.text, url=self.url, model=self.model_id, request=request
                )
                yield whole.text
                return whole.finish_reason
            for payload in iter_sse_data(response.iter_lines()):
                if payload.strip() == "[DONE]":
                    break
                delta, reason = parse_stream_choice(
                    payload, url=self.url, status=response.status_code
                )
                finish = reason or finish
                if delta:
                    received += len(delta)
                    yield delta
        except httpx.TransportError as exc:
            raise ServerUnreachableError(
                self.url,
                f"the stream from {self.url} broke after {received} characters "
                f"({type(exc).__name__}: {exc}); {_timeout_hint(exc, self.timeout)}",
            ) from exc
        finally:
            response.close()
        return finish or "unknown"

    def list_models(self) -> tuple[str, ...]:
        """The model ids the server offers (``GET {base_url}/models``)."""
        client = self._http()
        url = f"{self.base_url}/models"
        try:
            response = client.get(url, headers=self._headers(stream=False))
        except httpx.TransportError as exc:
            raise self._unreachable(exc, attempts=1, url=url) from exc
        if not response.is_success:
            raise self._status_error(response, attempts=1)
        try:
            data = json.loads(response.text)
            return tuple(str(item["id"]) for item in data["data"])
        except (ValueError, KeyError, TypeError) as exc:
            raise MalformedReplyError(
                url,
                response.text,
                f"{url} did not answer with a model list: {quote(response.text)}",
            ) from exc

    # --- sending, with retries ----------------------------------------------------------------

    def _http(self) -> httpx.Client:
        client = self.load()._client
        if client is None:  # closed by another thread between load() and here
            raise ServerUnreachableError(self.url, "the client was closed; call load() again")
        return client

    def _headers(self, *, stream: bool) -> dict[str, str]:
        headers = {"Accept": "text/event-stream" if stream else "application/json"}
        if self._api_key:
            headers["Authorization"] = f"Bearer {self._api_key}"
        headers.update(self.headers)
        return headers

    def _send(self, body: dict[str, Any], *, stream: bool) -> httpx.Response:
        """A 2xx response (open when ``stream``, read otherwise), after at most max_retries."""
        client = self._http()
        attempt = 0
        while True:
            retry_after: float | None = None
            cause: Exception | None = None
            try:
                response = client.send(
                    client.build_request(
                        "POST", self.url, json=body, headers=self._headers(stream=stream)
                    ),
                    stream=True,
                )
                if not response.is_success or not stream:
                    try:
                        response.read()
                    finally:
                        response.close()
            except (
                httpx.ConnectError,
                httpx.ConnectTimeout,
                httpx.RemoteProtocolError,
                httpx.ReadError,
            ) as exc:
                cause = exc
                failure: Callable[[str], GenerationError] = functools.partial(
                    self._unreachable, exc, attempts=attempt + 1, url=self.url
                )
            except httpx.TransportError as exc:  # a read/write/pool timeout: do not insist
                raise ServerUnreachableError(
                    self.url,
                    f"{self.url} did not answer in time ({type(exc).__name__}); "
                    f"{_timeout_hint(exc, self.timeout)}",
                ) from exc
            else:
                if response.is_success:
                    return response
                failure = functools.partial(self._status_error, response, attempts=attempt + 1)
                if response.status_code not in RETRY_STATUSES:
                    raise failure("")
                retry_after = _retry_after(response.headers)
            if attempt >= self.max_retries:
                raise failure("") from cause
            delay = max(self.backoff * 2**attempt, retry_after or 0.0)
            if delay > self.max_wait:
                asked = "" if retry_after is None else f" (Retry-After: {retry_after:g} s)"
                raise failure(
                    f" Not retrying: the next wait would be {delay:g} s{asked}, "
                    f"more than max_wait={self.max_wait:g} s."
                ) from cause
            self._sleep(delay)
            attempt += 1

    def _unreachable(
        self, exc: Exception, note: str = "", *, attempts: int, url: str
    ) -> ServerUnreachableError:
        return ServerUnreachableError(
            url,
            f"cannot reach the chat server at {self.base_url} ({type(exc).__name__}: "
            f"{exc}; {_attempts(attempts)}). Is the server running there? {_START_HINT}.{note}",
        )

    def _status_error(
        self, response: httpx.Response, note: str = "", *, attempts: int
    ) -> ServerStatusError:
        status = response.status_code
        url = str(response.request.url)
        said = f"{url} answered {status} {response.reason_phrase}".rstrip()
        said += f" ({_attempts(attempts)}): {quote(response.text)}."
        if status in (401, 403):
            if self._api_key:
                fix = (
                    f"The API key from {self._key_source} was refused: check it, or set "
                    "OPENAI_API_KEY (or VERACITY_LLM_API_KEY) to a valid one."
                )
            else:
                fix = (
                    "The server wants an API key: set OPENAI_API_KEY (or "
                    "VERACITY_LLM_API_KEY); in Python, OpenAIChat(api_key=...) also takes one."
                )
        elif status == 404:
            fix = (
                f"Check the model name {self.model_id!r} (the server lists its models at "
                f"{self.base_url}/models) and that the base URL {self.base_url} is where the "
                "API starts (usually it ends in /v1)."
            )
        elif status in (400, 413, 422):
            fix = (
                "The server refused the request: the prompt may not fit the model's context "
                "window, or a sampling option is not supported; see its message above."
            )
        elif status in RETRY_STATUSES:
            fix = (
                "The server is overloaded or failing: try again later, or raise max_retries "
                "/ max_wait."
            )
        else:
            fix = "See the server's message above and its log."
        return ServerStatusError(url, status, response.text, f"{said} {fix}{note}")


# --- pure helpers: configuration, request, reply ------------------------------------------------


def _base_url(value: str | None, environ: Mapping[str, str]) -> str:
    source = "base_url"
    if value is None:
        for name in ("VERACITY_LLM_BASE_URL", "OPENAI_BASE_URL"):
            if environ.get(name):
                value, source = environ[name], f"${name}"
                break
        else:
            value, source = defaults.LLM_BASE_URL, "defaults.LLM_BASE_URL"
    if not isinstance(value, str) or not value.startswith(("http://", "https://")):
        raise OptionError(
            source,
            value,
            "an http:// or https:// URL",
            "For example http://127.0.0.1:8080/v1 (llama.cpp server) or "
            "http://127.0.0.1:11434/v1 (Ollama).",
        )
    return value.rstrip("/")


def _model(value: str | None, environ: Mapping[str, str], base_url: str) -> str:
    if value is None:
        value = environ.get("VERACITY_LLM_MODEL") or None
    if value is None or not isinstance(value, str) or not value.strip():
        raise OptionError(
            "model",
            value,
            "the name of a model the server offers",
            "Name it with --model NAME (Python: OpenAIChat(model=...)) or set "
            "VERACITY_LLM_MODEL; the server "
            f"lists its models at {base_url}/models.",
        )
    return value


def _api_key(
    value: str | Literal[_Unset.NOT_GIVEN] | None, environ: Mapping[str, str]
) -> tuple[str | None, str]:
    if value is not NOT_GIVEN:
        return value or None, "api_key="
    for name in ("VERACITY_LLM_API_KEY", "OPENAI_API_KEY"):
        if environ.get(name):
            return environ[name], f"${name}"
    return None, "nowhere"


def _attempts(attempts: int) -> str:
    return "1 attempt" if attempts == 1 else f"{attempts} attempts"


def _timeout_hint(exc: Exception, timeout: float) -> str:
    if isinstance(exc, httpx.TimeoutException):
        return (
            f"no reply within timeout={timeout:g} s: a slow model needs a larger "
            "timeout (Python: OpenAIChat(policy=HttpPolicy(timeout=...))) or a shorter reply"
        )
    return "check the server's log"


def _retry_after(headers: httpx.Headers) -> float | None:
    """Seconds the server asks to wait (``retry-after-ms``, or ``Retry-After`` in seconds or as
    an HTTP date), or ``None`` when it does not say or says something unreadable."""
    milliseconds = headers.get("retry-after-ms")
    if milliseconds is not None:
        try:
            return max(float(milliseconds) / 1000, 0.0)
        except ValueError:
            pass
    value = headers.get("retry-after")
    if value is None:
        return None
    try:
        return max(float(value), 0.0)
    except ValueError:
        pass
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    if when.tzinfo is None:
        when = when.replace(tzinfo=UTC)
    return max((when - datetime.now(UTC)).total_seconds(), 0.0)
