"""Sentence edits: negation, number change, entity swap, meaning-keeping edits, compression."""

from __future__ import annotations

import random

import pytest

from veracity_training.data.perturb import (
    change_date_format,
    change_number,
    compress,
    front_to_back,
    negate,
    paraphrase,
    reorder_coordination,
    swap_entity,
)

pytestmark = pytest.mark.unit


@pytest.mark.parametrize(
    ("sentence", "negated"),
    [
        ("The bridge was opened in 1932.", "The bridge was not opened in 1932."),
        ("Smith won the award in 1990.", "Smith did not win the award in 1990."),
        ("The river flows into the sea.", "The river does not flow into the sea."),
        ("The company has been profitable.", "The company has not been profitable."),
        ("He was not elected in 1990.", "He was elected in 1990."),
        ("She did not attend the ceremony.", "She attended the ceremony."),
        ("It has never been rebuilt.", "It has been rebuilt."),
    ],
)
def test_negate_inserts_or_removes_one_negation(sentence: str, negated: str) -> None:
    assert negate(sentence, random.Random(0)) == negated


@pytest.mark.parametrize(
    "sentence",
    [
        "The club had two owners.",  # "had not two owners" is not English
        "Although he was ill, he played.",  # negating inside the subordinate clause
        "He was not only a poet but also a painter.",
        "Nobody was not invited.",  # two negations
    ],
)
def test_negate_skips_unsafe_sentences(sentence: str) -> None:
    assert negate(sentence, random.Random(0)) is None


def test_change_number_changes_a_year_within_30_years() -> None:
    for seed in range(20):
        out = change_number("The club moved to Leeds in 1990.", random.Random(seed))
        assert out is not None
        assert out != "The club moved to Leeds in 1990."
        year = int(out.split()[-1].rstrip("."))
        assert 1 <= abs(year - 1990) <= 30


def test_change_number_leaves_hedged_numbers_and_days_alone() -> None:
    rng = random.Random(0)
    assert change_number("It has more than 100 members.", rng) is None
    assert change_number("It has been open since 1990.", rng) is None
    assert change_number("It opened on August 25.", rng) is None


def test_change_number_avoids_numbers_of_the_premise() -> None:
    for seed in range(10):
        out = change_number("It had 5 stations.", random.Random(seed), premise="2 3 4 6 7 8 stops")
        assert out is None


def test_change_number_scales_quantities_and_keeps_percentages_valid() -> None:
    out = change_number("The town had 12,500 residents.", random.Random(1))
    assert out is not None
    assert "12,500" not in out
    for seed in range(20):
        pct = change_number("About half, 45% of voters, agreed.", random.Random(seed))
        assert pct is not None
        value = float(pct.split(", ")[1].split("%")[0])
        assert 1 <= value <= 99
        assert value != 45


def test_swap_entity_prefers_names_seen_in_the_same_context() -> None:
    pool = [("in", "Lyon", False), ("by", "Marie Curie", False), ("in", "Paris", False)]
    out = swap_entity("The school opened in Paris.", pool, random.Random(0))
    assert out == "The school opened in Lyon."
    other_context = [("by", "Marie Curie", False)]
    assert swap_entity("The school opened in Paris.", other_context, random.Random(0)) is None


def test_swap_entity_replaces_like_with_like() -> None:
    pool = [("at", "Oxford University", False), ("at", "Hyde Park", False)]
    out = swap_entity("She studied at Cambridge University.", pool, random.Random(0))
    assert out == "She studied at Oxford University."
    adjectives = [("by", "British", True), ("by", "Gaul", False)]
    assert swap_entity("He was surrounded by Roman soldiers.", adjectives, random.Random(0)) is None


def test_swap_entity_keeps_the_subject() -> None:
    pool = [("to", "Lyon", False), ("", "Victor Hugo", False), ("to", "Jean Valjean", False)]
    sentence = "Jean Valjean moved to Paris in 1820."
    out = swap_entity(sentence, pool, random.Random(0), keep="Jean Valjean")
    assert out is not None
    assert out.startswith("Jean Valjean")
    assert "Lyon" in out


def test_meaning_keeping_edits() -> None:
    assert change_date_format("Born on 1 May 2001 in Lyon.") == "Born on May 1, 2001 in Lyon."
    assert change_date_format("Born on May 1, 2001 in Lyon.") == "Born on 1 May 2001 in Lyon."
    assert reorder_coordination("It borders France and Germany.", {"France", "Germany"}) == (
        "It borders Germany and France."
    )
    assert reorder_coordination("It makes Procter and Gamble soap.", {"Procter"}) is None
    assert front_to_back("In 1990, the club moved to Leeds.") == "The club moved to Leeds in 1990."
    edited = paraphrase("The tower (built 1889) is in Paris.", random.Random(0), set())
    assert edited is not None
    assert "(" not in edited[0]


def test_compress_only_drops_material() -> None:
    sentence = (
        "However, the bridge, a steel arch of the city, was opened in 1932 (after delays), "
        "which made it the longest in Europe."
    )
    short = compress(sentence, random.Random(0), force=True)
    assert short != sentence
    assert "(" not in short
    words = set(sentence.lower().replace(",", "").replace(".", "").split())
    assert set(short.lower().replace(",", "").replace(".", "").split()) <= words
