"""A claim in the making, as it passes from the decomposer to the decontextualizer.

A :class:`Draft` knows the sentence it came from and its span in the answer: the characters of
a part cut out verbatim, or the whole sentence once the text was rewritten. :func:`locate`
finds a part's words in the answer, skipping citation markers, bullets and emphasis.

>>> answer = "Bees dance [1], and they sing."
>>> locate("they sing", answer, Span(0, len(answer)))
Span(start=20, end=29)
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace

from veracity.generate.citations import find_markers
from veracity.types import Span

__all__ = ["Draft", "locate"]

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
        return replace(self, text=text, span=self.source, verbatim=False,
                       edits=(*self.edits, edit))


def locate(part: str, answer: str, within: Span, *, after: int | None = None) -> Span | None:
    """The span of ``answer`` inside ``within`` that holds the words of ``part`` in order
    (case-insensitive, anything but words between them, citation markers skipped), searching
    from ``after``; ``None`` when they are not there."""
    words = _WORD.findall(part)
    if not words:
        return None
    region = within.of(answer)
    masked = list(region)
    for marker in find_markers(region):
        masked[marker.span.start : marker.span.end] = " " * len(marker.span)
    pattern = re.compile(r"(?<!\w)" + r"[\W_]+".join(re.escape(word) for word in words)
                         + r"(?!\w)", re.IGNORECASE)
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
