"""The OpenAI chat-completions wire format: the request body, a completion, and the SSE stream
of a streamed one, read strictly (a reply that is not a completion is a
:class:`~veracity.models.chat.errors.MalformedReplyError` quoting it, never an empty answer).

:class:`~veracity.models.chat.openai.OpenAIChat` sends and receives through these; they know
nothing of HTTP.

>>> body = request_body(ChatRequest.of("hi"), model="m", stream=False)
>>> body["model"], body["messages"]
('m', [{'role': 'user', 'content': 'hi'}])
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator, Mapping
from typing import Any

from veracity.models.chat.base import ChatRequest, ChatResponse
from veracity.models.chat.errors import MalformedReplyError, ServerStatusError, quote

__all__ = [
    "iter_sse_data",
    "parse_completion",
    "parse_stream_choice",
    "parse_stream_chunk",
    "request_body",
]


def request_body(
    request: ChatRequest, *, model: str, stream: bool, extra: Mapping[str, Any] | None = None
) -> dict[str, Any]:
    """The JSON body of a chat completions call; unset options are left out.

    >>> request_body(ChatRequest.of("Hi", seed=3, stop=["\\n"]), model="m", stream=False)
    ... # doctest: +NORMALIZE_WHITESPACE
    {'model': 'm', 'messages': [{'role': 'user', 'content': 'Hi'}], 'temperature': 0.0,
     'stream': False, 'seed': 3, 'stop': ['\\n']}
    """
    body: dict[str, Any] = {
        "model": model,
        "messages": [{"role": m.role, "content": m.content} for m in request.messages],
        "temperature": request.temperature,
        "stream": stream,
    }
    if request.max_tokens is not None:
        body["max_tokens"] = request.max_tokens
    if request.seed is not None:
        body["seed"] = request.seed
    if request.stop:
        body["stop"] = list(request.stop)
    body.update(extra or {})
    return body


def _load_json(body: str, url: str, what: str) -> Any:
    try:
        return json.loads(body)
    except ValueError as exc:
        raise MalformedReplyError(
            url,
            body,
            f"{url} replied with something that is not JSON, "
            f"so there is no {what} to read: {quote(body)}. Is "
            "this an OpenAI-compatible server?",
        ) from exc


def _int_or_none(value: object) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def parse_completion(body: str, *, url: str, model: str, request: ChatRequest) -> ChatResponse:
    """The :class:`ChatResponse` of a chat completion reply ``body``.

    Raises :class:`MalformedReplyError`, quoting ``body``, when it is not a chat completion
    with a text message; ``model`` is used when the reply does not name its model.

    >>> body = '{"model": "m", "choices": [{"message": {"content": "Hi"}}]}'
    >>> parse_completion(body, url="u", model="m", request=ChatRequest.of("Hi")).text
    'Hi'
    """
    data = _load_json(body, url, "chat completion")
    where = "choices[0].message.content"
    try:
        if isinstance(data, dict) and "error" in data and "choices" not in data:
            raise MalformedReplyError(
                url, body, f"{url} replied with an error instead of a completion: {quote(body)}"
            )
        choice = data["choices"][0]
        text = choice["message"]["content"]
    except (KeyError, IndexError, TypeError) as exc:
        raise MalformedReplyError(
            url,
            body,
            f"{url} replied without {where}: {quote(body)}. "
            "Is this an OpenAI-compatible chat completions endpoint?",
        ) from exc
    if not isinstance(text, str):
        raise MalformedReplyError(
            url, body, f"{url} replied with {where} = {text!r}, not text: {quote(body)}"
        )
    usage = data.get("usage") if isinstance(data.get("usage"), dict) else {}
    finish = choice.get("finish_reason")
    return ChatResponse(
        text=text,
        model=data["model"] if isinstance(data.get("model"), str) else model,
        finish_reason=finish if isinstance(finish, str) and finish else "unknown",
        prompt_tokens=_int_or_none(usage.get("prompt_tokens")),
        completion_tokens=_int_or_none(usage.get("completion_tokens")),
        temperature=request.temperature,
        seed=request.seed,
    )


def iter_sse_data(lines: Iterable[str]) -> Iterator[str]:
    """The ``data`` of each server-sent event in ``lines`` (multi-line data joined by ``\\n``).

    >>> list(iter_sse_data(["data: a", "", ": comment", "data: b", "data: c", ""]))
    ['a', 'b\\nc']
    """
    data: list[str] = []
    for raw in lines:
        line = raw.rstrip("\r\n")
        if not line:
            if data:
                yield "\n".join(data)
                data = []
            continue
        if line.startswith(":"):
            continue
        field, _, value = line.partition(":")
        if field == "data":
            data.append(value[1:] if value.startswith(" ") else value)
    if data:
        yield "\n".join(data)


def parse_stream_chunk(payload: str, *, url: str, status: int = 200) -> str:
    """The text delta of one streamed chat completion chunk (``""`` when it carries none).

    >>> parse_stream_chunk('{"choices": [{"delta": {"content": "Hi"}}]}', url="u")
    'Hi'
    """
    return parse_stream_choice(payload, url=url, status=status)[0]


def parse_stream_choice(payload: str, *, url: str, status: int = 200) -> tuple[str, str | None]:
    """The text delta of one streamed chat completion chunk (``""`` when it carries none) and
    its finish reason (``None`` until the last chunk, which says why the reply ended).

    >>> parse_stream_choice('{"choices": [{"delta": {}, "finish_reason": "length"}]}', url="u")
    ('', 'length')
    """
    data = _load_json(payload, url, "stream chunk")
    if not isinstance(data, dict):
        raise MalformedReplyError(
            url, payload, f"{url} streamed a chunk that is not a JSON object: {quote(payload)}"
        )
    if "error" in data:
        raise ServerStatusError(
            url,
            status,
            payload,
            f"{url} reported an error in the middle of the stream: {quote(payload)}",
        )
    choices = data.get("choices")
    if not choices:  # e.g. a final usage-only chunk
        return "", None
    try:
        delta = choices[0].get("delta") or {}
        content = delta.get("content")
        finish = choices[0].get("finish_reason")
    except (AttributeError, IndexError, TypeError) as exc:
        raise MalformedReplyError(
            url, payload, f"{url} streamed a chunk without choices[0].delta: {quote(payload)}"
        ) from exc
    reason = finish if isinstance(finish, str) and finish else None
    if content is None:
        return "", reason
    if not isinstance(content, str):
        raise MalformedReplyError(
            url, payload, f"{url} streamed delta content {content!r}, not text: {quote(payload)}"
        )
    return content, reason
