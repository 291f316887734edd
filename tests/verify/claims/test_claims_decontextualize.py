"""RuleDecontextualizer: clause-initial references replaced by the previous subject, when sure."""

from __future__ import annotations

import pytest

from veracity.types import Span
from veracity.verify.claims import Draft, RuleDecontextualizer

pytestmark = pytest.mark.unit

SOURCE = Span(0, 100)


def resolve(*texts: str, breaks: tuple[int, ...] = ()) -> list[str]:
    drafts = [Draft(i, text, Span(0, 5), SOURCE) for i, text in enumerate(texts)]
    return [d.text for d in RuleDecontextualizer().run(drafts, breaks=breaks)]


@pytest.mark.parametrize(
    ("texts", "expected"),
    [
        (
            ["Karl von Frisch studied bees.", "He won the Nobel Prize in 1973."],
            "Karl von Frisch won the Nobel Prize in 1973.",
        ),
        (
            ["Karl von Frisch studied bees.", "This researcher won the Nobel Prize."],
            "Karl von Frisch won the Nobel Prize.",
        ),
        (
            ["Karl von Frisch studied bees.", "His work is famous."],
            "Karl von Frisch's work is famous.",
        ),
        (
            ["Karl von Frisch studied bees.", "In 1973, he won the Nobel Prize."],
            "In 1973, Karl von Frisch won the Nobel Prize.",
        ),
        (
            ["Marie Curie worked in Paris.", "She won two Nobel Prizes."],
            "Marie Curie won two Nobel Prizes.",
        ),
        (
            ["Dr. Smith works at the U.S. Department of Energy.", "He studies bees."],
            "Dr. Smith studies bees.",
        ),
        (
            ["The Eiffel Tower is in Paris.", "It was finished in 1889."],
            "The Eiffel Tower was finished in 1889.",
        ),
        (
            ["The Eiffel Tower is in Paris.", "The tower is 330 m tall."],
            "The Eiffel Tower is 330 m tall.",
        ),
        (
            ["The Eiffel Tower is in Paris.", "Its height is 330 m."],
            "The Eiffel Tower's height is 330 m.",
        ),
        (["Paris is the capital of France.", "It's large."], "Paris is large."),
        (
            ["Honey bees live in colonies.", "They communicate by dancing."],
            "Honey bees communicate by dancing.",
        ),
        (["Honey bees produce honey.", "They also make wax."], "Honey bees also make wax."),
        (
            ["Honey bees live in colonies.", "Their dances show where food is."],
            "Honey bees' dances show where food is.",
        ),
        (
            ["Apple is a technology company.", "The company was founded in 1976."],
            "Apple was founded in 1976.",
        ),
        (
            ["Apple is a technology company.", "The company's revenue grew."],
            "Apple's revenue grew.",
        ),
        (
            ["Python is a programming language.", "The language was created by Guido van Rossum."],
            "Python was created by Guido van Rossum.",
        ),
        (
            [
                "A 2019 study by Smith found that bees sleep.",
                "The study also showed that they dream.",
            ],
            "The 2019 study by Smith also showed that they dream.",
        ),
    ],
)
def test_references_to_the_previous_subject_are_replaced(texts: list[str], expected: str) -> None:
    assert resolve(*texts) == [texts[0], expected]


@pytest.mark.parametrize(
    "texts",
    [
        ["Einstein met Bohr in 1920.", "He was impressed."],  # two people
        ["Marie Curie discovered polonium.", "It is radioactive."],  # "it" is no person
        ["Curie discovered polonium.", "It is radioactive."],  # object could be "it"
        ["Bees collect pollen grains.", "They store them."],  # object could be "they"
        ["The queen lays eggs.", "She mates once."],  # not a named person
        ["The queen lays eggs.", "They hatch."],  # number disagrees
        ["Karl von Frisch studied bees.", "It is a famous prize."],
        ["Bees dance.", "The company was founded in 1976."],  # no name to refer to
        ["Apple sells phones.", "This is remarkable."],  # "This" alone
        ["He studied bees.", "He won the Nobel Prize."],  # nothing to refer to
        ["Karl von Frisch studied bees.", "Bees like him."],  # object pronoun
    ],
)
def test_claims_are_left_alone_when_unsure(texts: list[str]) -> None:
    assert resolve(*texts) == texts


def test_a_chain_of_pronouns_follows_the_running_subject() -> None:
    assert resolve(
        "Karl von Frisch studied bees.", "He won the Nobel Prize.", "He died in 1982."
    ) == [
        "Karl von Frisch studied bees.",
        "Karl von Frisch won the Nobel Prize.",
        "Karl von Frisch died in 1982.",
    ]


def test_a_heading_between_claims_starts_afresh() -> None:
    texts = ("Karl von Frisch studied bees.", "He died in 1982.")
    assert resolve(*texts, breaks=(1,)) == list(texts)


def test_a_replacement_is_recorded_and_the_span_kept() -> None:
    drafts = [
        Draft(0, "Karl von Frisch was born in 1886.", Span(0, 32), Span(0, 53)),
        Draft(0, "He died in 1982.", Span(37, 53), Span(0, 53), True, ("decomposed",)),
    ]
    first, second = RuleDecontextualizer().run(drafts)
    assert first == drafts[0]
    assert second.text == "Karl von Frisch died in 1982."
    assert second.edits == ("decomposed", "decontextualized: 'He' -> 'Karl von Frisch'")
    # the span still slices the words the claim is made of; the edit is the only difference
    assert second.span == Span(37, 53)
    assert not second.verbatim
