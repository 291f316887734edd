"""Sentence boundaries as character spans (Punkt, English model, pickle-free).

>>> text = "Dr. Smith left. He was tired."
>>> [span.of(text) for span in split_sentences(text)]
['Dr. Smith left.', 'He was tired.']
"""

from __future__ import annotations

import functools
import re
from typing import Any

from veracity import defaults
from veracity.types import Span

__all__ = ["question_focus", "split_sentences"]

_BLANK_LINE = re.compile(r"\n\s*\n")


@functools.lru_cache(maxsize=1)
def _tokenizer() -> Any:
    import punkt

    return punkt.PunktSentenceTokenizer(punkt.load_model("english"))


def split_sentences(text: str) -> list[Span]:
    """Spans of the sentences of ``text``, in order, without surrounding whitespace.

    Blank lines (paragraph breaks, headings, list items) always end a sentence, since Punkt alone
    would join a heading to the paragraph below it.
    """
    spans: list[Span] = []
    tokenizer = _tokenizer()
    position = 0
    for block_end in [m.start() for m in _BLANK_LINE.finditer(text)] + [len(text)]:
        block = text[position:block_end]
        for start, end in tokenizer.span_tokenize(block):
            piece = block[start:end]
            lead = len(piece) - len(piece.lstrip())
            trail = len(piece) - len(piece.rstrip())
            if end - trail > start + lead:
                spans.append(Span(position + start + lead, position + end - trail))
        match = _BLANK_LINE.match(text, block_end)
        position = match.end() if match else block_end
    return spans


def question_focus(question: str, *, max_words: int = defaults.QUESTION_FOCUS_WORDS) -> str:
    """The part of a long question that asks it: the question itself when it is at most
    ``max_words`` words, else its sentences that end in a question mark (or its last sentence).

    A question is compared with passages as a claim would be, and a verifier reads only so many
    tokens of it; a question that tells a story first ("I have kept bees for three years ...
    Which parasite is it?") is compared by what it asks.

    >>> question_focus("I keep bees. Their wings are crumpled. Which mite is it?", max_words=5)
    'Which mite is it?'
    """
    if len(question.split()) <= max_words:
        return question
    spans = split_sentences(question)
    asking = [span for span in spans if span.of(question).rstrip().endswith(("?", "？", "؟"))]
    chosen = asking or spans[-1:]
    return " ".join(span.of(question) for span in chosen) or question
