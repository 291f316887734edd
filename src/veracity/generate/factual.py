"""Does a sentence of an answer state something that needs a source?

Sentences that state nothing checkable are ``not_factual`` and are neither verified nor flagged
as uncited: a refusal ("I don't know.", in any language of the refusal table), a question, a
lead-in that ends with a colon ("Here is what the documents say:"), a greeting or courtesy
("Sure!", "I hope this helps."), and text without a letter or digit.

>>> is_factual("Worker bees develop in 21 days."), is_factual("I don't know.")
(True, False)
"""

from __future__ import annotations

import re

from veracity.generate.refusal import detect_refusal

__all__ = ["is_factual"]

_COURTESY = re.compile(
    r"^(?:hi|hello|hey|sure|certainly|of course|okay|ok|great|good question|great question"
    r"|thanks?(?: you)?(?: for (?:asking|your question))?|you(?:'|’)re welcome"
    r"|i hope (?:this|that) helps|hope (?:this|that) helps|let me know if .*"
    r"|feel free to .*|happy to help|glad to help)\W*$",
    re.IGNORECASE,
)
_QUESTION_END = re.compile(r"[?？؟]\W*$")
_LEAD_IN_END = re.compile(r"[:：]\s*$")
_WORD = re.compile(r"\w")


def is_factual(sentence: str) -> bool:
    """Whether ``sentence`` (without citation markers) states something to verify."""
    text = sentence.strip()
    if not _WORD.search(text):
        return False
    if _QUESTION_END.search(text) or _LEAD_IN_END.search(text) or _COURTESY.match(text):
        return False
    return detect_refusal(text) is None
