import pytest

from veracity.errors import GenerationError, OptionError
from veracity.testing import ScriptedChatModel
from veracity.verify.questions import QueryMaker, parse_question, rule_question

pytestmark = pytest.mark.unit


@pytest.mark.parametrize(
    ("claim", "question"),
    [
        (
            "Karl von Frisch won the Nobel Prize in 1973.",
            "Karl von Frisch won the Nobel Prize in what year?",
        ),
        ("A colony has 60,000 bees.", "A colony has how many bees?"),
        (
            "The treaty was signed on 20 Sept 2022 in Paris.",
            "The treaty was signed on what date in Paris?",
        ),
        ("The hive sold $5 million of honey.", "The hive sold how much of honey?"),
        ("About 45% of workers forage.", "What share of workers forage?"),
        ("Since 1990 the club has had 40 members.", "The club has had members since what year?"),
        ("It closed in May 2020.", "It closed in what month?"),
        (
            "Under the Apache License, each Contributor grants 2 licenses.",
            "Under the Apache License, each Contributor grants how many licenses?",
        ),
        (
            "The bees dance to show where food is.",
            "Is it true that the bees dance to show where food is?",
        ),
    ],
)
def test_rule_questions_ask_for_the_asserted_value_where_it_stood(
    claim: str, question: str
) -> None:
    assert rule_question(claim) == question
    assert not any(ch.isdigit() for ch in question)


def test_rule_question_never_returns_an_empty_query() -> None:
    assert rule_question("1973.") == "1973."


def test_parse_question_reads_the_first_question_line() -> None:
    assert parse_question('Question: "When did he win?"\nextra') == "When did he win?"
    assert parse_question("- Where do bees live?") == "Where do bees live?"
    with pytest.raises(GenerationError, match="question_v1"):
        parse_question("Bees live in hives.")
    with pytest.raises(GenerationError):
        parse_question("   ")


def test_query_maker_modes() -> None:
    claims = ["Bees were domesticated in 2400 BC."]
    assert QueryMaker("claim").run(claims) == tuple(claims)
    assert QueryMaker("question").run(claims)[0] == "Bees were domesticated in what year?"
    chat = ScriptedChatModel(["When were bees domesticated?"])
    maker = QueryMaker("question", chat=chat)
    assert maker.run(claims) == ("When were bees domesticated?",)
    assert maker.method == "question:question_v1@1"
    assert QueryMaker("question").method == "question:rules"
    with pytest.raises(OptionError, match="claim, question"):
        QueryMaker("keywords")  # type: ignore[arg-type]


def test_a_number_that_counts_nothing_is_not_asked_as_how_many() -> None:
    # a version is no count, and an era year is a year: they read as questions
    assert rule_question("httplib2 supports HTTP 1.1 Keep-Alive.") == (
        "Is it true that httplib2 supports HTTP 1.1 Keep-Alive?"
    )
    assert rule_question("Rome was founded in 753 BCE.") == "Rome was founded in what year?"
    assert rule_question("Wings beat 230 times per second.") == (
        "Wings beat how many times per second?"
    )
