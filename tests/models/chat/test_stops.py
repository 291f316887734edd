"""The stop rules of a local model's reply (veracity.models.chat.stops)."""

from __future__ import annotations

import pytest

from veracity.models.chat.base import ChatRequest
from veracity.models.chat.stops import prompt_echoes, reply_cut

pytestmark = pytest.mark.unit


@pytest.mark.parametrize(
    ("reply", "kept", "reason"),
    [
        (
            "Paris is the capital [1]. Paris is the capital [2]. Paris is the capital.",
            "Paris is the capital [1].",
            "repeated sentence",
        ),
        ("It has 12 parts. It HAS 12 parts!", "It has 12 parts.", "repeated sentence"),
        ("The version is 1.1.1.1.1.1.1.1.1.1", "The version is", "repeated characters"),
        # SmolLM2's own loops on ClapNQ dev (bench/ask_local.py, no penalty, no stop rules):
        (
            "1. [1] (List of Dragon Ball Super episodes)\n"
            "2. [2] (List of Dragon Ball Super episodes)\n"
            "3. [3] (List of",
            "1. [1] (List of Dragon Ball Super episodes)",
            "repeated sentence",
        ),
        (
            "[1] Owen Hunt\n[2] Shonda Black\n[3] Grey's\n[4] Grey's\n[5] Grey's",
            "[1] Owen Hunt\n[2] Shonda Black\n[3] Grey's",
            "repeated sentence",
        ),
        ("Bees dance.\n\nContext blocks:\n[1] Bees", "Bees dance.", "echoed the prompt"),
    ],
)
def test_a_reply_is_cut_where_it_stops_saying_something_new(
    reply: str, kept: str, reason: str
) -> None:
    cut = reply_cut(reply, echoes=("Context blocks:",))
    assert cut is not None
    assert (reply[: cut.end], cut.reason) == (kept, reason)


@pytest.mark.parametrize(
    "reply",
    [
        "Bees dance [1]. Wasps build nests [2].",
        "The road ran on......... and on.",  # a run without a letter or digit is punctuation
        "About 1000000 bees, or 1,000,000, live there.",  # a number's zeros are not a loop
        "1. Bees dance [1].\n2. Wasps build nests [2].",  # a list of different items
        "Bees:\n1. They dance.\nWasps:\n1. They build nests.",  # two lists, both from 1
        "Context blocks: what the reply starts with is kept, since nothing precedes it.",
    ],
)
def test_new_text_is_left_alone(reply: str) -> None:
    assert reply_cut(reply, echoes=("Context blocks:",)) is None


def test_echoes_come_from_the_instructions_not_the_passages() -> None:
    request = ChatRequest.of(
        "Context blocks:\n\n[1] (Bees) Honeybees dance to tell nestmates where food is.\n"
        "They dance on the comb in the dark.\n\nQuestion: why do bees dance?\n\n"
        "Answer using only the context blocks above.",
        system="You answer questions using only the numbered blocks.",
    )
    echoes = prompt_echoes(request)
    assert "You answer questions usi" in echoes
    assert "Context blocks:" in echoes
    assert "Answer using only the co" in echoes
    assert not any(echo.startswith(("[1]", "They dance")) for echo in echoes)
    quoted = "Honeybees dance to tell nestmates where food is [1].\nThey dance on the comb."
    assert reply_cut(quoted, echoes=echoes) is None
