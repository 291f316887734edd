"""The shallow clause reader: tokens, subjects and verbs, or None when unsure."""

from __future__ import annotations

import pytest

from veracity.text.grammar import (
    capitalised_opening,
    finish,
    read_clause,
    tokenize,
    verb_form,
)

pytestmark = pytest.mark.unit


def test_tokens_keep_abbreviations_numbers_and_contractions_whole() -> None:
    text = "Dr. Smith's U.S. hive grew 3.5% in 2020; it's 20th-century."
    tokens = tokenize(text)
    assert [t.text for t in tokens] == [
        "Dr",
        ".",
        "Smith's",
        "U.S.",
        "hive",
        "grew",
        "3.5%",
        "in",
        "2020",
        ";",
        "it's",
        "20th-century",
        ".",
    ]
    assert all(text[t.start : t.end] == t.text for t in tokens)


@pytest.mark.parametrize(
    ("text", "subject", "verb", "tense"),
    [
        ("Bees dance", "Bees", "dance", "base"),
        ("Karl von Frisch was born in 1886", "Karl von Frisch", "was", "past"),
        ("In 1973, he won the Nobel Prize", "he", "won", "past"),
        ("Later he moved to Graz", "he", "moved", "past"),
        (
            "Karl von Frisch, an Austrian ethologist, won the prize",
            "Karl von Frisch",
            "won",
            "past",
        ),
        ("The Eiffel Tower (completed in 1889) is tall", "The Eiffel Tower", "is", "pres3"),
        ("A 2019 study by Smith found that bees sleep", "A 2019 study by Smith", "found", "past"),
        ("The queen also lays eggs", "The queen", "lays", "pres3"),
        ("Python supports many paradigms", "Python", "supports", "pres3"),
        ("Honey bees can sting", "Honey bees", "can", "modal"),
        ("Worker bees develop in 21 days", "Worker bees", "develop", "base"),
    ],
)
def test_subjects_and_first_verbs(text: str, subject: str, verb: str, tense: str) -> None:
    clause = read_clause(tokenize(text), text)
    assert clause is not None
    assert clause.subject_text == subject
    assert clause.tokens[clause.verb].text == verb
    assert clause.form.tense == tense


@pytest.mark.parametrize(
    "text",
    [
        "Bees, wasps and ants",  # no verb
        "can sting",  # a predicate without a subject
        "In 1889 the tower opened",  # an introductory phrase without its comma
        "The man who discovered it was old",  # a relative clause inside the subject
        "If it rains",
        "Waggle Dance",
        "",
    ],
)
def test_unsure_readings_are_none(text: str) -> None:
    assert read_clause(tokenize(text), text) is None


def test_passive_and_negation_are_seen() -> None:
    born = read_clause(tokenize("He was born in Vienna"))
    assert born is not None
    assert born.passive
    assert not born.negated
    negated = read_clause(tokenize("Bees do not hibernate"))
    assert negated is not None
    assert negated.negated
    assert not negated.passive


def test_a_word_after_a_determiner_is_a_noun() -> None:
    the, study, studies = tokenize("the study studies")
    assert verb_form(study, the) is None
    form = verb_form(studies, study)
    assert form is not None
    assert form.tense == "pres3"


@pytest.mark.parametrize(
    ("text", "claim"),
    [
        ("he died in 1982;", "he died in 1982."),
        ("Bees can fly 10 km!", "Bees can fly 10 km."),
        ("  It was founded in 1776 (approx.).  ", "It was founded in 1776 (approx.)."),
        (" , ", ""),
    ],
)
def test_finish_makes_a_sentence_with_one_period(text: str, claim: str) -> None:
    assert finish(text) == claim


@pytest.mark.parametrize(
    ("text", "recased"),
    [
        ("the queen lays eggs.", ("The queen lays eggs.", "capitalised: 'the' -> 'The'")),
        ("he died in 1982.", ("He died in 1982.", "capitalised: 'he' -> 'He'")),
        ("it's 20th-century.", ("It's 20th-century.", 'capitalised: "it\'s" -> "It\'s"')),
        ("in 1973, he won.", ("In 1973, he won.", "capitalised: 'in' -> 'In'")),
        # open-class, code-like and mixed-case openings are never recased
        ("gzip writes .gz files.", None),
        ("npm installs packages.", None),
        ("iPhone sales rose.", None),
        ("eBay sells goods.", None),
        ("x86 chips run hot.", None),
        ("wasps sting.", None),
        (".NET runs here.", None),
        ("The queen lays eggs.", None),
        (" the queen.", None),
        ("", None),
    ],
)
def test_only_a_lower_case_function_word_opening_is_capitalised(
    text: str, recased: tuple[str, str] | None
) -> None:
    assert capitalised_opening(text) == recased


@pytest.mark.parametrize("text", ["gzip writes a .gz file;", "iPhone runs .NET apps", "eBay."])
def test_finish_changes_no_letter_and_no_space(text: str) -> None:
    assert finish(text) == text.rstrip(";.") + "."
