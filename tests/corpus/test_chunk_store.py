"""ChunkStore: SQLite round trips, ordinal lookups in one query, read-only readers."""

from __future__ import annotations

import json
import sqlite3

import pytest

from veracity.corpus.base import ChunkLookup
from veracity.corpus.chunker import Chunker
from veracity.corpus.store import ChunkStore, FileInfo, LineFailure
from veracity.errors import IndexStoreError
from veracity.types import Chunk, Document, Page, Section

pytestmark = pytest.mark.unit

DOCS = [
    Document(
        id="guide.md",
        text="# Guide\n\nBees make honey. Wasps do not.\n\n## Hives\n\nA hive has many bees.",
        title="Guide",
        source="/data/guide.md",
        sections=(Section(0, 72, ("Guide",)), Section(41, 72, ("Guide", "Hives"))),
    ),
    Document(
        id="report.pdf",
        text="Page one text.\n\nPage two text.",
        title="Report",
        source="/data/report.pdf",
        pages=(Page(1, 0, 14), Page(2, 16, 30)),
    ),
    Document(
        id="row-1",
        text="Café — 東京 is fine.",
        title="Row",
        source="/data/rows.jsonl:1",
        metadata={"year": 2021, "score": 0.5, "ok": True, "none": None, "tag": "x"},
    ),
]


@pytest.fixture
def filled(tmp_path):
    path = tmp_path / "store.sqlite"
    chunker = Chunker(size=16, overlap=4)
    expected: list[Chunk] = []
    with ChunkStore.create(path) as store:
        for document in DOCS:
            store.add_document(document)
            chunks = chunker.run(document)
            store.add_chunks(chunks)
            expected += chunks
            store.add_file(FileInfo(document.source, "ab" * 32, len(document.text), (document.id,)))
        store.set_meta("note", "hello")
        store.commit()
    return path, expected


def test_round_trip_in_ordinal_order(filled):
    path, expected = filled
    with ChunkStore.open(path) as store:
        assert isinstance(store, ChunkLookup)
        assert len(store) == len(expected) > 3
        assert list(store) == expected
        assert store.chunks([3, 0, 3, len(expected) - 1]) == [
            expected[3],
            expected[0],
            expected[3],
            expected[-1],
        ]
        assert store.chunks([]) == []
        assert store.meta()["note"] == "hello"


def test_documents_and_files_round_trip(filled):
    path, _ = filled
    with ChunkStore.open(path) as store:
        for document in DOCS:
            assert store.document(document.id) == document
        assert [d.id for d in store.documents()] == sorted(d.id for d in DOCS)
        assert [f.path for f in store.files()] == sorted(d.source for d in DOCS)
        assert store.files()[0].doc_ids == ("guide.md",)
        assert [c.index for c in store.document_chunks("guide.md")] == list(
            range(len(store.document_chunks("guide.md")))
        )
        with pytest.raises(KeyError, match="nope"):
            store.document("nope")


def test_ordinals_out_of_range_raise(filled):
    path, expected = filled
    with ChunkStore.open(path) as store:
        for bad in (len(expected), -1):
            with pytest.raises(IndexError, match=f"{bad} is out of range 0..{len(expected) - 1}"):
                store.chunks([0, bad])


def test_lookups_are_one_query(filled):
    path, _ = filled
    with ChunkStore.open(path) as store:
        statements: list[str] = []
        store._db.set_trace_callback(statements.append)
        store.chunks(list(range(len(store)))[::-1])
        assert len(statements) == 1


def test_read_only_store_refuses_writes(filled):
    path, _ = filled
    with ChunkStore.open(path) as store:
        with pytest.raises(IndexStoreError, match="read-only"):
            store.add_chunks([])
        with pytest.raises(sqlite3.OperationalError, match="readonly"):
            store._db.execute("DELETE FROM chunks")


def test_stored_as_plain_sqlite_and_json(filled):
    path, _ = filled
    db = sqlite3.connect(path)
    tables = {row[0] for row in db.execute("SELECT name FROM sqlite_master WHERE type='table'")}
    assert tables == {"meta", "files", "documents", "chunks", "line_failures"}
    ordinals = [row[0] for row in db.execute("SELECT ordinal FROM chunks ORDER BY ordinal")]
    assert ordinals == list(range(len(ordinals)))
    sections = db.execute("SELECT sections FROM documents WHERE id='guide.md'").fetchone()[0]
    assert json.loads(sections)[1] == [41, 72, ["Guide", "Hives"]]
    db.close()


def test_opening_what_is_not_a_store_fails_clearly(tmp_path):
    with pytest.raises(IndexStoreError, match="no chunk store"):
        ChunkStore.open(tmp_path / "missing.sqlite")
    junk = tmp_path / "junk.sqlite"
    junk.write_bytes(b"definitely not sqlite" * 100)
    with pytest.raises(IndexStoreError, match="not a veracity chunk store"):
        ChunkStore.open(junk)
    with ChunkStore.create(tmp_path / "new.sqlite"):
        pass
    with pytest.raises(IndexStoreError, match="exists"):
        ChunkStore.create(tmp_path / "new.sqlite")


def test_a_failed_batch_adds_nothing(tmp_path):
    text = " ".join(f"Sentence {i} has six tokens." for i in range(9))
    chunks = Chunker(size=16, overlap=0).run(Document(id="d", text=text))
    assert len(chunks) == 5
    with ChunkStore.create(tmp_path / "s.sqlite") as store:
        store.add_chunks(chunks[:1])
        with pytest.raises(sqlite3.IntegrityError):
            store.add_chunks([chunks[1], chunks[0]])  # chunks[0] is already there
        assert len(store) == 1
        store.add_chunks(chunks[1:3])
        store.commit()
        assert [c.id for c in store] == [c.id for c in chunks[:3]]
        assert store.chunks([2])[0] == chunks[2]


def test_a_file_keeps_its_failed_lines(tmp_path):
    path = tmp_path / "store.sqlite"
    bad = (
        LineFailure("/d/rows.jsonl:2", "bad_line", "is not JSON"),
        LineFailure("/d/rows.jsonl:5", "duplicate_id", "repeats the id 'a'"),
    )
    with ChunkStore.create(path) as store:
        store.add_document(DOCS[2])
        store.add_file(FileInfo("/d/rows.jsonl", "cd" * 32, 10, ("row-1",), bad))
        store.add_file(FileInfo("/d/other.txt", "ef" * 32, 3, ("other",)))
        store.commit()
    with ChunkStore.open(path) as store:
        rows, other = sorted(store.files(), key=lambda info: info.path, reverse=True)
    assert rows.failures == bad
    assert other.failures == ()


def test_a_store_without_the_line_failures_table_still_opens(tmp_path):
    path = tmp_path / "store.sqlite"
    with ChunkStore.create(path) as store:
        store.add_file(FileInfo("/d/a.txt", "ab" * 32, 3, ("a.txt",)))
        store.commit()
    db = sqlite3.connect(path)
    db.execute("DROP TABLE line_failures")  # as written by veracity before it kept them
    db.commit()
    db.close()
    with ChunkStore.open(path) as store:
        assert store.files() == [FileInfo("/d/a.txt", "ab" * 32, 3, ("a.txt",))]
