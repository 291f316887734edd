"""Documents and their chunks: the text an index holds.

A :class:`Document` is plain text with its sections and pages as spans over it; a
:class:`Chunk` is a passage with its exact span, so that
``document.text[chunk.start:chunk.end] == chunk.text``.
"""

from __future__ import annotations

import bisect
from collections.abc import Mapping
from dataclasses import dataclass, field

from veracity.types.spans import Span

__all__ = ["Chunk", "Document", "MetadataValue", "Page", "Section"]


MetadataValue = str | int | float | bool | None


@dataclass(frozen=True, slots=True)
class Section:
    """A heading region of a document: ``path`` is the heading trail, outermost first."""

    start: int
    end: int
    path: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class Page:
    """A page (1-based ``number``) of a paginated document, as a span of its text."""

    number: int
    start: int
    end: int


@dataclass(frozen=True)
class Document:
    """One source document as plain text, with its structure as spans over that text."""

    id: str
    text: str
    title: str = ""
    source: str = ""
    sections: tuple[Section, ...] = ()
    pages: tuple[Page, ...] = ()
    metadata: Mapping[str, MetadataValue] = field(default_factory=dict)

    def section_at(self, offset: int) -> tuple[str, ...]:
        """Heading path of the innermost section that holds ``offset`` (empty if none)."""
        best: tuple[str, ...] = ()
        best_start = -1
        for section in self.sections:
            if section.start <= offset < section.end and section.start >= best_start:
                best, best_start = section.path, section.start
        return best

    def page_at(self, offset: int) -> int | None:
        """Number of the page that holds ``offset``, or ``None`` for unpaginated documents."""
        if not self.pages:
            return None
        starts = [page.start for page in self.pages]
        position = max(bisect.bisect_right(starts, offset) - 1, 0)
        return self.pages[position].number


@dataclass(frozen=True)
class Chunk:
    """A passage of a document with its exact character span and where it sits."""

    id: str
    doc_id: str
    index: int
    text: str
    start: int
    end: int
    title: str = ""
    section: tuple[str, ...] = ()
    page: int | None = None
    page_end: int | None = None
    source: str = ""

    @property
    def span(self) -> Span:
        return Span(self.start, self.end)
