"""Named entities: the rules fallback always, spaCy when the [nlp] extra is installed."""

from __future__ import annotations

import sys

import pytest

from veracity import defaults
from veracity.errors import MissingDependencyError, OptionError
from veracity.rules.entities import (
    EntityRecognizer,
    entity_key,
    find_entity,
    match_key,
    spacy_available,
)
from veracity.types import Span

SPACY_MISSING = "needs the [nlp] extra: pip install 'veracity[nlp]'"


def names(recognizer: EntityRecognizer, text: str) -> list[str]:
    entities = recognizer.run([text])[0]
    assert all(entity.span.of(text) == entity.text for entity in entities)
    return [entity.value for entity in entities]


@pytest.fixture
def no_spacy(monkeypatch: pytest.MonkeyPatch) -> None:
    """Make the [nlp] extra look uninstalled: importing it raises ImportError."""
    monkeypatch.setitem(sys.modules, "spacy", None)
    monkeypatch.setitem(sys.modules, defaults.KNOWLEDGE_SPACY_MODEL, None)


# --- keys and lookup ------------------------------------------------------------------------


@pytest.mark.unit
@pytest.mark.parametrize(
    ("name", "key"),
    [
        ("Karl von Frisch", "karl von frisch"),
        ("the United States", "united states"),
        ("U.S.", "us"),
        ("The U.S.'s", "us"),
        ("IMF's", "imf"),
        ("Jean-Paul Sartre", "jean paul sartre"),
        ("O’Brien", "o'brien"),
    ],
)
def test_entity_key(name: str, key: str) -> None:
    assert entity_key(name) == key


@pytest.mark.unit
def test_match_key_makes_plurals_singular_but_keeps_names() -> None:
    assert match_key("the Nobel Prizes") == "nobel prize"
    assert match_key("Associated Companies") == "associated company"
    assert match_key("Paris") == "paris"
    assert find_entity("Nobel Prizes", "She won a Nobel Prize twice.") == Span(10, 21)


@pytest.mark.unit
def test_find_entity_whole_words_any_case() -> None:
    text = "Karl von Frisch's work on bees, as the U.S. press reported."
    assert find_entity("Frisch", text) == Span(9, 17)
    assert find_entity("karl von frisch", text) == Span(0, 17)
    assert find_entity("US", text) == Span(39, 43)
    assert find_entity("Fris", text) is None
    assert find_entity("von Karl", text) is None


@pytest.mark.unit
def test_a_short_acronym_must_be_in_capitals_where_it_is_found() -> None:
    assert find_entity("US", "they told us so") is None
    assert find_entity("NASA", "the nasa budget") is None
    assert find_entity("Nasa", "the NASA budget") is not None


# --- rules ----------------------------------------------------------------------------------


@pytest.mark.unit
def test_rules_find_capitalised_names() -> None:
    recognizer = EntityRecognizer(ner="rules").load()
    assert recognizer.backend == "rules"
    text = "In March, Andrew Bailey of the Bank of England met U.S. officials in Paris."
    assert names(recognizer, text) == ["andrew bailey", "bank of england", "us", "paris"]


@pytest.mark.unit
def test_rules_skip_a_lone_capitalised_word_that_opens_a_sentence() -> None:
    recognizer = EntityRecognizer(ner="rules")
    assert names(recognizer, "Bees make honey. Construction began on Monday.") == []
    assert names(recognizer, "Marie Curie won. She met Pierre Curie.") == [
        "marie curie",
        "pierre curie",
    ]


@pytest.mark.unit
def test_rules_keep_one_result_per_text() -> None:
    recognizer = EntityRecognizer(ner="rules")
    results = recognizer.run(["No names here.", "It is in Vienna.", ""])
    assert [[e.value for e in found] for found in results] == [[], ["vienna"], []]
    assert results[1][0].label == "NAME"


# --- choosing the backend -------------------------------------------------------------------


@pytest.mark.unit
def test_unknown_backend_is_refused_with_the_choices() -> None:
    with pytest.raises(OptionError, match="auto, spacy, rules"):
        EntityRecognizer(ner="nltk")  # type: ignore[arg-type]


@pytest.mark.unit
def test_a_string_is_not_a_batch() -> None:
    with pytest.raises(OptionError, match="Pass \\[text\\]"):
        EntityRecognizer(ner="rules").run("Paris is big.")


@pytest.mark.unit
@pytest.mark.usefixtures("no_spacy")
def test_auto_falls_back_to_rules_without_the_extra() -> None:
    assert not spacy_available()
    recognizer = EntityRecognizer(ner="auto").load()
    assert recognizer.backend == "rules"
    assert names(recognizer, "He studied in Vienna with Konrad Lorenz.") == [
        "vienna",
        "konrad lorenz",
    ]


@pytest.mark.unit
@pytest.mark.usefixtures("no_spacy")
def test_spacy_backend_without_the_extra_names_the_extra() -> None:
    recognizer = EntityRecognizer(ner="spacy")  # cheap: nothing is imported yet
    with pytest.raises(MissingDependencyError, match=r"veracity\[nlp\]") as caught:
        recognizer.load()
    assert caught.value.extra == "nlp"


# --- spaCy ----------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def spacy_recognizer() -> EntityRecognizer:
    if not spacy_available():
        pytest.skip(SPACY_MISSING)
    return EntityRecognizer(ner="spacy").load()


@pytest.mark.integration
def test_spacy_finds_typed_names_and_leaves_values_alone(
    spacy_recognizer: EntityRecognizer,
) -> None:
    assert spacy_recognizer.backend == "spacy"
    text = "Apple paid $5 million to Microsoft in Paris on 20 Sept 2022."
    entities = spacy_recognizer.run([text])[0]
    assert [(e.value, e.label) for e in entities] == [
        ("apple", "ORG"),
        ("microsoft", "ORG"),
        ("paris", "GPE"),
    ]
    assert all(e.span.of(text) == e.text for e in entities)


@pytest.mark.integration
def test_spacy_names_are_normalised(spacy_recognizer: EntityRecognizer) -> None:
    texts = [
        "The U.S. economy grew, said the IMF's chief.",
        "Karl von Frisch shared the Nobel Prize with Konrad Lorenz.",
    ]
    found = spacy_recognizer.run(texts)
    assert [e.value for e in found[0]] == ["us", "imf"]
    assert [e.value for e in found[1]] == ["karl von frisch", "nobel prize", "konrad lorenz"]
    assert found[1][1].text == "Nobel Prize"  # without the leading "the"


@pytest.mark.integration
def test_auto_picks_spacy_when_installed(spacy_recognizer: EntityRecognizer) -> None:
    assert EntityRecognizer(ner="auto").load().backend == "spacy"
