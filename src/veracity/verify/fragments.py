"""Whether a passage can state a claim at all, so that its P(contradicted) may count against it.

A verifier reads whatever it is given. Given a heading ("# The Waggle Dance and Foraging"), a
title, a table-of-contents line, a caption or a paragraph about someone else, it still returns a
P(contradicted), and the shipped one gives such text up to 0.58 against a true claim. A passage
that cannot state the claim is never evidence against it. :func:`cannot_state` says why a
passage cannot, in three cheap, deterministic checks (no model), in this order:

1. ``"heading"``: nothing is left once Markdown heading lines (``# ...``) and bold-only lines
   (``**Key facts**``) are removed;
2. ``"fragment"``: what is left is a short fragment, fewer than :data:`MIN_WORDS` words, or at
   most :data:`FRAGMENT_MAX_WORDS` words none of which reads as a finite verb (a title, a
   table-of-contents line, a caption, "Karl von Frisch (1886-1982)"). A finite verb is an
   auxiliary or modal, a past form, a third-person ``-s`` form, a base form after a plural or
   pronoun subject ("Bees dance", not "The waggle dance"), or any other lower-case word after a
   subject pronoun or a plural opening a sentence ("They hum", "Ants walk"); capitalised words
   never are, so a Title Case line has none. Longer verbless text (a table row, a list of
   winners by year) can state a fact, and passes;
3. ``"other subject"``: the passage (with its document title and section path, when given as
   ``context``) holds none of the content words of the claim's grammatical subject ("waggle",
   "dance" in "The waggle dance was decoded by Karl von Frisch") and fewer than a third
   (:data:`MIN_SHARE`; three, :data:`MIN_SHARED`, always suffice) of the claim's other content
   words: "Austrian" alone is not enough for a claim about Karl von Frisch. The second half
   keeps a swapped subject, the commonest real contradiction ("Medvedev defeated Djokovic in
   the final" against "Nadal defeated Djokovic in the final"), able to contradict. A claim
   whose subject is a pronoun or cannot be read has only the second test, over all its content
   words. Words match on a light stem ("bees" = "bee") and, from four letters, inside a
   compound ("honey" in "honeybees").

``None`` means the passage can state the claim. The checks err towards ``None``: the verb test
reads plural nouns after a name as verbs ("Honey bees on a comb"), which only leaves such a
caption free to contradict, as before.

>>> claim = "The waggle dance was decoded by Karl von Frisch."
>>> cannot_state("# The Waggle Dance and Foraging", claim)
'heading'
>>> cannot_state("The Waggle Dance and Foraging", claim)
'fragment'
>>> cannot_state("An Austrian army major, Hruschka invented the honey extractor in 1865.", claim)
'other subject'
>>> cannot_state("Konrad Lorenz decoded the dance in 1945.", claim) is None
True
"""

from __future__ import annotations

import functools
import math
import re
from collections.abc import Sequence
from typing import Literal

from veracity.text.grammar import (
    ADVERBS,
    DETERMINERS,
    FUNCTION_WORDS,
    Token,
    read_clause,
    tokenize,
    verb_form,
)

__all__ = [
    "FRAGMENT_MAX_WORDS",
    "MIN_SHARE",
    "MIN_SHARED",
    "MIN_WORDS",
    "REASONS",
    "CannotState",
    "cannot_state",
    "claim_words",
]

CannotState = Literal["heading", "fragment", "other subject"]
REASONS: tuple[CannotState, ...] = ("heading", "fragment", "other subject")

#: The fewest words (outside headings) a passage needs to state anything.
MIN_WORDS = 2
#: The most words a passage without a finite verb may have and still be a mere fragment.
FRAGMENT_MAX_WORDS = 10
#: The share of a claim's content words outside its subject that a passage without the subject
#: must hold to state the claim, and the count that is always enough (a long claim: "Mi Yang was
#: cast ... as Mulan" against "Liu Yifei is playing the titular heroine, Mulan"). Without this
#: second test, RGB's conflict setting lost 13 of its 89 contested false answers, nearly all
#: swapped subjects.
MIN_SHARE = 1 / 3
MIN_SHARED = 3

_HEADING_LINE = re.compile(
    r"^[ \t]{0,3}(?:#{1,6}(?:[ \t].*)?|(\*\*|__)[^*_\n]+\1[ \t]*:?)[ \t]*$", re.MULTILINE
)
# Name particles and titles: "von" in "Karl von Frisch" says nothing about whom a passage is on.
_NAME_WORDS = frozenset(
    "von van de der den da di del della du la le al bin ibn y dr mr mrs ms prof st sir".split()
)
_SUBJECT_PRONOUNS = frozenset("they we i you who that which".split())
_PRONOUNS = frozenset("he she it they we i you".split())
_SENTENCE_ENDS = frozenset(".!?;:")
_SINGULAR = frozenset("the a an this that its his her their our".split())
#: Texts whose claim-independent reading is kept (passages, claims, passage + context).
_RECENT_TEXTS = 1024


def cannot_state(passage: str, claim: str, *, context: str = "") -> CannotState | None:
    """Why ``passage`` cannot state ``claim`` (see the module docstring), or ``None`` when it can.

    ``context`` is read only for the subject check: the passage's document title and section
    path, which say what a paragraph that opens "He ..." is about.
    """
    shape = _passage_shape(passage)
    if shape is not None:
        return shape
    subject, rest = claim_words(claim)
    held = _held(subject | rest, _text_stems(f"{passage}\n{context}"))
    needed = min(MIN_SHARED, math.ceil(MIN_SHARE * len(rest)))
    if (subject or rest) and not subject & held and len(rest & held) < needed:
        return "other subject"
    return None


# The readings below depend on one text each, and a request reads the same passages and claims
# many times over (every claim against each of its passages): they are kept for recent texts.
@functools.lru_cache(maxsize=_RECENT_TEXTS)
def _passage_shape(passage: str) -> CannotState | None:
    """``heading`` or ``fragment`` when the passage itself cannot state anything, else None."""
    tokens = tokenize(_HEADING_LINE.sub(" ", passage))
    words = [token for token in tokens if token.is_word]
    if not words:
        return "heading"
    if len(words) < MIN_WORDS or (
        len(words) <= FRAGMENT_MAX_WORDS and not _has_finite_verb(tokens)
    ):
        return "fragment"
    return None


@functools.lru_cache(maxsize=_RECENT_TEXTS)
def claim_words(claim: str) -> tuple[frozenset[str], frozenset[str]]:
    """The stems of ``claim``'s content words: those of its grammatical subject, and the rest
    (all of them when the subject is a pronoun or the shallow reader cannot find it).

    >>> [sorted(words) for words in claim_words("Karl von Frisch, an Austrian, won in 1973.")]
    [['frisch', 'karl'], ['1973', 'austrian', 'won']]
    >>> [sorted(words) for words in claim_words("He won it in 1973.")]
    [[], ['1973', 'won']]
    """
    tokens = tokenize(claim)
    clause = read_clause(tokens, claim)
    subject = _stems(clause.subject) if clause is not None else frozenset()
    return subject, _stems(tokens) - subject


def _stems(tokens: Sequence[Token]) -> frozenset[str]:
    stems = set()
    for token in tokens:
        word = token.lower.removesuffix("'s")
        if not token.is_word or word in FUNCTION_WORDS or word in _NAME_WORDS:
            continue
        form = verb_form(Token(word, token.start, token.end))
        if form is not None and form.aux:  # "is", "has", "can": no content
            continue
        if len(word) > 1 or word.isdigit():
            stems.add(_stem(word))
    return frozenset(stems)


def _stem(word: str) -> str:
    if len(word) > 3 and word.endswith("s") and not word.endswith(("ss", "us", "is")):
        return word[:-1]
    return word


@functools.lru_cache(maxsize=_RECENT_TEXTS)
def _text_stems(text: str) -> frozenset[str]:
    return frozenset(
        _stem(token.lower.removesuffix("'s")) for token in tokenize(text) if token.is_word
    )


def _held(wanted: frozenset[str], stems: frozenset[str]) -> frozenset[str]:
    """The stems of ``wanted`` among ``stems`` (a text's), alone or inside a compound."""
    return frozenset(
        stem
        for stem in wanted
        if stem in stems
        or (len(stem) >= 4 and any(word.startswith(stem) or word.endswith(stem) for word in stems))
    )


def _has_finite_verb(tokens: Sequence[Token]) -> bool:
    for position, token in enumerate(tokens):
        previous = tokens[position - 1] if position else None
        form = verb_form(token, previous)
        if form is not None:
            if form.aux or form.tense != "base" or _can_be_plural_subject(previous):
                return True
        elif _guessed_third_person(tokens, position) or _after_subject(tokens, position):
            return True
    return False


def _after_subject(tokens: Sequence[Token], position: int) -> bool:
    """A lower-case content word after a subject pronoun ("they hum") or after a plural that
    opens a sentence ("Ants walk."): the lexicon does not know every verb."""
    token = tokens[position]
    if (
        position == 0
        or not (token.text[0].islower() and token.text.isalpha())
        or token.lower in FUNCTION_WORDS
    ):
        return False
    previous = tokens[position - 1]
    if previous.lower in _PRONOUNS:
        return True
    opens = position == 1 or tokens[position - 2].text in _SENTENCE_ENDS
    return opens and previous.capitalised and _can_be_plural_subject(previous)


def _can_be_plural_subject(token: Token | None) -> bool:
    """Whether a base-form verb after ``token`` can be finite: "Bees dance", "they dance",
    "bees often dance" (not "the waggle dance")."""
    if token is None or not token.is_word:
        return False
    word = token.lower
    return (
        word in _SUBJECT_PRONOUNS
        or word in ADVERBS
        or (
            len(word) > 2
            and word.isalpha()
            and word.endswith("s")
            and not word.endswith(("ss", "us", "is"))
            and word not in FUNCTION_WORDS
        )
    )


def _guessed_third_person(tokens: Sequence[Token], position: int) -> bool:
    """A verb outside the lexicon in ``-s`` with a predicate after it: after a name ("Messi
    plays for ...") or a determiner and a noun ("the team plays ...")."""
    token = tokens[position]
    word = token.lower
    if not (
        token.text[0].islower()
        and word.isalpha()
        and len(word) >= 4
        and word.endswith("s")
        and not word.endswith(("ss", "us", "is", "ics"))
    ):
        return False
    if position == 0 or position + 1 >= len(tokens) or not tokens[position + 1].is_word:
        return False
    previous = tokens[position - 1]
    if not previous.is_word or previous.lower in DETERMINERS:
        return False
    if previous.capitalised or previous.lower in _PRONOUNS:
        return True
    return position >= 2 and tokens[position - 2].lower in _SINGULAR
