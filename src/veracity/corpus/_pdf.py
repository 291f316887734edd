"""PDF: the text of each page through pypdf, pages joined by a blank line, as page spans.

pypdf logs what it repairs ("EOF marker not found", "startxref found while searching for
%%EOF", ...) and may warn; during a read both are silenced, so that only veracity's own error
for the file, if any, reaches the user. Logging is not configured: pypdf's logger gets its
level back when the last read in progress ends.
"""

from __future__ import annotations

import contextlib
import io
import logging
import threading
import warnings
from collections.abc import Iterator
from typing import Any

from veracity.corpus._common import LoadResult, Source
from veracity.errors import DocumentError
from veracity.types import Document, Page

__all__ = ["load_pdf"]

PAGE_SEPARATOR = "\n\n"


def _corrupt(source: Source, why: str) -> DocumentError:
    return DocumentError(
        source.path,
        "corrupt_pdf",
        f"cannot be read as a PDF ({why}); check that it opens in a PDF viewer, and repair or "
        "re-export it (for example `qpdf in.pdf repaired.pdf`) before indexing",
    )


class _Quiet:
    """Silences the ``pypdf`` logger while at least one read is in progress (thread-safe)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._depth = 0
        self._level = logging.NOTSET

    @contextlib.contextmanager
    def __call__(self) -> Iterator[None]:
        logger = logging.getLogger("pypdf")
        with self._lock:
            if self._depth == 0:
                self._level = logger.level
                logger.setLevel(logging.CRITICAL + 1)  # its child loggers inherit this
            self._depth += 1
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                yield
        finally:
            with self._lock:
                self._depth -= 1
                if self._depth == 0:
                    logger.setLevel(self._level)


_quiet = _Quiet()


def _reader(source: Source) -> Any:
    from pypdf import PdfReader

    if b"%PDF-" not in source.data[:1024]:
        raise _corrupt(source, "it has no %PDF- header")
    reader = PdfReader(io.BytesIO(source.data))
    if reader.is_encrypted and not reader.decrypt(""):
        raise DocumentError(
            source.path,
            "unreadable",
            "is a password-protected PDF; remove the password (for example "
            "`qpdf --decrypt --password=... in.pdf out.pdf`) and index the result",
        )
    return reader


def _title(reader: Any) -> str:
    try:
        title = reader.metadata.title if reader.metadata else None
    except Exception:  # damaged metadata must not lose the text
        return ""
    return title.strip() if isinstance(title, str) else ""


def load_pdf(source: Source) -> LoadResult:
    try:
        with _quiet():
            reader = _reader(source)
            pages = [(page.extract_text() or "").strip() for page in reader.pages]
            title = _title(reader)
    except DocumentError:
        raise
    except Exception as exc:  # pypdf raises many unrelated types on damaged files
        raise _corrupt(source, f"{type(exc).__name__}: {exc}") from exc
    if not any(pages):
        raise DocumentError(
            source.path,
            "empty",
            f"has no extractable text on any of its {len(pages)} page(s); it may be a scanned "
            "document: run OCR first (for example `ocrmypdf in.pdf out.pdf`) and index the result",
        )
    spans: list[Page] = []
    offset = 0
    for number, text in enumerate(pages, start=1):
        spans.append(Page(number, offset, offset + len(text)))
        offset += len(text) + len(PAGE_SEPARATOR)
    document = Document(
        id=source.doc_id,
        text=PAGE_SEPARATOR.join(pages),
        title=title or source.path.stem,
        source=str(source.path),
        pages=tuple(spans),
    )
    return LoadResult((document,))
