"""Build a new index generation from files and folders, incrementally.

Files whose bytes (sha256) have not changed since the live generation are not re-read: their
documents and chunks are copied over. Changed and new files are loaded and chunked; files
indexed before under one of the given folders that no longer exist are dropped, and files
indexed from other places stay. Retrieval builders then run over the new chunk store.

>>> import tempfile, pathlib
>>> folder = pathlib.Path(tempfile.mkdtemp())
>>> _ = (folder / "docs").mkdir(), (folder / "docs" / "a.txt").write_text("The sky is blue.")
>>> report = Indexer().run([folder / "docs"], folder / "index")
>>> report.files_indexed, report.chunks, report.generation
(1, 1, 'gen-000001')
"""

from __future__ import annotations

import contextlib
import dataclasses
import hashlib
import os
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, NamedTuple

from veracity.corpus.base import ChunkLookup, IndexBuilder, ProgressBuilder
from veracity.corpus.chunker import Chunker
from veracity.corpus.fingerprint import content_fingerprint
from veracity.corpus.index_dir import STORE, IndexDir
from veracity.corpus.loaders import LOADERS, document_id, find_files, parse_file, read_file
from veracity.corpus.store import ChunkStore, FileInfo, LineFailure
from veracity.errors import DocumentError, IndexStoreError, InputError, OptionError
from veracity.types import Document

__all__ = ["Failure", "IndexReport", "Indexer", "Progress"]

PathLike = str | os.PathLike[str]
_KEPT = "; the version indexed before is kept until the file can be read again"
#: Called as ``progress(stage, done, total)``; stages are "load", "keep" and "build" (builders
#: done), and the name of a builder that reports its own progress ("dense": chunks embedded).
Progress = Callable[[str, int, int], None]


class Failure(NamedTuple):
    """A file (or JSONL line, ``file.jsonl:LINE``) that could not be indexed, and why."""

    path: str
    reason: str
    message: str


@dataclass(frozen=True)
class IndexReport:
    """What one indexing run did.

    ``files_seen`` files were found under the given paths: ``files_indexed`` were (re)loaded,
    ``files_unchanged`` copied over as they were, ``files_failed`` could not be indexed (a file
    indexed before that cannot be read now keeps its previous version, and says so).
    ``lines_failed`` lines (JSONL) failed in files that were indexed or unchanged: a bad line is
    reported again on every run until the file changes.
    ``files_removed`` were indexed before under a given folder but are gone, ``files_kept``
    come from other paths indexed earlier (or from a given path that could not be listed this
    time). ``paths_failed`` given paths were missing, folders could not be listed, or symbolic
    links (given or in a folder) loop; they are skipped, never a reason to stop (except with
    ``strict=True``). ``documents`` and ``chunks`` count the whole new generation;
    ``failures`` lists every failed path, file or line.
    """

    index: str
    generation: str
    files_seen: int
    files_indexed: int
    files_unchanged: int
    files_removed: int
    files_failed: int
    files_kept: int
    paths_failed: int
    lines_failed: int
    documents: int
    chunks: int
    failures: tuple[Failure, ...]
    builders: Mapping[str, Mapping[str, object]]

    def to_dict(self) -> dict[str, Any]:
        """The counts, each failure as ``{path, reason, message}``, and what each builder
        recorded."""
        return dataclasses.asdict(self) | {
            "failures": [failure._asdict() for failure in self.failures],
            "builders": {name: dict(info) for name, info in self.builders.items()},
        }


@dataclass(frozen=True)
class _Target:
    path: Path  # absolute
    root: Path | None  # the folder it was found in, or None for a file given by name


@dataclass(frozen=True)
class _Expansion:
    """The files to index, the given paths (the scope of removals) and the paths that failed."""

    targets: list[_Target]
    scopes: list[Path]
    failures: list[DocumentError]

    @property
    def unlisted(self) -> list[Path]:
        """Paths that were missing or could not be listed: their old files are kept."""
        return [Path(failure.path) for failure in self.failures]


def _expand(paths: list[Path], index: Path) -> _Expansion:
    """Every file to index (never the index's own), the absolute given paths, and the given
    paths or folders under them that could not be found or listed."""
    targets: list[_Target] = []
    failures: list[DocumentError] = []
    seen: set[Path] = set()
    scopes = [Path(os.path.abspath(path)) for path in paths]
    index = Path(os.path.abspath(index))
    for given in scopes:
        root = given if given.is_dir() else None
        found = find_files([given])
        failures += found.failures
        for file in found.files:
            if file not in seen and not file.is_relative_to(index):
                seen.add(file)
                targets.append(_Target(file, root))
    return _Expansion(targets, scopes, failures)


class _Build:
    """The state of one run: the new store being filled from files and the previous store."""

    def __init__(
        self,
        store: ChunkStore,
        previous: ChunkStore | None,
        chunker: Chunker,
        *,
        reuse: bool,
        strict: bool,
    ) -> None:
        self.store, self.previous, self.chunker = store, previous, chunker
        self.reuse, self.strict = reuse, strict
        self.old_files = {info.path: info for info in previous.files()} if previous else {}
        self.sources: dict[str, str] = {}
        self.failures: list[Failure] = []
        self.indexed = self.unchanged = self.failed = self.removed = self.kept = 0
        self.paths_failed = self.lines_failed = 0

    def fail(self, error: DocumentError, note: str = "") -> None:
        if self.strict:
            raise error
        self.failures.append(Failure(error.path, error.reason, str(error) + note))

    def add_target(self, target: _Target) -> None:
        old = self.old_files.get(str(target.path))
        try:
            data = read_file(target.path)
            sha = hashlib.sha256(data).hexdigest()
            if old is not None and self._unchanged(old, target, sha, len(data)):
                if self._copy(old, report=True):
                    self.unchanged += 1
                else:
                    self.failed += 1
                return
            result = parse_file(target.path, data, root=target.root)
        except DocumentError as error:
            self._keep_old(error, old)
            return
        for line_error in result.failures:
            self.fail(line_error)
        failures = tuple(LineFailure(e.path, e.reason, e.detail) for e in result.failures)
        if self._add(target.path, sha, len(data), result.documents, failures, reuse=False):
            self.indexed += 1
            self.lines_failed += len(failures)
        else:  # every line of a JSONL file failed, or every id was taken
            self.failed += 1

    def _keep_old(self, error: DocumentError, old: FileInfo | None) -> None:
        """Report a file that cannot be read now; keep the version indexed before, if any."""
        if self.strict:
            raise error
        kept = old is not None and self._copy(old, report=False)
        self.fail(error, _KEPT if kept else "")
        self.failed += 1

    def add_unlisted(self, failures: list[DocumentError]) -> None:
        """Report the given paths that are missing and the folders that cannot be listed."""
        for error in failures:
            self.fail(error)
            self.paths_failed += 1

    def carry_over(self, found: _Expansion, progress: Progress) -> None:
        """Copy files indexed earlier from outside the given paths, or from paths that could
        not be listed this time; drop vanished ones inside."""
        done = {str(target.path) for target in found.targets}
        rest = [info for path, info in self.old_files.items() if path not in done]
        for count, info in enumerate(rest, start=1):
            path = Path(info.path)
            if not _under(path, found.unlisted) and _under(path, found.scopes):
                self.removed += 1
            elif self._copy(info):
                self.kept += 1
            progress("keep", count, len(rest))

    def _unchanged(self, old: FileInfo, target: _Target, sha: str, size: int) -> bool:
        if self.previous is None:
            return False
        loader = LOADERS.get(target.path.suffix.lower())
        same_ids = loader is not None and (
            loader.ids_from_content or old.doc_ids == (document_id(target.path, target.root),)
        )
        return (
            old.sha256 == sha
            and old.size == size
            and same_ids
            and all(self.previous.has_document(doc_id) for doc_id in old.doc_ids)
        )

    def _copy(self, old: FileInfo, *, report: bool = False) -> bool:
        """Copy a file of the previous generation; with ``report``, report its failed lines
        again (the file was given and is unchanged, so they still fail)."""
        if self.previous is None:
            return False
        documents = tuple(self.previous.document(doc_id) for doc_id in old.doc_ids)
        path = Path(old.path)
        if not self._add(path, old.sha256, old.size, documents, old.failures, reuse=self.reuse):
            return False
        if report:
            for line in old.failures:
                self.fail(DocumentError(line.path, line.reason, line.message))
            self.lines_failed += len(old.failures)
        return True

    def _add(
        self,
        path: Path,
        sha: str,
        size: int,
        documents: Iterable[Document],
        failures: tuple[LineFailure, ...],
        *,
        reuse: bool,
    ) -> bool:
        """Add a file's documents and their chunks; whether any document was added. Documents
        whose id another file took fail alone (a line of the file, when others are added)."""
        added: list[str] = []
        taken = 0
        for document in documents:
            other = self.sources.get(document.id)
            if other is not None:
                self.fail(
                    DocumentError(
                        document.source or path,
                        "duplicate_id",
                        f"has the document id {document.id!r}, which {other} already uses; "
                        "rename one of them, or index the two folders into separate indexes",
                    )
                )
                taken += 1
                continue
            self.sources[document.id] = document.source or str(path)
            self.store.add_document(document)
            if reuse and self.previous is not None:
                self.store.add_chunks(self.previous.document_chunks(document.id))
            else:
                self.store.add_chunks(self.chunker.run(document))
            added.append(document.id)
        if not added:
            return False
        self.store.add_file(FileInfo(str(path), sha, size, tuple(added), failures))
        self.lines_failed += taken
        return True


def _under(path: Path, folders: list[Path]) -> bool:
    return any(path == folder or path.is_relative_to(folder) for folder in folders)


def _no_progress(stage: str, done: int, total: int) -> None:
    """The default progress callback: report nothing."""


class Indexer:
    """Index files and folders into an index folder (see ``corpus.index_dir``).

    ``builders`` write retrieval structures (BM25, dense vectors) for each new generation;
    ``strict=True`` makes the first failing file abort the run with nothing written, otherwise
    failing files are skipped and listed in the report. ``progress(stage, done, total)`` is
    called as work advances.
    """

    def __init__(
        self,
        *,
        chunker: Chunker | None = None,
        builders: Iterable[IndexBuilder] = (),
        strict: bool = False,
        progress: Progress | None = None,
    ) -> None:
        if chunker is not None and not isinstance(chunker, Chunker):
            raise OptionError("chunker", chunker, "a veracity.corpus.chunker.Chunker or None")
        self.builders = tuple(builders)
        names: set[str] = set()
        for builder in self.builders:
            if not isinstance(builder, IndexBuilder) or not isinstance(builder.name, str):
                raise OptionError(
                    "builders",
                    builder,
                    "objects with a str `name` and a `build(chunks, directory, previous)` method "
                    "(veracity.corpus.base.IndexBuilder)",
                )
            if not builder.name or builder.name in names:
                raise OptionError(
                    "builders", builder.name, "non-empty names, each used once", "Rename it."
                )
            names.add(builder.name)
        if not isinstance(strict, bool):
            raise OptionError("strict", strict, "True or False")
        if progress is not None and not callable(progress):
            raise OptionError("progress", progress, "a callable(stage, done, total) or None")
        self.chunker = chunker or Chunker()
        self.strict = strict
        self.progress: Progress = progress or _no_progress

    def run(self, paths: Iterable[PathLike] | PathLike, index: IndexDir | PathLike) -> IndexReport:
        """Index ``paths`` (files and folders) into a new generation of ``index``.

        Raises :class:`~veracity.errors.InputError` for an empty path list, or when nothing
        could be indexed and there is no previous index; with ``strict=True``, the first
        :class:`~veracity.errors.DocumentError` (a missing path, a folder that cannot be
        listed, a bad file). Otherwise bad paths and files are skipped and reported. The
        previous generation stays live whenever this raises.
        """
        given = [Path(paths)] if isinstance(paths, str | os.PathLike) else [Path(p) for p in paths]
        if not given:
            raise InputError(
                "no paths to index: give at least one file or folder, for example "
                "Indexer().run(['docs/'], 'index/')"
            )
        folder = index if isinstance(index, IndexDir) else IndexDir(index)
        found = _expand(given, folder.path)
        if self.strict and found.failures:
            raise found.failures[0]
        targets = found.targets
        with folder.write() as new, contextlib.ExitStack() as stack:
            previous = None
            reuse = False
            if new.previous is not None:
                previous = stack.enter_context(ChunkStore.open(new.previous / STORE))
                reuse = folder.manifest().get("chunker") == self.chunker.settings
            store = stack.enter_context(ChunkStore.create(new.path / STORE))
            build = _Build(store, previous, self.chunker, reuse=reuse, strict=self.strict)
            build.add_unlisted(found.failures)
            for count, target in enumerate(targets, start=1):
                build.add_target(target)
                self.progress("load", count, len(targets))
            build.carry_over(found, self.progress)
            if build.indexed == 0 and previous is None:
                raise InputError(_nothing_indexed(given, targets, build.failures))
            store.commit()
            results = self._build(store, new.path, new.previous)
            documents = len(build.sources)
            counts = {"files": len(store.files()), "documents": documents, "chunks": len(store)}
            new.write_manifest(
                {
                    "chunker": self.chunker.settings,
                    "counts": counts,
                    "builders": results,
                    "content": content_fingerprint(store, self.chunker.settings, results),
                }
            )
        return IndexReport(
            index=str(folder.path),
            generation=new.name,
            files_seen=len(targets),
            files_indexed=build.indexed,
            files_unchanged=build.unchanged,
            files_removed=build.removed,
            files_failed=build.failed,
            files_kept=build.kept,
            paths_failed=build.paths_failed,
            lines_failed=build.lines_failed,
            documents=documents,
            chunks=counts["chunks"],
            failures=tuple(build.failures),
            builders=results,
        )

    def _build(
        self, chunks: ChunkLookup, directory: Path, previous: Path | None
    ) -> dict[str, Mapping[str, object]]:
        results: dict[str, Mapping[str, object]] = {}
        for count, builder in enumerate(self.builders, start=1):
            if isinstance(builder, ProgressBuilder) and builder.reports_progress:
                result = builder.build(chunks, directory, previous, self._stage(builder.name))
            else:
                result = builder.build(chunks, directory, previous)
            if not isinstance(result, Mapping):
                raise IndexStoreError(
                    f"index builder {builder.name!r} returned {type(result).__name__}, not a "
                    "mapping for the manifest"
                )
            results[builder.name] = dict(result)
            self.progress("build", count, len(self.builders))
        return results

    def _stage(self, name: str) -> Callable[[int, int], None]:
        def report(done: int, total: int) -> None:
            self.progress(name, done, total)

        return report


def _nothing_indexed(given: list[Path], targets: list[_Target], failures: list[Failure]) -> str:
    where = ", ".join(str(path) for path in given)
    if not targets and failures:
        return (
            f"nothing could be indexed from {where}, and there is no earlier index; "
            f"the first failure: {failures[0].message}"
        )
    if not targets:
        return (
            f"found no files to index in {where}; veracity reads files ending in "
            f"{', '.join(sorted(LOADERS))} (hidden files and folders are skipped)"
        )
    first = failures[0].message if failures else "no documents"
    return (
        f"none of the {len(targets)} file(s) in {where} could be indexed, and there is no "
        f"earlier index; the first failure: {first}"
    )
