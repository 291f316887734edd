"""The one path from data to the terminal: every text shown is data, never markup.

Rich reads ``[/etc/fstab]`` as a closing tag, ``[bold]`` as a style and ``:smile:`` as an
emoji, so a document, title, path, option value or error message printed through Rich's markup
crashes the command or silently loses characters. Here the consoles have markup, emoji and
highlighting switched off, and styles are attached to spans of text explicitly: a line is made
of *parts*, each a plain string (shown exactly as it is) or a ``(string, style)`` pair whose
style is ours.

>>> import io
>>> out = make_console(file=io.StringIO(), width=60)
>>> show(("error:", "bold red"), " cannot read [/etc/fstab] :smile:", out=out)
>>> out.file.getvalue()
'error: cannot read [/etc/fstab] :smile:\\n'
"""

from __future__ import annotations

from typing import Any

from rich.console import Console
from rich.text import Text

__all__ = ["Part", "console", "errors", "make_console", "show", "styled", "text"]

#: A piece of a line: plain data, or (data, style) with one of our styles.
Part = str | tuple[str, str] | Text


def make_console(*, stderr: bool = False, **options: Any) -> Console:
    """A console that never interprets what it prints (no markup, emoji or highlighting)."""
    return Console(stderr=stderr, markup=False, emoji=False, highlight=False, **options)


#: The commands' standard output and standard error (each resolves ``sys.stdout`` / ``sys.stderr``
#: when it prints, so a test runner that swaps them captures what is shown).
console = make_console()
errors = make_console(stderr=True)


def styled(value: str, style: str) -> tuple[str, str]:
    """``value`` shown with ``style`` (a Rich style such as ``"bold red"``, never markup)."""
    return (value, style)


def text(*parts: Part) -> Text:
    """One ``Text`` of ``parts``: strings as they are, ``(string, style)`` pairs styled.

    >>> text("a [b] ", styled("[/c]", "red")).plain
    'a [b] [/c]'
    """
    line = Text()
    for part in parts:
        if isinstance(part, Text):
            line.append_text(part)
        elif isinstance(part, tuple):
            line.append(part[0], style=part[1])
        else:
            line.append(part)
    return line


def show(
    *parts: Part, out: Console, indent: int = 0, hang: int | None = None, wrap: bool = False
) -> None:
    """Print one line of ``parts`` to ``out``.

    With ``wrap``, the line is wrapped to the console's width: the first line indented by
    ``indent`` columns and the lines it wraps onto by ``hang`` (default ``indent``), with no
    trailing spaces. Without it, ``indent`` spaces lead and the terminal wraps.
    """
    line = text(*parts)
    if not wrap:
        out.print(text(" " * indent, line), soft_wrap=True)
        return
    hang = indent if hang is None else hang
    width = max(20, out.width - max(indent, hang))
    for number, piece in enumerate(line.wrap(out, width)):
        piece.rstrip()
        margin = Text(" " * (indent if number == 0 else hang))
        out.print(margin + piece if piece.plain else piece, soft_wrap=True)
