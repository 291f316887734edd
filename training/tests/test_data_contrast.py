"""Contrastive twins: antonyms, quantifiers, obligation and modality, units of time, roles,
months, and the supported twins that look as close."""

from __future__ import annotations

import random
from collections import Counter

import pytest

from veracity_training.data.contrast import (
    antonym,
    change_month,
    change_quantifier,
    change_unit,
    hedge_number,
    negate_antonym,
    strengthen_modal,
    swap_roles,
    twin_edits,
    twin_id,
    twin_rows,
    weaken_obligation,
)
from veracity_training.data.schema import Row

pytestmark = pytest.mark.unit


@pytest.mark.parametrize(
    ("sentence", "twin"),
    [
        ("The museum opens on Mondays.", "The museum closes on Mondays."),
        ("The gates opened at noon.", "The gates closed at noon."),
        ("It is an unstable isotope.", "It is a stable isotope."),
    ],
)
def test_antonym_replaces_one_word_and_fixes_its_article(sentence: str, twin: str) -> None:
    assert antonym(sentence, random.Random(0)) == twin


@pytest.mark.parametrize(
    "sentence",
    [
        "Conscious and unconscious minds differ.",  # both words already there
        "They met at the top of the hill.",  # an ambiguous word
        "Bees dance.",
    ],
)
def test_antonym_leaves_sentences_it_cannot_reverse(sentence: str) -> None:
    assert antonym(sentence, random.Random(0)) is None


@pytest.mark.parametrize(
    ("sentence", "twin"),
    [
        ("All bees in the hive are female.", "No bees in the hive are female."),
        ("Most workers live for six weeks.", "Few workers live for six weeks."),
        ("Liam Neeson was never nominated.", "Liam Neeson was always nominated."),
        ("They neutralized all the agents.", "They neutralized none of the agents."),
        ("None of the drones sting.", "All of the drones sting."),
    ],
)
def test_a_quantifier_is_reversed(sentence: str, twin: str) -> None:
    assert change_quantifier(sentence) == twin


@pytest.mark.parametrize(
    "sentence",
    [
        "It was not at all clear.",
        "29.7% of all households were families.",
        "Face coverings are most likely to help.",
        "He scored the most goals.",
    ],
)
def test_quantifier_idioms_are_left_alone(sentence: str) -> None:
    assert change_quantifier(sentence) is None


def test_obligation_is_denied_and_possibility_strengthened() -> None:
    assert (
        weaken_obligation("Visitors must register at the desk.")
        == "Visitors need not register at the desk."
    )
    assert strengthen_modal("Bees can sting more than once.") == "Bees must sting more than once."
    assert weaken_obligation("Visitors must not smoke.") is None


@pytest.mark.parametrize(
    ("sentence", "twin"),
    [
        ("Smoke calms bees for about ten minutes.", "Smoke calms bees for about ten hours."),
        ("It takes an hour to cook.", "It takes a day to cook."),
        ("Wings beat 230 times per second.", "Wings beat 230 times per minute."),
        ("The flight took a minute.", "The flight took an hour."),
    ],
)
def test_a_unit_of_time_becomes_a_neighbour(sentence: str, twin: str) -> None:
    assert change_unit(sentence, random.Random(0)) == twin


def test_roles_swap_around_a_one_way_verb_only() -> None:
    assert (
        swap_roles("Arsenal defeated Chelsea in the final.")
        == "Chelsea defeated Arsenal in the final."
    )
    assert (
        swap_roles("Henry IV of France succeeded Henry III of France.")
        == "Henry III of France succeeded Henry IV of France."
    )
    assert swap_roles("Arsenal met Chelsea in the final.") is None


def test_month_changes_and_numbers_are_hedged() -> None:
    changed = change_month("The treaty was signed on 4 May 1990.", random.Random(0))
    assert changed is not None
    assert changed.startswith("The treaty was signed on 4 ")
    assert changed.endswith(" 1990.")
    assert "May" not in changed
    assert hedge_number("The colony has 60000 bees.", random.Random(0)) in {
        f"The colony has {w} 60000 bees." for w in ("about", "approximately", "around", "roughly")
    }
    assert hedge_number("He wrote the first 5 books.", random.Random(0)) is None
    assert hedge_number("It opened in 1990 to visitors.", random.Random(0)) is None


def test_an_adjective_is_negated_through_its_antonym() -> None:
    assert (
        negate_antonym("The gate is open during the day.")
        == "The gate is not closed during the day."
    )
    assert negate_antonym("All gates are open.") is None


def _row(i: int, claim: str, label: str = "supported") -> Row:
    return Row(
        f"src-{i}",
        f"Premise {i}. {claim}",
        claim,
        label,
        "src",
        "public",  # type: ignore[arg-type]
        f"g{i}",
    )


def test_twin_rows_keep_the_premise_and_group_and_follow_quotas() -> None:
    claims = [
        "The museum opens on Mondays.",
        "Most workers live for six weeks.",
        "Visitors must register at the desk.",
        "Arsenal defeated Chelsea in the final.",
        "Smoke calms bees for about ten minutes.",
        "The bridge was opened in 1932.",
    ]
    rows = [_row(i, c) for i, c in enumerate(claims * 3)] + [_row(99, "Bees fly.", "neither")]
    stats: Counter[str] = Counter()
    twins = twin_rows(rows, quota=2, seed=13, stats=stats)
    assert twins == twin_rows(rows, quota=2, seed=13, stats=Counter())  # seeded
    originals = {row.id: row for row in rows}
    for twin in twins:
        original = originals[twin.id.split("~")[0]]
        edit = twin.kind.removeprefix("twin_")
        assert twin.id == twin_id(original.id, edit)
        assert (twin.premise, twin.group, twin.source) == (
            original.premise,
            original.group,
            original.source,
        )
        assert twin.label == twin_edits()[edit][0]
        assert twin.hypothesis != original.hypothesis
        assert original.label == "supported"
    assert max(Counter(t.kind for t in twins).values()) <= 2
    assert stats["twin_candidates"] == len(claims) * 3
