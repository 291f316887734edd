"""Which sentences of a source passage read as prose an answer can quote.

Documents hold more than prose: Markdown headings, list bullets, page navigation ("Next: Thread
Safety, Previous: The Closure API, Up: Using libffi"), table rows, code. A sentence splitter
returns them as sentences all the same, and an answer made of them reads as a page torn apart.
:func:`prose_span` takes one sentence span of a passage and returns the part of it that is
prose, or the reason it is none:

- lines before the prose that are headings, navigation or table rows are cut off the front
  (a heading line glued to the paragraph below it by a single newline);
- a list bullet (``- ``, ``* ``, ``1. ``) is cut off when the item is a whole sentence (it ends
  in ``.``, ``!`` or ``?`` and has at least :data:`MIN_WORDS` words); otherwise the item is a
  ``list item``;
- ``code``: inside a fenced block or inline code, or a line that reads as code (mostly tokens
  with brackets, operators, ``;`` or ``_``);
- ``heading``: a Markdown ``#`` line, or a short line (at most :data:`TITLE_WORDS` words)
  with no sentence end that stands alone;
- ``navigation``: two or more "Next:", "Previous:", "Up:", "Home", "Index", "Contents" ...
  links, or a breadcrumb of ``»`` / ``›`` / ``|`` separators;
- ``table row``: a line with two or more ``|`` cells or tab-separated cells;
- ``lead-in``: a sentence ending in ``:`` (it introduces a list or code);
- ``fragment``: fewer than :data:`MIN_WORDS` words, or no sentence end where the passage
  goes on after it (a clause cut by a line break).

The span returned is exact: ``passage[span.start:span.end]`` is the prose as written.

>>> from veracity.text.sentences import split_sentences
>>> passage = "## Bee space\\nBees leave 9 mm between combs.\\n\\n| a | b |"
>>> [prose_span(passage, span) for span in split_sentences(passage)]
[(Span(start=13, end=43), None), (None, 'table row')]
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from veracity.text.citations import code_spans
from veracity.types import Span

__all__ = ["MIN_WORDS", "TITLE_WORDS", "line_reason", "prose_span", "prose_spans"]

#: The fewest words a quotable sentence has.
MIN_WORDS = 3
#: The longest line, in words, read as a heading when it has no sentence end.
TITLE_WORDS = 8

_WORD = re.compile(r"[^\W\d_](?:[\w'’-]*\w)?")
_HEADING = re.compile(r"\s*#{1,6}\s")
_BULLET = re.compile(r"\s*(?:[-*•+‣◦▪]|\(?\d{1,3}[.)]|\(?[a-zA-Z][.)])\s+")
_END = re.compile(r"[.!?…][\"'”’)\]]*\s*$")
_NAV_WORD = re.compile(
    r"(?:^|[\s\[(|»›,;])(?:next|previous|prev|up|home|index|contents|table of contents|top|"
    r"back to top|skip to (?:main )?content|main menu|menu|search|edit this page|"
    r"view source|permalink)\s*(?::|»|›|\||\]|$)",
    re.IGNORECASE,
)
_BREADCRUMB = re.compile(r"\s(?:»|›|>|/|\|)\s")
_CODE_TOKEN = re.compile(r"[{}();=<>\[\]]|::|->|\w_\w|^\$|^\.\w|\w\.\w+\(|^[A-Z_]{3,}$|^--?\w")


def line_reason(line: str) -> str | None:
    """Why one line is not prose (``heading``, ``navigation``, ``table row``, ``code``), or
    ``None``. A line alone cannot be a fragment or a list item: see :func:`prose_span`.

    >>> line_reason("Next: Thread Safety, Previous: The Closure API, Up: Using libffi")
    'navigation'
    >>> line_reason("int main(void) { return 0; }")
    'code'
    >>> line_reason("Bees leave 9 mm between combs.") is None
    True
    """
    text = line.strip()
    if not text:
        return None
    if _HEADING.match(text):
        return "heading"
    if text.count("|") >= 2 or text.count("\t") >= 2 or re.fullmatch(r"[-|:=+ ]{3,}", text):
        return "table row"
    if len(_NAV_WORD.findall(text)) >= 2 or (
        len(_BREADCRUMB.findall(text)) >= 2 and not _END.search(text)
    ):
        return "navigation"
    tokens = text.split()
    if tokens:
        codelike = sum(bool(_CODE_TOKEN.search(token)) for token in tokens)
        if codelike >= 2 and codelike / len(tokens) >= 0.3:
            return "code"
    return None


def _words(text: str) -> int:
    return len(_WORD.findall(text))


def prose_span(
    passage: str, span: Span, *, code: Sequence[Span] | None = None
) -> tuple[Span | None, str | None]:
    """The prose part of the sentence ``span`` of ``passage`` and ``None``, or ``None`` and
    the reason the sentence is not prose (see the module docstring). ``code``: the passage's
    :func:`~veracity.text.citations.code_spans`, when the caller has them already."""
    code = code_spans(passage) if code is None else code
    if any(c.start <= span.start and span.end <= c.end for c in code):
        return None, "code"
    start, end = span.start, span.end
    reason: str | None = None
    # Lines of the sentence: cut off leading lines that are not prose.
    while True:
        newline = passage.find("\n", start, end)
        line = passage[start : end if newline < 0 else newline]
        why = line_reason(line)
        if (
            why is None
            and newline >= 0
            and not _END.search(line)
            and _words(line) <= TITLE_WORDS
            and not _BULLET.match(line)
        ):
            why = "heading"  # a short title line glued to the text below it
        if why is None:
            break
        reason = why
        if newline < 0:
            return None, reason
        start = newline + 1
        while start < end and passage[start].isspace():
            start += 1
        if start >= end:
            return None, reason
    text = passage[start:end]
    if any(line_reason(line) for line in text.splitlines()[1:]):
        return None, next(r for r in map(line_reason, text.splitlines()[1:]) if r)
    bullet = _BULLET.match(text)
    if bullet is not None:
        if not _END.search(text) or _words(text) < MIN_WORDS + 1:
            return None, "list item"
        start += bullet.end()
        text = passage[start:end]
    if _words(text) < MIN_WORDS:
        return None, "fragment"
    if text.rstrip().endswith(":"):
        return None, "lead-in"  # it introduces what follows (a list, code) and says nothing
    goes_on = passage[end:].strip() != ""
    if not _END.search(text):
        if goes_on and "\n" in passage[end : end + 2]:
            return None, (
                "heading" if _words(text) <= TITLE_WORDS and "\n" not in text else "fragment"
            )
        if goes_on and _words(text) <= TITLE_WORDS:
            return None, "fragment"
    if any(
        c.start < end and start < c.end and passage[c.start : c.end].startswith(("```", "~~~"))
        for c in code
    ):
        return None, "code"
    return Span(start, end), None


def prose_spans(passage: str, spans: Sequence[Span]) -> list[tuple[Span | None, str | None]]:
    """:func:`prose_span` of each sentence span of ``passage`` (code spans found once)."""
    code = code_spans(passage)
    return [prose_span(passage, span, code=code) for span in spans]
