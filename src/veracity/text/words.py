"""Word helpers for answer text: tokens, a light stem, content words and their spans.

>>> content_words("The cats were sleeping on the mats.")
['cat', 'sleep', 'mat']
"""

from __future__ import annotations

import functools
import re

__all__ = [
    "APOSTROPHES",
    "STOPWORDS",
    "WORD",
    "capitalised_entities",
    "content_word_spans",
    "content_words",
    "stem",
    "word_tokens",
]

#: English function words, lowercased (close to NLTK's list, with contractions spelled out).
STOPWORDS = frozenset(
    """
a about above after again against all also am an and any are aren't as at be because been before
being below between both but by can can't cannot could couldn't did didn't do does doesn't doing
don't down during each either few for from further had hadn't has hasn't have haven't having he
he'd he'll he's her here here's hers herself him himself his how how's i i'd i'll i'm i've if in
into is isn't it it's its itself just let's may me might more most must mustn't my myself neither
no nor not of off on once only or other ought our ours ourselves out over own same shall shan't
she she'd she'll she's should shouldn't so some such than that that's the their theirs them
themselves then there there's these they they'd they'll they're they've this those through to too
under until up upon very was wasn't we we'd we'll we're we've were weren't what what's when when's
where where's which while who who's whom why why's will with won't would wouldn't yet you you'd
you'll you're you've your yours yourself yourselves s t d ll m re ve
""".split()
)

#: A word: letters and digits, with inner apostrophes.
WORD = re.compile(r"[^\W_]+(?:['’][^\W_]+)*")
#: Curly apostrophes made straight.
APOSTROPHES = str.maketrans({"’": "'"})


def word_tokens(text: str) -> list[str]:
    """Lowercased word tokens (letters and digits; inner apostrophes kept, curly ones made ')."""
    return [match.group().translate(APOSTROPHES) for match in WORD.finditer(text.lower())]


@functools.lru_cache(maxsize=65536)
def stem(word: str) -> str:
    """A light suffix stem, so plural and tense variants meet: studies/study, opened/opens/open.

    Not a linguistic stemmer: it only has to map the same word form to the same key on both
    sides of a comparison. Stems keep at least three characters.

    >>> [stem(w) for w in ("studies", "opened", "opening", "boxes", "cars", "glass", "bus")]
    ['study', 'open', 'open', 'box', 'car', 'glass', 'bus']
    """
    if word.endswith("'s"):
        word = word[:-2]
    if len(word) > 4 and word.endswith("ies"):
        return word[:-3] + "y"
    if len(word) > 5 and word.endswith("ing"):
        return word[:-3]
    if len(word) > 4 and word.endswith("ed"):
        return word[:-2]
    if len(word) > 4 and word.endswith(("ches", "shes", "xes", "zes", "sses")):
        return word[:-2]
    if len(word) > 3 and word.endswith("s") and not word.endswith(("ss", "us", "is")):
        return word[:-1]
    return word


def content_words(text: str) -> list[str]:
    """Stemmed word tokens of ``text`` without stopwords, in order (numbers included).

    >>> content_words("The cats were sleeping on the mats.")
    ['cat', 'sleep', 'mat']
    """
    return [stem(word) for word in word_tokens(text) if word not in STOPWORDS]


def content_word_spans(text: str) -> list[tuple[int, int]]:
    """Character spans of the words of ``text`` that are not stopwords, in order.

    >>> content_word_spans("The cat sat.")
    [(4, 7), (8, 11)]
    """
    return [
        match.span()
        for match in WORD.finditer(text)
        if match.group().lower().translate(APOSTROPHES) not in STOPWORDS
    ]


# --- capitalised names ------------------------------------------------------------------------

_CONNECTORS = frozenset({"of", "the", "de", "del", "da", "du", "van", "von", "der", "la", "le"})
_OPENERS = frozenset('.!?:;\n"“(')


def _opens_sentence(text: str, start: int) -> bool:
    before = start - 1
    while before >= 0 and text[before] in " \t":
        before -= 1
    return before < 0 or text[before] in _OPENERS


def capitalised_entities(text: str) -> list[str]:
    """Runs of capitalised words, lowercased: a cheap stand-in for named entities.

    A run may hold inner connectors ("Bank of England") and "&" or "-" ("AT&T"); a capitalised
    stopword that opens a sentence ("The", "In", "He") is not part of a name. Single capitalised
    words that open a sentence are kept, so "Paris is ..." still yields "paris".

    >>> capitalised_entities("The Bank of England raised rates. In March, Andrew Bailey spoke.")
    ['bank of england', 'march', 'andrew bailey']
    """
    entities: list[str] = []
    run: list[re.Match[str]] = []

    def close() -> None:
        while run and run[-1].group().lower() in _CONNECTORS:
            run.pop()
        if len(run) == 1 and run[0].group().lower() in STOPWORDS:  # "I", "We" mid-sentence
            run.clear()
        if run:
            name = text[run[0].start() : run[-1].end()].lower().translate(APOSTROPHES)
            entities.append(" ".join(name.split()))
        run.clear()

    position = 0
    for match in WORD.finditer(text):
        word = match.group()
        gap = text[position : match.start()]
        position = match.end()
        if run and gap.strip() not in ("", "&", "-"):
            close()
        if word[0].isupper():
            if not run and _opens_sentence(text, match.start()) and word.lower() in STOPWORDS:
                continue
            run.append(match)
        elif run and word in _CONNECTORS:
            run.append(match)
        else:
            close()
    close()
    return entities
