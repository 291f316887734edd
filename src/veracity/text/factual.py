"""Does a sentence of an answer state something that needs a source, and if not, why not?

:func:`skip_reason` names why a sentence (without citation markers) needs no verification, or
returns ``None`` when it states something to check. The reasons:

- ``empty``: no letter or digit ("---");
- ``question``: it ends with a question mark;
- ``greeting``: a greeting or courtesy ("Sure!", "I hope this helps.");
- ``refusal``: the model declines ("I don't know.", in any language of the refusal table);
- ``meta``: talk about the answer itself: a lead-in that ends with a colon ("Here is what the
  documents say:"), "As an AI language model, I cannot ...", "Based on the provided context."
  alone, "Here is a summary.", "In summary." alone;
- ``opinion``: a pure opinion with nothing to check ("I think this is fascinating.", "This is a
  great question.", "It is interesting to note.").

Three more name a sentence that reads as if it said something but is *not checkable*
(``veracity.types.NOT_CHECKABLE``): no source could support it, so it is never judged:

- ``unreadable``: most of its letters are of a script other than Latin (Hebrew, Chinese,
  Cyrillic, ...: the shipped models read English), or most of its letters and digits are runs
  of one repeated character ("aaaa...");
- ``fragment``: a single word or number ("docs.", "Yes.", a list's bare "2.");
- ``vague``: every content word is generic and nothing names a thing, a number or a value
  ("The system works as documented.", "It works as expected.", "This is described in the
  docs.").

These are kept narrow on purpose: a short sentence that names anything ("gzip compresses
files.", "Bees dance.") stays a claim. :mod:`veracity.verify.claims.filter` adds a fragment
rule that needs its clause reader (a few words without a verb).

The rules match whole sentences only, so a sentence that states a fact with an opinion or a
meta phrase attached ("Interestingly, bees dance.", "Based on the documents, bees dance.") is
still verified. :func:`is_factual` is ``skip_reason(sentence) is None``.

>>> skip_reason("Worker bees develop in 21 days.") is None
True
>>> skip_reason("I don't know."), skip_reason("This is a great question.")
('refusal', 'opinion')
>>> is_factual("Worker bees develop in 21 days."), is_factual("Here is a summary.")
(True, False)
>>> skip_reason("docs."), skip_reason("The system works as documented."), skip_reason("שלום.")
('fragment', 'vague', 'unreadable')
"""

from __future__ import annotations

import re
import unicodedata

from veracity.text.refusal import detect_refusal
from veracity.text.words import STOPWORDS, stem, word_tokens
from veracity.types import SkipReason

__all__ = ["is_factual", "skip_reason"]

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

_DOCUMENTS = (
    r"(?:the |these |those |your |my )?(?:provided |given |available |above |supplied "
    r"|retrieved |following )?(?:documents?|context|sources?|information|passages?"
    r"|texts?|search results|data|materials?)(?: (?:provided|given|above|available))?"
)
_META = re.compile(
    r"^(?:(?:sure|okay|ok|certainly|of course|alright)[,!]?\s+)?(?:"
    # "As an AI language model, I cannot browse the web." -- about the model, not the topic
    r"as an? (?:ai|artificial intelligence)(?: (?:language )?model| assistant| chatbot)?"
    r"(?:,? (?:i (?:cannot|can't|can’t|can not|don't|don’t|do not|am not|am unable|have no"
    r"|lack)|my (?:knowledge|training|abilities|responses?))\b(?:(?!\bbut\b|\bhowever\b)"
    r"[^.!])*)?"
    rf"|(?:based on|according to|from|using|given) {_DOCUMENTS}"
    r"|here(?:'s|’s| is| are) (?:a |an |the |my |some )?(?:brief |short |quick |concise "
    r"|detailed |simple )?(?:summary|overview|answer|explanation|breakdown|list|rundown"
    r"|response|information|details|key points|main points)(?: (?:of|on|about|for)\b[^.!]*)?"
    r"|here(?:'s|’s| is| are) what (?:i (?:found|know)|the (?:documents?|sources?|context"
    r"|texts?) (?:says?|shows?))[^.!]*"
    r"|in (?:summary|short|conclusion|brief|a nutshell)|to (?:summarize|summarise|sum up"
    r"|conclude)|overall|in other words"
    r"|(?:let me|i(?:'ll|’ll| will)) (?:explain|summarize|summarise|break (?:this|it) down"
    r"|elaborate|clarify|walk you through|outline)\b[^.!]*"
    r"|i (?:don't|don’t|do not) have (?:access to|the ability to|personal|real-time"
    r"|current|browsing)\b[^.!]*"
    r"|my (?:knowledge|training(?: data)?) (?:cutoff|cut-off|ends?)\b[^.!]*"
    r")\W*$",
    re.IGNORECASE,
)
_OPINION_WORD = (
    r"(?:fascinating|interesting|amazing|great|wonderful|remarkable|fantastic"
    r"|incredible|excellent|good|awesome|cool|intriguing|beautiful|impressive"
    r"|exciting|complex|complicated|tricky|nuanced|important|fun|delightful)"
)
_INTENSIFIER = (
    r"(?:(?:really|very|quite|truly|so|such|absolutely|incredibly|pretty|extremely"
    r"|an?) )*"
)
_THING = r"(?: (?:question|topic|subject|area|field|story|idea|point|thing|one))?"
_I_THINK = (
    r"(?:(?:i (?:think|believe|feel|find)|in my (?:opinion|view)|personally)"
    r"(?:,? that)?,? )?"
)
_OPINION = re.compile(
    r"^(?:"
    # "I think this is fascinating.", "This is a great question.", "What a great topic!"
    rf"{_I_THINK}(?:(?:this|that|it)(?:'s|’s| is| was| must be| seems| sounds)|what) "
    rf"{_INTENSIFIER}{_OPINION_WORD}{_THING}(?: to (?:ask|consider|think about|explore|note"
    r"|learn about|mention|point out|remember))?"
    # "I find it fascinating."
    rf"|i (?:think|believe|feel|find) (?:this|that|it) {_INTENSIFIER}{_OPINION_WORD}"
    # "It is interesting to note." with nothing after it
    rf"|(?:it(?:'s|’s| is) )?{_INTENSIFIER}(?:interesting|worth noting|fascinating|notable"
    r"|remarkable|important) to (?:note|mention|point out|remember|consider)"
    r")\W*$",
    re.IGNORECASE,
)


#: Generic words: a sentence made of these alone (and stop words) states nothing checkable.
_GENERIC = frozenset(
    stem(word)
    for word in """
system systems tool tools program programs software application applications app apps product
products package packages code project projects thing things everything something anything
nothing feature features way ways case cases purpose job result results stuff process part parts
work works worked working function functions functioned functioning operate operates operated
run runs ran running behave behaves behaved do does did done go goes went happen happens happened
document documents documented documentation doc docs manual manuals readme guide describe
describes described explain explains explained specify specifies specified state states stated
say says said mention mentions mentioned show shows shown note noted indicate indicated suggest
suggested claim claimed promise promised advertise advertised expect expects expected intend
intended design designed
properly correctly fine well normally usually generally basically exactly really actually also
good great ok okay correct right true fact indeed usual normal expected intended above below
earlier later previously here there see refer
""".split()
)
_CODE_LIKE = re.compile(r"[\w][./_\\:@#-][\w]|`|\d")
#: A run of one letter or digit repeated ten times or more ("aaaaaaaaaa"); a rule of "-" or
#: "=" under a heading is not one.
_RUN = re.compile(r"(\w)\1{9,}")


def _unreadable(text: str) -> bool:
    letters = [char for char in text if char.isalpha()]
    if letters:
        foreign = sum(not unicodedata.name(char, "").startswith("LATIN") for char in letters)
        if foreign * 2 > len(letters):
            return True
    word = "".join(re.findall(r"\w", text))
    repeated = sum(len(match.group()) for match in _RUN.finditer(word))
    return repeated * 2 > len(word)


def _vague(text: str) -> bool:
    if _CODE_LIKE.search(text):
        return False
    words = re.findall(r"[^\W_]+(?:['’][^\W_]+)*", text)
    if any(word[:1].isupper() for word in words[1:]):
        return False  # a name ("The system works as Debian documents.")
    return all(
        word in STOPWORDS or stem(word) in _GENERIC
        for word in (word.lower().replace("’", "'") for word in words)
    )


def skip_reason(sentence: str) -> SkipReason | None:
    """Why ``sentence`` (without citation markers) needs no verification, or ``None``."""
    text = sentence.strip()
    if not _WORD.search(text):
        return "empty"
    if _QUESTION_END.search(text):
        return "question"
    if _COURTESY.match(text):
        return "greeting"
    if detect_refusal(text) is not None:
        return "refusal"
    if _LEAD_IN_END.search(text) or _META.match(text):
        return "meta"
    if _OPINION.match(text):
        return "opinion"
    if _unreadable(text):
        return "unreadable"
    if len(word_tokens(text)) == 1:
        return "fragment"
    if _vague(text):
        return "vague"
    return None


def is_factual(sentence: str) -> bool:
    """Whether ``sentence`` (without citation markers) states something to verify."""
    return skip_reason(sentence) is None
