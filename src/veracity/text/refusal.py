"""Recognise a reply in which the model declines to answer ("I don't know"), in many languages.

The phrases are data: ``refusals.json`` next to this module lists, per language, regular
expressions with ids (English, Persian with and without the zero-width non-joiner, Chinese,
Spanish, French, German, Italian, Portuguese, Russian, Japanese, Arabic) and the contrast words
("but", "pero", "但是", ...) after which a refusal phrase opens a partial answer instead.

A reply *is* a refusal, not an answer that happens to hold a refusal phrase, when

1. a refusal phrase starts within ``lead_chars`` characters of the reply, with no sentence end
   before it (so "Sorry, I don't know." is one, "Bees dance. I don't know why." is not);
2. no contrast word follows it ("I don't know the year, but the guild was founded ..." is not);
3. the reply is short (``max_chars`` without citation markers) when it cites blocks, since a
   long cited reply is an answer whatever its first words.

>>> detect_refusal("I don't know.").pattern
'en.dont_know'
>>> detect_refusal("Bees dance [1]. I don't know why.") is None
True
"""

from __future__ import annotations

import functools
import json
import re
from dataclasses import dataclass
from importlib import resources

from veracity import defaults
from veracity.errors import OptionError
from veracity.text.citations import find_markers
from veracity.types import Refusal, Span

__all__ = ["RefusalPattern", "detect_refusal", "refusal_languages", "refusal_patterns"]

TABLE = "refusals.json"
_SENTENCE_END = re.compile(r"[.!?](?:\s|$)|[。！？]|\n\s*\n")


@dataclass(frozen=True, slots=True)
class RefusalPattern:
    """One row of the refusal table: ``id`` (``"en.dont_know"``), ``language``, the regex."""

    id: str
    language: str
    regex: re.Pattern[str]


@functools.lru_cache(maxsize=1)
def _table() -> tuple[tuple[RefusalPattern, ...], re.Pattern[str]]:
    data = json.loads(
        resources.files(__package__ or "veracity.text").joinpath(TABLE).read_text(encoding="utf-8")
    )
    patterns = tuple(
        RefusalPattern(
            str(row["id"]), str(row["language"]), re.compile(str(row["pattern"]), re.IGNORECASE)
        )
        for row in data["patterns"]
    )
    contrast = re.compile(
        "|".join(f"(?:{words})" for words in data["contrast"].values()), re.IGNORECASE
    )
    return patterns, contrast


def refusal_patterns() -> tuple[RefusalPattern, ...]:
    """Every pattern of the shipped refusal table, in table order."""
    return _table()[0]


def refusal_languages() -> tuple[str, ...]:
    """Language codes the refusal table covers, in table order."""
    return tuple(dict.fromkeys(pattern.language for pattern in refusal_patterns()))


def _first_match(text: str) -> tuple[RefusalPattern, re.Match[str]] | None:
    best: tuple[RefusalPattern, re.Match[str]] | None = None
    for pattern in refusal_patterns():
        match = pattern.regex.search(text)
        if match is None:
            continue
        if best is None or (match.start(), -len(match.group())) < (
            best[1].start(),
            -len(best[1].group()),
        ):
            best = (pattern, match)
    return best


def detect_refusal(
    text: str,
    *,
    lead_chars: int = defaults.REFUSAL_LEAD_CHARS,
    max_chars: int = defaults.REFUSAL_MAX_CHARS,
) -> Refusal | None:
    """The refusal ``text`` makes, or ``None`` when it is not one (see the module docstring)."""
    if lead_chars < 0:
        raise OptionError("lead_chars", lead_chars, "0 or more characters")
    if max_chars < 1:
        raise OptionError("max_chars", max_chars, "1 or more characters")
    found = _first_match(text)
    if found is None:
        return None
    pattern, match = found
    prefix = text[: match.start()]
    if len(prefix.strip()) > lead_chars or _SENTENCE_END.search(prefix):
        return None
    if _table()[1].search(text, match.end()):
        return None
    markers = find_markers(text)
    if markers:
        bare = text
        for marker in reversed(markers):
            bare = bare[: marker.span.start] + bare[marker.span.end :]
        if len(bare.strip()) > max_chars:
            return None
    return Refusal(pattern.id, pattern.language, Span(match.start(), match.end()), match.group())
