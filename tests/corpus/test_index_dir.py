"""IndexDir: atomic generations, CURRENT swaps, cleanup, locking, versions, foreign folders."""

from __future__ import annotations

import fcntl
import json

import pytest

from veracity import __version__, defaults
from veracity.corpus.index_dir import MANIFEST, IndexDir
from veracity.errors import IndexNotFoundError, IndexStoreError, IndexVersionError

pytestmark = pytest.mark.unit


def _commit(index: IndexDir, payload: str = "x") -> str:
    with index.write() as new:
        (new.path / "data.txt").write_text(payload)
        new.write_manifest({"payload": payload})
    return new.name


def _entries(index: IndexDir) -> list[str]:
    return sorted(entry.name for entry in index.path.iterdir())


def test_first_write_creates_a_live_generation_with_a_manifest(tmp_path):
    index = IndexDir(tmp_path / "nested" / "index")
    assert not index.exists()
    assert _commit(index, "one") == "gen-000001"
    assert index.exists()
    assert (index.path / "CURRENT").read_text() == "gen-000001\n"
    assert index.current() == index.path / "gen-000001"
    manifest = index.manifest()
    assert manifest["format_version"] == defaults.INDEX_FORMAT_VERSION
    assert manifest["veracity_version"] == __version__
    assert manifest["created"].endswith("+00:00")
    assert (manifest["generation"], manifest["payload"]) == ("gen-000001", "one")
    assert _entries(index) == ["CURRENT", "LOCK", "gen-000001"]


def test_new_generation_sees_the_previous_and_old_ones_are_pruned(tmp_path):
    index = IndexDir(tmp_path / "index")
    _commit(index, "one")
    with index.write() as new:
        assert new.previous == index.path / "gen-000001"
        assert new.path == index.path / "gen-000002.tmp"
        new.write_manifest({})
    _commit(index, "three")
    assert _entries(index) == ["CURRENT", "LOCK", "gen-000002", "gen-000003"]
    assert (index.current() / "data.txt").read_text() == "three"


def test_failure_inside_the_block_leaves_the_previous_generation_live(tmp_path):
    index = IndexDir(tmp_path / "index")
    _commit(index, "good")
    before = _entries(index)

    def crash() -> None:
        with index.write() as new:
            (new.path / "data.txt").write_text("half")
            raise RuntimeError("boom")

    with pytest.raises(RuntimeError, match="boom"):
        crash()
    assert _entries(index) == before
    assert (index.current() / "data.txt").read_text() == "good"


def test_a_generation_without_manifest_is_not_made_live(tmp_path):
    index = IndexDir(tmp_path / "index")
    with pytest.raises(IndexStoreError, match="manifest"), index.write():
        pass
    assert not index.exists()
    assert _entries(index) == ["LOCK"]


def test_missing_index_says_how_to_make_one(tmp_path):
    with pytest.raises(IndexNotFoundError, match=r"run `veracity index PATH --index .*` first"):
        IndexDir(tmp_path / "none").current()


def test_newer_format_version_names_both_versions_and_the_fix(tmp_path):
    index = IndexDir(tmp_path / "index")
    _commit(index)
    manifest_path = index.current() / MANIFEST
    manifest = json.loads(manifest_path.read_text())
    manifest["format_version"] = defaults.INDEX_FORMAT_VERSION + 1
    manifest_path.write_text(json.dumps(manifest))
    for action in (index.current, index.manifest):
        with pytest.raises(IndexVersionError) as caught:
            action()
        text = str(caught.value)
        assert f"format version {defaults.INDEX_FORMAT_VERSION + 1}" in text
        assert f"format version {defaults.INDEX_FORMAT_VERSION} at most" in text
        assert "upgrade veracity" in text
        assert "re-index into a new folder" in text
    with pytest.raises(IndexVersionError):
        _commit(index)  # never written over either
    assert (
        json.loads(manifest_path.read_text())["format_version"] == defaults.INDEX_FORMAT_VERSION + 1
    )


def test_damaged_current_or_manifest_is_reported(tmp_path):
    index = IndexDir(tmp_path / "index")
    _commit(index)
    (index.current() / MANIFEST).write_text("{not json")
    with pytest.raises(IndexStoreError, match="damaged"):
        index.current()
    (index.path / "CURRENT").write_text("gen-000009\n")
    with pytest.raises(IndexStoreError, match="damaged"):
        index.current()


def test_a_folder_that_is_not_an_index_is_never_written(tmp_path):
    folder = tmp_path / "my-stuff"
    folder.mkdir()
    (folder / "thesis.docx").write_text("precious")
    with pytest.raises(IndexStoreError, match=r"not a veracity index \(it holds thesis.docx\)"):
        _commit(IndexDir(folder))
    assert _entries(IndexDir(folder)) == ["thesis.docx"]
    file = tmp_path / "a-file"
    file.write_text("x")
    with pytest.raises(IndexStoreError, match="is a file"):
        _commit(IndexDir(file))
    empty = tmp_path / "empty"
    empty.mkdir()
    assert _commit(IndexDir(empty)) == "gen-000001"


def test_a_second_writer_is_refused_while_the_lock_is_held(tmp_path):
    index = IndexDir(tmp_path / "index")
    _commit(index, "one")
    with open(index.path / "LOCK", "a+b") as other:  # another process's open file description
        fcntl.flock(other.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
        with pytest.raises(IndexStoreError, match="another process is writing"):
            _commit(index, "two")
        fcntl.flock(other.fileno(), fcntl.LOCK_UN)
    assert (index.current() / "data.txt").read_text() == "one"
    assert _commit(index, "two") == "gen-000002"


def test_leftovers_of_a_crashed_write_are_cleaned_up(tmp_path):
    index = IndexDir(tmp_path / "index")
    _commit(index, "one")
    (index.path / "gen-000002.tmp").mkdir()  # a writer killed half-way
    (index.path / "gen-000002.tmp" / "store.sqlite").write_text("partial")
    assert _commit(index, "two") == "gen-000002"
    assert _entries(index) == ["CURRENT", "LOCK", "gen-000001", "gen-000002"]
    assert (index.current() / "data.txt").read_text() == "two"


def test_a_first_write_that_crashed_does_not_block_the_folder(tmp_path):
    folder = tmp_path / "index"
    folder.mkdir()
    (folder / "LOCK").touch()
    (folder / "gen-000001.tmp").mkdir()
    assert _commit(IndexDir(folder)) == "gen-000001"
    assert _entries(IndexDir(folder)) == ["CURRENT", "LOCK", "gen-000001"]


def test_manifest_must_be_json(tmp_path):
    index = IndexDir(tmp_path / "index")
    with pytest.raises(IndexStoreError, match="not JSON"), index.write() as new:
        new.write_manifest({"bad": object()})
    assert not index.exists()
