"""The chat protocol types and the scripted fake that tests use in place of a real model."""

from __future__ import annotations

import dataclasses

import pytest

from veracity.errors import GenerationError, InputError, OptionError
from veracity.models.chat import ROLES, ChatModel, ChatRequest, ChatResponse, Message
from veracity.testing import ScriptedChatModel, ScriptExhaustedError

pytestmark = pytest.mark.unit


def test_message_rejects_an_unknown_role_and_lists_the_roles() -> None:
    with pytest.raises(OptionError, match="'tool'") as error:
        Message("tool", "hi")  # type: ignore[arg-type]
    for role in ROLES:
        assert role in str(error.value)


def test_request_is_frozen_and_stores_tuples() -> None:
    request = ChatRequest([Message("user", "hi")], stop=["\n"])  # type: ignore[arg-type]
    assert request.messages == (Message("user", "hi"),)
    assert request.stop == ("\n",)
    assert request.temperature == 0.0
    assert request.seed is None
    with pytest.raises(dataclasses.FrozenInstanceError):
        request.temperature = 1.0  # type: ignore[misc]


def test_request_of_puts_the_system_message_first() -> None:
    request = ChatRequest.of("question", system="rules", temperature=0.7, max_tokens=5, seed=3)
    assert [m.role for m in request.messages] == ["system", "user"]
    assert (request.temperature, request.max_tokens, request.seed) == (0.7, 5, 3)
    assert [m.role for m in ChatRequest.of("question").messages] == ["user"]


@pytest.mark.parametrize(
    ("options", "needle"),
    [
        ({"messages": ()}, "at least one Message"),
        ({"messages": ("hi",)}, "Message items"),
        ({"temperature": -0.1}, "temperature=-0.1"),
        ({"temperature": 2.5}, "between 0 and 2"),
        ({"max_tokens": 0}, "max_tokens=0"),
        ({"stop": "\n"}, "not one string"),
    ],
)
def test_request_validates(options: dict[str, object], needle: str) -> None:
    arguments: dict[str, object] = {"messages": (Message("user", "hi"),), **options}
    with pytest.raises(OptionError, match=needle):
        ChatRequest(**arguments)  # type: ignore[arg-type]


def test_scripted_model_replies_in_order_and_records_requests() -> None:
    chat = ScriptedChatModel(["one", "two"], model_id="fake")
    assert isinstance(chat, ChatModel)
    first = chat.run(ChatRequest.of("a", temperature=0.2, seed=7))
    second = chat.run(ChatRequest.of("b"))
    assert (first.text, second.text) == ("one", "two")
    assert first == ChatResponse(
        "one", "fake", "stop", prompt_tokens=1, completion_tokens=1, temperature=0.2, seed=7
    )
    assert [r.messages[-1].content for r in chat.requests] == ["a", "b"]
    assert chat.remaining == 0


def test_scripted_model_raises_exception_items_and_records_the_request() -> None:
    chat = ScriptedChatModel([GenerationError("server said 500"), "after"])
    with pytest.raises(GenerationError, match="500"):
        chat.run(ChatRequest.of("a"))
    assert chat.run(ChatRequest.of("b")).text == "after"
    assert len(chat.requests) == 2


def test_scripted_model_says_when_it_runs_out() -> None:
    chat = ScriptedChatModel(["only"])
    chat.run(ChatRequest.of("a"))
    with pytest.raises(ScriptExhaustedError, match=r"given 1 replies but got request 2.*'b'"):
        chat.run(ChatRequest.of("b"))
    assert len(chat.requests) == 1


def test_scripted_model_rejects_a_bare_string() -> None:
    with pytest.raises(InputError, match=r"ScriptedChatModel\(\['SUPPORTED'\]\)"):
        ScriptedChatModel("SUPPORTED")
