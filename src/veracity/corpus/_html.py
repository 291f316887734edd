"""HTML: visible text through the standard library's ``html.parser``, headings as sections.

``script``, ``style``, ``template`` and the ``head`` are skipped (the ``<title>`` is kept as
the title); block elements end a line, paragraphs and headings are separated by a blank line
(so sentence splitting never joins them), entities are unescaped, runs of whitespace collapse
to one space except inside ``<pre>``.
"""

from __future__ import annotations

import re
from html.parser import HTMLParser

from veracity.corpus._common import LoadResult, Source, decode_text, require_text
from veracity.types import Document, Section

__all__ = ["HtmlText", "load_html"]

_SPACE = re.compile(r"[ \t\n\r\f]+")
_SKIP = frozenset({"script", "style", "template", "noscript"})
# Elements allowed in <head>; any other element starts the body even without a <body> tag.
_HEAD = frozenset({"head", "title", "meta", "link", "base", *_SKIP})
_HEADINGS = {f"h{level}": level for level in range(1, 7)}
_LINE = frozenset({"br", "li", "tr", "dt", "dd", "option"})
_CELL = frozenset({"td", "th"})
_BLOCK = frozenset(
    {
        "address", "article", "aside", "blockquote", "body", "caption", "dd", "details", "dialog",
        "div", "dl", "fieldset", "figcaption", "figure", "footer", "form", "header", "hgroup",
        "hr", "html", "main", "nav", "ol", "p", "pre", "section", "summary", "table", "ul",
        *_HEADINGS,
    }
)  # fmt: skip


class HtmlText(HTMLParser):
    """Collects the text, title and heading sections of one HTML page.

    >>> page = HtmlText.parse("<h1>Guide</h1><p>Hello &amp; welcome.</p>")
    >>> page.text, page.title, [s.path for s in page.sections]
    ('Guide\\n\\nHello & welcome.', 'Guide', [('Guide',)])
    """

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self._parts: list[str] = []
        self._length = 0
        self._pending_break = 0  # newlines owed before the next text
        self._pending_space = False
        self._skip = 0
        self._in_head = False
        self._pre = 0
        self._title: list[str] | None = None
        self._page_title = ""
        self._first_h1 = ""
        self._heading: tuple[int, list[str]] | None = None  # (level, text parts)
        self._heading_start = -1
        self._open: list[tuple[int, int, tuple[str, ...]]] = []  # (level, start, path)
        self._sections: list[Section] = []

    @classmethod
    def parse(cls, markup: str) -> HtmlText:
        parser = cls()
        parser.feed(markup)
        parser.close()
        return parser

    # --- results -----------------------------------------------------------------------------
    @property
    def text(self) -> str:
        return "".join(self._parts)

    @property
    def title(self) -> str:
        return self._page_title or self._first_h1

    @property
    def sections(self) -> tuple[Section, ...]:
        closed = list(self._sections)
        closed += [Section(start, self._length, path) for _, start, path in self._open]
        return tuple(sorted(closed, key=lambda s: (s.start, -s.end)))

    # --- parser events -----------------------------------------------------------------------
    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in _SKIP:
            self._skip += 1
        elif tag == "head":
            self._in_head = True
        elif tag == "body" or tag not in _HEAD:
            self._in_head = False
        elif tag == "title":
            self._title = []
        if tag == "pre":
            self._pre += 1
        self._boundary(tag)
        if tag in _HEADINGS and not self._hidden:
            self._heading = (_HEADINGS[tag], [])
            self._heading_start = -1

    def handle_endtag(self, tag: str) -> None:
        if tag in _SKIP:
            self._skip = max(self._skip - 1, 0)
        elif tag == "head":
            self._in_head = False
        elif tag == "title" and self._title is not None:
            if not self._page_title:
                self._page_title = _SPACE.sub(" ", "".join(self._title)).strip()
            self._title = None
        elif tag == "pre":
            self._pre = max(self._pre - 1, 0)
        heading = self._heading
        if tag in _HEADINGS and heading is not None:
            self._heading = None
            self._close_heading(*heading)
        self._boundary(tag)

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self._boundary(tag)

    def handle_data(self, data: str) -> None:
        if self._title is not None:
            self._title.append(data)
            return
        if self._hidden:
            return
        if self._pre:
            self._write(data)
            return
        collapsed = _SPACE.sub(" ", data)
        body = collapsed.strip(" ")
        if collapsed.startswith(" "):
            self._pending_space = True
        if body:
            self._write(body)
            self._pending_space = collapsed.endswith(" ")

    # --- helpers -----------------------------------------------------------------------------
    @property
    def _hidden(self) -> bool:
        return bool(self._skip) or self._in_head

    def _boundary(self, tag: str) -> None:
        if tag in _BLOCK:
            self._pending_break = 2
        elif tag in _LINE:
            self._pending_break = max(self._pending_break, 1)
        elif tag in _CELL:
            self._pending_space = True

    def _write(self, text: str) -> None:
        separator = ""
        if self._parts:
            if self._pending_break:
                separator = "\n" * self._pending_break
            elif self._pending_space:
                separator = " "
        self._pending_break, self._pending_space = 0, False
        self._append(separator)
        if self._heading is not None:
            if self._heading_start < 0:
                self._heading_start = self._length
            else:
                self._heading[1].append(separator)
            self._heading[1].append(text)
        self._append(text)

    def _append(self, text: str) -> None:
        if not text:
            return
        self._parts.append(text)
        self._length += len(text)

    def _close_heading(self, level: int, parts: list[str]) -> None:
        title = _SPACE.sub(" ", "".join(parts)).strip()
        if not title:
            return
        start = self._heading_start
        while self._open and self._open[-1][0] >= level:
            _, opened, path = self._open.pop()
            self._sections.append(Section(opened, start, path))
        parent = self._open[-1][2] if self._open else ()
        self._open.append((level, start, (*parent, title)))
        if level == 1 and not self._first_h1:
            self._first_h1 = title


def load_html(source: Source) -> LoadResult:
    page = HtmlText.parse(decode_text(source.path, source.data))
    text = page.text
    require_text(source.path, text)
    document = Document(
        id=source.doc_id,
        text=text,
        title=page.title or source.path.stem,
        source=str(source.path),
        sections=page.sections,
    )
    return LoadResult((document,))
