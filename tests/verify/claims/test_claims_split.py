"""split_answer: sentences with markers and skip reasons; abbreviations and code repaired."""

from __future__ import annotations

import pytest

from veracity.types import Span
from veracity.verify.claims import split_answer

pytestmark = pytest.mark.unit


def texts(answer: str) -> list[str]:
    return [sentence.text for sentence in split_answer(answer)]


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        (
            "Dr. Smith works at the U.S. Department of Energy. He studies bees.",
            ["Dr. Smith works at the U.S. Department of Energy.", "He studies bees."],
        ),
        (
            "He studies insects, e.g. honey bees, and wasps. The value is 3.5 m.",
            ["He studies insects, e.g. honey bees, and wasps.", "The value is 3.5 m."],
        ),
        (
            "Prof. Jones et al. studied it in the U.K. in 1990. It was cited 40 times.",
            ["Prof. Jones et al. studied it in the U.K. in 1990.", "It was cited 40 times."],
        ),
        (
            "Bees make wax, honey, etc. They also sting.",
            ["Bees make wax, honey, etc.", "They also sting."],
        ),
        (
            "The hive weighs approx. 40 kg. It holds i.e. one colony.",
            ["The hive weighs approx. 40 kg.", "It holds i.e. one colony."],
        ),
    ],
)
def test_abbreviations_and_decimals_do_not_end_a_sentence(answer: str, expected: list[str]) -> None:
    assert texts(answer) == expected


def test_a_new_paragraph_is_never_joined_to_an_abbreviation() -> None:
    answer = "Bees make wax, honey, etc.\n\nthe rest is unknown."
    assert texts(answer) == ["Bees make wax, honey, etc.", "the rest is unknown."]


def test_markers_stay_with_their_sentence_as_valid_numbers() -> None:
    answer = "Bees dance [1]. They sing [2, 3]. They fly [4-6]. Ants march ［7］. Wasps [0] sting."
    sentences = split_answer(answer)
    assert [s.markers for s in sentences] == [(1,), (2, 3), (4, 5, 6), (7,), ()]
    assert [s.text for s in sentences][:2] == ["Bees dance.", "They sing."]
    assert sentences[0].span.of(answer) == "Bees dance [1]."


def test_list_answers_lose_their_bullets_but_keep_spans() -> None:
    answer = "Key facts:\n\n1. Bees dance [1].\n2. Bees sing.\n- Ants march."
    sentences = split_answer(answer)
    assert [(s.text, s.skip) for s in sentences] == [
        ("Key facts:", "meta"),
        ("Bees dance.", None),
        ("Bees sing.", None),
        ("Ants march.", None),
    ]
    assert [s.span.of(answer) for s in sentences[1:]] == [
        "1. Bees dance [1].",
        "2. Bees sing.",
        "- Ants march.",
    ]


def test_code_glued_to_text_is_cut_out_as_one_skipped_sentence() -> None:
    code = "```python\nx = 1. y = 2\n```"
    answer = f"Run this:\n{code}\nKarl von Frisch studied bees [3]."
    sentences = split_answer(answer)
    assert [(s.text, s.skip) for s in sentences] == [
        ("Run this:", "meta"),
        ("```python x = 1. y = 2 ```", "code"),
        ("Karl von Frisch studied bees.", None),
    ]
    assert sentences[1].span.of(answer) == code
    assert sentences[2].span.of(answer) == "Karl von Frisch studied bees [3]."
    assert sentences[2].markers == (3,)
    assert [s.index for s in sentences] == [0, 1, 2]


def test_headings_greetings_and_questions_are_skipped_with_reasons() -> None:
    answer = (
        "Hello!\n\n# Bees\n\n**Summary**\n\nBees dance. Do they sing? I think this is fascinating."
    )
    assert [(s.text, s.skip) for s in split_answer(answer)] == [
        ("Hello!", "greeting"),
        ("Bees", "heading"),
        ("Summary", "heading"),
        ("Bees dance.", None),
        ("Do they sing?", "question"),
        ("I think this is fascinating.", "opinion"),
    ]


def test_spans_index_the_answer() -> None:
    answer = "  Bees dance [1].\n\n  They fly.  "
    spans = [s.span for s in split_answer(answer)]
    assert spans == [Span(2, 17), Span(21, 30)]
    assert [span.of(answer) for span in spans] == ["Bees dance [1].", "They fly."]
