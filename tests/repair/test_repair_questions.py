"""Research questions: several per claim, by rules or by the chat model, and their evidence."""

from __future__ import annotations

import pytest

from veracity.errors import GenerationError, OptionError
from veracity.repair.questions import QuestionMaker, parse_questions, rule_questions
from veracity.repair.research import Researcher
from veracity.testing import ScriptedChatModel
from veracity.types import Chunk, Claim, Span

pytestmark = pytest.mark.unit

COMPOUND = "The bridge opened in 1932, and it carried 20,000 cars a day."


def test_rule_questions_cover_each_clause_of_a_compound_claim_without_its_values() -> None:
    questions = rule_questions(COMPOUND)
    assert len(questions) == 3
    assert questions[1] == "The bridge opened in what year?"
    assert questions[2] == "It carried how many cars a day?"
    assert not any(value in q for q in questions for value in ("1932", "20,000"))


def test_a_simple_claim_gets_one_rule_question_and_the_limit_holds() -> None:
    assert rule_questions("Karl von Frisch won the Nobel Prize in 1973.") == (
        "Karl von Frisch won the Nobel Prize in what year?",
    )
    assert len(rule_questions(COMPOUND, limit=2)) == 2


@pytest.mark.parametrize(
    ("reply", "expected"),
    [
        ("When did it open?\nWho built it?", ("When did it open?", "Who built it?")),
        (
            "1. When did it open?\n2) Who built it?\n- When did it open?",
            ("When did it open?", "Who built it?"),
        ),
        ("Q: When did it open?\nThat is all.\nWho built it?", ("When did it open?",)),
        (
            "When did it open?\nWho built it?\nWhere is it?\nWhy?\nHow long is it?",
            ("When did it open?", "Who built it?", "Where is it?"),
        ),
    ],
)
def test_parse_questions_reads_question_lines_from_the_first(
    reply: str, expected: tuple[str, ...]
) -> None:
    assert parse_questions(reply) == expected


@pytest.mark.parametrize(
    "reply", ["", "The bridge opened in 1932.", "Questions:\nWhen did it open?"]
)
def test_parse_questions_refuses_a_reply_whose_first_line_is_no_question(reply: str) -> None:
    with pytest.raises(GenerationError, match="repair_questions_v1"):
        parse_questions(reply)


def test_the_chat_maker_falls_back_to_rules_and_says_why() -> None:
    chat = ScriptedChatModel(["Here you go.", "When did it open?"])
    made = QuestionMaker(chat).run([COMPOUND, "The bridge opened in 1932."])
    assert made[0].questions == rule_questions(COMPOUND)
    assert made[0].failure is not None
    assert "rule-based" in made[0].failure
    assert made[1].questions == ("When did it open?",)
    assert made[1].failure is None
    assert chat.requests[0].temperature == 0.0


def test_the_maker_refuses_a_limit_below_one() -> None:
    with pytest.raises(OptionError, match="questions"):
        QuestionMaker(limit=0)


def _chunk(i: int, text: str) -> Chunk:
    return Chunk(f"d#{i}", "d", i, text, 0, len(text))


def test_each_question_keeps_its_best_passage_within_k() -> None:
    sources = [
        _chunk(0, "The bridge opened to traffic in May 1932 after six years."),
        _chunk(1, "The bridge opened with a parade; the bridge opened at noon."),
        _chunk(2, "Each day the bridge carried about 18,000 cars across the bay."),
        _chunk(3, "Bees dance to show where food is."),
        _chunk(4, "Wasps sting."),
        _chunk(5, "Ants march."),
    ]
    claim = Claim(0, COMPOUND, Span(0, len(COMPOUND)), 0)
    found = Researcher(sources=sources, k=2).run([claim])
    (questions,) = found.questions
    assert len(questions) == 3
    assert found.chat_calls == 0
    (item,) = found.evidence.items
    assert len(item.passages) == 2  # at most k in all, however many questions
    best = found.best[0]
    assert {best[1], best[2]} <= {p.id for p in item.passages}
    assert found.evidence.searches == 3
    by_claim = Researcher(sources=sources, k=2, query="claim").run([claim])
    assert by_claim.questions == ((COMPOUND,),)
    assert by_claim.method == "claim"


def test_the_chat_model_writes_the_questions_once_per_claim() -> None:
    sources = [
        _chunk(i, text)
        for i, text in enumerate(["The bridge opened in May 1932.", "Bees dance.", "Wasps sting."])
    ]
    chat = ScriptedChatModel(["When did the bridge open?\nWhat opened in 1932?"])
    claim = Claim(0, "The bridge opened in 1931.", Span(0, 26), 0)
    found = Researcher(sources=sources, k=1, chat=chat).run([claim])
    assert found.questions == (("When did the bridge open?", "What opened in 1932?"),)
    assert found.chat_calls == 1
    assert found.method == "questions:repair_questions_v1@1"
    assert found.evidence.items[0].passages[0].id == "d#0"
