"""Why a sentence of an answer is not verified: code, a heading, a fragment, or one of the
reasons of :func:`veracity.text.factual.skip_reason` (question, greeting, meta, opinion,
refusal, empty, and the not-checkable fragment, vague and unreadable).

A heading is a Markdown ``#`` heading, a line without an end mark underlined with ``===`` or
``---`` (a setext heading), a line that is bold and nothing else (``**Key facts**``), or a short
title line: alone on its line, no bullet, no end mark, at most ``TITLE_MAX_WORDS`` words and no
verb ("Key Facts", "Waggle dance"). A *fragment* is, besides the single words of
``skip_reason``, at most ``FRAGMENT_MAX_WORDS`` words of which none can be a verb ("The default
value.", "In 2019.", "Version 2.0."): not checkable. A word that may be a verb ("Bees dance.",
"Debian packages.") keeps the sentence a claim.

>>> sentence_skip_reason("**Key facts**", "Key facts")
'heading'
>>> sentence_skip_reason("Bees dance [1].", "Bees dance.") is None
True
>>> sentence_skip_reason("In 2019 [1].", "In 2019.")
'fragment'
"""

from __future__ import annotations

import re

from veracity.text.factual import skip_reason
from veracity.text.grammar import Token, read_clause, tokenize, verb_form
from veracity.types import SkipReason

__all__ = ["FRAGMENT_MAX_WORDS", "TITLE_MAX_WORDS", "sentence_skip_reason"]

#: The longest line (in words) read as a title when it has no verb and no end mark.
TITLE_MAX_WORDS = 6
#: The longest sentence (in words) read as a fragment when no word of it can be a verb.
FRAGMENT_MAX_WORDS = 3

_HEADING = re.compile(r"#{1,6}\s")
#: A setext heading: a line without an end mark, then "===" or "---" under it ("Usage\n=====").
_UNDERLINED = re.compile(r"\A[^\n]*[^\s.!?。！？]\n[ \t]*(?:={3,}|-{3,})[ \t]*\Z")
_BOLD_LINE = re.compile(r"(\*\*|__)[^*_\n]+\1\s*:?")
_BULLET = re.compile(r"(?:[-*•+]|\d{1,3}[.)]|[a-zA-Z][.)])\s")
_END_MARK = re.compile(r"[.!?…。！？:;)\]]$")


def sentence_skip_reason(
    text: str, claim: str, *, code: bool = False, heading: bool = False, own_line: bool = False
) -> SkipReason | None:
    """Why a sentence needs no verification, or ``None`` when it states something to check.

    ``text`` is the sentence as written, ``claim`` its bare text (markers, bullets and emphasis
    removed); ``code`` and ``heading`` say whether it lies in code or opens with ``#``, and
    ``own_line`` whether nothing else stands on its line(s).
    """
    written = text.strip()
    if code:
        return "code"
    if heading or _HEADING.match(written) or _BOLD_LINE.fullmatch(written):
        return "heading"
    if _UNDERLINED.search(written):
        return "heading"
    if own_line and _is_title(written, claim):
        return "heading"
    reason = skip_reason(claim)
    if reason is None and _is_fragment(claim):
        return "fragment"
    return reason


def _is_fragment(claim: str) -> bool:
    tokens = tokenize(claim)
    words = [token for token in tokens if token.is_word]
    if not words or len(words) > FRAGMENT_MAX_WORDS:
        return False
    for previous, token in zip((None, *words), words, strict=False):
        lower = token.text.lower()
        lowered = Token(lower, token.start, token.end)  # "Run it daily.": an imperative
        if verb_form(token, previous) is not None or verb_form(lowered) is not None:
            return False
        if lower.isalpha() and len(lower) >= 3 and lower.endswith(("s", "ed")):
            return False  # "Debian packages.", "Prices dropped.": may be a verb
    return True


def _is_title(written: str, claim: str) -> bool:
    if _BULLET.match(written) or _END_MARK.search(claim) or not claim[:1].isupper():
        return False
    words = [token for token in tokenize(claim) if token.is_word]
    if not words or len(words) > TITLE_MAX_WORDS or "\n" in written:
        return False
    return read_clause(tokenize(claim), claim) is None
