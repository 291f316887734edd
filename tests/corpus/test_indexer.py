"""Indexer: every format into a generation, incremental re-indexing, failures, atomicity."""

from __future__ import annotations

import dataclasses
import json
import os
from pathlib import Path

import pytest

from veracity.corpus.chunker import Chunker, count_tokens
from veracity.corpus.index_dir import IndexDir
from veracity.corpus.indexer import Failure, Indexer
from veracity.corpus.loaders import LOADERS
from veracity.errors import DocumentError, InputError, OptionError

pytestmark = pytest.mark.unit


@pytest.fixture
def docs(tmp_path, make_pdf) -> Path:
    root = tmp_path / "docs"
    (root / "sub").mkdir(parents=True)
    (root / "a.txt").write_text("Alpha is the first letter. It comes before beta.")
    (root / "sub" / "b.md").write_text("# Bees\n\nBees make honey.\n\n## Hives\n\nHives hold bees.")
    (root / "c.html").write_text("<title>Cats</title><h1>Cats</h1><p>Cats purr &amp; sleep.</p>")
    rows = [{"id": "row-1", "text": "Row one text."}, {"id": "row-2", "text": "Row two text."}]
    (root / "d.jsonl").write_text("\n".join(json.dumps(row) for row in rows))
    make_pdf(root / "e.pdf", ["Eagles fly high.", "Eagles nest on cliffs."], title="Eagles")
    (root / "ignored.png").write_bytes(b"\x89PNG\x00")
    return root


@pytest.fixture
def loads(monkeypatch) -> list[str]:
    """Names of the files the loaders parse (every registered loader is wrapped)."""
    calls: list[str] = []
    for extension, loader in list(LOADERS.items()):

        def counting(source, _load=loader.load):
            calls.append(source.path.name)
            return _load(source)

        monkeypatch.setitem(LOADERS, extension, dataclasses.replace(loader, load=counting))
    return calls


def _chunks(index: Path):
    with IndexDir(index).store() as store:
        return list(store)


def _doc_ids(index: Path) -> set[str]:
    with IndexDir(index).store() as store:
        return {document.id for document in store.documents()}


def test_indexes_every_format_into_a_new_generation(tmp_path, docs, make_builder):
    builder = make_builder()
    index = tmp_path / "index"
    report = Indexer(builders=[builder]).run([docs], index)
    assert (report.files_seen, report.files_indexed, report.files_failed) == (5, 5, 0)
    assert (report.files_unchanged, report.files_removed, report.files_kept) == (0, 0, 0)
    assert report.generation == "gen-000001"
    assert report.failures == ()
    assert _doc_ids(index) == {"a.txt", "sub/b.md", "c.html", "row-1", "row-2", "e.pdf"}
    assert report.documents == 6
    chunks = _chunks(index)
    assert report.chunks == len(chunks)
    with IndexDir(index).store() as store:
        assert store.chunks(list(range(len(store)))) == chunks  # ordinals 0..N-1
    assert {c.page for c in chunks if c.doc_id == "e.pdf"} == {1}
    assert [c.page_end for c in chunks if c.doc_id == "e.pdf"][-1] == 2
    assert ("Bees", "Hives") in {c.section for c in chunks}
    ((count, directory, previous),) = builder.calls
    assert (count, directory.name, previous) == (len(chunks), "gen-000001.tmp", None)
    manifest = IndexDir(index).manifest()
    assert manifest["builders"] == {"fake": {"chunks": len(chunks), "file": "fake.json"}}
    assert report.builders == manifest["builders"]
    assert manifest["counts"] == {"files": 5, "documents": 6, "chunks": len(chunks)}
    assert manifest["chunker"]["size"] == 160
    assert json.loads((IndexDir(index).current() / "fake.json").read_text()) == [
        c.text for c in chunks
    ]


def test_unchanged_files_are_not_read_again(tmp_path, docs, loads, make_builder):
    index = tmp_path / "index"
    Indexer().run([docs], index)
    before = _chunks(index)
    loads.clear()
    builder = make_builder()
    report = Indexer(builders=[builder]).run([docs], index)
    assert loads == []
    assert (report.files_unchanged, report.files_indexed, report.generation) == (5, 0, "gen-000002")
    assert _chunks(index) == before
    assert builder.calls[0][2] == index / "gen-000001"


def test_a_changed_file_is_read_again_and_its_chunks_replaced(tmp_path, docs, loads):
    index = tmp_path / "index"
    Indexer().run([docs], index)
    (docs / "a.txt").write_text("Aardvarks dig burrows at night.")
    loads.clear()
    report = Indexer().run([docs], index)
    assert loads == ["a.txt"]
    assert (report.files_indexed, report.files_unchanged) == (1, 4)
    texts = [c.text for c in _chunks(index) if c.doc_id == "a.txt"]
    assert texts == ["Aardvarks dig burrows at night."]
    assert not any("Alpha" in c.text for c in _chunks(index))


def test_a_removed_file_is_dropped(tmp_path, docs):
    index = tmp_path / "index"
    Indexer().run([docs], index)
    (docs / "sub" / "b.md").unlink()
    report = Indexer().run([docs], index)
    assert (report.files_removed, report.files_unchanged, report.files_seen) == (1, 4, 4)
    assert "sub/b.md" not in _doc_ids(index)
    assert all(c.doc_id != "sub/b.md" for c in _chunks(index))


def test_files_from_other_roots_stay(tmp_path, docs, loads):
    index = tmp_path / "index"
    Indexer().run([docs], index)
    more = tmp_path / "more"
    more.mkdir()
    (more / "z.txt").write_text("Zebras have stripes.")
    loads.clear()
    report = Indexer().run([more], index)
    assert loads == ["z.txt"]
    assert (report.files_indexed, report.files_kept, report.files_removed) == (1, 5, 0)
    assert "z.txt" in _doc_ids(index)
    assert "a.txt" in _doc_ids(index)
    chunks = _chunks(index)
    assert len({c.id for c in chunks}) == len(chunks) == report.chunks


def test_moving_the_root_renames_ids_and_rereads_path_named_files(tmp_path, docs, loads):
    index = tmp_path / "index"
    Indexer().run([docs], index)
    loads.clear()
    Indexer().run([tmp_path / "docs" / ".." / "docs" / "sub"], index)
    assert loads == ["b.md"]  # the id becomes "b.md" (relative to the new root)
    assert "b.md" in _doc_ids(index)
    assert "sub/b.md" not in _doc_ids(index)


def test_new_chunker_settings_rechunk_without_rereading(tmp_path, docs, loads):
    index = tmp_path / "index"
    Indexer().run([docs], index)
    loads.clear()
    report = Indexer(chunker=Chunker(size=16, overlap=2)).run([docs], index)
    assert loads == []
    assert report.files_unchanged == 5
    assert IndexDir(index).manifest()["chunker"]["size"] == 16
    assert all(count_tokens(c.text) <= 16 for c in _chunks(index))


def test_failing_files_are_skipped_and_reported(tmp_path, docs):
    (docs / "broken.txt").write_bytes(b"\x00\x01binary")
    (docs / "d.jsonl").write_text('{"id": "row-1", "text": "ok"}\n{"id": "row-2"}\n')
    report = Indexer().run([docs], tmp_path / "index")
    assert (report.files_seen, report.files_indexed, report.files_failed) == (6, 5, 1)
    line, binary = sorted(report.failures, key=lambda failure: failure.reason)
    assert isinstance(binary, tuple)
    assert isinstance(binary, Failure)
    assert binary[:2] == (str(docs / "broken.txt"), "binary")
    assert line[:2] == (f"{docs / 'd.jsonl'}:2", "bad_line")
    assert "'text'" in line.message
    assert "row-1" in _doc_ids(tmp_path / "index")


def test_strict_mode_aborts_on_the_first_failure_and_writes_nothing(tmp_path, docs):
    index = tmp_path / "index"
    Indexer().run([docs], index)
    before = sorted(p.name for p in index.iterdir())
    (docs / "a.txt").write_text("Changed.")
    (docs / "broken.txt").write_bytes(b"\x00\x01binary")
    with pytest.raises(DocumentError) as caught:
        Indexer(strict=True).run([docs], index)
    assert caught.value.reason == "binary"
    assert sorted(p.name for p in index.iterdir()) == before
    assert IndexDir(index).current().name == "gen-000001"
    assert "Alpha" in " ".join(c.text for c in _chunks(index))
    fresh = tmp_path / "fresh"
    with pytest.raises(DocumentError):
        Indexer(strict=True).run([docs], fresh)
    assert not IndexDir(fresh).exists()


def test_a_builder_crash_leaves_the_previous_generation_live(tmp_path, docs, make_builder):
    index = tmp_path / "index"
    Indexer(builders=[make_builder()]).run([docs], index)
    before = _chunks(index)
    (docs / "a.txt").write_text("Something new.")
    crashing = make_builder("second", fail=True)
    with pytest.raises(RuntimeError, match="crashed"):
        Indexer(builders=[make_builder(), crashing]).run([docs], index)
    assert crashing.calls  # it ran, and wrote a file, before failing
    assert sorted(p.name for p in index.iterdir()) == ["CURRENT", "LOCK", "gen-000001"]
    assert IndexDir(index).current().name == "gen-000001"
    assert _chunks(index) == before
    report = Indexer().run([docs], index)  # and the next run works
    assert report.generation == "gen-000002"


def test_a_builder_crash_on_the_first_run_leaves_no_index(tmp_path, docs, make_builder):
    index = tmp_path / "index"
    with pytest.raises(RuntimeError):
        Indexer(builders=[make_builder(fail=True)]).run([docs], index)
    assert not IndexDir(index).exists()
    assert [p.name for p in index.iterdir()] == ["LOCK"]


def test_the_same_document_id_from_two_folders_fails_the_second(tmp_path):
    for folder in ("one", "two"):
        (tmp_path / folder).mkdir()
        (tmp_path / folder / "same.txt").write_text(f"From folder {folder}.")
    report = Indexer().run([tmp_path / "one", tmp_path / "two"], tmp_path / "index")
    assert (report.files_indexed, report.files_failed) == (1, 1)
    (failure,) = report.failures
    assert failure.reason == "duplicate_id"
    assert str(tmp_path / "one" / "same.txt") in failure.message


def test_nothing_to_index_is_an_error(tmp_path):
    empty = tmp_path / "empty"
    empty.mkdir()
    with pytest.raises(InputError, match="found no files to index"):
        Indexer().run([empty], tmp_path / "index")
    (empty / "bad.txt").write_bytes(b"\x00")
    with pytest.raises(InputError, match=r"none of the 1 file\(s\).*binary"):
        Indexer().run([empty], tmp_path / "index")
    with pytest.raises(InputError, match="no paths to index"):
        Indexer().run([], tmp_path / "index")
    with pytest.raises(InputError, match=r"nothing could be indexed.*does not exist"):
        Indexer().run([tmp_path / "missing"], tmp_path / "index")
    assert not IndexDir(tmp_path / "index").exists()


def test_a_single_path_and_progress(tmp_path, docs, make_builder):
    seen: list[tuple[str, int, int]] = []
    report = Indexer(builders=[make_builder()], progress=lambda *a: seen.append(a)).run(
        str(docs / "a.txt"), tmp_path / "index"
    )
    assert report.files_indexed == 1
    assert _doc_ids(tmp_path / "index") == {"a.txt"}
    assert seen == [("load", 1, 1), ("build", 1, 1)]


@pytest.mark.parametrize(
    ("options", "name"),
    [
        ({"builders": [object()]}, "builders"),
        ({"builders": ["bm25"]}, "builders"),
        ({"strict": "yes"}, "strict"),
        ({"progress": 3}, "progress"),
        ({"chunker": {"size": 100}}, "chunker"),
    ],
)
def test_options_are_validated(options, name):
    with pytest.raises(OptionError) as caught:
        Indexer(**options)
    assert caught.value.name == name


def test_builder_names_must_be_unique(make_builder):
    with pytest.raises(OptionError, match="each used once"):
        Indexer(builders=[make_builder("x"), make_builder("x")])


def test_the_index_folder_inside_a_root_is_never_indexed(tmp_path, docs):
    index = docs / "index"
    Indexer().run([docs], index)
    (IndexDir(index).current() / "stray.txt").write_text("Not a document.")
    report = Indexer().run([docs], index)
    assert report.files_seen == 5
    assert "index/gen-000001/stray.txt" not in _doc_ids(index)


def test_public_api():
    import veracity.corpus as corpus

    assert set(corpus.__all__) >= {"Indexer", "IndexDir", "ChunkStore", "Chunker", "load_file"}
    assert all(hasattr(corpus, name) for name in corpus.__all__)


def test_a_fifo_in_a_folder_is_reported_and_the_run_finishes(tmp_path, docs, bounded):
    os.mkfifo(docs / "pipe.txt")
    os.mkfifo(docs / "sub" / "pipe.md")
    index = tmp_path / "index"
    report = bounded(20, lambda: Indexer().run([docs], index))
    assert (report.files_indexed, report.files_failed) == (5, 2)
    assert sorted((f.path, f.reason) for f in report.failures) == [
        (str(docs / "pipe.txt"), "special_file"),
        (str(docs / "sub" / "pipe.md"), "special_file"),
    ]
    assert sorted(p.name for p in index.iterdir()) == ["CURRENT", "LOCK", "gen-000001"]
    again = bounded(20, lambda: Indexer().run([docs / "pipe.txt", docs / "a.txt"], index))
    assert [f.reason for f in again.failures] == ["special_file"]


def _unlistable(monkeypatch, folder: Path) -> None:
    """Make ``folder`` fail to list, as it does for a user without read permission (we may
    run as root, whom chmod 000 does not stop)."""
    real_scandir = os.scandir

    def scandir(path):
        if Path(path) == folder:
            raise PermissionError(13, "Permission denied", str(path))
        return real_scandir(path)

    monkeypatch.setattr(os, "scandir", scandir)


def test_a_missing_path_beside_good_ones_is_reported_and_skipped(tmp_path, docs):
    missing = tmp_path / "no-such-folder"
    report = Indexer().run([missing, docs, tmp_path / "gone.txt"], tmp_path / "index")
    assert (report.files_indexed, report.files_failed, report.paths_failed) == (5, 0, 2)
    assert [(f.path, f.reason) for f in report.failures] == [
        (str(missing), "missing"),
        (str(tmp_path / "gone.txt"), "missing"),
    ]
    assert "does not exist" in report.failures[0].message
    assert "a.txt" in _doc_ids(tmp_path / "index")


def test_a_folder_that_cannot_be_listed_is_skipped_and_its_old_files_kept(
    tmp_path, docs, monkeypatch
):
    index = tmp_path / "index"
    Indexer().run([docs], index)
    before = {c.text for c in _chunks(index) if c.doc_id == "sub/b.md"}
    _unlistable(monkeypatch, docs / "sub")
    (docs / "a.txt").write_text("Alpha changed.")
    report = Indexer().run([docs], index)
    assert [(f.path, f.reason) for f in report.failures] == [(str(docs / "sub"), "unreadable")]
    assert "cannot be listed" in report.failures[0].message
    assert (report.files_indexed, report.files_removed, report.files_kept) == (1, 0, 1)
    assert report.paths_failed == 1
    assert {c.text for c in _chunks(index) if c.doc_id == "sub/b.md"} == before
    assert "Alpha changed." in {c.text for c in _chunks(index)}


def test_a_given_folder_that_cannot_be_listed_beside_a_good_file(tmp_path, docs, monkeypatch):
    _unlistable(monkeypatch, docs / "sub")
    report = Indexer().run([docs / "sub", docs / "a.txt"], tmp_path / "index")
    assert [f.reason for f in report.failures] == ["unreadable"]
    assert _doc_ids(tmp_path / "index") == {"a.txt"}


def test_strict_mode_stops_at_a_missing_path_and_writes_nothing(tmp_path, docs, monkeypatch):
    index = tmp_path / "index"
    with pytest.raises(DocumentError) as caught:
        Indexer(strict=True).run([docs, tmp_path / "missing"], index)
    assert caught.value.reason == "missing"
    assert not index.exists()
    Indexer().run([docs], index)
    _unlistable(monkeypatch, docs / "sub")
    with pytest.raises(DocumentError, match="cannot be listed"):
        Indexer(strict=True).run([docs], index)
    assert sorted(p.name for p in index.iterdir()) == ["CURRENT", "LOCK", "gen-000001"]


def test_bad_jsonl_lines_are_reported_again_while_the_file_is_unchanged(tmp_path, docs, loads):
    rows = docs / "d.jsonl"
    rows.write_text('{"id": "row-1", "text": "ok"}\nnot json\n{"id": "row-3"}\n')
    index = tmp_path / "index"
    first = Indexer().run([docs], index)
    loads.clear()
    second = Indexer().run([docs], index)
    assert "d.jsonl" not in loads  # unchanged: not read again ...
    expected = [(f"{rows}:2", "bad_line"), (f"{rows}:3", "bad_line")]
    for report in (first, second):  # ... but its bad lines are still reported
        assert [(f.path, f.reason) for f in report.failures] == expected
        assert (report.lines_failed, report.files_failed) == (2, 0)
    assert second.failures == first.failures
    assert second.files_unchanged == 5
    rows.write_text('{"id": "row-1", "text": "ok"}\n')
    third = Indexer().run([docs], index)
    assert (third.failures, third.lines_failed) == ((), 0)
    assert Indexer().run([docs], index).failures == ()


def test_strict_mode_stops_at_a_stored_bad_line(tmp_path, docs):
    (docs / "d.jsonl").write_text('{"id": "row-1", "text": "ok"}\nnot json\n')
    index = tmp_path / "index"
    Indexer().run([docs], index)
    with pytest.raises(DocumentError) as caught:
        Indexer(strict=True).run([docs], index)
    assert (caught.value.path, caught.value.reason) == (f"{docs / 'd.jsonl'}:2", "bad_line")


def test_a_duplicate_id_of_a_line_counts_as_a_failed_line(tmp_path, docs):
    (docs / "more.jsonl").write_text('{"id": "row-1", "text": "again"}\n{"id": "n", "text": "x"}\n')
    report = Indexer().run([docs], tmp_path / "index")
    assert [f.reason for f in report.failures] == ["duplicate_id"]
    assert (report.files_failed, report.lines_failed, report.files_indexed) == (0, 1, 6)


@pytest.mark.parametrize(
    ("name", "broken"),
    [("a.txt", b"\x00\x01\x02 binary now"), ("e.pdf", b"%PDF-1.4 truncated"), ("b.md", b"")],
    ids=["binary", "corrupt-pdf", "emptied"],
)
def test_a_file_that_breaks_keeps_its_previous_chunks(tmp_path, docs, name, broken):
    index = tmp_path / "index"
    Indexer().run([docs], index)
    path = docs / name if name != "b.md" else docs / "sub" / "b.md"
    doc_id = path.relative_to(docs).as_posix()
    before = [c.text for c in _chunks(index) if c.doc_id == doc_id]
    assert before
    path.write_bytes(broken)
    report = Indexer().run([docs], index)
    (failure,) = report.failures
    assert failure.path == str(path)
    assert "the version indexed before is kept" in failure.message
    assert (report.files_failed, report.files_indexed, report.files_unchanged) == (1, 0, 4)
    assert [c.text for c in _chunks(index) if c.doc_id == doc_id] == before
    assert IndexDir(index).current().name == "gen-000002"
    again = Indexer().run([docs], index)  # still kept, still reported
    assert [c.text for c in _chunks(index) if c.doc_id == doc_id] == before
    assert "kept" in again.failures[0].message


def test_a_file_that_becomes_unreadable_keeps_its_previous_chunks(tmp_path, docs, monkeypatch):
    index = tmp_path / "index"
    Indexer().run([docs], index)
    secret = docs / "a.txt"
    real_open = Path.open

    def denied(self, *args, **kwargs):  # as chmod 000 would for a user who is not root
        if self == secret:
            raise PermissionError(13, "Permission denied", str(self))
        return real_open(self, *args, **kwargs)

    monkeypatch.setattr(Path, "open", denied)
    report = Indexer().run([docs], index)
    assert [(f.reason, "kept" in f.message) for f in report.failures] == [("unreadable", True)]
    assert "a.txt" in _doc_ids(index)
    with pytest.raises(DocumentError, match="permission denied"):
        Indexer(strict=True).run([docs], index)


def test_a_new_file_that_cannot_be_read_has_nothing_to_keep(tmp_path, docs):
    (docs / "new.txt").write_bytes(b"\x00")
    report = Indexer().run([docs], tmp_path / "index")
    (failure,) = report.failures
    assert "kept" not in failure.message


class _ReportingBuilder:
    """A builder that reports two steps of its own progress, as DenseBuilder does."""

    name = "slow"
    reports_progress = True

    def build(self, chunks, directory, previous, progress=None):
        assert progress is not None
        progress(1, 2)
        progress(2, 2)
        return {"chunks": len(chunks)}


def test_a_builder_reports_its_own_progress_through_the_indexer(tmp_path, docs, make_builder):
    seen: list[tuple[str, int, int]] = []
    Indexer(builders=[make_builder(), _ReportingBuilder()], progress=lambda *a: seen.append(a)).run(
        docs / "a.txt", tmp_path / "index"
    )
    assert seen == [
        ("load", 1, 1),
        ("build", 1, 2),
        ("slow", 1, 2),
        ("slow", 2, 2),
        ("build", 2, 2),
    ]


class _OnesEmbedder:
    """A fake embedder: the same unit vector for every text."""

    model_id = "ones-4"
    dimension = 4
    max_tokens = 64

    def load(self):
        return self

    def run(self, texts):
        import numpy as np

        from veracity.models.embedding import Embeddings

        return Embeddings(np.full((len(texts), 4), 0.5, dtype=np.float32), self.model_id, ())


def test_dense_vectors_are_reported_per_batch_while_indexing(tmp_path):
    from veracity.retrieve.dense import DenseBuilder

    docs = tmp_path / "docs"
    docs.mkdir()
    rows = [json.dumps({"id": f"r{i}", "text": f"Row {i} is about bees."}) for i in range(300)]
    (docs / "rows.jsonl").write_text("\n".join(rows))
    seen: list[tuple[str, int, int]] = []
    Indexer(builders=[DenseBuilder(_OnesEmbedder())], progress=lambda *a: seen.append(a)).run(
        docs, tmp_path / "index"
    )
    assert [event for event in seen if event[0] == "dense"] == [
        ("dense", 256, 300),
        ("dense", 300, 300),
    ]
