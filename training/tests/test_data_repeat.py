"""Repeating kinds of a data folder's training rows."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from veracity.errors import OptionError
from veracity_training.data.repeat import main, parse_times, repeat

pytestmark = pytest.mark.unit


def _folder(tmp_path: Path) -> Path:
    data = tmp_path / "data"
    data.mkdir()
    rows = [{"id": "a", "kind": "twin_scope"}, {"id": "b"}, {"id": "c", "kind": "negation"}]
    (data / "train.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    (data / "val.jsonl").write_text(json.dumps({"id": "v"}) + "\n")
    (data / "card.json").write_text(json.dumps({"seed": 13}))
    return data


def test_rows_of_a_kind_are_repeated_and_the_card_says_so(tmp_path: Path) -> None:
    data = _folder(tmp_path)
    written = repeat(data, tmp_path / "out", {"twin_scope": 3, "public": 2}, seed=1)
    ids = sorted(json.loads(line)["id"] for line in (tmp_path / "out" / "train.jsonl").open())
    assert (written, ids) == (6, ["a", "a", "a", "b", "b", "c"])
    assert (tmp_path / "out" / "val.jsonl").read_text() == (data / "val.jsonl").read_text()
    card = json.loads((tmp_path / "out" / "card.json").read_text())
    assert card["seed"] == 13
    assert card["repeated"] == {
        "from": str(data),
        "times": {"twin_scope": 3, "public": 2},
        "seed": 1,
        "rows": 6,
    }


def test_bad_times_and_folders_are_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(OptionError, match="KIND=N"):
        parse_times(["twin_scope"])
    with pytest.raises(OptionError, match="KIND=N"):
        parse_times(["public=0"])
    assert main(["--data", str(tmp_path), "--out", str(tmp_path / "o")]) == 2
    assert "holds no train.jsonl" in capsys.readouterr().err
    data = _folder(tmp_path)
    assert main(["--data", str(data), "--out", str(tmp_path / "o"), "--times", "public=2"]) == 0
