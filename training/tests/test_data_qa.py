"""QA-derived pairs: answer swap, sentence removal, other paragraph, counterfactual answers."""

from __future__ import annotations

import random
from collections import Counter

import pytest

from veracity_training.data.qa import (
    QAItem,
    answer_type,
    build_qa,
    remove_answer_sentence,
    swap_answer,
)
from veracity_training.data.qa_rules import rewrite

pytestmark = pytest.mark.unit

PARAGRAPH = (
    "The Broncos defeated the Carolina Panthers in Super Bowl 50 in 2016. "
    "The game was played at Levi's Stadium in Santa Clara. "
    "Peyton Manning retired after the season, in March 2016. "
    "The Broncos had last won the title in 1998."
)


@pytest.mark.parametrize(
    ("answer", "kind"),
    [
        ("1998", "year"),
        ("7 February 2016", "date"),
        ("24", "number"),
        ("3 titles", "number"),
        ("Peyton Manning", "name"),
        ("the best team in the league", None),
    ],
)
def test_answer_type(answer: str, kind: str | None) -> None:
    assert answer_type(answer) == kind


def test_swap_answer_uses_a_same_type_span_of_the_paragraph() -> None:
    statement = rewrite("When did the Broncos last win the title?", "1998")
    assert statement is not None
    swapped = swap_answer(statement, PARAGRAPH, "When did the Broncos last win?", random.Random(0))
    assert swapped is not None
    assert swapped.text == "The Broncos last won the title in 2016."


def test_swap_answer_for_names_uses_answers_to_sibling_questions() -> None:
    statement = rewrite("Who retired after the season?", "Peyton Manning")
    assert statement is not None
    question = "Who retired after the season?"
    # No typed candidate: a person is not swapped for any capitalised name of the passage.
    assert swap_answer(statement, PARAGRAPH, question, random.Random(1)) is None
    siblings = frozenset({"Peyton Manning", "Carolina Panthers", "John Elway"})
    swapped = swap_answer(
        statement, PARAGRAPH, question, random.Random(1), sibling_answers=siblings
    )
    assert swapped is not None
    assert swapped.text == "Carolina Panthers retired after the season."  # Elway: not in passage


def test_swap_answer_by_keyword_class_and_never_for_where_questions() -> None:
    paragraph = "The game was held at Levi's Stadium. The team trained at Rose Bowl Stadium."
    statement = rewrite("Which venue held the game?", "Levi's Stadium")
    assert statement is not None
    swapped = swap_answer(statement, paragraph, "Which venue held the game?", random.Random(0))
    assert swapped is not None
    assert swapped.answer == "Rose Bowl Stadium"
    where = rewrite("Where was the game played?", "Santa Clara")
    assert where is not None
    assert swap_answer(where, PARAGRAPH, "Where was the game played?", random.Random(0)) is None


def test_remove_answer_sentence_only_when_the_answer_is_in_one_sentence() -> None:
    rest = remove_answer_sentence(PARAGRAPH, "Peyton Manning")
    assert rest is not None
    assert "Manning" not in rest
    assert "Levi's Stadium" in rest
    assert remove_answer_sentence(PARAGRAPH, "2016") is None  # in two sentences
    assert remove_answer_sentence(PARAGRAPH, "Denver") is None  # in none


def test_remove_answer_sentence_refuses_when_a_word_of_the_answer_survives() -> None:
    paragraph = (
        "Carolina Panthers lost the game. The Panthers were founded in Charlotte long ago. "
        "Fans in the city were sad for weeks."
    )
    assert remove_answer_sentence(paragraph, "Carolina Panthers") is None


def _items() -> list[QAItem]:
    other = "The stadium opened in 2014 and seats about 68,500 people in the Bay Area."
    paragraphs = (PARAGRAPH, other)
    return [
        QAItem("q1", "Who retired after the season?", "Peyton Manning", paragraphs, 0, "a:1"),
        QAItem("q2", "When did the Broncos last win the title?", "1998", paragraphs, 0, "a:1"),
    ]


def test_build_qa_makes_every_kind_with_the_right_label() -> None:
    quotas = {
        "qa_statement": 5,
        "qa_answer_swap": 5,
        "qa_sentence_removed": 5,
        "qa_other_paragraph": 5,
    }
    rows = build_qa(_items(), source="squad_bigbench", quotas=quotas, seed=1, stats=Counter())
    labels = {r.kind: r.label for r in rows}
    assert labels == {
        "qa_statement": "supported",
        "qa_answer_swap": "contradicted",
        "qa_sentence_removed": "neither",
        "qa_other_paragraph": "neither",
    }
    for row in rows:
        if row.kind == "qa_sentence_removed":
            answer = "Peyton Manning" if "Manning" in row.hypothesis else "1998"
            assert answer not in row.premise
        if row.kind == "qa_statement":
            assert row.premise.startswith(PARAGRAPH[:40])


def test_build_qa_counterfactual_judges_by_the_document() -> None:
    context = "Candace has an obvious crush on Griselda Blanco, but she is shy."
    item = QAItem(
        "c1",
        "who does candace have a crush on?",
        "Griselda Blanco",
        (context,),
        0,
        "cpkc:c1",
        real_answer="Jeremy Johnson",
    )
    quotas = {"qa_counterfactual": 1, "qa_real_world_answer": 1}
    rows = build_qa([item], source="cpkc", quotas=quotas, seed=0, stats=Counter())
    by_kind = {r.kind: r for r in rows}
    assert by_kind["qa_counterfactual"].label == "supported"
    assert "Griselda Blanco" in by_kind["qa_counterfactual"].hypothesis
    assert by_kind["qa_real_world_answer"].label == "contradicted"
    assert "Jeremy Johnson" in by_kind["qa_real_world_answer"].hypothesis
