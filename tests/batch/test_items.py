"""Parsing batch input lines and the keys that make each line appear once in the output."""

from __future__ import annotations

import json

import pytest

from veracity.batch.items import BadLine, BatchItem, parse_line, record_key

pytestmark = pytest.mark.unit


def test_a_full_line_becomes_an_item() -> None:
    line = json.dumps(
        {
            "id": "q1",
            "answer": "Bees dance [1].",
            "question": "Do bees dance?",
            "sources": ["Bees dance."],
            "cited": {"1": "text-1#0"},
        }
    )
    item = parse_line(line, 3)
    assert item == BatchItem(
        "q1", 3, "Bees dance [1].", "Do bees dance?", ("Bees dance.",), {1: "text-1#0"}
    )
    assert BatchItem.from_dict(item.to_dict()) == item


@pytest.mark.parametrize(
    ("line", "reason", "key"),
    [
        ("{oops", "bad_json", "line:4"),
        ("[1, 2]", "bad_json", "line:4"),
        ('{"answer": "Bees dance."}', "no_id", "line:4"),
        ('{"id": true, "answer": "Bees dance."}', "no_id", "line:4"),
        ('{"id": "q", "answer": "  ", "sources": []}', "no_answer", "id:q"),
        ('{"id": "q", "answer": "Bees dance."}', "no_sources", "id:q"),
        ('{"id": "q", "answer": "Bees dance.", "sources": "Bees dance."}', "no_sources", "id:q"),
        ('{"id": "q", "answer": "B.", "sources": [], "cited": {"x": "a#0"}}', "bad_cited", "id:q"),
        ('{"id": "q", "answer": "B.", "sources": [], "question": 3}', "bad_question", "id:q"),
    ],
)
def test_a_bad_line_says_why_and_is_keyed_by_id_or_line(line: str, reason: str, key: str) -> None:
    bad = parse_line(line, 4)
    assert isinstance(bad, BadLine)
    assert bad.reason == reason
    assert bad.key == key
    assert record_key(bad.to_dict()) == key
    assert str(4) in bad.message


def test_with_an_index_a_line_needs_no_sources() -> None:
    item = parse_line('{"id": 5, "answer": "Bees dance."}', 1, sources_field=None)
    assert isinstance(item, BatchItem)
    assert item.key == "id:5"
    with_docs = parse_line('{"id": 5, "answer": "x", "docs": ["y"]}', 1, sources_field="docs")
    assert isinstance(with_docs, BatchItem)
    assert with_docs.sources == ("y",)


def test_record_keys_of_reports_and_errors() -> None:
    assert record_key({"id": "a", "line": 1, "summary": {}}) == "id:a"
    assert record_key({"id": "a", "line": 9, "error": {"reason": "duplicate_id"}}) == "line:9"
    assert record_key({"id": "a", "line": 2, "error": {"reason": "InputError"}}) == "id:a"
    assert record_key({"summary": {}}) is None
