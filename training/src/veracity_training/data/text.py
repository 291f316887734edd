"""Plain-text helpers for the data builder: cleaning, sentences, spans of names, numbers and dates.

Everything here is regex-based and deterministic; nothing reads files.

>>> detokenize("Telemundo -LRB- NBC -RRB- is a network , owned by Comcast .")
'Telemundo (NBC) is a network, owned by Comcast.'
"""

from __future__ import annotations

import functools
import re

from veracity.text.sentences import split_sentences

__all__ = [
    "CAPITALISED",
    "DATE",
    "FUNCTION_WORDS",
    "MONTHS",
    "NOT_NAMES",
    "NUMBER",
    "YEAR",
    "capitalise_first",
    "clean",
    "content_tokens",
    "core_words",
    "detokenize",
    "drop_parentheticals",
    "ensure_period",
    "entities",
    "lower_first",
    "name_class",
    "novel_tokens",
    "sentences",
    "word_count",
    "words",
]

_SPACE = re.compile(r"[ \t\u00a0\u2009\u200b\ufffd]+")
_BLANKS = re.compile(r"\n\s*\n+")

_PTB = (
    ("-LRB-", "("),
    ("-RRB-", ")"),
    ("-LSB-", "["),
    ("-RSB-", "]"),
    ("-LCB-", "{"),
    ("-RCB-", "}"),
    ("-COLON-", ":"),
)


def clean(text: str) -> str:
    """Collapse runs of spaces (keeping paragraph breaks as one blank line) and strip."""
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    paragraphs = [_SPACE.sub(" ", " ".join(p.split("\n"))).strip() for p in _BLANKS.split(text)]
    return "\n\n".join(p for p in paragraphs if p)


def detokenize(text: str) -> str:
    """Undo Penn-Treebank style tokenization (FEVER, VitaminC, Natural Questions text)."""
    for token, char in _PTB:
        text = text.replace(token, char)
    text = re.sub(r"\bca n\s*'t\b", "can't", text)
    text = re.sub(r"\s+n\s*'t\b", "n't", text)
    text = re.sub(r"``\s*(.*?)\s*''", r'"\1"', text)
    text = text.replace("``", '"').replace("''", '"')
    text = re.sub(r"\s+([,.;:!?%)\]}])", r"\1", text)
    text = re.sub(r"(?<=\d): (?=\d)", ":", text)
    text = re.sub(r"([(\[{$])\s+", r"\1", text)
    text = re.sub(r"\s+('s|'re|'ve|'ll|'d|'m|n't|')(?=\W|$)", r"\1", text)
    text = re.sub(r"(?<=\w) - (?=\w)", "-", text)
    text = re.sub(r"(?<=\w) -- (?=\w)", " – ", text)
    text = re.sub(r"\(\s*\)", "", text)
    return clean(text)


@functools.lru_cache(maxsize=65536)
def _sentences(text: str) -> tuple[str, ...]:
    return tuple(span.of(text) for span in split_sentences(text))


def sentences(text: str) -> list[str]:
    """The sentences of ``text`` (cached: the same paragraph is split once per build)."""
    return list(_sentences(text))


_WORD = re.compile(r"[A-Za-z0-9][A-Za-z0-9'’.-]*[A-Za-z0-9]|[A-Za-z0-9]")


def words(text: str) -> list[str]:
    """Word tokens (letters and digits; inner hyphens, dots and apostrophes kept)."""
    return _WORD.findall(text)


def word_count(text: str) -> int:
    return len(text.split())


FUNCTION_WORDS = frozenset(
    """a an the and or but nor so yet of in on at by for with from to into onto upon over under
    about above below after before since until during between among through throughout against
    within without across along around behind beyond near off out up down as than then that this
    these those there here which who whom whose what when where why how is are was were be been
    being am do does did done has have had having can could will would shall should may might must
    not no it its it's he him his she her hers they them their theirs we us our you your i me my
    also too very more most less least much many some any all each every both either neither one
    other such own same only just even still again ever never however although though while if
    because whether once further later first""".split()
)

MONTHS = (
    "January February March April May June July August September October November December".split()
)
_MONTH = "(?:" + "|".join(MONTHS) + ")"
_MONTH_SHORT = r"(?:Jan|Feb|Mar|Apr|Jun|Jul|Aug|Sep|Sept|Oct|Nov|Dec)\.?"
DAYS = frozenset("Monday Tuesday Wednesday Thursday Friday Saturday Sunday".split())

#: A year between 1000 and 2099 standing alone.
YEAR = re.compile(r"(?<![\w.,$£€-])(1[0-9]{3}|20[0-9]{2})(?![\w%-]|[.,]\d)")
#: "1 May 2001", "May 1, 2001", "May 2001".
DATE = re.compile(
    rf"\b(?:(?P<dmy_d>[0-3]?\d) (?P<dmy_m>{_MONTH}) (?P<dmy_y>\d{{4}})"
    rf"|(?P<mdy_m>{_MONTH}) (?P<mdy_d>[0-3]?\d), (?P<mdy_y>\d{{4}})"
    rf"|(?P<my_m>{_MONTH}|{_MONTH_SHORT}) (?P<my_y>\d{{4}}))\b"
)
#: A number with optional thousands separators and decimals, e.g. 1,200 or 3.5 or 42.
NUMBER = re.compile(r"(?<![\w.,-])(\d{1,3}(?:,\d{3})+|\d+)(\.\d+)?(?![\w-]|[.,]\d)")

_CONNECTORS = {"of", "the", "de", "da", "del", "der", "van", "von", "and", "for", "la", "le", "du"}
_CAP_WORD = r"(?:[A-Z][\w'’.&-]*[\w.]|[A-Z])"
#: A run of capitalised words, allowing lower-case connectors inside ("Bank of England").
CAPITALISED = re.compile(
    rf"{_CAP_WORD}(?: (?:(?:of|the|de|da|del|der|van|von|and|for|la|le|du) )*{_CAP_WORD})*"
)
NOT_NAMES = frozenset(MONTHS) | DAYS | {
    "The", "A", "An", "In", "On", "At", "By", "For", "From", "With", "He", "She", "It", "They",
    "His", "Her", "Its", "Their", "This", "That", "These", "Those", "There", "Here", "When",
    "Where", "While", "After", "Before", "During", "Although", "However", "As", "But", "And",
    "Of", "To", "If", "Since", "Until", "Some", "Many", "Most", "Both", "Each", "All", "One",
    "I", "We", "You", "Our", "My", "Your", "Also", "Other", "Another", "Such", "Following",
    "According", "Unlike", "Like", "Despite", "Today", "Later", "Then", "Now", "Who", "What",
    "Which", "Why", "How", "Mr", "Mrs", "Ms", "Dr", "St",
}  # fmt: skip


def entities(sentence: str) -> list[tuple[int, int, str]]:
    """Capitalised name spans ``(start, end, text)`` of one sentence.

    A sentence-initial capitalised word counts only when another capitalised word follows it (so
    "The" or "In" at the start of a sentence are not names). Months and days are left out.
    """
    found: list[tuple[int, int, str]] = []
    for match in CAPITALISED.finditer(sentence):
        start, end = match.start(), match.end()
        text = match.group(0)
        # Trim leading/trailing connectors and function words that got caught at the edges.
        parts = text.split(" ")
        while parts and (parts[0] in NOT_NAMES or parts[0].lower() in _CONNECTORS):
            start += len(parts[0]) + 1
            parts = parts[1:]
        while parts and parts[-1].lower() in _CONNECTORS:
            parts = parts[:-1]
        if not parts:
            continue
        text = " ".join(parts)
        text = text.rstrip(".") if not re.search(r"\b[A-Z]\.$", text) else text
        end = start + len(text)
        if text in NOT_NAMES or len(text) < 2 or text.isdigit():
            continue
        if start == 0 and " " not in text:
            continue  # a capital at the start of a sentence says nothing on its own
        found.append((start, end, text))
    return found


_ORG_WORDS = frozenset(
    "University College School Academy Company Corporation Inc Ltd Club Society Association "
    "Council Committee Party Church Institute Museum Foundation Agency Department Ministry Bank "
    "Records Airlines Airways Group Band Army Navy Force Team League FC Orchestra Commission "
    "Court Parliament Congress Senate Board Office Service Network Press Times News".split()
)
_PLACE_WORDS = frozenset(
    "River Lake Mountain Mountains Mount Island Islands County Province State City Street Road "
    "Park Bridge Valley Bay Sea Ocean Hill Hills Castle Station Airport Square Hall Stadium Tower "
    "Palace Cathedral Abbey Village Town District Region Republic Kingdom Empire Coast Forest "
    "Desert Canal Avenue Temple".split()
)
_EVENT_WORDS = frozenset(
    "Award Awards Prize Cup Championship Championships Act Treaty War Battle Festival Games "
    "Olympics Medal Trophy Tournament Series Prix".split()
)


def name_class(name: str) -> str:
    """A coarse type for a capitalised name, so that a swap replaces like with like:
    ``org``, ``place``, ``event``, ``person`` (two to four plain capitalised words) or
    ``other``."""
    parts = name.replace("’", "'").split()
    words = set(parts)
    if words & _EVENT_WORDS:
        return "event"
    if words & _ORG_WORDS:
        return "org"
    if words & _PLACE_WORDS:
        return "place"
    if 2 <= len(parts) <= 4 and all(p[:1].isupper() and p.isalpha() for p in parts):
        return "person"
    return "other"


def core_words(name: str) -> set[str]:
    """The words that identify a name, without its class word: "oxford" of "Oxford University"."""
    return {w.lower() for w in name.split() if name_class(w) == "other"} - {"of", "the"}


_PAREN = re.compile(r"\s*[(\[][^()\[\]]*[)\]]")


def drop_parentheticals(text: str) -> str:
    """Remove bracketed asides: "Paris (French: Paris) is" -> "Paris is"."""
    previous = None
    while previous != text:
        previous = text
        text = _PAREN.sub("", text)
    return re.sub(r"\s+([,.;:])", r"\1", text).strip()


def capitalise_first(text: str) -> str:
    return text[:1].upper() + text[1:] if text else text


def lower_first(text: str) -> str:
    """Lower-case the first letter when the first word is a common word ("The" -> "the")."""
    first = text.split(" ", 1)[0]
    if first.lower() in FUNCTION_WORDS and first not in {"I"}:
        return first.lower() + text[len(first) :]
    return text


def ensure_period(text: str) -> str:
    text = text.strip().rstrip(",;:").strip()
    if not text:
        return text
    if text[-1] in ".!?":
        return text
    if text[-1] in "\"'”’)" and len(text) > 1 and text[-2] in ".!?":
        return text
    return text + "."


def content_tokens(text: str) -> set[str]:
    """Lower-cased tokens that carry facts: numbers, names and non-function words of 4+ letters."""
    out: set[str] = set()
    for token in words(text):
        low = token.lower().strip(".'’")
        if any(ch.isdigit() for ch in low):
            out.add(low.replace(",", ""))
        elif len(low) >= 4 and low not in FUNCTION_WORDS:
            out.add(low)
    return out


def _stem(token: str) -> str:
    for suffix in ("ies", "es", "s", "ed", "ing", "'s"):
        if token.endswith(suffix) and len(token) - len(suffix) >= 4:
            return token[: -len(suffix)]
    return token


def novel_tokens(claim: str, premise: str) -> set[str]:
    """Content tokens of ``claim`` (crudely stemmed) that ``premise`` never mentions.

    Used to make sure a "neither" negative really lacks a fact: at least one name, number or
    content word of the claim must be missing from the premise.
    """
    have = {_stem(t) for t in content_tokens(premise)}
    premise_low = premise.lower()
    missing: set[str] = set()
    for token in content_tokens(claim):
        if _stem(token) in have or token in premise_low:
            continue
        missing.add(token)
    return missing
