"""Stop rules for a small local model's reply: where it stops saying something new.

A 135M model at temperature 0 falls into loops: the same sentence until the token limit, the
prompt's own instructions echoed back, "1.1.1.1.1...". :func:`reply_cut` reads a reply (whole,
or as far as it has been generated) and says where the useful part ends and why:

- ``repeated characters``: a short unit with a letter or digit repeated six times or more in a
  row over at least :data:`RUN_CHARS` characters ("1.1.1.1.1.1", "abcabcabcabc..."; not the
  zeros of "1000000"); the reply ends where the run starts;
- ``repeated sentence``: a sentence, or a line, that says again, word for word (case, citation
  markers, list numbers and punctuation aside), a sentence or line before it ("1. [1] (Title)"
  then "2. [2] (Title)"); the reply ends before the repeat;
- ``echoed the prompt``: a line that begins as a line of the prompt begins (its first
  :data:`ECHO_CHARS` characters; :func:`prompt_echoes` takes them from the request's
  instructions, not from the passages, which the reply may quote); the reply ends before it.

A cut never leaves an empty reply: a reply that begins with an echo is left as it is (there is
nothing before it to keep).

>>> reply_cut("Bees dance [1]. Bees dance [1]. Bees dance [1].")
Cut(end=15, reason='repeated sentence')
>>> reply_cut("The answer is 1.1.1.1.1.1.1.1.1").reason
'repeated characters'
>>> reply_cut("Bees dance [1].\\nQuestion: why?", echoes=("Question:",))
Cut(end=15, reason='echoed the prompt')
>>> reply_cut("Bees dance [1].") is None
True
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from veracity.models.chat.base import ChatRequest
from veracity.text.sentences import split_sentences

__all__ = ["ECHO_CHARS", "RUN_CHARS", "Cut", "prompt_echoes", "reply_cut"]

#: How many characters a reply's line must share with the start of a prompt line to be an echo.
ECHO_CHARS = 24
#: The least length of a run of repeated characters that ends a reply.
RUN_CHARS = 12
_RUN = re.compile(r"(\S{1,6}?)\1{5,}")
_MARKER = re.compile(r"\[\s*\d+(?:\s*[,;-]\s*\d+)*\s*\]")
_NON_WORD = re.compile(r"[^\w]+")
_BLOCK = re.compile(r"^\s*\[\d+\]")
_LIST_NUMBER = re.compile(r"^\s*\d{1,3}[.)](?=\s|$)")


@dataclass(frozen=True, slots=True)
class Cut:
    """Keep ``reply[:end]`` (trailing space removed); ``reason`` says why the rest goes."""

    end: int
    reason: str


def prompt_echoes(request: ChatRequest) -> tuple[str, ...]:
    """The line openings of ``request`` that a reply repeating the prompt would start with:
    every line of the system message, and the lines of the user messages that are not context
    blocks (a line opening ``[n]`` and the passage lines below it up to a blank line), each cut
    to :data:`ECHO_CHARS` characters; short lines (under 12 characters) are left out."""
    openings: list[str] = []
    for message in request.messages:
        in_block = False
        for line in message.content.splitlines():
            stripped = line.strip()
            if message.role == "user":
                if _BLOCK.match(line):
                    in_block = True
                elif not stripped:
                    in_block = False
                if in_block:
                    continue
            if len(stripped) >= 12:
                openings.append(stripped[:ECHO_CHARS])
    return tuple(dict.fromkeys(openings))


def _key(sentence: str) -> str:
    text = _LIST_NUMBER.sub(" ", _MARKER.sub(" ", sentence.lower()))
    return _NON_WORD.sub(" ", _LIST_NUMBER.sub(" ", text)).strip()


def _units(reply: str) -> list[tuple[int, int, str]]:
    """The reply's sentences and lines, each with where it starts and ends, by start."""
    units = [(span.start, span.end, span.of(reply)) for span in split_sentences(reply)]
    position = 0
    for line in reply.splitlines(keepends=True):
        if line.strip():
            start = position + len(line) - len(line.lstrip())
            units.append((start, start + len(line.strip()), line.strip()))
        position += len(line)
    return sorted(units, key=lambda unit: unit[0])


def reply_cut(reply: str, *, echoes: Sequence[str] = ()) -> Cut | None:
    """Where ``reply`` should end and why, or ``None`` when every part of it is new."""
    cuts: list[Cut] = []
    for run in _RUN.finditer(reply):
        if len(run.group(0)) >= RUN_CHARS and any(ch.isalnum() for ch in run.group(1)):
            cuts.append(Cut(run.start(), "repeated characters"))
            break
    seen: dict[str, int] = {}  # key -> where its first saying ends
    for start, end, unit in _units(reply):
        key = _key(unit)
        if not key:
            continue
        if key in seen and seen[key] <= start:  # said again, not the same words seen twice
            cuts.append(Cut(start, "repeated sentence"))  # as a sentence and as its line
            break
        seen.setdefault(key, end)
    if echoes:
        position = 0
        for line in reply.splitlines(keepends=True):
            stripped = line.strip()
            if stripped and any(
                stripped.startswith(echo) or (echo.startswith(stripped) and len(stripped) >= 12)
                for echo in echoes
            ):
                cuts.append(Cut(position, "echoed the prompt"))
                break
            position += len(line)
    cuts = [cut for cut in cuts if reply[: cut.end].strip()]
    if not cuts:
        return None
    first = min(cuts, key=lambda cut: cut.end)
    return Cut(len(reply[: first.end].rstrip()), first.reason)
