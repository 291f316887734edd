"""A claim in the making, as it passes from the decomposer to the decontextualizer.

A :class:`Draft` knows the sentence it came from and its span in the answer: the characters of
a part cut out verbatim (also after a reference in it was replaced by the rules, an edit that
records both), or the whole sentence once the text was rewritten otherwise. :func:`locate`
finds a part's words in the answer, skipping citation markers, bullets and emphasis;
:func:`written` is the claim a span states as written. A claim's text differs from
``written(answer, span)`` only through an edit it records.

>>> answer = "Bees dance [1], and they sing."
>>> locate("they sing", answer, Span(0, len(answer)))
Span(start=20, end=29)
>>> written("- gzip writes a **.gz** file [1].", Span(0, 33))
'gzip writes a .gz file.'
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, replace

from veracity.text.citations import find_markers
from veracity.text.grammar import finish
from veracity.text.segment import claim_text
from veracity.types import Span

__all__ = ["Draft", "locate", "written"]

_WORD = re.compile(r"\w+")


@dataclass(frozen=True, slots=True)
class Draft:
    """Claim text, the 0-based ``sentence`` it came from, its ``span`` in the answer, the
    sentence's span ``source``, whether the text is ``verbatim`` (its words are the span's
    words, in order), and the ``edits`` made so far."""

    sentence: int
    text: str
    span: Span
    source: Span
    verbatim: bool = True
    edits: tuple[str, ...] = ()

    def rewritten(self, text: str, edit: str) -> Draft:
        """This draft with new ``text``: no longer verbatim, so its span is the sentence's."""
        return replace(self, text=text, span=self.source, verbatim=False, edits=(*self.edits, edit))

    def substituted(self, text: str, edit: str) -> Draft:
        """This draft with one reference in ``text`` replaced, as ``edit`` records ("'he' ->
        'Karl von Frisch'"): a verbatim draft keeps its span, so the span still slices the
        words the claim is made of and the edit is the only difference; a rewritten one keeps
        the sentence's."""
        return replace(self, text=text, verbatim=False, edits=(*self.edits, edit))

    def recased(self, text: str, edit: str) -> Draft:
        """This draft with ``text`` that differs from its own only in letter case: span and
        words stay, and ``edit`` records the change."""
        return replace(self, text=text, edits=(*self.edits, edit))


def written(answer: str, span: Span, *, blocks: Sequence[str] | None = None) -> str:
    """The claim ``span`` of ``answer`` states as written: citation markers, a list bullet and
    bold marks removed, runs of whitespace made one space, one final period. No letter changes
    case and no space before a token (".gz") is dropped. ``blocks``: the texts of the numbered
    blocks the answer was written over, if any (see
    :func:`~veracity.text.citations.find_markers`)."""
    text = span.of(answer)
    return finish(claim_text(text, find_markers(text, blocks=blocks)))


def locate(
    part: str,
    answer: str,
    within: Span,
    *,
    after: int | None = None,
    blocks: Sequence[str] | None = None,
) -> Span | None:
    """The span of ``answer`` inside ``within`` that holds the words of ``part`` in order
    (case-insensitive, anything but words between them, citation markers skipped), searching
    from ``after``; ``None`` when they are not there."""
    words = _WORD.findall(part)
    if not words:
        return None
    region = within.of(answer)
    masked = list(region)
    for marker in find_markers(region, blocks=blocks):
        masked[marker.span.start : marker.span.end] = " " * len(marker.span)
    pattern = re.compile(
        r"(?<!\w)" + r"[\W_]+".join(re.escape(word) for word in words) + r"(?!\w)", re.IGNORECASE
    )
    start = 0 if after is None else max(0, after - within.start)
    match = pattern.search("".join(masked), start)
    if match is None:
        return None
    start, end = within.start + match.start(), within.start + match.end()
    for mark in ("**", "__"):  # keep emphasis balanced: "**dance**", not "**dance"
        if answer[start:end].count(mark) % 2:
            if answer[end : end + 2] == mark and end + 2 <= within.end:
                end += 2
            elif answer[start - 2 : start] == mark and start - 2 >= within.start:
                start -= 2
    return Span(start, end)
