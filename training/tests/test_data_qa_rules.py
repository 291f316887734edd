"""Question + answer -> claim rewriting rules."""

from __future__ import annotations

import pytest

from veracity_training.data.qa_answers import answer_ok, recase
from veracity_training.data.qa_rules import fallback, rewrite

pytestmark = pytest.mark.unit


@pytest.mark.parametrize(
    ("question", "answer", "claim"),
    [
        ("Who wrote Hamlet?", "Shakespeare", "Shakespeare wrote Hamlet."),
        ("When did the Normans conquer England?", "1066", "The Normans conquered England in 1066."),
        ("What is the capital of France?", "Paris", "The capital of France is Paris."),
        (
            "How many Super Bowls did the Broncos win?",
            "three",
            "The Broncos won three Super Bowls.",
        ),
        ("How many people live in Paris?", "2 million", "2 million people live in Paris."),
        ("Where is the Eiffel Tower located?", "Paris", "The Eiffel Tower is located in Paris."),
        ("When was the Eiffel Tower built?", "1889", "The Eiffel Tower was built in 1889."),
        (
            "Who did Henry VIII marry in 1509?",
            "Catherine of Aragon",
            "Henry VIII married Catherine of Aragon in 1509.",
        ),
        ("What team did Mattingly play for?", "the Yankees", "Mattingly played for the Yankees."),
        (
            "Which NFL team represented the AFC at Super Bowl 50?",
            "Denver Broncos",
            "Denver Broncos represented the AFC at Super Bowl 50.",
        ),
        (
            "What percentage of the population is Catholic?",
            "20%",
            "20% of the population is Catholic.",
        ),
        (
            "In which country is the Taj Mahal located?",
            "India",
            "The Taj Mahal is located in India.",
        ),
        ("What colour is the mat?", "light blue", "The mat is light blue."),
        ("How old was Mozart when he died?", "35", "Mozart was 35 years old when he died."),
        (
            "The Oberoi family has a head office in what city?",
            "Delhi",
            "The Oberoi family has a head office in Delhi.",
        ),
        (
            "Which magazine was started first, Arthur's Magazine or First for Women?",
            "Arthur's Magazine",
            "Arthur's Magazine was started first.",
        ),
        (
            "Why was the Column of Constantine built?",
            "to mark the new Roman capital",
            "The Column of Constantine was built to mark the new Roman capital.",
        ),
        ("When did the Taliban rise?", "1990s", "The Taliban rose in the 1990s."),
        (
            "When was the union formed?",
            "31 May 1910",
            "The union was formed on 31 May 1910.",
        ),
    ],
)
def test_rewrite_rules(question: str, answer: str, claim: str) -> None:
    statement = rewrite(question, answer)
    assert statement is not None
    assert statement.text == claim
    assert statement.answer.lower().startswith(answer.lower()[:3])


def test_answer_slot_allows_a_swap() -> None:
    statement = rewrite("When did the Normans conquer England?", "1066")
    assert statement is not None
    assert statement.with_answer("1067").text == "The Normans conquered England in 1067."


def test_answer_at_start_is_capitalised_when_swapped() -> None:
    statement = rewrite("What caused the fire?", "an electrical fault")
    assert statement is not None
    assert statement.text == "An electrical fault caused the fire."
    assert statement.with_answer("arson").text == "Arson caused the fire."


@pytest.mark.parametrize(
    ("question", "answer"),
    [
        ("When was the bridge opened?", "the mayor"),  # not a time
        ("How many people came?", "a lot of people"),  # no number
        ("Where did it fall?", "fell in the mud"),  # a verb phrase, not a place
        ("Why did he leave?", "he was tired"),  # a clause without "because"
        ("What did the Normans do after the conquest?", "built castles"),
        ("Is there a firm rule?", "no"),  # yes/no question
        ("Who was not elected?", "Smith"),  # negated question
    ],
)
def test_rewrite_refuses_what_it_cannot_state(question: str, answer: str) -> None:
    assert rewrite(question, answer) is None


def test_answer_ok_rejects_clauses() -> None:
    assert answer_ok("Who won?", "Smith")
    assert not answer_ok("When could you try it?", "we need to wait at least a year")
    assert not answer_ok("What was said?", "the costs of tickets is absurd and high")


def test_recase_takes_capitals_from_the_passage() -> None:
    passage = "Buffy the Vampire Slayer is a 1992 film. Kristy Swanson played Buffy in Los Angeles."
    assert recase("who played buffy the vampire slayer", passage) == (
        "who played Buffy the Vampire Slayer"
    )
    assert recase("Who played Buffy?", passage) == "Who played Buffy?"  # already cased


def test_fallback_is_clearly_worded() -> None:
    statement = fallback("how does the brotherhood decide?", "by vote")
    assert statement.text == 'The answer to "How does the brotherhood decide?" is by vote.'
    assert statement.answer == "by vote"
