"""Reading a verify-batch output for the overview: bad lines name the file, the line and the
fix; input fields are keyed as verify-batch keys their records."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from veracity.batch.results import input_fields, read_results
from veracity.errors import DocumentError, InputError

pytestmark = pytest.mark.unit

GOOD = json.dumps({"id": "a", "line": 1, "summary": {"claims": 0}, "claims": []})
FAILED = json.dumps({"id": None, "line": 2, "error": {"reason": "bad_json", "message": "x"}})


def test_records_are_read_in_order(tmp_path: Path) -> None:
    path = tmp_path / "out.jsonl"
    path.write_text(f"{GOOD}\n\n{FAILED}\n", encoding="utf-8")
    assert [record["line"] for record in read_results(path)] == [1, 2]


@pytest.mark.parametrize(
    ("text", "reason", "says"),
    [
        (f"{GOOD}\n{{oops\n", "bad_line", "not JSON"),
        (f"{GOOD}\n{GOOD[:20]}", "torn_line", "run verify-batch again with the same --out"),
        (f'{GOOD}\n{{"id": "b", "line": 2, "answer": "x"}}\n', "not_a_record", "no summary"),
        (f"{GOOD}\n[1, 2]\n", "not_a_record", "a JSON list, not an object"),
    ],
)
def test_a_bad_line_names_the_file_the_line_and_the_fix(
    tmp_path: Path, text: str, reason: str, says: str
) -> None:
    path = tmp_path / "out.jsonl"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(DocumentError) as caught:
        list(read_results(path))
    assert caught.value.path == f"{path}:2"
    assert caught.value.reason == reason
    assert says in str(caught.value)
    if reason != "torn_line":
        assert "give the --out file of `veracity verify-batch`" in str(caught.value)


def test_a_missing_file_says_what_to_give(tmp_path: Path) -> None:
    with pytest.raises(
        InputError, match="not a file; give the JSONL that `veracity verify-batch --out` wrote"
    ):
        list(read_results(tmp_path / "nope.jsonl"))


def test_input_fields_are_keyed_like_the_records(tmp_path: Path) -> None:
    path = tmp_path / "in.jsonl"
    lines = [
        {"id": "a", "answer": "x", "model": "m1"},
        {"id": "a", "answer": "y", "model": "m2"},
        {"answer": "z", "model": "m3"},
        {"id": 7, "answer": "w"},
    ]
    path.write_text(
        "".join(json.dumps(line) + "\n" for line in lines) + "{oops\n", encoding="utf-8"
    )
    assert input_fields(path, ["model"]) == {
        "id:a": {"model": "m1"},
        "line:2": {"model": "m2"},
        "line:3": {"model": "m3"},
    }
