"""RuleDecomposer: compound sentences split into atomic claims; everything unsure left whole."""

from __future__ import annotations

import pytest

from veracity.verify.claims import Part, RuleDecomposer

pytestmark = pytest.mark.unit


def parts(sentence: str) -> list[str]:
    return [part.text for part in RuleDecomposer().run(sentence)]


@pytest.mark.parametrize(
    ("sentence", "expected"),
    [
        # independent clauses
        ("Bees dance; wasps sting.", ["Bees dance.", "wasps sting."]),
        ("The sun is hot, but the moon is cold.", ["The sun is hot.", "the moon is cold."]),
        (
            "Honey bees live in colonies, while bumblebees live alone.",
            ["Honey bees live in colonies.", "bumblebees live alone."],
        ),
        (
            "Karl von Frisch was born in 1886 and he died in 1982.",
            ["Karl von Frisch was born in 1886.", "he died in 1982."],
        ),
        (
            "The U.S. has 50 states and the capital is Washington.",
            ["The U.S. has 50 states.", "the capital is Washington."],
        ),
        (
            "The value is 3.5 m and the weight is 2 kg.",
            ["The value is 3.5 m.", "the weight is 2 kg."],
        ),
        # predicates sharing a subject
        ("Bees dance and sing.", ["Bees dance.", "Bees sing."]),
        (
            "Karl von Frisch studied bees and won the Nobel Prize in 1973.",
            ["Karl von Frisch studied bees.", "Karl von Frisch won the Nobel Prize in 1973."],
        ),
        (
            "Karl von Frisch was born in 1886 and died in 1982.",
            ["Karl von Frisch was born in 1886.", "Karl von Frisch died in 1982."],
        ),
        (
            "Paris is large and has 2 million people.",
            ["Paris is large.", "Paris has 2 million people."],
        ),
        ("Bees live in hives and can sting.", ["Bees live in hives.", "Bees can sting."]),
        (
            "Karl von Frisch, an Austrian ethologist, won the Nobel Prize and studied bees.",
            [
                "Karl von Frisch, an Austrian ethologist, won the Nobel Prize.",
                "Karl von Frisch studied bees.",
            ],
        ),
        (
            "The Eiffel Tower (completed in 1889) is 330 m tall and attracts millions of visitors.",
            [
                "The Eiffel Tower (completed in 1889) is 330 m tall.",
                "The Eiffel Tower attracts millions of visitors.",
            ],
        ),
    ],
)
def test_compound_sentences_split(sentence: str, expected: list[str]) -> None:
    # every part keeps its words' case as written (the extractor records any recasing)
    assert parts(sentence) == expected


@pytest.mark.parametrize(
    "sentence",
    [
        "Bees, wasps and ants are insects.",  # a list of noun phrases
        "He visited France, Spain, and the United States.",
        "Bees collect nectar, pollen, and water.",
        "Marie Curie discovered polonium and radium.",
        "He studied bees and related insects.",  # "related" is no verb here
        "Studies show that bees dance and sing.",  # inside a that-clause
        "If it rains, the match is cancelled and fans go home.",  # opens with a subordinator
        "Bees do not hibernate and die in winter.",  # negation scope unclear
        "Bees can fly and sting.",  # the modal would be lost
        "The tower was built in 1887 and opened in 1889.",  # "was ... opened"?
        "He likes cats and dogs.",
        "Between 1900 and 1910 the hive grew.",
        "Bees dance (and sing) in spring.",  # inside parentheses
    ],
)
def test_sentences_the_rules_are_unsure_of_stay_whole(sentence: str) -> None:
    assert parts(sentence) == [sentence]


def test_parts_say_whether_they_are_verbatim_and_what_was_done() -> None:
    first, second = RuleDecomposer().run("Bees dance and sing.")
    assert first == Part("Bees dance.", True, ("decomposed",))
    assert second == Part("Bees sing.", False, ("decomposed", "subject copied: 'Bees'"))


def test_a_whole_sentence_becomes_one_finished_claim() -> None:
    assert RuleDecomposer().run("bees can fly 10 km!") == (Part("bees can fly 10 km."),)
    assert RuleDecomposer().run("   ") == ()


def test_the_decomposer_is_pure() -> None:
    decomposer = RuleDecomposer().load()
    sentence = "Bees dance; wasps sting."
    assert decomposer.run(sentence) == decomposer.run(sentence)


@pytest.mark.parametrize(
    "sentence",
    [
        # issue 43: a list of subjects or objects is one claim, not "Python communities."
        "PyYAML is maintained by the YAML and Python communities.",
        "Packages are built by Debian and Ubuntu developers.",
        # LFQA dev: "the amount deposited, meaning ..." was cut off as a clause of its own
        "The interest earned depends on the interest rate and the amount deposited, meaning "
        "banks earn more from larger deposits.",
    ],
)
def test_a_list_of_noun_phrases_joined_by_and_stays_one_claim(sentence: str) -> None:
    assert parts(sentence) == [sentence]


def test_a_second_clause_with_a_known_verb_is_still_cut() -> None:
    assert parts("PyYAML is maintained by the YAML team and Python supports it.") == [
        "PyYAML is maintained by the YAML team.",
        "Python supports it.",
    ]
