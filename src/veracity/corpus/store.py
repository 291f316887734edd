"""The chunk store: documents and chunks of one index generation in a SQLite file.

Plain SQLite (no pickle); tuples, spans and metadata are stored as JSON. Chunks are addressed
by ``ordinal``, contiguous from 0, the row order of every retrieval array of the generation.

>>> import tempfile, pathlib
>>> from veracity.types import Chunk, Document
>>> path = pathlib.Path(tempfile.mkdtemp()) / "store.sqlite"
>>> with ChunkStore.create(path) as store:
...     store.add_document(Document(id="a", text="Hi."))
...     store.add_chunks([Chunk(id="a#0", doc_id="a", index=0, text="Hi.", start=0, end=3)])
...     store.commit()
>>> with ChunkStore.open(path) as store:
...     len(store), store.chunks([0])[0].text
(1, 'Hi.')
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType
from typing import Any

from veracity.errors import IndexStoreError
from veracity.types import Chunk, Document, Page, Section

__all__ = ["ChunkStore", "FileInfo", "LineFailure"]

SCHEMA_VERSION = "1"
_SCHEMA = """
CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE files (
    path TEXT PRIMARY KEY, sha256 TEXT NOT NULL, size INTEGER NOT NULL, doc_ids TEXT NOT NULL
);
CREATE TABLE documents (
    id TEXT PRIMARY KEY, title TEXT NOT NULL, source TEXT NOT NULL, text TEXT NOT NULL,
    sections TEXT NOT NULL, pages TEXT NOT NULL, metadata TEXT NOT NULL
);
CREATE TABLE chunks (
    ordinal INTEGER PRIMARY KEY, id TEXT NOT NULL UNIQUE, doc_id TEXT NOT NULL,
    idx INTEGER NOT NULL, start INTEGER NOT NULL, "end" INTEGER NOT NULL, text TEXT NOT NULL,
    title TEXT NOT NULL, section TEXT NOT NULL, page INTEGER, page_end INTEGER,
    source TEXT NOT NULL
);
CREATE INDEX chunks_by_doc ON chunks (doc_id, idx);
CREATE TABLE line_failures (
    file TEXT NOT NULL, path TEXT NOT NULL, reason TEXT NOT NULL, message TEXT NOT NULL
);
"""
_CHUNK_COLUMNS = (
    'ordinal, id, doc_id, idx, start, "end", text, title, section, page, page_end, source'
)


@dataclass(frozen=True)
class LineFailure:
    """A part of an indexed file that failed (a JSONL line): where (``file.jsonl:12``), the
    reason code and the message without the path, as in :class:`~veracity.errors.DocumentError`.
    """

    path: str
    reason: str
    message: str


@dataclass(frozen=True)
class FileInfo:
    """A file of the index: absolute path, content hash, size in bytes, its documents' ids,
    and the lines of it that failed when it was read (reported again while it is unchanged).
    """

    path: str
    sha256: str
    size: int
    doc_ids: tuple[str, ...]
    failures: tuple[LineFailure, ...] = ()


def _chunk(row: Sequence[Any]) -> Chunk:
    _, chunk_id, doc_id, idx, start, end, text, title, section, page, page_end, source = row
    return Chunk(
        id=chunk_id,
        doc_id=doc_id,
        index=idx,
        text=text,
        start=start,
        end=end,
        title=title,
        section=tuple(json.loads(section)),
        page=page,
        page_end=page_end,
        source=source,
    )


def _document(row: Sequence[Any]) -> Document:
    doc_id, title, source, text, sections, pages, metadata = row
    return Document(
        id=doc_id,
        text=text,
        title=title,
        source=source,
        sections=tuple(Section(s, e, tuple(p)) for s, e, p in json.loads(sections)),
        pages=tuple(Page(n, s, e) for n, s, e in json.loads(pages)),
        metadata=json.loads(metadata),
    )


class ChunkStore:
    """Documents and chunks in one SQLite file; a :class:`~veracity.corpus.base.ChunkLookup`.

    Open an existing store read-only with :meth:`open` (safe for many concurrent readers), or
    make a new one with :meth:`create` and fill it with the ``add_*`` methods and
    :meth:`commit`. Close it with :meth:`close` or use it as a context manager.
    """

    def __init__(self, connection: sqlite3.Connection, path: Path, *, writable: bool) -> None:
        self._db = connection
        self.path = path
        self.writable = writable
        self._count = self._next_ordinal()

    def _next_ordinal(self) -> int:
        # ordinals are contiguous from 0, so MAX + 1 is the count (an index lookup, not a scan)
        return int(
            self._db.execute("SELECT COALESCE(MAX(ordinal) + 1, 0) FROM chunks").fetchone()[0]
        )

    @classmethod
    def open(cls, path: str | Path) -> ChunkStore:
        """Open the store at ``path`` read-only (SQLite ``mode=ro``)."""
        path = Path(path)
        if not path.is_file():
            raise IndexStoreError(f"no chunk store at {path}: the index is incomplete; re-index")
        uri = f"{path.resolve().as_uri()}?mode=ro"
        connection = sqlite3.connect(uri, uri=True, check_same_thread=False)
        try:
            version = connection.execute("SELECT value FROM meta WHERE key = 'schema'").fetchone()
            if version is None or version[0] != SCHEMA_VERSION:
                raise IndexStoreError(
                    f"{path} has chunk store schema {version and version[0]!r}, but this "
                    f"veracity reads schema {SCHEMA_VERSION!r}; re-index into a new folder"
                )
            return cls(connection, path, writable=False)
        except sqlite3.DatabaseError as exc:
            connection.close()
            raise IndexStoreError(
                f"{path} is not a veracity chunk store ({exc}); it may be damaged: re-index"
            ) from exc
        except BaseException:
            connection.close()
            raise

    @classmethod
    def create(cls, path: str | Path) -> ChunkStore:
        """Create a new, empty store at ``path`` (which must not exist yet)."""
        path = Path(path)
        if path.exists():
            raise IndexStoreError(f"cannot create a chunk store at {path}: the file exists")
        connection = sqlite3.connect(path)
        connection.executescript(_SCHEMA)
        connection.execute("INSERT INTO meta VALUES ('schema', ?)", (SCHEMA_VERSION,))
        connection.commit()
        return cls(connection, path, writable=True)

    # --- ChunkLookup --------------------------------------------------------------------------
    def __len__(self) -> int:
        return int(self._count)

    def chunks(self, ordinals: Sequence[int]) -> list[Chunk]:
        """The chunks at ``ordinals``, in the order asked (repeats allowed), in one query."""
        wanted = [int(o) for o in ordinals]
        for ordinal in wanted:
            if not 0 <= ordinal < self._count:
                raise IndexError(f"chunk ordinal {ordinal} is out of range 0..{self._count - 1}")
        rows = self._db.execute(
            f"SELECT {_CHUNK_COLUMNS} FROM chunks "
            "WHERE ordinal IN (SELECT value FROM json_each(?))",
            (json.dumps(sorted(set(wanted))),),
        )
        found = {row[0]: _chunk(row) for row in rows}
        return [found[ordinal] for ordinal in wanted]

    def __iter__(self) -> Iterator[Chunk]:
        cursor = self._db.execute(f"SELECT {_CHUNK_COLUMNS} FROM chunks ORDER BY ordinal")
        while batch := cursor.fetchmany(512):
            yield from (_chunk(row) for row in batch)

    # --- documents and files ------------------------------------------------------------------
    def document(self, doc_id: str) -> Document:
        """The document ``doc_id``; raises ``KeyError`` when the index has none by that id."""
        row = self._db.execute(
            "SELECT id, title, source, text, sections, pages, metadata FROM documents WHERE id = ?",
            (doc_id,),
        ).fetchone()
        if row is None:
            raise KeyError(f"no document {doc_id!r} in {self.path}")
        return _document(row)

    def documents(self) -> Iterator[Document]:
        """Every document, ordered by id."""
        cursor = self._db.execute(
            "SELECT id, title, source, text, sections, pages, metadata FROM documents ORDER BY id"
        )
        while batch := cursor.fetchmany(64):
            yield from (_document(row) for row in batch)

    def has_document(self, doc_id: str) -> bool:
        row = self._db.execute("SELECT 1 FROM documents WHERE id = ?", (doc_id,)).fetchone()
        return row is not None

    def document_chunks(self, doc_id: str) -> list[Chunk]:
        """The chunks of one document, by their index within it."""
        rows = self._db.execute(
            f"SELECT {_CHUNK_COLUMNS} FROM chunks WHERE doc_id = ? ORDER BY idx", (doc_id,)
        )
        return [_chunk(row) for row in rows]

    def files(self) -> list[FileInfo]:
        """Every indexed file, ordered by path, with its failed lines."""
        failures: dict[str, list[LineFailure]] = {}
        if self._has_table("line_failures"):  # older stores of schema 1 have none
            for file, *failure in self._db.execute(
                "SELECT file, path, reason, message FROM line_failures ORDER BY rowid"
            ):
                failures.setdefault(file, []).append(LineFailure(*failure))
        rows = self._db.execute("SELECT path, sha256, size, doc_ids FROM files ORDER BY path")
        return [
            FileInfo(p, sha, size, tuple(json.loads(ids)), tuple(failures.get(p, ())))
            for p, sha, size, ids in rows
        ]

    def _has_table(self, name: str) -> bool:
        row = self._db.execute(
            "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?", (name,)
        ).fetchone()
        return row is not None

    def meta(self) -> dict[str, str]:
        return dict(self._db.execute("SELECT key, value FROM meta").fetchall())

    # --- writing ------------------------------------------------------------------------------
    def _writing(self) -> sqlite3.Connection:
        if not self.writable:
            raise IndexStoreError(f"{self.path} is open read-only; it cannot be changed")
        return self._db

    def set_meta(self, key: str, value: str) -> None:
        self._writing().execute("INSERT OR REPLACE INTO meta VALUES (?, ?)", (key, value))

    def add_file(self, info: FileInfo) -> None:
        db = self._writing()
        db.execute(
            "INSERT INTO files VALUES (?, ?, ?, ?)",
            (info.path, info.sha256, info.size, json.dumps(list(info.doc_ids))),
        )
        db.executemany(
            "INSERT INTO line_failures VALUES (?, ?, ?, ?)",
            [(info.path, f.path, f.reason, f.message) for f in info.failures],
        )

    def add_document(self, document: Document) -> None:
        sections = [[s.start, s.end, list(s.path)] for s in document.sections]
        pages = [[p.number, p.start, p.end] for p in document.pages]
        self._writing().execute(
            "INSERT INTO documents VALUES (?, ?, ?, ?, ?, ?, ?)",
            (
                document.id,
                document.title,
                document.source,
                document.text,
                json.dumps(sections, ensure_ascii=False),
                json.dumps(pages),
                json.dumps(dict(document.metadata), ensure_ascii=False),
            ),
        )

    def add_chunks(self, chunks: Iterable[Chunk]) -> None:
        """Append chunks at the next ordinals, in the order given; all of them or none."""
        rows: list[tuple[object, ...]] = []
        for chunk in chunks:
            rows.append(
                (
                    self._count + len(rows),
                    chunk.id,
                    chunk.doc_id,
                    chunk.index,
                    chunk.start,
                    chunk.end,
                    chunk.text,
                    chunk.title,
                    json.dumps(list(chunk.section), ensure_ascii=False),
                    chunk.page,
                    chunk.page_end,
                    chunk.source,
                )
            )
        db = self._writing()
        if not db.in_transaction:
            db.execute("BEGIN")
        db.execute("SAVEPOINT add_chunks")  # so that a failed batch adds no row at all
        try:
            db.executemany(f"INSERT INTO chunks VALUES ({', '.join('?' * 12)})", rows)
        except sqlite3.Error:
            db.execute("ROLLBACK TO add_chunks")
            raise
        finally:
            db.execute("RELEASE add_chunks")
        self._count += len(rows)

    def commit(self) -> None:
        self._writing().commit()

    # --- lifetime -----------------------------------------------------------------------------
    def close(self) -> None:
        self._db.close()

    def __enter__(self) -> ChunkStore:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        trace: TracebackType | None,
    ) -> None:
        self.close()
