"""Knowledge base: reading CSV and JSON, clear errors on bad files, finding mentioned facts."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from veracity.errors import DocumentError, InputError
from veracity.rules.kb import Fact, KnowledgeBase

pytestmark = pytest.mark.unit


def write(tmp_path: Path, name: str, text: str) -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


# --- CSV ------------------------------------------------------------------------------------


def test_csv_facts_with_their_lines(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        "facts.csv",
        "\ufeffEntity, Attribute ,VALUE,note\n"
        "Karl von Frisch,born,20 November 1886,wiki\n"
        "\n"
        'Paris,population,"2,102,650",\n',
    )
    kb = KnowledgeBase.from_file(path)
    assert len(kb) == 2
    assert kb.name == "facts.csv"
    assert kb.facts == (
        Fact("Karl von Frisch", "born", "20 November 1886", "facts.csv:2"),
        Fact("Paris", "population", "2,102,650", "facts.csv:4"),
    )


def test_csv_without_a_value_column_names_the_file_line_and_fix(tmp_path: Path) -> None:
    path = write(tmp_path, "facts.csv", "entity,attribute\nParis,population\n")
    with pytest.raises(DocumentError) as caught:
        KnowledgeBase.from_file(path)
    assert caught.value.reason == "missing_column"
    assert caught.value.path == f"{path}:1"
    assert "no value" in str(caught.value)
    assert "'entity,attribute,value'" in str(caught.value)


def test_csv_row_with_an_empty_value_names_its_line(tmp_path: Path) -> None:
    path = write(
        tmp_path, "facts.csv", "entity,attribute,value\nParis,population,1\nVienna,population\n"
    )
    with pytest.raises(DocumentError, match=r"facts\.csv:3: the row has no value") as caught:
        KnowledgeBase.from_file(path)
    assert caught.value.reason == "empty_field"


@pytest.mark.parametrize("text", ["", "  \n\n", "entity,attribute,value\n"])
def test_empty_knowledge_base(tmp_path: Path, text: str) -> None:
    path = write(tmp_path, "facts.csv", text)
    with pytest.raises(DocumentError, match=r"facts\.csv") as caught:
        KnowledgeBase.from_file(path)
    assert caught.value.reason == "empty"


# --- JSON -----------------------------------------------------------------------------------


def test_json_list_of_objects(tmp_path: Path) -> None:
    data = [
        {"entity": "Paris", "attribute": "population", "value": 2102650},
        {"entity": "Eiffel Tower", "attribute": "height", "value": "330 m", "note": "x"},
    ]
    kb = KnowledgeBase.from_file(write(tmp_path, "kb.json", json.dumps(data)))
    assert [(f.entity, f.attribute, f.value, f.source) for f in kb.facts] == [
        ("Paris", "population", "2102650", "kb.json: entry 1"),
        ("Eiffel Tower", "height", "330 m", "kb.json: entry 2"),
    ]


def test_json_object_of_objects(tmp_path: Path) -> None:
    data = {"Paris": {"population": 2102650, "area": "105.4 km2"}, "Vienna": {"founded": 1137}}
    kb = KnowledgeBase.from_file(write(tmp_path, "kb.json", json.dumps(data)))
    assert [(f.entity, f.attribute, f.value) for f in kb.facts] == [
        ("Paris", "population", "2102650"),
        ("Paris", "area", "105.4 km2"),
        ("Vienna", "founded", "1137"),
    ]


def test_bad_json_names_the_file_and_line(tmp_path: Path) -> None:
    path = write(tmp_path, "kb.json", '[\n  {"entity": "Paris",\n   "attribute" "population"}\n]')
    with pytest.raises(DocumentError) as caught:
        KnowledgeBase.from_file(path)
    assert caught.value.reason == "bad_json"
    assert caught.value.path == f"{path}:3"
    assert "at line 3" in str(caught.value)


@pytest.mark.parametrize(
    ("data", "reason", "words"),
    [
        (
            [{"entity": "Paris", "attribute": "population"}],
            "missing_column",
            "entry 1 has no value",
        ),
        (["Paris"], "bad_shape", "entry 1 is a string"),
        ({"Paris": 2102650}, "bad_shape", "the value of 'Paris' is a number"),
        ([{"entity": "Paris", "attribute": "big", "value": True}], "bad_value", "is a boolean"),
        ([{"entity": "Paris", "attribute": "big", "value": " "}], "empty_field", "is empty"),
        ("Paris", "bad_shape", "the JSON is a string"),
        ([], "empty", "no facts"),
    ],
)
def test_json_of_the_wrong_shape(tmp_path: Path, data: object, reason: str, words: str) -> None:
    path = write(tmp_path, "kb.json", json.dumps(data))
    with pytest.raises(DocumentError, match=words) as caught:
        KnowledgeBase.from_file(path)
    assert caught.value.reason == reason
    assert str(path) in str(caught.value)


def test_unsupported_and_missing_files(tmp_path: Path) -> None:
    with pytest.raises(DocumentError, match=r"\.csv or \.json") as caught:
        KnowledgeBase.from_file(write(tmp_path, "facts.txt", "Paris,population,1"))
    assert caught.value.reason == "unsupported"
    with pytest.raises(DocumentError, match="no such file") as caught:
        KnowledgeBase.from_file(tmp_path / "absent.csv")
    assert caught.value.reason == "missing"


def test_non_utf8_file(tmp_path: Path) -> None:
    path = tmp_path / "facts.csv"
    path.write_bytes(b"entity,attribute,value\nZ\xfcrich,population,421878\n")
    with pytest.raises(DocumentError, match="UTF-8") as caught:
        KnowledgeBase.from_file(path)
    assert caught.value.reason == "encoding"


def test_facts_built_in_code_are_validated() -> None:
    with pytest.raises(InputError, match="the value of the fact is empty"):
        KnowledgeBase([Fact("Paris", "population", " ")])
    with pytest.raises(InputError, match="not a Fact"):
        KnowledgeBase([("Paris", "population", "1")])  # type: ignore[list-item]


# --- mentions -------------------------------------------------------------------------------


def test_a_mention_needs_the_entity_and_the_attribute() -> None:
    kb = KnowledgeBase(
        [
            Fact("Paris", "population", "2102650"),
            Fact("Paris", "area", "105.4 km2"),
            Fact("Vienna", "population", "1982097"),
        ]
    )
    text = "Paris has 2.1 million inhabitants."
    mentions = kb.mentions(text)
    assert [m.fact.value for m in mentions] == ["2102650"]
    assert mentions[0].entity.of(text) == "Paris"
    assert mentions[0].cue.of(text) == "inhabitants"
    assert kb.mentions("Paris is lovely in spring.") == ()
    assert kb.mentions("The population grew to 2.1 million.") == ()


def test_generic_attribute_words_are_not_needed() -> None:
    kb = KnowledgeBase(
        [
            Fact("Karl von Frisch", "birth_date", "1886-11-20"),
            Fact("Karl von Frisch", "birth_place", "Vienna"),
            Fact("Karl von Frisch", "death_date", "1982-06-12"),
        ]
    )
    mentions = kb.mentions("Karl von Frisch was born in Vienna in 1886.")
    assert [m.fact.attribute for m in mentions] == ["birth_date", "birth_place"]


def test_a_partial_name_is_not_a_mention_and_synonyms_can_be_added() -> None:
    kb = KnowledgeBase(
        [Fact("Karl von Frisch", "spouse", "Margarete Mohr")],
        synonyms=[("spouse", "married", "wife")],
    )
    assert kb.mentions("Frisch married Margarete Mohr.") == ()
    text = "Karl von Frisch married Margarete Mohr in 1917."
    assert [m.cue.of(text) for m in kb.mentions(text)] == ["married"]
