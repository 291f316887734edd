"""Sentence edits: meaning-changing ones (contradicted) and meaning-keeping ones (supported).

Each function takes a sentence and a seeded ``random.Random`` and returns the edited sentence, or
``None`` when the edit does not apply. None of them reads files.

>>> import random
>>> negate("The bridge was opened in 1932.", random.Random(0))
'The bridge was not opened in 1932.'
>>> change_date_format("He was born on 1 May 2001 in Lyon.")
'He was born on May 1, 2001 in Lyon.'
"""

from __future__ import annotations

import random
import re
from collections.abc import Callable

from veracity.rules.polarity import NEGATION
from veracity.text.verbs import (
    BASE_VERBS,
    IRREGULAR_PAST,
    is_participle,
    past,
    third_person,
)
from veracity_training.data.text import (
    DATE,
    FUNCTION_WORDS,
    MONTHS,
    NUMBER,
    YEAR,
    capitalise_first,
    core_words,
    drop_parentheticals,
    entities,
    lower_first,
    name_class,
)

__all__ = [
    "SYNONYMS",
    "attributive",
    "change_date_format",
    "change_number",
    "compress",
    "drop_discourse_marker",
    "front_to_back",
    "negate",
    "paraphrase",
    "passive_to_active",
    "reorder_coordination",
    "swap_entity",
    "synonym",
]

# --- negation -----------------------------------------------------------------------------------

_AUX_NOT = re.compile(
    r"\b(is|are|was|were|has|have|had|can|could|will|would|should|may|might|must)\b(?! not\b)"
)
_AUX_FORMS = frozenset("is are was were be been has have had do does did".split())
_PAST_TO_BASE = {
    p: b
    for b, p in sorted({(v, past(v)) for v in BASE_VERBS} | set(IRREGULAR_PAST.items()))
    if p not in _AUX_FORMS and b not in {"be", "have", "do"}
}
_THIRD_TO_BASE = {
    third_person(v): v for v in sorted(BASE_VERBS) if third_person(v) not in _AUX_FORMS
}
_SUBORDINATE_START = re.compile(
    r"^(After|When|While|Although|Though|Because|If|Since|As|Before|Once|Until|Unless|Whereas|"
    r"Despite|Upon)\b"
)


def negate(sentence: str, rng: random.Random) -> str | None:
    """Insert a "not" after the first auxiliary or do-support the first simple-past verb; or,
    in a sentence with a single plain negation, take it out."""
    if re.search(r"\bnot only\b", sentence):
        return None
    negations = NEGATION.findall(sentence)
    if negations:
        return _unnegate(sentence) if len(negations) == 1 else None
    if _SUBORDINATE_START.match(sentence):
        return None
    aux = _AUX_NOT.search(sentence)
    words = list(re.finditer(r"\b[a-z]+\b", sentence))
    verb = next(
        (m for m in words if m.group(0) in _PAST_TO_BASE or m.group(0) in _THIRD_TO_BASE), None
    )
    if aux is not None and (verb is None or aux.start() < verb.start()):
        if aux.group(0) == "had" and not re.match(r"had \w+(ed|en)\b", sentence[aux.start() :]):
            return None  # "had two sons" -> "had not two sons" is not English
        if aux.group(0) in {"has", "have"} and not re.match(
            r"(has|have) (been|\w+(ed|en))\b", sentence[aux.start() :]
        ):
            return None
        return sentence[: aux.end()] + " not" + sentence[aux.end() :]
    if verb is None:
        return None
    word = verb.group(0)
    if word in _PAST_TO_BASE and not (
        sentence[: verb.start()].rstrip().endswith((" was", " were", " been", " be", " is"))
    ):
        phrase = f"did not {_PAST_TO_BASE[word]}"
    elif word in _THIRD_TO_BASE:
        phrase = f"does not {_THIRD_TO_BASE[word]}"
    else:
        return None
    return sentence[: verb.start()] + phrase + sentence[verb.end() :]


def _unnegate(sentence: str) -> str | None:
    patterns: list[tuple[str, str]] = [
        (r"\b(is|are|was|were|has|have|had|can|could|will|would|should|may|might|must) not\b",
         r"\1"),
        (r"\b(is|are|was|were|has|have|had|could|would|should|does|do|did)n't\b", r"\1"),
        (r"\bcannot\b", "can"),
        (r"\b(has|have|had|is|are|was|were) never\b", r"\1"),
    ]  # fmt: skip
    for pattern, repl in patterns:
        if re.search(pattern, sentence):
            return re.sub(pattern, repl, sentence, count=1)
    match = re.search(r"\b(did|does|do) not (\w+)\b", sentence)
    if match and match.group(2) in BASE_VERBS:
        verb = match.group(2)
        form = {"did": past(verb), "does": third_person(verb), "do": verb}[match.group(1)]
        return sentence[: match.start()] + form + sentence[match.end() :]
    match = re.search(r"\bnever (\w+)\b", sentence)
    if match and (match.group(1) in _PAST_TO_BASE or match.group(1).endswith("ed")):
        return sentence[: match.start()] + match.group(1) + sentence[match.end() :]
    return None


# --- numbers ------------------------------------------------------------------------------------

_HEDGE = re.compile(
    r"(about|approximately|around|over|more than|less than|fewer than|nearly|almost|some|up to|"
    r"at least|at most|under|above|below|roughly|estimated|since|before|after|until|by|circa|"
    r"c\.|between|from|to|and|or|than|No\.|number|#)\s*$",
    re.IGNORECASE,
)
_DAY_OF_MONTH = re.compile(r"\b(" + "|".join(MONTHS) + r")\s*$")
_MONTH_AFTER = re.compile(r"\s*(" + "|".join(MONTHS) + r")\b")
_NUMBER_WORDS = ["two", "three", "four", "five", "six", "seven", "eight", "nine", "ten"]


def change_number(sentence: str, rng: random.Random, *, premise: str = "") -> str | None:
    """Change one year, percentage, count or quantity so that the claim becomes false.

    Numbers after hedges ("more than 100", "since 1990", "between ... and") are left alone: there
    a changed number can still be true. The new number does not occur in ``premise``.
    """
    spots: list[tuple[int, int, str]] = []
    for match in NUMBER.finditer(sentence):
        before = sentence[: match.start()]
        after = sentence[match.end() : match.end() + 2]
        if (
            _HEDGE.search(before)
            or after.startswith(("–", "-", "—"))
            or before.endswith(("–", "-"))
        ):
            continue
        if _DAY_OF_MONTH.search(before) or _MONTH_AFTER.match(sentence[match.end() :]):
            continue  # the day of a date: "August 38" would be nonsense
        if re.search(r"\b[A-Z][\w-]*\s$", before) and not YEAR.fullmatch(match.group(0)):
            continue  # an identifier ("Route 88", "Terminal 1"), not a quantity
        spots.append((match.start(), match.end(), match.group(0)))
    for match in re.finditer(r"\b(" + "|".join(_NUMBER_WORDS) + r")\b", sentence):
        if not _HEDGE.search(sentence[: match.start()]):
            spots.append((match.start(), match.end(), match.group(0)))
    rng.shuffle(spots)
    for start, end, text in spots:
        new = _new_number(text, sentence[end : end + 1] == "%", rng)
        if new is None or new == text or (premise and re.search(rf"\b{re.escape(new)}\b", premise)):
            continue
        return sentence[:start] + new + sentence[end:]
    return None


def _new_number(text: str, percent: bool, rng: random.Random) -> str | None:
    if text in _NUMBER_WORDS:
        return rng.choice([w for w in _NUMBER_WORDS if w != text])
    value = float(text.replace(",", ""))
    decimals = len(text.split(".")[1]) if "." in text else 0
    if YEAR.fullmatch(text) and decimals == 0:
        delta = rng.choice([-1, 1]) * rng.randint(1, 30)
        year = int(value) + delta
        return str(year) if year <= 2024 else str(int(value) - abs(delta))
    if percent:
        new = value + rng.choice([-1, 1]) * rng.randint(5, 30)
        if not 1 <= new <= 99:
            new = value - rng.randint(5, 30) if value > 50 else value + rng.randint(5, 30)
        return f"{new:.{decimals}f}"
    if value == 0:
        return None
    if value < 10 and decimals == 0:
        choices = [v for v in range(max(1, int(value) - 3), int(value) + 4) if v != int(value)]
        return str(rng.choice(choices))
    factor = rng.choice([0.5, 0.6, 0.75, 1.3, 1.5, 2.0, 3.0])
    new_value = value * factor
    if decimals == 0:
        digits = len(str(int(value))) - len(str(int(value)).rstrip("0"))
        step = 10 ** min(digits, max(0, len(str(int(new_value))) - 1))
        rounded = int(round(new_value / step) * step)
        if rounded == int(value):
            return None
        return f"{rounded:,}" if "," in text else str(rounded)
    return f"{new_value:.{decimals}f}"


# --- entities -----------------------------------------------------------------------------------


def attributive(sentence: str, end: int) -> bool:
    """Whether the name ending at ``end`` modifies a following lower-case word ("Roman
    soldiers"): such one-word names are adjectives more often than not."""
    match = re.match(r" ([a-z]+)\b", sentence[end:])
    if match is None:
        return False
    word = match.group(1)
    verb = (
        word in FUNCTION_WORDS
        or is_participle(word)
        or word in IRREGULAR_PAST.values()
        or (word.endswith("s") and word[:-1] in BASE_VERBS)
    )
    return not verb


def swap_entity(
    sentence: str,
    pool: list[tuple[str, str, bool]],
    rng: random.Random,
    *,
    keep: str = "",
) -> str | None:
    """Replace one name in ``sentence`` with another name of the article.

    ``pool`` holds (word before the name, name, attributive) for every name in the article. The
    replacement must have been seen after the same word ("in Paris" -> "in Lyon"), be of the same
    coarse class (:func:`~veracity_training.data.text.name_class`) and about as long. ``keep`` is
    a name not to touch or bring in (the article's subject).
    """
    keep_words = set(keep.split())
    spans = [
        s
        for s in entities(sentence)
        if not set(s[2].split()) & keep_words
        and not (" " not in s[2] and attributive(sentence, s[1]))
    ]
    if not spans:
        return None
    rng.shuffle(spans)
    low_sentence = sentence.lower()
    for start, end, name in spans:
        before = sentence[:start].split()
        context = before[-1].lower() if before else ""
        if not context:
            continue
        words = core_words(name)
        kind = name_class(name)
        choices = sorted(
            {
                other
                for ctx, other, attr in pool
                if ctx == context
                and not attr
                and other != name
                and not words & core_words(other)
                and not keep_words & set(other.split())
                and other.lower() not in low_sentence
                and abs(len(other.split()) - len(name.split())) <= 1
                and not other.endswith(("'s", "’s"))
                and name_class(other) == kind
            }
        )
        if choices:
            return sentence[:start] + rng.choice(choices) + sentence[end:]
    return None


# --- meaning-keeping edits ----------------------------------------------------------------------

SYNONYMS: dict[str, str] = {
    "approximately": "about",
    "commenced": "began",
    "purchased": "bought",
    "subsequently": "later",
    "prior to": "before",
    "numerous": "many",
    "individuals": "people",
    "in order to": "to",
    "a number of": "several",
    "the majority of": "most of",
    "was established": "was founded",
    "were established": "were founded",
    "is located in": "lies in",
    "is situated in": "is located in",
    "was situated in": "was located in",
    "utilised": "used",
    "utilized": "used",
    "assisted": "helped",
    "obtained": "got",
    "attempted": "tried",
    "constructed": "built",
    "resides": "lives",
    "resided": "lived",
    "passed away": "died",
    "in addition to": "besides",
    "also ": "",
    "initially": "at first",
    "received": "got",
    "completed": "finished",
    "located": "situated",
    "large": "big",
    "began": "started",
    "begins": "starts",
    "died": "passed away",
    "became": "went on to become",
    "approximately ": "roughly ",
    "several": "a number of",
    "known as": "called",
    "currently": "now",
    "the largest": "the biggest",
    "chosen": "selected",
    "selected": "chosen",
    "awarded": "given",
    "released": "put out",
    "founded": "established",
}
_SYNONYM_KEYS = sorted(SYNONYMS, key=len, reverse=True)


def synonym(sentence: str, rng: random.Random) -> str | None:
    """Replace one word or phrase with a synonym from a small hand-checked list."""
    hits = [
        m
        for key in _SYNONYM_KEYS
        for m in re.finditer(rf"(?<![\w-]){re.escape(key)}(?![\w-])", sentence)
        if SYNONYMS[key] != key
    ]
    if not hits:
        return None
    match = rng.choice(sorted(hits, key=lambda m: (m.start(), m.group(0))))
    out = sentence[: match.start()] + SYNONYMS[match.group(0)] + sentence[match.end() :]
    out = re.sub(r"\s{2,}", " ", out).replace(" ,", ",")
    return capitalise_first(out.strip())


def change_date_format(sentence: str) -> str | None:
    """ "1 May 2001" <-> "May 1, 2001" (same date, another spelling)."""
    match = DATE.search(sentence)
    if not match or match.group("my_m"):
        return None
    if match.group("dmy_d"):
        new = f"{match.group('dmy_m')} {int(match.group('dmy_d'))}, {match.group('dmy_y')}"
    else:
        new = f"{int(match.group('mdy_d'))} {match.group('mdy_m')} {match.group('mdy_y')}"
    return sentence[: match.start()] + new + sentence[match.end() :]


_NAME = r"[A-Z](?:[\w'’.-]*\w)?"
_COORDINATED = re.compile(rf"({_NAME}(?: {_NAME})*) and ({_NAME}(?: {_NAME})*)")


def reorder_coordination(sentence: str, known: set[str]) -> str | None:
    """ "France and Germany" -> "Germany and France", when both names also occur alone."""
    for match in _COORDINATED.finditer(sentence):
        first, second = match.group(1), match.group(2)
        if match.start() == 0 or first not in known or second not in known:
            continue
        return sentence[: match.start()] + f"{second} and {first}" + sentence[match.end() :]
    return None


_PASSIVE = re.compile(
    r"^(?P<a>(?:The |A |An )?[A-Z][^,;]{1,60}?) (?P<aux>was|were) (?P<v>[a-z]+ed) by "
    r"(?P<b>(?:the )?[A-Z][\w'’.-]*(?: (?:of |the |and |de )?[A-Z][\w'’.-]*){0,5})"
    r"(?P<rest>(?: in \d{4}| on [A-Z][a-z]+ \d{1,2}, \d{4}| in [A-Z][a-z]+ \d{4})?)\.$"
)


def passive_to_active(sentence: str) -> str | None:
    """ "The bridge was designed by John Smith in 1890." -> "John Smith designed the bridge in
    1890." (regular verbs only, where the participle is also the past tense)."""
    match = _PASSIVE.match(sentence)
    if not match:
        return None
    verb = match.group("v")
    if verb in _IRREGULAR_PARTICIPLE_LIKE:
        return None
    a = match.group("a")
    if a.split(" ", 1)[0] in {"The", "A", "An"}:
        a = a[0].lower() + a[1:]
    b = match.group("b")
    return f"{capitalise_first(b)} {verb} {a}{match.group('rest')}."


_IRREGULAR_PARTICIPLE_LIKE = frozenset({"succeeded", "exceeded", "proceeded", "based", "used"})

_FRONT = re.compile(r"^((?:In|On|During|By|Since|From|After|Before) [^,]{2,40}), (.+?)([.!?])$")


def front_to_back(sentence: str) -> str | None:
    """ "In 1990, the club moved to Leeds." -> "The club moved to Leeds in 1990." """
    match = _FRONT.match(sentence)
    if not match:
        return None
    lead, body, end = match.groups()
    if body[:1].isupper() and body.split(" ", 1)[0] not in {"The", "A", "An", "It", "This"}:
        return f"{body} {lead[0].lower()}{lead[1:]}{end}"
    return f"{capitalise_first(lower_first(body))} {lead[0].lower()}{lead[1:]}{end}"


_DISCOURSE = re.compile(
    r"^(However|In addition|Additionally|Furthermore|Moreover|Also|Meanwhile|Nevertheless|"
    r"Subsequently|Consequently|Thus|Therefore|Indeed|Notably|Eventually|Ultimately|Later|In fact|"
    r"As a result|In particular|At the time|Today|Currently|Finally|Instead|Similarly|Overall),\s+"
)
_APPOSITIVE = re.compile(
    r"^((?:The )?[A-Z][\w'’.-]*(?: (?:of |the |de )?[A-Z][\w'’.-]*){0,5}), "
    r"(?:a|an|the) [^,]{3,80}, "
    r"(?=(?:is|was|are|were|has|had|became|won|served|played|moved|joined|received|led|left|"
    r"wrote|made|began|died|lived|worked|remained|returned|married)\b)"
)
_TRAILING = re.compile(
    r", (?:which|who|whose|while|whereas|although|though|including|where|making|becoming|"
    r"as well as|but|with) [^;]*?([.!?])$"
)


def drop_discourse_marker(sentence: str) -> str:
    """ "However, the bridge ..." -> "The bridge ...": a claim should not lean on context."""
    out = _DISCOURSE.sub("", sentence, count=1)
    return capitalise_first(out) if out != sentence else sentence


def compress(sentence: str, rng: random.Random, *, force: bool = False) -> str:
    """Drop material without adding any: parentheticals always, then (some of the time, or at
    least one when ``force``) a leading discourse marker, an appositive or a trailing clause."""
    out = drop_parentheticals(sentence)
    steps: list[Callable[[str], str]] = [
        lambda s: _DISCOURSE.sub("", s, count=1),
        lambda s: _APPOSITIVE.sub(r"\1 ", s, count=1),
        lambda s: _TRAILING.sub(r"\1", s, count=1),
    ]
    order = list(range(len(steps)))
    rng.shuffle(order)
    done = False
    for k in order:
        if done and not rng.random() < 0.3:
            break
        if not force and rng.random() < 0.5:
            continue
        new = steps[k](out)
        if new != out and len(new.split()) >= 6:
            out = new
            done = True
    return capitalise_first(re.sub(r"\s{2,}", " ", out).strip())


def paraphrase(sentence: str, rng: random.Random, known: set[str]) -> tuple[str, str] | None:
    """One meaning-keeping edit, named: (edited sentence, edit name)."""
    edits: list[tuple[str, Callable[[str], str | None]]] = [
        ("date_format", change_date_format),
        ("reorder", lambda s: reorder_coordination(s, known)),
        ("front_to_back", front_to_back),
        ("passive_to_active", passive_to_active),
        ("synonym", lambda s: synonym(s, rng)),
        ("drop_parenthetical", lambda s: drop_parentheticals(s) if "(" in s else None),
    ]
    rng.shuffle(edits)
    for name, edit in edits:
        out = edit(sentence)
        if out and out != sentence:
            return out, name
    return None
