"""Minimal edits that turn a sentence around (contradicted twins) and edits that look as close
but keep its meaning (supported twins).

The verifier learns from these pairs that one word can decide a claim: "opens" against "closes",
"all" against "no", "ten minutes" against "ten hours", "A defeated B" against "B defeated A".
The supported twins ("is open" → "is not closed", "230" → "about 230") keep it from calling every
close restatement a contradiction. The word lists are :mod:`veracity.rules.polarity`'s, the ones
the contradiction rules read at inference.

Each function takes a sentence (and a seeded ``random.Random`` where it chooses) and returns the
edited sentence, or ``None`` when the edit does not apply. None of them reads files.

>>> import random
>>> antonym("The museum opens on Mondays.", random.Random(0))
'The museum closes on Mondays.'
>>> change_unit("Smoke calms bees for about ten minutes.", random.Random(0))
'Smoke calms bees for about ten hours.'
>>> negate_antonym("The gate is open during the day.")
'The gate is not closed during the day.'
"""

from __future__ import annotations

import random
import re
from collections import Counter
from collections.abc import Callable

from veracity.rules.polarity import CONTRARY_QUANTIFIERS, DURATION_UNITS, antonyms_of
from veracity_training.data.perturb import change_number, negate
from veracity_training.data.schema import DataLabel, Row
from veracity_training.data.sources import digest
from veracity_training.data.text import (
    MONTHS,
    NOT_NAMES,
    NUMBER,
    YEAR,
    capitalise_first,
    sentences,
    word_count,
)

#: An edit: (sentence, seeded random) -> the edited sentence, or None where it does not apply.
Edit = Callable[[str, random.Random], "str | None"]

__all__ = [
    "EDITS",
    "TWIN_QUOTA",
    "Edit",
    "antonym",
    "change_month",
    "change_quantifier",
    "change_unit",
    "hedge_number",
    "negate_antonym",
    "strengthen_modal",
    "suite_half",
    "swap_roles",
    "twin_edits",
    "twin_id",
    "twin_rows",
    "weaken_obligation",
    "widen_scope",
]

_WORD = re.compile(r"(?<![\w'’-])[a-z]+(?:-[a-z]+)?(?![\w'’-])")
#: Words of the lexicon that read as another part of speech too often to swap blindly.
_AMBIGUOUS = frozenset(
    """like light back present pass end start lead last fall close match left
right fine mean long short rich poor free more less most few many best never always first old new
single contract known unknown top bottom common input output added removed wins win slow fast high
low full living dead cold warm heavy major minor friend friends import export imports exports
signed input outputs inputs""".split()
)


def antonym(sentence: str, rng: random.Random) -> str | None:
    """Replace one lower-case word with its antonym from the shipped lexicon."""
    words = set(_WORD.findall(sentence.lower()))
    spots = [
        m
        for m in _WORD.finditer(sentence)
        if m.group(0) not in _AMBIGUOUS
        and antonyms_of(m.group(0))
        and not antonyms_of(m.group(0)) & words
    ]  # "conscious and unconscious"
    if not spots:
        return None
    match = rng.choice(spots)
    choice = rng.choice(sorted(antonyms_of(match.group(0))))
    return _replace(sentence, match.start(), match.end(), choice)


_QUANTIFIER = re.compile(
    r"\b(All|all|Always|always|Never|never|Everyone|everyone|Everything|"
    r"everything|Most|most|Many|many|Few|few|None|none)\b"
)


#: Predicative adjectives whose antonym, negated, says the same thing ("open" / "not closed").
_CONTRARY_ADJECTIVES = frozenset(
    """open closed safe dangerous unsafe true false correct
incorrect valid invalid legal illegal possible impossible visible invisible compatible
incompatible secure insecure required optional mandatory common rare public private wet dry
strong weak cheap expensive easy difficult simple complex wide narrow deep shallow full empty
dead alive healthy unhealthy stable unstable mutable immutable likely unlikely necessary
unnecessary sufficient insufficient complete incomplete successful unsuccessful guilty innocent
employed unemployed encrypted unencrypted connected disconnected online offline
locked unlocked installed enabled disabled allowed forbidden permitted prohibited accepted
rejected included excluded synchronous asynchronous male female hot cold""".split()
)
_PREDICATE = re.compile(
    r"\b(is|are|was|were)( (?:always |usually |often |generally )?)"
    r"([a-z]+)(?=[ ,.;:]|$)"
)


def negate_antonym(sentence: str) -> str | None:
    """ "is open" -> "is not closed": the same meaning through the antonym (a supported twin)."""
    if _QUANTIFIER.search(sentence):
        return None  # "all bees are not male" is ambiguous
    for match in _PREDICATE.finditer(sentence):
        word = match.group(3)
        others = sorted(antonyms_of(word) & _CONTRARY_ADJECTIVES)
        if word not in _CONTRARY_ADJECTIVES or not others or " not" in match.group(2):
            continue
        adverb = match.group(2).strip()
        if adverb:  # "is always open" -> "is never closed" reads oddly: keep it simple
            continue
        return (
            sentence[: match.start()]
            + f"{match.group(1)} not {others[0]}"
            + sentence[match.end() :]
        )
    return None


def change_quantifier(sentence: str) -> str | None:
    """ "all" -> "no", "always" -> "never", "most" -> "few" and back: one quantifier reversed.

    Left alone: idioms ("at all", "after all", "all but", "at most", "the most", "how many",
    "a few", "quite a few") where the reversal would not be a contradiction."""
    for match in _QUANTIFIER.finditer(sentence):
        word = match.group(1)
        low = word.lower()
        before = sentence[: match.start()].lower()
        after = sentence[match.end() :].lower()
        if (
            re.search(r"\b(at|after|above|in|for|the|how|so|too|as|a|quite|very|once)\s+$", before)
            or re.match(r"\s+(but|the same|along|right|told|too)\b", after)
            or re.match(r"-", after)
        ):
            continue
        if low in {"all", "most", "many", "few"} and (
            re.search(r"\b(of|unlike|than)\s+$", before)
            or not re.match(
                r"\s+(?:of\s+)?(?:the\s+|its\s+|their\s+|his\s+|her\s+)?"
                r"[a-z]+s\b",
                after,
            )
        ):
            continue  # a quantifier of a plural noun only ("all bees", "most of the hives")
        new = CONTRARY_QUANTIFIERS[low]
        if low == "all" and re.match(r"\s+(of|the|its|their|his|her)\b", after):
            new = "none" if after.lstrip().startswith("of") else "none of"
        if low in {"none"} and not after.lstrip().startswith("of"):
            continue
        return _replace(sentence, match.start(), match.end(), _same_case(word, new))
    return None


_MUST = re.compile(r"\b(must|has to|have to)\s+(?!not\b|be\b)([a-z]+)\b")
_MAY = re.compile(r"\b(can|may|might|could)\s+(?!not\b|be\b|have\b)([a-z]+)\b")


def weaken_obligation(sentence: str) -> str | None:
    """ "must register" -> "need not register": an obligation denied (a contradicted twin)."""
    match = _MUST.search(sentence)
    if match is None:
        return None
    return sentence[: match.start()] + f"need not {match.group(2)}" + sentence[match.end() :]


def strengthen_modal(sentence: str) -> str | None:
    """ "can sting" -> "must sting": a possibility stated as a necessity (not supported, though
    not contradicted either)."""
    match = _MAY.search(sentence)
    if match is None or match.start() == 0:
        return None
    return sentence[: match.start()] + f"must {match.group(2)}" + sentence[match.end() :]


_UNIT_ORDER = ("second", "minute", "hour", "day", "week", "month", "year", "decade", "century")
_PLURAL = {"century": "centuries"}
_COUNT = (
    r"(?:\d[\d,.]*|a|an|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|"
    r"fifteen|twenty|thirty|forty|fifty|several|a few|few|many)"
)
_UNITS = "|".join(sorted((u for u in DURATION_UNITS if len(u) > 3), key=len, reverse=True))
_UNIT = re.compile(rf"\b({_COUNT}|per|a|every)([ -])({_UNITS})\b")


def change_unit(sentence: str, rng: random.Random) -> str | None:
    """ "ten minutes" -> "ten hours": the same count of a neighbouring unit of time."""
    matches = list(_UNIT.finditer(sentence))
    if not matches:
        return None
    match = rng.choice(matches)
    word = match.group(3)
    unit = DURATION_UNITS[word]
    index = _UNIT_ORDER.index(unit)
    choices = [_UNIT_ORDER[i] for i in (index - 1, index + 1) if 0 <= i < len(_UNIT_ORDER)]
    new = rng.choice(choices)
    if word.endswith("s") or word == "centuries":
        new = _PLURAL.get(new, new + "s")
    count = match.group(1)
    if count.lower() in {"per", "every"} and new.endswith("s"):
        new = new[:-1] if new != "centuries" else "century"
    if count.lower() in {"a", "an"}:
        count = _article(new, count)
    out = sentence[: match.start()] + count + match.group(2) + new + sentence[match.end() :]
    return out


_ROLE_VERBS = frozenset(
    """defeated beat succeeded replaced preceded acquired employed hired fired
sued attacked invaded conquered captured killed murdered shot taught coached managed
outscored overtook eliminated trained supervised founded owned sponsored""".split()
)


_NAME = r"[A-Z][\w'’.-]*(?: (?:of |the |de |von |van )?[A-Z][\w'’.-]*)*"
_ROLES = re.compile(
    rf"(?<![\w'’-])(?P<a>{_NAME}) (?P<verb>{'|'.join(sorted(_ROLE_VERBS))}) "
    rf"(?P<the>the )?(?P<b>{_NAME})\b"
)


def swap_roles(sentence: str) -> str | None:
    """ "Arsenal defeated Chelsea" -> "Chelsea defeated Arsenal": the two names around a
    one-way verb exchanged."""
    for match in _ROLES.finditer(sentence):
        first, second = match.group("a"), match.group("b")
        if first.split()[0] in NOT_NAMES or second.split()[0] in NOT_NAMES or first == second:
            continue
        middle = f" {match.group('verb')} {match.group('the') or ''}"
        return sentence[: match.start()] + second + middle + first + sentence[match.end() :]
    return None


_SCOPE_QUANTIFIER = re.compile(
    r"\b(Some|some|Several|several|Many|many|Most|most)( of the)? (?=[a-z]+s\b)"
)
_SCOPE_ADVERB = re.compile(
    r"\b(sometimes|often|usually|frequently|occasionally|generally|typically|mostly|normally)\b"
)


def widen_scope(sentence: str) -> str | None:
    """ "most users" -> "all users", "usually" -> "always": a claim wider than its source says
    (not supported: the source leaves the rest open or implies exceptions)."""
    match = _SCOPE_QUANTIFIER.search(sentence)
    if match is not None:
        before = sentence[: match.start()].lower()
        if re.search(r"\b(the|for|in|at|of|than|how)\s+$", before):
            return None
        new = _same_case(match.group(1), "all") + (" the" if match.group(2) else "")
        return sentence[: match.start()] + new + " " + sentence[match.end() :]
    match = _SCOPE_ADVERB.search(sentence)
    if match is not None:
        return _replace(sentence, match.start(), match.end(), "always")
    return None


_MONTH_SPOT = re.compile(r"\b(" + "|".join(MONTHS) + r")\b(?= \d)")


def change_month(sentence: str, rng: random.Random) -> str | None:
    """ "in May 1990" -> "in July 1990": one month of a date replaced."""
    match = _MONTH_SPOT.search(sentence)
    if match is None:
        return None
    new = rng.choice([m for m in MONTHS if m != match.group(1)])
    return sentence[: match.start()] + new + sentence[match.end() :]


_HEDGED = re.compile(
    r"(about|approximately|around|over|more than|less than|fewer than|nearly|"
    r"almost|some|up to|at least|at most|under|roughly|circa|No\.|number|"
    r"between|from|to|and|or|\$|£|€|#)\s*$",
    re.IGNORECASE,
)


def hedge_number(sentence: str, rng: random.Random) -> str | None:
    """ "230 beats" -> "about 230 beats": a count softened (a supported twin). Years, dates,
    identifiers and numbers already hedged are left alone."""
    for match in NUMBER.finditer(sentence):
        before = sentence[: match.start()]
        if (
            YEAR.fullmatch(match.group(0))
            or _HEDGED.search(before)
            or re.search(
                r"\b(the|a|an|first|last|its|his|her|their|our|my|your|this|that|"
                r"these|those|top|only)\s+$",
                before,
                re.IGNORECASE,
            )
            or re.search(r"\b[A-Z][\w-]*\s$", before)
            or re.search(r"(" + "|".join(MONTHS) + r")\s$", before)
            or re.match(r"\s*(" + "|".join(MONTHS) + r")\b", sentence[match.end() :])
            or not re.match(r"\s*%?\s*[a-z]", sentence[match.end() :])
        ):
            continue
        word = rng.choice(("about", "approximately", "around", "roughly"))
        hedged = sentence[: match.start()] + f"{word} " + sentence[match.start() :]
        return capitalise_first(hedged)
    return None


def _same_case(word: str, new: str) -> str:
    return capitalise_first(new) if word[:1].isupper() else new


def _article(word: str, article: str) -> str:
    right = "an" if word[:1].lower() in "aeiou" and not word.startswith("u") else "a"
    if word.startswith("hour"):
        right = "an"
    return _same_case(article, right)


def _replace(sentence: str, start: int, end: int, new: str) -> str:
    """``sentence`` with ``[start:end]`` replaced by ``new``, and an article right before it made
    to fit ("a open" -> "an open")."""
    before = sentence[:start]
    found = re.search(r"\b([Aa]n?) $", before)
    if found and re.match(r"[a-z]", new):
        before = before[: found.start()] + _article(new, found.group(1)) + " "
    return before + new + sentence[end:]


#: Every edit of this module: name -> (label of the twin, the edit).
EDITS: dict[str, tuple[DataLabel, Edit]] = {
    "antonym": ("contradicted", antonym),
    "quantifier": ("contradicted", lambda s, rng: change_quantifier(s)),
    "obligation": ("contradicted", lambda s, rng: weaken_obligation(s)),
    "modality": ("neither", lambda s, rng: strengthen_modal(s)),
    "duration_unit": ("contradicted", change_unit),
    "role_swap": ("contradicted", lambda s, rng: swap_roles(s)),
    "month_change": ("contradicted", change_month),
    "antonym_negated": ("supported", lambda s, rng: negate_antonym(s)),
    "hedged_number": ("supported", hedge_number),
    "scope": ("neither", lambda s, rng: widen_scope(s)),
}


#: Rows per twin edit at scale 1.0 (:func:`twin_rows`).
TWIN_QUOTA = 2200
#: Claims longer than this are not given twins: one edit in a long claim is easy to miss, and
#: the suite's pairs should be minimal.
_TWIN_MAX_WORDS = 45


def twin_edits() -> dict[str, tuple[DataLabel, Edit]]:
    """Every edit a twin is made with: this module's :data:`EDITS` and perturb's negation and
    number change (negation both ways: a negated sentence loses its "not")."""
    return {
        **EDITS,
        "negation": ("contradicted", negate),
        "number": ("contradicted", lambda s, rng: change_number(s, rng)),
    }


def suite_half(premise: str) -> bool:
    """Whether a validation row with this premise belongs to the minimal-pair suite's half (the
    other half fits the verifier's combiner): a fixed hash of the premise, so an original and
    its twins always land together."""
    return int(digest(premise, 8), 16) % 2 == 1


def twin_id(original: str, edit: str) -> str:
    """The id of the twin of row ``original`` made by ``edit``."""
    return f"{original}~{edit}"


def twin_rows(
    rows: list[Row],
    *,
    quota: int,
    seed: int,
    stats: Counter[str],
    extra: dict[str, tuple[DataLabel, Edit]] | None = None,
) -> list[Row]:
    """Twins of supported one-sentence claims: each claim gets at most one, by an edit drawn at
    random among those that apply, until every edit has ``quota`` rows. A twin keeps its
    original's premise, source and group (so both land in the same split); its kind is
    ``twin_<edit>``. ``extra`` adds edits (the parsed ones of :mod:`.parsed`)."""
    rng = random.Random(f"{seed}:twins")
    edits = {**twin_edits(), **(extra or {})}
    counts: Counter[str] = Counter()
    candidates = [
        row
        for row in rows
        if row.label == "supported"
        and len(sentences(row.hypothesis)) == 1
        and word_count(row.hypothesis) <= _TWIN_MAX_WORDS
    ]
    rng.shuffle(candidates)
    out: list[Row] = []
    for row in candidates:
        names = [name for name in edits if counts[name] < quota]
        if not names:
            break
        rng.shuffle(names)
        for name in names:
            label, edit = edits[name]
            twin = edit(row.hypothesis, rng)
            if not twin or twin == row.hypothesis:
                continue
            counts[name] += 1
            out.append(
                Row(
                    twin_id(row.id, name),
                    row.premise,
                    twin,
                    label,
                    row.source,
                    f"twin_{name}",
                    row.group,
                )
            )
            break
    stats.update({f"twin_{name}": n for name, n in counts.items()})
    stats["twin_candidates"] = len(candidates)
    return out
