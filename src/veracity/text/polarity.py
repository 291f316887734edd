"""Words that turn a sentence's meaning around: negation cues, antonyms, contrary quantifiers
and units of duration.

The contradiction rules (:mod:`veracity.verify.knowledge.polarity`) read a claim against its
evidence with them, and the verifier's training data (``veracity_training.data.perturb``) makes
its contradicted twins with the same lists, so that what the network is taught and what the
rules check are the same words.

>>> sorted(antonyms_of("opens"))
['closes']
>>> [m.group(0) for m in negation_cues("The museum does not open and never closes.")]
['not', 'never']
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from functools import lru_cache
from importlib import resources

from veracity.text.words import stem

__all__ = [
    "CONTRARY_QUANTIFIERS",
    "DURATION_UNITS",
    "NEGATION",
    "antonyms_of",
    "negation_cues",
    "opposite_stems",
    "unit_dimension",
]

#: A negation word (whole words, case-insensitive); "cannot" counts as one, and a contraction
#: with a curly apostrophe ("don’t") as one with a straight one.
NEGATION = re.compile(
    r"\b(not|n['’]t|never|no|none|nothing|nobody|neither|nor|without|cannot|no longer|hardly|"
    r"barely|rarely|seldom|fail|failed|fails|unable|lack|lacked)\b",
    re.IGNORECASE,
)
#: A negation cue: a negation word or a contracted "n't" ("isn't", "doesn't").
_CUE = re.compile(NEGATION.pattern + r"|n['’]t\b|\blacks\b", re.IGNORECASE)

#: Quantifiers and frequency words whose replacement makes a claim false: "all bees" / "no
#: bees", "always" / "never", "most" / "few".
CONTRARY_QUANTIFIERS: dict[str, str] = {
    "all": "no",
    "always": "never",
    "never": "always",
    "everyone": "no one",
    "everything": "nothing",
    "nothing": "everything",
    "most": "few",
    "many": "few",
    "few": "many",
    "none": "all",
}

#: Units of one dimension each, singular and plural: "ten minutes" against "ten hours" is a
#: mismatch of the same dimension.
DURATION_UNITS: dict[str, str] = {
    **dict.fromkeys(("second", "seconds", "sec", "secs"), "second"),
    **dict.fromkeys(("minute", "minutes", "min", "mins"), "minute"),
    **dict.fromkeys(("hour", "hours", "hr", "hrs"), "hour"),
    **dict.fromkeys(("day", "days"), "day"),
    **dict.fromkeys(("week", "weeks"), "week"),
    **dict.fromkeys(("month", "months"), "month"),
    **dict.fromkeys(("year", "years"), "year"),
    **dict.fromkeys(("decade", "decades"), "decade"),
    **dict.fromkeys(("century", "centuries"), "century"),
}


def unit_dimension(word: str) -> str | None:
    """The duration unit a word names ("hours" -> "hour"), or None."""
    return DURATION_UNITS.get(word.lower())


def negation_cues(text: str) -> Iterator[re.Match[str]]:
    """Every negation cue of ``text``, in order."""
    return _CUE.finditer(text)


@lru_cache(maxsize=1)
def _antonyms() -> dict[str, frozenset[str]]:
    table: dict[str, set[str]] = {}
    text = resources.files("veracity.text").joinpath("antonyms.txt").read_text(encoding="utf-8")
    for line in text.splitlines():
        words = line.split()
        if len(words) != 2 or line.startswith("#"):
            continue
        a, b = (w.lower() for w in words)
        table.setdefault(a, set()).add(b)
        table.setdefault(b, set()).add(a)
    return {word: frozenset(others) for word, others in table.items()}


def antonyms_of(word: str) -> frozenset[str]:
    """The words of the shipped lexicon (``antonyms.txt``) that contradict ``word``."""
    return _antonyms().get(word.lower(), frozenset())


@lru_cache(maxsize=1)
def _stem_opposites() -> dict[str, frozenset[str]]:
    table: dict[str, set[str]] = {}
    for word, others in _antonyms().items():
        table.setdefault(stem(word), set()).update(stem(other) for other in others)
    for word, contrary in CONTRARY_QUANTIFIERS.items():
        table.setdefault(word, set()).add(contrary)
    return {key: frozenset(values) for key, values in table.items()}


def opposite_stems(word: str) -> frozenset[str]:
    """The stems (:func:`veracity.text.words.stem`) of the words that contradict any inflection
    of ``word`` in the lexicon or the contrary quantifiers: "opens" gives the stems of "closes"
    and "closed".

    >>> sorted(opposite_stems("opens"))
    ['clos', 'close']
    """
    return _stem_opposites().get(stem(word.lower()), frozenset())
