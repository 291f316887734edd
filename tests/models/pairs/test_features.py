"""Exact signals: content words, numbers, capitalised names."""

from __future__ import annotations

import pytest

from veracity.models.pairs.features import (
    Agreement,
    content_word_agreement,
    entity_coverage,
    lexical_coverage,
    number_agreement,
)
from veracity.text.numbers import numbers
from veracity.text.words import capitalised_entities, content_words, stem, word_tokens

pytestmark = pytest.mark.unit


def test_word_tokens_lowercase_and_keep_inner_apostrophes() -> None:
    assert word_tokens("Don’t panic: it's 42_000 km!") == [
        "don't",
        "panic",
        "it's",
        "42",
        "000",
        "km",
    ]


@pytest.mark.parametrize(
    ("word", "expected"),
    [
        ("studies", "study"),
        ("opened", "open"),
        ("opening", "open"),
        ("opens", "open"),
        ("boxes", "box"),
        ("churches", "church"),
        ("cars", "car"),
        ("glass", "glass"),
        ("virus", "virus"),
        ("analysis", "analysis"),
        ("bus", "bus"),
        ("red", "red"),
        ("king", "king"),
        ("france's", "france"),
    ],
)
def test_stem(word: str, expected: str) -> None:
    assert stem(word) == expected


def test_content_words_drop_stopwords_and_stem() -> None:
    assert content_words("The cats were sleeping on the mats in 2019.") == [
        "cat",
        "sleep",
        "mat",
        "2019",
    ]


def test_lexical_coverage_counts_distinct_claim_words() -> None:
    premise = "The Eiffel Tower opened in 1889."
    # claim words: eiffel, tower, open, paris -> 3 of 4 found; repeats count once
    assert lexical_coverage(premise, "The Eiffel tower opens in Paris, Paris.") == 0.75
    detail = content_word_agreement(premise, "The Eiffel tower opens in Paris, Paris.")
    assert detail == Agreement(("eiffel", "tower", "open"), ("paris",))


def test_lexical_coverage_without_content_words_is_one() -> None:
    assert lexical_coverage("anything", "It is what it is.") == 1.0
    assert content_word_agreement("anything", "It is.").total == 0


def test_lexical_coverage_of_unrelated_text_is_zero() -> None:
    assert lexical_coverage("Bananas are yellow.", "Quantum computers factor integers.") == 0.0


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("1,200 people", ["1200"]),
        ("1200.00 people", ["1200"]),
        ("2.50%", ["2.5%"]),
        ("2.5 percent and 7 per cent", ["2.5%", "7%"]),
        ("$1.2 million", ["1200000"]),
        ("1,200,000 dollars", ["1200000"]),
        ("3 billion", ["3000000000"]),
        ("in the 1990s", ["1990s"]),
        ("on May 21st, 1998", ["21", "1998"]),
        ("0.5 and .5", ["0.5", "0.5"]),
        ("three people", []),
        ("COVID-19", ["19"]),
    ],
)
def test_numbers(text: str, expected: list[str]) -> None:
    assert numbers(text) == expected


def test_number_agreement_normalises_both_sides() -> None:
    premise = "Revenue rose 2.5% to $1,200 million in 2019."
    result = number_agreement(premise, "In 2019 revenue was 1.2 billion, up 2.5 percent, not 3%.")
    assert result.found == ("2019", "1200000000", "2.5%")
    assert result.missing == ("3%",)
    assert result.share == pytest.approx(0.75)


def test_number_agreement_percent_is_not_a_bare_number() -> None:
    assert number_agreement("It grew 5 points.", "It grew 5%.").missing == ("5%",)


def test_number_agreement_without_numbers_is_vacuous() -> None:
    result = number_agreement("Nothing here.", "No numbers either.")
    assert (result.total, result.share) == (0, 1.0)


def test_capitalised_entities_runs_connectors_and_sentence_openers() -> None:
    text = (
        "The Bank of England raised rates. In March, Andrew Bailey spoke. "
        "Paris is calm. I think New York-based AT&T agreed."
    )
    assert capitalised_entities(text) == [
        "bank of england",
        "march",
        "andrew bailey",
        "paris",
        "new york",
        "at&t",
    ]


def test_capitalised_entities_strip_trailing_connectors() -> None:
    assert capitalised_entities("He met Leaders of the world.") == ["leaders"]


def test_entity_coverage_is_case_insensitive_and_contiguous() -> None:
    premise = "MARIE CURIE moved from Warsaw to the city of Paris."
    result = entity_coverage(premise, "Marie Curie left Warsaw for Lyon.")
    assert result.found == ("marie curie", "warsaw")
    assert result.missing == ("lyon",)
    # the words of a name appear, but not together: not a mention
    assert entity_coverage("Curie met Marie.", "Marie Curie spoke.").missing == ("marie curie",)
