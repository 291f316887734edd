"""The OpenAI-compatible HTTP backend, against httpx.MockTransport (never the network)."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator

import httpx
import pytest

from veracity.errors import GenerationError, OptionError
from veracity.models.chat import (
    NOT_GIVEN,
    ChatRequest,
    MalformedReplyError,
    OpenAIChat,
    ServerStatusError,
    ServerUnreachableError,
    StreamingChatModel,
)
from veracity.models.chat.base import Streamed
from veracity.models.chat.openai import HttpPolicy
from veracity.models.chat.wire import iter_sse_data, parse_stream_chunk, request_body

pytestmark = pytest.mark.unit

#: The options of HttpPolicy that the helpers below take as keywords.
POLICY = ("timeout", "connect_timeout", "max_retries", "backoff", "max_wait")

BASE = "http://127.0.0.1:8080/v1"
Handler = Callable[[httpx.Request], httpx.Response]


def completion(
    text: str, *, model: str = "served-model", finish: str = "stop"
) -> dict[str, object]:
    return {
        "id": "chatcmpl-1",
        "object": "chat.completion",
        "model": model,
        "choices": [
            {"index": 0, "message": {"role": "assistant", "content": text}, "finish_reason": finish}
        ],
        "usage": {"prompt_tokens": 11, "completion_tokens": 3, "total_tokens": 14},
    }


class Recorder:
    """A MockTransport handler that replays ``replies`` in order and records requests."""

    def __init__(self, replies: list[httpx.Response | Exception]) -> None:
        self.replies = replies
        self.requests: list[httpx.Request] = []

    def __call__(self, request: httpx.Request) -> httpx.Response:
        self.requests.append(request)
        reply = self.replies[len(self.requests) - 1]
        if isinstance(reply, Exception):
            raise reply
        return reply

    def bodies(self) -> list[dict[str, object]]:
        return [json.loads(r.content) for r in self.requests]


def make_chat(handler: Handler, sleeps: list[float] | None = None, **options: object) -> OpenAIChat:
    waits = [] if sleeps is None else sleeps
    settings: dict[str, object] = {"model": "m", "base_url": BASE, "api_key": None, "env": {}}
    timing = {name: options.pop(name) for name in POLICY if name in options}
    settings.update(options)
    policy = HttpPolicy(sleep=waits.append, **timing)  # type: ignore[arg-type]
    return OpenAIChat(client=httpx.MockTransport(handler), policy=policy, **settings)  # type: ignore[arg-type]


def test_success_returns_the_reply_with_usage_and_provenance() -> None:
    recorder = Recorder([httpx.Response(200, json=completion("Bees dance [1]."))])
    chat = make_chat(recorder)
    response = chat.run(ChatRequest.of("Do bees dance?", temperature=0.3, seed=7))
    assert response.text == "Bees dance [1]."
    assert response.model == "served-model"
    assert (response.finish_reason, response.prompt_tokens, response.completion_tokens) == (
        "stop",
        11,
        3,
    )
    assert (response.temperature, response.seed) == (0.3, 7)
    assert str(recorder.requests[0].url) == f"{BASE}/chat/completions"
    assert isinstance(chat, StreamingChatModel)


def test_seed_temperature_max_tokens_stop_and_extra_body_are_in_the_request_body() -> None:
    recorder = Recorder([httpx.Response(200, json=completion("ok"))] * 2)
    chat = make_chat(recorder, extra_body={"top_p": 0.5})
    chat.run(
        ChatRequest.of("q", system="rules", temperature=0.7, max_tokens=12, seed=42, stop=["\n\n"])
    )
    chat.run(ChatRequest.of("q"))
    full, bare = recorder.bodies()
    assert full == {
        "model": "m",
        "messages": [{"role": "system", "content": "rules"}, {"role": "user", "content": "q"}],
        "temperature": 0.7,
        "max_tokens": 12,
        "seed": 42,
        "stop": ["\n\n"],
        "stream": False,
        "top_p": 0.5,
    }
    assert "seed" not in bare
    assert "max_tokens" not in bare
    assert "stop" not in bare
    assert bare["temperature"] == 0.0


def test_retries_with_exponential_backoff_then_succeeds() -> None:
    recorder = Recorder(
        [
            httpx.Response(503, text="loading model"),
            httpx.ConnectError("connection refused"),
            httpx.Response(500, text="oops"),
            httpx.Response(200, json=completion("fine")),
        ]
    )
    sleeps: list[float] = []
    chat = make_chat(recorder, sleeps, max_retries=3, backoff=0.5)
    assert chat.run(ChatRequest.of("q")).text == "fine"
    assert sleeps == [0.5, 1.0, 2.0]
    assert len(recorder.requests) == 4


def test_retry_after_is_honoured_when_longer_than_the_backoff() -> None:
    recorder = Recorder(
        [
            httpx.Response(429, headers={"Retry-After": "3"}, text="slow down"),
            httpx.Response(429, headers={"retry-after-ms": "10"}, text="slow down"),
            httpx.Response(200, json=completion("ok")),
        ]
    )
    sleeps: list[float] = []
    make_chat(recorder, sleeps, backoff=0.5).run(ChatRequest.of("q"))
    assert sleeps == [3.0, 1.0]


def test_a_wait_longer_than_max_wait_is_not_made() -> None:
    recorder = Recorder([httpx.Response(429, headers={"Retry-After": "3600"}, text="quota")])
    sleeps: list[float] = []
    with pytest.raises(ServerStatusError, match=r"3600 s.*max_wait=30") as error:
        make_chat(recorder, sleeps).run(ChatRequest.of("q"))
    assert sleeps == []
    assert error.value.status == 429


def test_retries_exhausted_names_the_status_the_attempts_and_the_body() -> None:
    recorder = Recorder([httpx.Response(502, text="bad gateway from proxy")] * 3)
    sleeps: list[float] = []
    with pytest.raises(ServerStatusError) as error:
        make_chat(recorder, sleeps, max_retries=2).run(ChatRequest.of("q"))
    message = str(error.value)
    assert "502" in message
    assert "3 attempts" in message
    assert "bad gateway from proxy" in message
    assert f"{BASE}/chat/completions" in message
    assert error.value.status == 502
    assert error.value.body == "bad gateway from proxy"
    assert len(recorder.requests) == 3
    assert len(sleeps) == 2


def test_unreachable_server_says_where_and_how_to_start_one() -> None:
    recorder = Recorder([httpx.ConnectError("[Errno 111] Connection refused")] * 2)
    with pytest.raises(ServerUnreachableError) as error:
        make_chat(recorder, max_retries=1).run(ChatRequest.of("q"))
    message = str(error.value)
    assert BASE in message
    assert "Connection refused" in message
    assert "2 attempts" in message
    assert "python -m llama_cpp.server" in message
    assert isinstance(error.value, GenerationError)


def test_a_read_timeout_is_not_retried_and_suggests_a_larger_timeout() -> None:
    recorder = Recorder([httpx.ReadTimeout("timed out")])
    with pytest.raises(ServerUnreachableError, match=r"timeout=120"):
        make_chat(recorder).run(ChatRequest.of("q"))
    assert len(recorder.requests) == 1


def test_401_without_a_key_says_to_set_openai_api_key_and_is_not_retried() -> None:
    recorder = Recorder([httpx.Response(401, json={"error": {"message": "no key"}})])
    with pytest.raises(ServerStatusError, match="set OPENAI_API_KEY") as error:
        make_chat(recorder).run(ChatRequest.of("q"))
    assert error.value.status == 401
    assert len(recorder.requests) == 1


def test_401_with_a_key_names_where_the_key_came_from() -> None:
    recorder = Recorder([httpx.Response(401, text="invalid key")])
    chat = make_chat(recorder, api_key=NOT_GIVEN, env={"OPENAI_API_KEY": "sk-bad"})
    with pytest.raises(ServerStatusError, match=r"\$OPENAI_API_KEY was refused"):
        chat.run(ChatRequest.of("q"))
    assert recorder.requests[0].headers["Authorization"] == "Bearer sk-bad"


def test_404_points_at_the_model_list() -> None:
    recorder = Recorder([httpx.Response(404, text="model 'nope' not found")])
    with pytest.raises(ServerStatusError, match=rf"'nope'.*{BASE}/models"):
        make_chat(recorder, model="nope").run(ChatRequest.of("q"))


@pytest.mark.parametrize(
    "body",
    [
        "<html>502 Bad Gateway</html>",
        '{"choices": []}',
        '{"choices": [{"message": {"role": "assistant"}}]}',
        '{"choices": [{"message": {"content": null}}]}',
        '{"error": {"message": "context length exceeded"}}',
        '"just a string"',
    ],
)
def test_a_malformed_reply_raises_and_quotes_it(body: str) -> None:
    recorder = Recorder([httpx.Response(200, text=body)])
    with pytest.raises(MalformedReplyError) as error:
        make_chat(recorder).run(ChatRequest.of("q"))
    assert error.value.body == body
    assert repr(body)[1:40] in str(error.value)


def test_a_long_malformed_reply_is_quoted_in_part_with_its_length() -> None:
    body = "x" * 5000
    with pytest.raises(MalformedReplyError, match="5000 characters in all"):
        make_chat(Recorder([httpx.Response(200, text=body)])).run(ChatRequest.of("q"))


def sse(*payloads: str) -> bytes:
    return "".join(f"data: {p}\n\n" for p in payloads).encode()


def chunk(content: str | None, **delta: object) -> str:
    if content is not None:
        delta["content"] = content
    return json.dumps({"choices": [{"index": 0, "delta": delta, "finish_reason": None}]})


def test_streaming_yields_the_text_deltas_in_order() -> None:
    body = sse(
        chunk(None, role="assistant"),
        chunk("Bees "),
        chunk("dance"),
        chunk(" [1]."),
        json.dumps({"choices": [], "usage": {"completion_tokens": 3}}),
        "[DONE]",
    )
    recorder = Recorder(
        [httpx.Response(200, content=body, headers={"content-type": "text/event-stream"})]
    )
    chat = make_chat(recorder)
    deltas = list(chat.stream(ChatRequest.of("q", seed=1)))
    assert deltas == ["Bees ", "dance", " [1]."]
    sent = recorder.bodies()[0]
    assert sent["stream"] is True
    assert sent["seed"] == 1
    assert recorder.requests[0].headers["Accept"] == "text/event-stream"


def test_streaming_retries_before_the_first_delta() -> None:
    recorder = Recorder(
        [
            httpx.Response(503, text="busy"),
            httpx.Response(
                200,
                content=sse(chunk("ok"), "[DONE]"),
                headers={"content-type": "text/event-stream"},
            ),
        ]
    )
    sleeps: list[float] = []
    assert list(make_chat(recorder, sleeps).stream(ChatRequest.of("q"))) == ["ok"]
    assert sleeps == [0.5]


def test_a_stream_that_breaks_says_how_much_arrived() -> None:
    class Broken(httpx.SyncByteStream):
        def __iter__(self) -> Iterator[bytes]:
            yield sse(chunk("Bees "))
            raise httpx.ReadError("connection reset")

    recorder = Recorder(
        [httpx.Response(200, stream=Broken(), headers={"content-type": "text/event-stream"})]
    )
    stream = make_chat(recorder).stream(ChatRequest.of("q"))
    assert next(stream) == "Bees "
    with pytest.raises(ServerUnreachableError, match="broke after 5 characters"):
        next(stream)


def test_a_server_that_ignores_stream_true_still_streams_its_whole_reply() -> None:
    recorder = Recorder([httpx.Response(200, json=completion("whole reply"))])
    assert list(make_chat(recorder).stream(ChatRequest.of("q"))) == ["whole reply"]


def test_a_stream_returns_its_finish_reason() -> None:
    # Harden-2 #15: a stream cut at max_tokens said nothing of it
    cut = json.dumps({"choices": [{"index": 0, "delta": {}, "finish_reason": "length"}]})
    body = sse(chunk("Bees "), chunk("dance"), cut, "[DONE]")
    recorder = Recorder(
        [
            httpx.Response(200, content=body, headers={"content-type": "text/event-stream"}),
            httpx.Response(
                200,
                content=sse(chunk("ok"), "[DONE]"),
                headers={"content-type": "text/event-stream"},
            ),
            httpx.Response(200, json=completion("whole", finish="length")),
        ]
    )
    chat = make_chat(recorder)
    streams = [Streamed(chat.stream(ChatRequest.of("q"))) for _ in range(3)]
    assert [("".join(s), s.finish_reason) for s in streams] == [
        ("Bees dance", "length"),
        ("ok", "unknown"),
        ("whole", "length"),
    ]


def test_an_error_event_in_the_stream_raises() -> None:
    body = sse(chunk("par"), json.dumps({"error": {"message": "out of memory"}}))
    recorder = Recorder(
        [httpx.Response(200, content=body, headers={"content-type": "text/event-stream"})]
    )
    stream = make_chat(recorder).stream(ChatRequest.of("q"))
    assert next(stream) == "par"
    with pytest.raises(ServerStatusError, match="out of memory"):
        next(stream)


def test_a_malformed_stream_chunk_raises_and_quotes_it() -> None:
    recorder = Recorder(
        [
            httpx.Response(
                200, content=sse("{not json"), headers={"content-type": "text/event-stream"}
            )
        ]
    )
    with pytest.raises(MalformedReplyError, match=r"\{not json"):
        list(make_chat(recorder).stream(ChatRequest.of("q")))


def test_sse_parser_joins_multiline_data_and_skips_comments_and_other_fields() -> None:
    lines = [
        ": keep-alive",
        "event: message",
        "data: one",
        "",
        "data:two",
        "data: three",
        "id: 4",
        "",
        "",
        "data: last",
    ]
    assert list(iter_sse_data(lines)) == ["one", "two\nthree", "last"]


def test_stream_chunk_without_content_is_empty() -> None:
    assert parse_stream_chunk(chunk(None, role="assistant"), url="u") == ""
    assert parse_stream_chunk('{"choices": []}', url="u") == ""


def test_settings_come_from_arguments_then_veracity_then_openai_variables() -> None:
    env = {
        "VERACITY_LLM_BASE_URL": "http://v:1/v1/",
        "OPENAI_BASE_URL": "http://o:2/v1",
        "VERACITY_LLM_MODEL": "env-model",
        "OPENAI_API_KEY": "sk-o",
        "VERACITY_LLM_API_KEY": "sk-v",
    }
    chat = OpenAIChat(env=env)
    assert (chat.base_url, chat.model_id) == ("http://v:1/v1", "env-model")
    assert chat._headers(stream=False)["Authorization"] == "Bearer sk-v"
    explicit = OpenAIChat(model="arg", base_url="http://a:3/v1", api_key="sk-a", env=env)
    assert (explicit.base_url, explicit.model_id) == ("http://a:3/v1", "arg")
    assert explicit._headers(stream=False)["Authorization"] == "Bearer sk-a"
    assert "Authorization" not in OpenAIChat(api_key=None, env=env)._headers(stream=False)
    openai_only = OpenAIChat(
        model="m", env={"OPENAI_BASE_URL": "https://o:2/v1", "OPENAI_API_KEY": "sk-o"}
    )
    assert openai_only.base_url == "https://o:2/v1"
    assert openai_only._headers(stream=False)["Authorization"] == "Bearer sk-o"
    assert OpenAIChat(model="m", env={}).base_url == "http://127.0.0.1:8080/v1"


@pytest.mark.parametrize(
    ("options", "needle"),
    [
        ({"env": {}}, "VERACITY_LLM_MODEL"),
        ({"model": "m", "base_url": "127.0.0.1:8080"}, "http:// or https://"),
        ({"model": "m", "env": {"OPENAI_BASE_URL": "ftp://x"}}, r"\$OPENAI_BASE_URL"),
        ({"model": "m", "timeout": 0}, "timeout=0"),
        ({"model": "m", "max_retries": 11}, "0 to 10"),
        ({"model": "m", "backoff": -1}, "backoff=-1"),
        ({"model": "m", "extra_body": {"seed": 1}}, "ChatRequest"),
    ],
)
def test_invalid_options_name_the_value_and_the_fix(
    options: dict[str, object], needle: str
) -> None:
    settings: dict[str, object] = {"env": {}}
    timing = {name: options.pop(name) for name in POLICY if name in options}
    settings.update(options)
    with pytest.raises(OptionError, match=needle):
        OpenAIChat(policy=HttpPolicy(**timing), **settings)  # type: ignore[arg-type]


def test_a_shared_client_is_used_and_left_open_and_a_bad_policy_is_refused() -> None:
    recorder = Recorder([httpx.Response(200, json=completion("ok"))])
    with httpx.Client(transport=httpx.MockTransport(recorder)) as client:
        chat = OpenAIChat(model="m", base_url=BASE, api_key=None, client=client, env={})
        assert chat.run(ChatRequest.of("q")).text == "ok"
        chat.close()
        assert not client.is_closed
    with pytest.raises(OptionError, match="policy="):
        OpenAIChat(model="m", policy={"timeout": 1}, env={})  # type: ignore[arg-type]


def test_init_and_load_make_no_request_and_load_is_idempotent() -> None:
    recorder = Recorder([])
    chat = make_chat(recorder)
    assert chat.load() is chat
    assert chat.load() is chat
    assert recorder.requests == []
    chat.close()


def test_an_injected_client_is_used_and_not_closed() -> None:
    recorder = Recorder([httpx.Response(200, json=completion("shared"))])
    client = httpx.Client(transport=httpx.MockTransport(recorder))
    with OpenAIChat(model="m", base_url=BASE, client=client, env={}) as chat:
        assert chat.run(ChatRequest.of("q")).text == "shared"
    assert not client.is_closed
    client.close()


def test_list_models_reads_the_model_ids() -> None:
    recorder = Recorder([httpx.Response(200, json={"data": [{"id": "a"}, {"id": "b"}]})])
    assert make_chat(recorder).list_models() == ("a", "b")
    assert str(recorder.requests[0].url) == f"{BASE}/models"


def test_request_body_leaves_out_unset_options() -> None:
    body = request_body(ChatRequest.of("hi"), model="m", stream=True)
    assert body == {
        "model": "m",
        "messages": [{"role": "user", "content": "hi"}],
        "temperature": 0.0,
        "stream": True,
    }


def test_repr_never_shows_the_api_key() -> None:
    chat = OpenAIChat(model="m", api_key="sk-secret", env={})
    assert "sk-secret" not in repr(chat)
    assert "api_key=set" in repr(chat)


def test_retry_after_as_an_http_date_and_unreadable_values() -> None:
    from veracity.models.chat.openai import _retry_after

    assert _retry_after(httpx.Headers({"Retry-After": "Wed, 21 Oct 2015 07:28:00 GMT"})) == 0.0
    assert _retry_after(httpx.Headers({"Retry-After": "soon"})) is None
    assert _retry_after(httpx.Headers({"Retry-After": "-5"})) == 0.0
    assert _retry_after(httpx.Headers({})) is None
