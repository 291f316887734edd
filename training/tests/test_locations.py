"""Where the shared data is found: ``$VERACITY_DATA``, else ``../shared/data`` beside the repo."""

from __future__ import annotations

from pathlib import Path

import pytest

from veracity_training.data.locations import DEFAULT_DATA, data_root, nli_root

pytestmark = pytest.mark.unit

REPO = Path(__file__).resolve().parents[2]


def test_unset_it_is_shared_data_beside_the_checkout() -> None:
    assert data_root({}) == DEFAULT_DATA == REPO.parent / "shared" / "data"
    assert nli_root({}) == REPO.parent / "shared" / "nlidata"


def test_an_empty_value_counts_as_unset() -> None:
    assert data_root({"VERACITY_DATA": ""}) == DEFAULT_DATA


def test_the_variable_names_the_evaluation_folder_and_nlidata_is_its_sibling(
    tmp_path: Path,
) -> None:
    environ = {"VERACITY_DATA": str(tmp_path / "data")}
    assert data_root(environ) == tmp_path / "data"
    assert nli_root(environ) == tmp_path / "nlidata"


def test_the_process_environment_is_read_at_each_call(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("VERACITY_DATA", str(tmp_path / "eval"))
    assert data_root() == tmp_path / "eval"
    monkeypatch.delenv("VERACITY_DATA")
    assert data_root() == DEFAULT_DATA
