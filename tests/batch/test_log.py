"""The append-only output: whole lines are committed, a torn tail is cut on opening."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from veracity.batch.log import ResultLog
from veracity.errors import InputError

pytestmark = pytest.mark.unit


def _record(item_id: str, claims: int = 1) -> str:
    return json.dumps({"id": item_id, "line": 1, "summary": {"claims": claims, "supported": 1}})


def test_records_are_appended_and_found_again(tmp_path: Path) -> None:
    path = tmp_path / "out" / "reports.jsonl"
    log = ResultLog(path)
    assert log.open().keys == set()
    log.append([_record("a"), _record("b", 3)])
    log.close()
    state = ResultLog(path).open()
    assert state.keys == {"id:a", "id:b"}
    assert state.counts.claims == 4
    assert state.counts.answers == 2


@pytest.mark.parametrize(
    "tail", ['{"id": "c", "li', '{"id": "c"', "\x00\x00\x00\n", "[1]\n", '{"no": "key"}\n']
)
def test_a_torn_or_foreign_tail_is_cut(tmp_path: Path, tail: str) -> None:
    path = tmp_path / "reports.jsonl"
    whole = _record("a") + "\n" + _record("b") + "\n"
    path.write_text(whole + tail + _record("d") + "\n", encoding="utf-8")
    log = ResultLog(path)
    state = log.open()
    log.close()
    assert state.keys == {"id:a", "id:b"}
    assert path.read_text(encoding="utf-8") == whole
    assert state.cut_bytes == len((tail + _record("d") + "\n").encode())


def test_a_duplicate_record_is_dropped_on_opening(tmp_path: Path) -> None:
    path = tmp_path / "reports.jsonl"
    path.write_text(_record("a") + "\n" + _record("a", 5) + "\n", encoding="utf-8")
    log = ResultLog(path)
    state = log.open()
    log.close()
    assert state.duplicates == 1
    assert state.counts.claims == 1
    assert path.read_text(encoding="utf-8") == _record("a") + "\n"


def test_a_folder_is_no_output(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="is a folder"):
        ResultLog(tmp_path)
