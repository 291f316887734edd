"""Griffe extension: veracity's docstrings, written for ``help()`` and doctest, read as Markdown.

Two conversions, nothing else: a Sphinx role (``:class:`~veracity.models.Models```) becomes
inline code of the name it shows (``Models``), and a doctest (``>>>`` lines and their output,
up to a blank line) becomes a ``pycon`` code block instead of a Markdown quote.
"""

from __future__ import annotations

import re
from typing import Any

import griffe

_ROLE = re.compile(r":(?:py:)?(?:class|func|meth|mod|data|attr|exc|obj|const):`(~?)([^`]+)`")


def _role(match: re.Match[str]) -> str:
    target = match.group(2)
    return f"`{target.rsplit('.', 1)[-1] if match.group(1) else target}`"


def _fence_doctests(text: str) -> str:
    lines, out, index = text.splitlines(), [], 0
    while index < len(lines):
        line = lines[index]
        if line.lstrip().startswith(">>>"):
            indent = line[: len(line) - len(line.lstrip())]
            block = []
            while index < len(lines) and lines[index].strip():
                block.append(lines[index][len(indent):] if lines[index].startswith(indent)
                             else lines[index].strip())
                index += 1
            out += [f"{indent}```pycon", *(indent + b for b in block), f"{indent}```"]
            continue
        out.append(line)
        index += 1
    return "\n".join(out)


def markdown(text: str) -> str:
    """``text`` with roles as inline code and doctests fenced."""
    return _fence_doctests(_ROLE.sub(_role, text))


class RestDocstrings(griffe.Extension):
    """Rewrite each docstring once, when its object is loaded."""

    def on_instance(self, *, obj: griffe.Object, **kwargs: Any) -> None:
        if obj.docstring is not None:
            obj.docstring.value = markdown(obj.docstring.value)
