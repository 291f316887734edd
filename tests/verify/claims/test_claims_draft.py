"""locate: a part's words found in the answer across markers and emphasis; Draft.rewritten."""

from __future__ import annotations

import pytest

from veracity.types import Span
from veracity.verify.claims import Draft
from veracity.verify.claims.draft import locate

pytestmark = pytest.mark.unit


@pytest.mark.parametrize(
    ("part", "answer", "expected"),
    [
        ("they sing", "Bees dance [1], and they sing.", "they sing"),
        ("Bees dance.", "- Bees **dance** [1], and they sing.", "Bees **dance**"),
        ("He died in 1982.", "X was born in 1886 and he died [2] in 1982.", "he died [2] in 1982"),
        ("The value is 3.5 m.", "The value is 3.5 m and the weight is 2 kg.", "The value is 3.5 m"),
    ],
)
def test_parts_are_found_across_markers_emphasis_and_case(
    part: str, answer: str, expected: str
) -> None:
    span = locate(part, answer, Span(0, len(answer)))
    assert span is not None
    assert span.of(answer) == expected


def test_search_stays_inside_the_sentence_and_after_the_cursor() -> None:
    answer = "Bees dance. Bees dance and bees dance."
    sentence = Span(12, len(answer))
    first = locate("bees dance", answer, sentence)
    assert first == Span(12, 22)
    second = locate("bees dance", answer, sentence, after=first.end if first else None)
    assert second == Span(27, 37)
    assert locate("wasps", answer, sentence) is None
    assert locate("...", answer, sentence) is None
    assert locate("bees danc", answer, sentence) is None  # whole words only


def test_rewriting_a_draft_widens_its_span_to_the_sentence() -> None:
    draft = Draft(2, "He died.", Span(30, 37), Span(10, 40), True, ("decomposed",))
    rewritten = draft.rewritten("Karl died.", "decontextualized: 'He' -> 'Karl'")
    assert rewritten == Draft(
        2,
        "Karl died.",
        Span(10, 40),
        Span(10, 40),
        False,
        ("decomposed", "decontextualized: 'He' -> 'Karl'"),
    )
    assert draft.text == "He died."  # the original is unchanged


def test_emphasis_cut_by_a_part_is_kept_balanced() -> None:
    answer = "**Bees** dance and sing."
    span = locate("Bees dance", answer, Span(0, len(answer)))
    assert span is not None
    assert span.of(answer) == "**Bees** dance"
