"""Markdown: the raw text, with headings as sections.

ATX headings (``#`` .. ``######``) and setext headings (a paragraph underlined with ``===``,
level 1, or ``---``, level 2) are recognised; headings inside fenced code blocks (```` ``` ````
or ``~~~``) are ignored. A ``---`` line after a blank line (or a heading, a fence) is a
thematic break, not a heading, as in CommonMark.
"""

from __future__ import annotations

import re

from veracity.corpus._common import LoadResult, Source, decode_text, require_text
from veracity.types import Document, Section

__all__ = ["load_markdown", "markdown_sections"]

_LINE = re.compile(r"^.*$", re.MULTILINE)
_ATX = re.compile(r" {0,3}(#{1,6})(?:[ \t]+(.*?))?[ \t]*")
_CLOSING = re.compile(r"(?:^|[ \t]+)#+$")
_FENCE = re.compile(r" {0,3}(`{3,}|~{3,})(.*)")
_UNDERLINE = re.compile(r" {0,3}(=+|-+)[ \t]*")
#: List items and block quotes: they end a paragraph, and their lines are no setext text.
_BLOCK = re.compile(r" {0,3}(?:(?:[-+*]|\d{1,9}[.)])(?:[ \t]|$)|>)")
#: Indented code: it cannot start a paragraph (but continues one).
_CODE = re.compile(r"(?: {4}|\t)")


def _closes(marker: re.Match[str], fence: str) -> bool:
    """Whether a fence line closes the open ``fence``: same character, at least as long."""
    run = marker.group(1)
    return run[0] == fence[0] and len(run) >= len(fence) and not marker.group(2).strip()


def _headings(text: str) -> list[tuple[int, int, str]]:
    """(offset of the heading, level, heading text) of every heading outside fences."""
    found: list[tuple[int, int, str]] = []
    fence = ""
    paragraph: list[tuple[int, str]] = []  # (offset, line) of the paragraph read so far
    block = False  # inside a list item or block quote, until a blank line
    for match in _LINE.finditer(text):
        line = match.group().rstrip("\r")
        opened = _FENCE.fullmatch(line)
        if fence:
            if opened and _closes(opened, fence):
                fence = ""
            continue
        underline = _UNDERLINE.fullmatch(line)
        if underline and paragraph:
            title = " ".join(part.strip() for _, part in paragraph)
            level = 1 if underline.group(1)[0] == "=" else 2
            found.append((paragraph[0][0], level, title))
            paragraph = []
            continue
        if opened and not (opened.group(1)[0] == "`" and "`" in opened.group(2)):
            fence = opened.group(1)
            paragraph = []
            continue
        heading = _ATX.fullmatch(line)
        if heading:
            title = _CLOSING.sub("", heading.group(2) or "").strip()
            if title:
                found.append((match.start(), len(heading.group(1)), title))
            paragraph = []
        elif not line.strip():
            paragraph, block = [], False
        elif _BLOCK.match(line):
            paragraph, block = [], True
        elif not block and (paragraph or not _CODE.match(line)):
            paragraph.append((match.start(), line))
    return found


def markdown_sections(text: str) -> tuple[str, tuple[Section, ...]]:
    """The first heading's text (or ``""``) and the sections of ``text``, ordered by start.

    A section runs from its heading line to the next heading of the same or a higher level.

    >>> title, sections = markdown_sections("# A\\ntext\\n## B\\nmore\\n# C\\n")
    >>> title, [(s.path, s.start, s.end) for s in sections]
    ('A', [(('A',), 0, 19), (('A', 'B'), 9, 19), (('C',), 19, 23)])
    """
    headings = _headings(text)
    sections: list[Section] = []
    open_: list[tuple[int, int, tuple[str, ...]]] = []  # (level, start, path)
    for offset, level, title in headings:
        while open_ and open_[-1][0] >= level:
            _, start, path = open_.pop()
            sections.append(Section(start, offset, path))
        parent = open_[-1][2] if open_ else ()
        open_.append((level, offset, (*parent, title)))
    while open_:
        _, start, path = open_.pop()
        sections.append(Section(start, len(text), path))
    sections.sort(key=lambda s: (s.start, -s.end))
    return (headings[0][2] if headings else ""), tuple(sections)


def load_markdown(source: Source) -> LoadResult:
    text = decode_text(source.path, source.data)
    require_text(source.path, text)
    title, sections = markdown_sections(text)
    document = Document(
        id=source.doc_id,
        text=text,
        title=title or source.path.stem,
        source=str(source.path),
        sections=sections,
    )
    return LoadResult((document,))
