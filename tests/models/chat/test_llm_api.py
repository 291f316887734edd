"""The public API of veracity.models.chat, and the scripted fake's streaming."""

from __future__ import annotations

import pytest

import veracity.models.chat
from veracity.errors import GenerationError, InputError
from veracity.models.chat import ChatModel, ChatRequest, StreamingChatModel
from veracity.testing import ScriptedChatModel, ScriptExhaustedError

pytestmark = pytest.mark.unit


def test_public_api_is_pinned() -> None:
    assert sorted(veracity.models.chat.__all__) == sorted(
        [
            "CHAT_BACKENDS",
            "NOT_GIVEN",
            "ROLES",
            "ChatModel",
            "ChatRequest",
            "ChatResponse",
            "Decoding",
            "HttpPolicy",
            "LlamaCppChat",
            "MalformedReplyError",
            "Message",
            "OpenAIChat",
            "Role",
            "ServerStatusError",
            "ServerUnreachableError",
            "StreamingChatModel",
            "bundled_gguf",
            "make_chat",
        ]
    )
    for name in veracity.models.chat.__all__:
        assert hasattr(veracity.models.chat, name), name


def test_backend_errors_are_generation_errors() -> None:
    for error in (
        veracity.models.chat.MalformedReplyError,
        veracity.models.chat.ServerStatusError,
        veracity.models.chat.ServerUnreachableError,
    ):
        assert issubclass(error, GenerationError)


def test_every_backend_is_a_streaming_chat_model() -> None:
    backends: list[object] = [
        veracity.models.chat.OpenAIChat(model="m", env={}),
        veracity.models.chat.LlamaCppChat(),
        ScriptedChatModel([]),
    ]
    for backend in backends:
        assert isinstance(backend, ChatModel)
        assert isinstance(backend, StreamingChatModel)


def test_scripted_stream_uses_the_next_reply_in_pieces() -> None:
    chat = ScriptedChatModel(["Bees dance [1].", "second"], chunk_size=5)
    request = ChatRequest.of("q")
    assert list(chat.stream(request)) == ["Bees ", "dance", " [1]."]
    assert chat.requests == [request]
    assert chat.run(request).text == "second"
    with pytest.raises(ScriptExhaustedError):
        list(chat.stream(request))


def test_scripted_stream_raises_a_scripted_error() -> None:
    chat = ScriptedChatModel([GenerationError("server down")])
    with pytest.raises(GenerationError, match="server down"):
        list(chat.stream(ChatRequest.of("q")))
    with pytest.raises(InputError, match="chunk_size"):
        ScriptedChatModel([], chunk_size=0)
