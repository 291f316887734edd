"""The LLM decomposer and decontextualizer: strict reply parsers, requests, failures."""

from __future__ import annotations

import json

import pytest

from veracity.errors import GenerationError, OptionError
from veracity.testing import ScriptedChatModel
from veracity.verify.claims import (
    LLMDecomposer,
    LLMDecontextualizer,
    parse_decomposition,
    parse_decontextualization,
)

pytestmark = pytest.mark.unit


def decomposition(*pairs: tuple[object, object]) -> str:
    return json.dumps({"claims": [{"sentence": s, "text": t} for s, t in pairs]})


# --- parse_decomposition ----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("reply", "expected"),
    [
        (
            decomposition((1, "Bees dance."), (1, "Bees sing."), (2, "Wasps sting.")),
            ((0, "Bees dance."), (0, "Bees sing."), (1, "Wasps sting.")),
        ),
        # sentences in any order come back by sentence; whitespace inside a claim is tidied
        (
            decomposition((2, "Wasps  sting."), (1, " Bees dance. ")),
            ((0, "Bees dance."), (1, "Wasps sting.")),
        ),
        (
            "```json\n" + decomposition((1, "Bees dance."), (2, "Wasps sting.")) + "\n```",
            ((0, "Bees dance."), (1, "Wasps sting.")),
        ),
    ],
)
def test_decompositions_that_are_read(reply: str, expected: tuple[tuple[int, str], ...]) -> None:
    assert parse_decomposition(reply, sentences=2) == expected


@pytest.mark.parametrize(
    ("reply", "reason"),
    [
        ("", "it is empty"),
        ("Here are the claims: Bees dance.", "not valid JSON"),
        ('["Bees dance.", "Wasps sting."]', 'one key "claims"'),
        ('{"claims": [], "note": "x"}', 'one key "claims"'),
        ('{"claims": []}', "not a non-empty list"),
        ('{"claims": [{"sentence": 1, "text": "A."}], "claims": []}', "repeats the key"),
        ('{"claims": ["Bees dance.", "Wasps sting."]}', "exactly the keys sentence and text"),
        (decomposition((1, "Bees dance."), (3, "Wasps sting.")), "names sentence 3"),
        (decomposition((1, "Bees dance."), (0, "Wasps sting.")), "names sentence 0"),
        (decomposition((1, "Bees dance."), (True, "Wasps sting.")), "names sentence True"),
        (decomposition((1, "Bees dance."), ("2", "Wasps sting.")), "names sentence '2'"),
        (decomposition((1, "Bees dance."), (2, "  ")), "not a sentence"),
        (decomposition((1, "Bees dance."), (2, None)), "not a sentence"),
        (decomposition((1, "Bees dance.")), "no claim for sentence(s) 2"),
    ],
)
def test_unreadable_decompositions_raise_and_quote_the_reply(reply: str, reason: str) -> None:
    with pytest.raises(GenerationError, match="cannot read claims from the reply") as caught:
        parse_decomposition(reply, sentences=2)
    assert reason in str(caught.value)
    assert repr(reply[:20])[:-1] in str(caught.value)


def test_a_long_unreadable_reply_is_quoted_by_its_start() -> None:
    reply = "x" * 500
    with pytest.raises(GenerationError) as caught:
        parse_decomposition(reply, sentences=1)
    assert "x" * 200 + "..." in str(caught.value)
    assert "x" * 201 not in str(caught.value)


# --- parse_decontextualization ----------------------------------------------------------------


def test_decontextualizations_are_read_in_order() -> None:
    reply = '{"claims": ["Karl von Frisch died in 1982.", "Bees dance."]}'
    assert parse_decontextualization(reply, claims=2) == (
        "Karl von Frisch died in 1982.",
        "Bees dance.",
    )


@pytest.mark.parametrize(
    ("reply", "reason"),
    [
        ('{"claims": ["Karl von Frisch died in 1982."]}', "it has 1 claims for the 2 given"),
        ('{"claims": ["A.", "B.", "C."]}', "it has 3 claims for the 2 given"),
        ('{"claims": ["A.", 7]}', "claim 2 is 7"),
        ('{"claims": ["A.", ""]}', "claim 2 is ''"),
        ('{"claim": ["A.", "B."]}', 'one key "claims"'),
        ("1. A.\n2. B.", "not valid JSON"),
    ],
)
def test_unreadable_decontextualizations_raise(reply: str, reason: str) -> None:
    with pytest.raises(GenerationError, match="cannot read claims") as caught:
        parse_decontextualization(reply, claims=2)
    assert reason in str(caught.value)


# --- the steps --------------------------------------------------------------------------------


def test_the_decomposer_sends_numbered_sentences_with_its_sampling() -> None:
    chat = ScriptedChatModel([decomposition((1, "Bees dance."), (2, "Wasps sting."))])
    step = LLMDecomposer(chat, temperature=0.5, seed=7, reply_tokens=300)
    assert step.run(["Bees dance.", "Wasps sting."]) == ((0, "Bees dance."), (1, "Wasps sting."))
    (request,) = chat.requests
    assert (request.temperature, request.seed, request.max_tokens) == (0.5, 7, 300)
    assert request.messages[0].role == "system"
    assert "atomic" in request.messages[0].content
    assert "1. Bees dance.\n2. Wasps sting." in request.messages[-1].content


def test_the_decontextualizer_shows_the_answer_and_the_count() -> None:
    chat = ScriptedChatModel(['{"claims": ["Karl von Frisch died in 1982."]}'])
    step = LLMDecontextualizer(chat)
    answer = "Karl von Frisch studied bees. He died in 1982."
    assert step.run(answer, ["He died in 1982."]) == ("Karl von Frisch died in 1982.",)
    user = chat.requests[0].messages[-1].content
    assert answer in user
    assert "1. He died in 1982." in user
    assert "exactly 1 claims" in user
    assert (chat.requests[0].temperature, chat.requests[0].seed) == (0.0, 0)


def test_nothing_to_do_makes_no_request() -> None:
    chat = ScriptedChatModel([])
    assert LLMDecomposer(chat).run([]) == ()
    assert LLMDecontextualizer(chat).run("Bees dance.", []) == ()
    assert chat.requests == []


def test_a_failure_names_the_model_and_the_prompt() -> None:
    chat = ScriptedChatModel(["not json"], model_id="tiny-chat")
    with pytest.raises(GenerationError, match=r"tiny-chat, prompt decompose_v1@1: cannot read"):
        LLMDecomposer(chat).run(["Bees dance."])
    failing = ScriptedChatModel([GenerationError("server said 500")], model_id="tiny-chat")
    with pytest.raises(GenerationError, match=r"decontextualize_v1@1: server said 500"):
        LLMDecontextualizer(failing).run("Bees dance.", ["Bees dance."])


@pytest.mark.parametrize(
    ("options", "name"),
    [
        ({"temperature": 3.0}, "temperature"),
        ({"reply_tokens": 0}, "reply_tokens"),
    ],
)
def test_bad_options_are_refused_at_construction(options: dict[str, float], name: str) -> None:
    with pytest.raises(OptionError, match=name):
        LLMDecomposer(ScriptedChatModel([]), **options)  # type: ignore[arg-type]


def test_a_non_chat_model_and_a_prompt_with_other_fields_are_refused() -> None:
    with pytest.raises(OptionError, match="ChatModel"):
        LLMDecomposer("gpt")  # type: ignore[arg-type]
    step = LLMDecomposer(ScriptedChatModel([]), prompt="judge_v1")  # no I/O yet
    with pytest.raises(OptionError, match=r"fields sentences.*'premise', 'claim'"):
        step.load()
    with pytest.raises(OptionError, match="decompose_v1"):
        LLMDecomposer(ScriptedChatModel([]), prompt="decompose_v9").load()
