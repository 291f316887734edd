"""Read files into :class:`~veracity.types.Document` objects.

Every document carries its plain ``text``; its ``sections`` (Markdown and HTML headings) and
``pages`` (PDF) are spans over that same text. Which loader reads a file is chosen by its
extension from the registry :data:`LOADERS`.

>>> from pathlib import Path
>>> import tempfile
>>> folder = Path(tempfile.mkdtemp())
>>> _ = (folder / "notes.md").write_text("# Notes\\nThe sky is blue.\\n")
>>> result = load_file(folder / "notes.md", root=folder)
>>> doc = result.documents[0]
>>> doc.id, doc.title, doc.sections[0].path
('notes.md', 'Notes', ('Notes',))
"""

from __future__ import annotations

import errno
import os
import stat
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path

from veracity import defaults
from veracity.corpus._common import LoadResult, Source, decode_text, require_text
from veracity.corpus._html import load_html
from veracity.corpus._jsonl import load_jsonl
from veracity.corpus._markdown import load_markdown
from veracity.corpus._pdf import load_pdf
from veracity.errors import DocumentError, OptionError
from veracity.types import Document

__all__ = [
    "LOADERS",
    "FoundFiles",
    "LoadResult",
    "Loader",
    "Source",
    "document_id",
    "find_files",
    "iter_files",
    "link_problem",
    "load_file",
    "parse_file",
    "read_file",
]

PathLike = str | os.PathLike[str]


@dataclass(frozen=True)
class Loader:
    """How to read one format: ``load`` turns a :class:`Source` into a :class:`LoadResult`.

    ``ids_from_content`` is true when document ids come from the file's content (JSONL) rather
    than from its path, so moving the file does not change them.
    """

    name: str
    load: Callable[[Source], LoadResult]
    ids_from_content: bool = False


def _load_text(source: Source) -> LoadResult:
    text = decode_text(source.path, source.data)
    require_text(source.path, text)
    document = Document(
        id=source.doc_id, text=text, title=source.path.stem, source=str(source.path)
    )
    return LoadResult((document,))


_MARKDOWN = Loader("markdown", load_markdown)
_HTML = Loader("html", load_html)

_TEXT = Loader("text", _load_text)

#: Extension (lower case, with the dot) -> loader. Add an entry to read another format.
#: reStructuredText is read as plain text (its markup is light and stays in the spans).
LOADERS: dict[str, Loader] = {
    ".txt": _TEXT,
    ".text": _TEXT,
    ".rst": _TEXT,
    ".md": _MARKDOWN,
    ".markdown": _MARKDOWN,
    ".html": _HTML,
    ".htm": _HTML,
    ".pdf": Loader("pdf", load_pdf),
    ".jsonl": Loader("jsonl", load_jsonl, ids_from_content=True),
}


def _loader(path: Path) -> Loader:
    suffix = path.suffix.lower()
    loader = LOADERS.get(suffix)
    if loader is None:
        has = f"has the extension {suffix!r}" if suffix else "has no file extension"
        raise DocumentError(
            path,
            "unknown_extension",
            f"{has}, which veracity cannot read; supported extensions: "
            f"{', '.join(sorted(LOADERS))}. Convert it to one of them (for example save it as "
            "PDF or plain text) or rename it if it already is one",
        )
    return loader


def _hidden(name: str) -> bool:
    return name.startswith(".")


def _unlistable(error: OSError) -> DocumentError:
    return DocumentError(
        error.filename or "?",
        "unreadable",
        f"is a folder that cannot be listed ({error.strerror}); check its permissions, or "
        "leave it out of the paths you index",
    )


def _missing(path: Path) -> DocumentError:
    return link_problem(path) or DocumentError(
        path, "missing", f"does not exist; check the path (the current folder is {Path.cwd()})"
    )


def _link_chain(path: Path, steps: int = 6) -> str:
    """``a -> b -> a``: where the symbolic link ``path`` leads, a few links deep."""
    chain, current, seen = [str(path)], path, {Path(os.path.abspath(path))}
    for _ in range(steps):
        try:
            target = Path(os.readlink(current))
        except OSError:
            break
        current = Path(os.path.abspath(current.parent / target))
        chain.append(str(target))
        if current in seen or not current.is_symlink():
            break
        seen.add(current)
    return " -> ".join(chain)


def link_problem(path: PathLike) -> DocumentError | None:
    """The error for a symbolic link that loops (reason ``symlink_loop``) or leads nowhere
    (reason ``missing``), naming where it leads; ``None`` for anything else.

    >>> import tempfile
    >>> loop = Path(tempfile.mkdtemp()) / "loop.md"
    >>> loop.symlink_to(loop.name)
    >>> link_problem(loop).reason
    'symlink_loop'
    """
    path = Path(path)
    try:
        if not path.is_symlink():
            return None
        os.stat(path)
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            return DocumentError(
                path,
                "symlink_loop",
                f"is a symbolic link that loops "
                f"({_link_chain(path)}), so it holds no file: point it at a "
                "file or folder, or remove it",
            )
        if exc.errno == errno.ENOENT:
            return DocumentError(
                path,
                "missing",
                f"is a symbolic link to a path that does not "
                f"exist ({_link_chain(path)}): point it at a file or folder, "
                "or remove it",
            )
    return None


def _broken_links(folder: str, filenames: list[str]) -> list[DocumentError]:
    """The symbolic links among a folder's files that loop, or that have an extension veracity
    reads and lead nowhere: the walk leaves them out, and says so. (A link to a folder is
    among the folders, and never followed.)"""
    found: list[DocumentError] = []
    for name in filenames:
        path = Path(folder, name)
        problem = None if _hidden(name) else link_problem(path)
        if problem is not None and (
            problem.reason == "symlink_loop" or path.suffix.lower() in LOADERS
        ):
            found.append(problem)
    return found


@dataclass(frozen=True)
class FoundFiles:
    """What :func:`find_files` found: the files to read, and the paths it could not use.

    Each failure is a given path that does not exist (reason ``missing``) or a folder that
    cannot be listed (reason ``unreadable``); its ``path`` names it.
    """

    files: tuple[Path, ...]
    failures: tuple[DocumentError, ...] = ()


def find_files(paths: Iterable[PathLike]) -> FoundFiles:
    """The files to read for ``paths``, and every path that could not be used, in order.

    Like :func:`iter_files`, but a missing path, a folder that cannot be listed and a symbolic
    link that loops (see :func:`link_problem`) are recorded in ``failures`` and the search goes
    on with the other paths and folders.

    >>> find_files([]).files
    ()
    """
    found: list[Path] = []
    failures: list[DocumentError] = []
    seen: set[Path] = set()
    for given in paths:
        path = Path(given)
        if path.is_dir():
            batch: list[Path] = []
            walk = os.walk(path, onerror=lambda error: failures.append(_unlistable(error)))
            for folder, dirnames, filenames in walk:
                links = _broken_links(folder, filenames)
                failures.extend(links)
                left_out = {str(error.path) for error in links}
                dirnames[:] = [name for name in dirnames if not _hidden(name)]
                batch += [
                    Path(folder, name)
                    for name in filenames
                    if not _hidden(name)
                    and Path(name).suffix.lower() in LOADERS
                    and str(Path(folder, name)) not in left_out
                ]
            batch.sort(key=lambda file: file.relative_to(path).as_posix())
        elif path.exists():
            batch = [path]
        else:
            failures.append(_missing(path))
            continue
        for file in batch:
            key = Path(os.path.abspath(file))
            if key not in seen:
                seen.add(key)
                found.append(file)
    return FoundFiles(tuple(found), tuple(failures))


def iter_files(paths: Iterable[PathLike]) -> list[Path]:
    """The files to read for ``paths``: files as given, folders expanded recursively.

    Inside folders only files with a registered extension are kept, hidden files and folders
    (names starting with ``.``) are skipped and symbolic links to folders are not followed;
    each folder's files come sorted by relative path. A file named explicitly is always kept,
    so that a wrong extension raises a clear error when it is loaded; so is an entry that is
    not a regular file (a named pipe, a socket), which :func:`read_file` refuses without
    opening it. Duplicates are dropped. The first missing path or folder that cannot be
    listed raises :class:`~veracity.errors.DocumentError`; :func:`find_files` collects them
    instead.

    >>> iter_files([])
    []
    """
    result = find_files(paths)
    if result.failures:
        raise result.failures[0]
    return list(result.files)


def document_id(path: PathLike, root: PathLike | None = None) -> str:
    """The id of a file's document: its path relative to ``root`` (POSIX style), else its name.

    >>> document_id("docs/guide/intro.md", root="docs")
    'guide/intro.md'
    """
    path = Path(path)
    if root is None:
        return path.name
    try:
        return path.relative_to(root).as_posix()
    except ValueError:
        raise OptionError("root", str(root), f"a folder that contains {path}") from None


def _folder(path: Path) -> DocumentError:
    return DocumentError(
        path,
        "unreadable",
        "is a folder, not a file; give the folder to `veracity index` (Python: the Indexer "
        "or iter_files()), which reads the files inside",
    )


_SPECIAL_KINDS = (
    (stat.S_ISFIFO, "a named pipe (FIFO)"),
    (stat.S_ISSOCK, "a socket"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
)


def _special(path: Path, mode: int) -> DocumentError:
    kind = next((name for test, name in _SPECIAL_KINDS if test(mode)), "not a regular file")
    return DocumentError(
        path,
        "special_file",
        f"is {kind}, not a regular file; veracity reads only regular files (reading this one "
        "could block or never end): save its content to a file and give that file instead, or "
        "leave it out of the paths you index",
    )


def _file_mode(path: Path) -> int:
    """``path``'s file mode (links followed), read without opening it."""
    try:
        return os.stat(path).st_mode
    except FileNotFoundError:
        raise _missing(path) from None
    except PermissionError:
        raise DocumentError(
            path,
            "unreadable",
            "cannot be read (permission denied on it or a folder above it); check the permissions",
        ) from None
    except OSError as exc:
        raise link_problem(path) or DocumentError(
            path, "unreadable", f"cannot be read ({exc.strerror})"
        ) from None


def read_file(path: PathLike, *, max_bytes: int | None = None) -> bytes:
    """The bytes of ``path``, refusing files larger than ``max_bytes``.

    ``max_bytes`` defaults to :data:`veracity.defaults.MAX_FILE_BYTES` (read at call time).
    Only regular files are read: a named pipe, socket or device (``/dev/zero``,
    ``/dev/stdin``) is refused without being opened, since opening a pipe blocks until
    someone writes to it. Raises ``DocumentError`` with reason ``missing``, ``unreadable``,
    ``special_file``, ``symlink_loop`` or ``too_large``.
    """
    path = Path(path)
    limit = defaults.MAX_FILE_BYTES if max_bytes is None else max_bytes
    mode = _file_mode(path)
    if stat.S_ISDIR(mode):
        raise _folder(path)
    if not stat.S_ISREG(mode):
        raise _special(path, mode)
    try:
        with path.open("rb") as handle:
            size = os.fstat(handle.fileno()).st_size
            data = b"" if size > limit else handle.read(limit + 1)
    except FileNotFoundError:
        raise _missing(path) from None
    except IsADirectoryError:
        raise _folder(path) from None
    except PermissionError:
        raise DocumentError(
            path, "unreadable", "cannot be read (permission denied); check its permissions"
        ) from None
    except OSError as exc:
        raise DocumentError(path, "unreadable", f"cannot be read ({exc.strerror})") from None
    if size > limit or len(data) > limit:
        size_text = f"{size:,} bytes" if size > limit else f"more than {limit:,} bytes"
        raise DocumentError(
            path,
            "too_large",
            f"is {size_text}, over the limit of {limit:,} bytes ({limit / 2**20:g} MiB); split "
            "it into smaller files (for example one per chapter, or a JSONL file with "
            "`split -l 10000`) and index those",
        )
    return data


def parse_file(path: PathLike, data: bytes, *, root: PathLike | None = None) -> LoadResult:
    """Documents from the bytes ``data`` of the file ``path``, read by its extension's loader."""
    path = Path(path)
    loader = _loader(path)
    return loader.load(Source(path, data, document_id(path, root)))


def load_file(
    path: PathLike, *, root: PathLike | None = None, max_bytes: int | None = None
) -> LoadResult:
    """Read one file: its documents, and the lines that failed (JSONL).

    Document ids are the path relative to ``root`` (or the file name), or the ``id`` field of
    each JSONL line. A failure of the whole file raises :class:`~veracity.errors.DocumentError`
    whose ``reason`` is one of ``missing``, ``unreadable``, ``special_file``, ``binary``,
    ``undecodable``, ``empty``, ``too_large``, ``unknown_extension``, ``symlink_loop`` or
    ``corrupt_pdf``; failed JSONL lines (``bad_line``, ``duplicate_id``) come back in
    ``LoadResult.failures``.
    """
    path = Path(path)
    if path.is_file():
        _loader(path)  # refuse an unknown extension before reading anything
    return parse_file(path, read_file(path, max_bytes=max_bytes), root=root)
