"""Sentence boundaries as character spans (Punkt, English model, pickle-free).

>>> text = "Dr. Smith left. He was tired."
>>> [span.of(text) for span in split_sentences(text)]
['Dr. Smith left.', 'He was tired.']
"""

from __future__ import annotations

import functools
import re
from typing import Any

from veracity.types import Span

__all__ = ["split_sentences"]

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
