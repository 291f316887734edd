"""Numbers, percentages, money, quantities, dates and years in a text, with normalised values.

Normalised forms (``Value.value``), so that equal values compare equal as strings:

- ``number``: canonical decimal: "1,200", "1200" and "1.2 thousand" -> ``"1200"``; number words
  two to ninety-nine ("three", "twenty-five") and "one" before a scale word are read; an ordinal
  loses its suffix ("20th" -> ``"20"``);
- ``percent``: ``"45%"`` for "45%", "45 %", "45 percent", "45 per cent";
- ``money``: ISO currency code and amount: "$5 million", "5 million dollars", "USD 5m" ->
  ``"usd 5000000"``; "€3.2bn" -> ``"eur 3200000000"``. A bare "$" or "dollars" is read as US
  dollars; a currency word that names several currencies keeps the word ("7.8 million francs"
  -> ``"franc 7800000"``), and "pounds" alone is a weight (``lb``). Scale abbreviations (m, bn,
  k) are read only next to a currency ("5m" is 5 metres, "$5m" five million dollars);
- ``quantity``: amount in the base unit of a unit table (``rules.units``): metric prefixes are
  converted exactly ("10 km" -> ``"10000 m"``, "500 g" -> ``"0.5 kg"``, "2 h" -> ``"7200 s"``);
  other units keep their own symbol and are never converted (miles, feet, pounds, days, years,
  °C/°F, GB, km/h). A number followed by a noun that is not a unit ("60,000 bees") is a number;
- ``date``: ISO-like at the precision given: "20 Sept 2022", "September 20, 2022", "the 20th of
  September 2022" and "2022-09-20" -> ``"2022-09-20"``; "Sept. 2022" -> ``"2022-09"``; a day
  without a year ("20 September") -> ``"--09-20"``;
- ``year``: "in 1886" -> ``"1886"``, "the 1990s" -> ``"1990s"`` (a decade), "1962 and ’63" ->
  ``"1962"`` and ``"1963"`` (a year cut to two digits after another). A four-digit number
  counts as a year after a cue word ("in", "since", "by", "until", "from", "during", ...) or
  "mid-"/"pre-"/"post-", before "AD"/"BC", or right after another year ("1914-1918", "between
  1914 and 1918"); otherwise it is a number (a number matches a year of the same value, see
  :func:`compare`).

Not read: times ("10:30"), numeric dates ("20/09/2022", ambiguous between day and month
first), fractions, ranges as one value, Roman numerals, "a million", "hundred", "dozen".

An amount written with a scale word is rounded: it records the step of its last digit in
``step`` ("2.1 million" -> 100000, "$394 billion" -> 1000000000); other amounts are exact
(step 0). :func:`compare` uses it.

>>> [(v.kind, v.value) for v in extract_values("In 1886, 1,200 people paid $1.2 million.")]
[('year', '1886'), ('number', '1200'), ('money', 'usd 1200000')]
>>> compare(extract_values("in 2022")[0], extract_values("on 20 Sept 2022")[0])
'match'
"""

from __future__ import annotations

import datetime
import re
from dataclasses import dataclass
from decimal import ROUND_HALF_UP, Decimal, InvalidOperation
from typing import Literal

from veracity.rules.units import (
    CURRENCY_AFTER,
    CURRENCY_BEFORE,
    CURRENCY_SYMBOLS,
    UNIT_AFTER,
    UNIT_WORDS,
    currency_after,
    lookup_unit,
)
from veracity.text.numbers import format_number, parse_number
from veracity.types import Span

__all__ = [
    "MONTHS",
    "VALUE_KINDS",
    "Relation",
    "Value",
    "ValueKind",
    "compare",
    "extract_values",
    "value_amount",
    "year_like",
]

#: ``code`` is the kind of the tokens of :func:`~veracity.rules.tokens.extract_tokens`.
ValueKind = Literal["number", "percent", "money", "quantity", "date", "year", "code"]
VALUE_KINDS: tuple[ValueKind, ...] = (
    "number",
    "percent",
    "money",
    "quantity",
    "date",
    "year",
    "code",
)
#: How a claim value stands to an evidence value (see :func:`compare`).
Relation = Literal["match", "conflict", "vaguer", "incomparable"]


@dataclass(frozen=True, slots=True)
class Value:
    """One value found in a text.

    ``span`` indexes the text the value was extracted from; ``text`` is those characters;
    ``value`` the normalised form (see the module docstring); ``unit`` the base unit of a
    quantity or the currency code of money ("" otherwise); ``step`` the rounding step of an
    amount written with a scale word ("2.1 million" -> 100000), 0 when exact.
    """

    kind: ValueKind
    text: str
    span: Span
    value: str
    unit: str = ""
    step: Decimal = Decimal(0)


_SCALE_AFTER = re.compile(r"\s*(?P<scale>(?i:thousand|million|billion|trillion))\b")
# Abbreviations: "bn" and "tn" anywhere; "m", "mn", "k", "b" only next to a currency.
_ABBREVIATIONS = {
    "bn": "billion",
    "tn": "trillion",
    "trn": "trillion",
    "m": "million",
    "mn": "million",
    "mln": "million",
    "k": "thousand",
    "b": "billion",
}
_ABBREVIATION_AFTER = re.compile(r"\s?(?P<abbr>bn|tn|trn|mln|mn|m|k|b|BN|M|K|B)(?![^\W_])")
_PERCENT_AFTER = re.compile(r"\s*(?:%|(?i:percent|per\s+cent|pct)\b)")
_SUFFIX_AFTER = re.compile(r"(?P<suffix>['’]?s|st|nd|rd|th)(?![^\W_])")
_ERA_AFTER = re.compile(r"\s*(?:AD|BC|BCE|CE|A\.D\.|B\.C\.)(?![^\W_])")
_YEAR_LINK = re.compile(r"\s*(?:[-–—]|to|and|until|till|through|or)\s*", re.IGNORECASE)
_WORD_BEFORE = re.compile(r"(?<![^\W\d_])(?P<word>[^\W\d_]+\.?)\s+\Z")
_PREFIX_BEFORE = re.compile(r"(?i:mid|pre|post)-\Z")
_YEAR_CUES = frozenset(
    {
        "in",
        "since",
        "by",
        "until",
        "till",
        "from",
        "during",
        "before",
        "after",
        "around",
        "circa",
        "c.",
        "ca.",
        "year",
        "between",
        "throughout",
        "early",
        "late",
        "mid",
        "spring",
        "summer",
        "autumn",
        "fall",
        "winter",
        "to",
        "through",
        "fiscal",
        "fy",
        "census",
    }
)

_UNITS_WORDS = (
    "two three four five six seven eight nine ten eleven twelve thirteen fourteen "
    "fifteen sixteen seventeen eighteen nineteen"
).split()
_TENS_WORDS = "twenty thirty forty fifty sixty seventy eighty ninety".split()
_NUMBER_WORDS = {word: i + 2 for i, word in enumerate(_UNITS_WORDS)}
_NUMBER_WORDS.update({word: 20 + 10 * i for i, word in enumerate(_TENS_WORDS)})
_DIGITS_WORDS = {
    word: i + 1 for i, word in enumerate("one two three four five six seven eight nine".split())
}

_LITERAL = re.compile(
    r"(?<![\w.,:/])(?:(?<=[Mm]id-)|(?<=[Pp]re-)|(?<=[Pp]ost-)|(?<![^\W\d_]-))"
    r"(?P<digits>\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?|\.\d+)(?![.,:/]?\d)"
    r"|(?P<word>\b(?i:(?:"
    + "|".join(_TENS_WORDS)
    + r")(?:[-\s](?:"
    + "|".join(_DIGITS_WORDS)
    + r"))?|"
    + "|".join(_UNITS_WORDS)
    + r"|one(?=\s+(?:thousand|million|billion|trillion)\b))\b)"
)

#: Month names and abbreviations (as written, capitalised) and their numbers.
_MONTH_NAMES = (
    "January February March April May June July August September October November December"
).split()
MONTHS: dict[str, int] = {
    **{name: number for number, name in enumerate(_MONTH_NAMES, start=1)},
    **{name[:3]: number for number, name in enumerate(_MONTH_NAMES, start=1)},
    "Sept": 9,
}
_MONTH = r"(?P<month>" + "|".join(sorted(MONTHS, key=len, reverse=True)) + r")\b\.?"
_DAY = r"(?P<day>[0-3]?\d)(?:st|nd|rd|th)?"
_YEAR = r"(?P<year>\d{4})(?![\d,.]\d)"
_DATES = (
    re.compile(r"(?<![\d-])(?P<year>\d{4})-(?P<mon>\d{2})-(?P<day>\d{2})(?![\d-])"),
    re.compile(rf"\b(?:the\s+)?{_DAY}(?:\s+of)?\s+{_MONTH},?\s+{_YEAR}"),
    re.compile(rf"\b{_MONTH}\s+(?:the\s+)?{_DAY},?\s+{_YEAR}"),
    re.compile(rf"\b{_MONTH},?\s+(?:of\s+)?{_YEAR}"),
    re.compile(rf"\b(?:the\s+)?{_DAY}(?:\s+of)?\s+{_MONTH}"),
    re.compile(rf"\b{_MONTH}\s+(?:the\s+)?{_DAY}\b"),
)


#: "an hour", "a day", "one week": one unit of time with no number ("once a day" is a rate).
_ONE_UNIT = re.compile(
    r"(?<![\w-])(?P<count>(?i:an?|one))\s+(?P<unit>(?i:second|minute|hour|day|week))\b(?!-)"
)
_RATE_BEFORE = re.compile(r"(?i:\b(?:once|twice|thrice|times|per|every|each|than))\s+\Z")


def extract_values(text: str) -> tuple[Value, ...]:
    """Every value in ``text``, in order of position (see the module docstring for the forms).

    >>> [(v.text, v.value) for v in extract_values("On 20 Sept 2022 it rose 45% to €3.2bn.")]
    [('20 Sept 2022', '2022-09-20'), ('45%', '45%'), ('€3.2bn', 'eur 3200000000')]
    >>> [(v.text, v.value) for v in extract_values("Smoke calms bees for an hour, twice a day.")]
    [('an hour', '3600 s')]
    """
    found = _dates(text)
    for match in _ONE_UNIT.finditer(text):
        if _RATE_BEFORE.search(text, max(0, match.start() - 12), match.start()):
            continue
        unit = UNIT_WORDS[match["unit"].lower()]
        found.append(
            Value(
                "quantity",
                match.group(),
                Span(match.start(), match.end()),
                f"{format_number(unit.factor)} {unit.base}",
                unit.base,
            )
        )
    dates = tuple(found)
    for match in _LITERAL.finditer(text):
        if any(date.span.start <= match.start() < date.span.end for date in dates):
            continue
        before = [value for value in found if value.span.end <= match.start()]
        previous = max(before, key=lambda value: value.span.end) if before else None
        value = _number_value(text, match, previous)
        if value is not None:
            found.append(value)
    return tuple(sorted(found, key=lambda value: value.span.start))


def _dates(text: str) -> list[Value]:
    found: list[Value] = []
    invalid: list[Span] = []  # "31 February 2022" is not read as "February 2022" either
    for pattern in _DATES:
        for match in pattern.finditer(text):
            if any(
                span.start < match.end() and match.start() < span.end
                for span in [*invalid, *(v.span for v in found)]
            ):
                continue
            normalised = _date_value(match)
            if normalised is None:
                invalid.append(Span(match.start(), match.end()))
                continue
            start, end = match.start(), match.end()
            if text[start].lower() == "t":  # "the 20th of ...": span the date, not "the"
                start = match.start("day")
            if (
                text[end - 1] == "."
                and "month" in match.groupdict()
                and match.end("month") == end - 1
                and len(match["month"]) > 4
            ):
                end -= 1  # "on 20 September." - the full stop ends the sentence
            found.append(Value("date", text[start:end], Span(start, end), normalised))
    return found


def _date_value(match: re.Match[str]) -> str | None:
    parts = match.groupdict()
    month = int(parts["mon"]) if parts.get("mon") else MONTHS.get(parts.get("month") or "")
    day = int(parts["day"]) if parts.get("day") else None
    year = int(parts["year"]) if parts.get("year") else None
    if month is None:
        return None
    try:  # 2000 is a leap year, so "29 February" without a year is accepted
        datetime.date(year or 2000, month, day or 1)
    except ValueError:
        return None
    if year is None:
        return f"--{month:02d}-{day:02d}"
    if day is None:
        return f"{year:04d}-{month:02d}"
    return f"{year:04d}-{month:02d}-{day:02d}"


def _number_value(text: str, match: re.Match[str], previous: Value | None) -> Value | None:
    start, end = match.start(), match.end()
    digits = match["digits"]
    literal = digits if digits is not None else str(_word_number(match["word"]))
    negative = (
        digits is not None
        and start > 0
        and text[start - 1] in "-−"
        and (start == 1 or text[start - 2] in " \t\n([")
    )

    if digits is not None and (suffix := _SUFFIX_AFTER.match(text, end)):
        if suffix["suffix"].lower().endswith("s") and len(digits) == 4 and digits.endswith("0"):
            return Value(
                "year", text[start : suffix.end()], Span(start, suffix.end()), f"{digits}s"
            )
        if suffix["suffix"].lower() in ("st", "nd", "rd", "th"):
            return Value(
                "number",
                text[start : suffix.end()],
                Span(start, suffix.end()),
                format_number(parse_number(digits)),
            )
        return None  # "5s", "3's": not a value

    currency: str | None = None
    if digits is not None and (before := CURRENCY_BEFORE.search(text, max(0, start - 8), start)):
        currency = CURRENCY_SYMBOLS.get(before["cur"]) or before["cur"].lower()
        start = before.start()
        negative = False
    scale: str | None = None
    decimals = len(literal.partition(".")[2])
    if scale_match := _SCALE_AFTER.match(text, end):
        scale, end = scale_match["scale"].lower(), scale_match.end()
    elif (abbr := _ABBREVIATION_AFTER.match(text, end)) and (
        currency is not None or abbr["abbr"].lower() in ("bn", "tn", "trn")
    ):
        scale, end = _ABBREVIATIONS[abbr["abbr"].lower()], abbr.end()
    try:
        amount = parse_number(literal, scale)
    except InvalidOperation:  # pragma: no cover - the pattern only admits decimals
        return None
    if negative:
        amount, start = -amount, start - 1
    step = (
        Decimal(1).scaleb(-decimals) * parse_number("1", scale) if scale is not None else Decimal(0)
    )

    if currency is None and (after := CURRENCY_AFTER.match(text, end)):
        currency, end = currency_after(after), after.end()
    if currency is not None:
        return Value(
            "money",
            text[start:end],
            Span(start, end),
            f"{currency} {format_number(amount)}",
            currency,
            step,
        )
    if percent := _PERCENT_AFTER.match(text, end):
        end = percent.end()
        return Value(
            "percent", text[start:end], Span(start, end), f"{format_number(amount)}%", "", step
        )
    if unit_match := UNIT_AFTER.match(text, end):
        unit = lookup_unit(unit_match["unit"])
        if unit is not None:
            end = unit_match.end()
            return Value(
                "quantity",
                text[start:end],
                Span(start, end),
                f"{format_number(amount * unit.factor)} {unit.base}",
                unit.base,
                step * unit.factor,
            )
    if digits is not None and scale is None and not negative and _is_year(text, match, previous):
        return Value("year", digits, Span(match.start(), match.end()), digits)
    if (short := _short_year(text, match, previous)) is not None:
        return short
    return Value("number", text[start:end], Span(start, end), format_number(amount), "", step)


def _short_year(text: str, match: re.Match[str], previous: Value | None) -> Value | None:
    """A year cut to two digits after another ("in 1962 and ’63"), in that year's century."""
    digits, start = match["digits"], match.start()
    if (
        digits is None
        or len(digits) != 2
        or not digits.isdigit()
        or start == 0
        or text[start - 1] not in "'’"
        or previous is None
        or previous.kind != "year"
        or not previous.value.isdigit()
        or not _YEAR_LINK.fullmatch(text, previous.span.end, start - 1)
    ):
        return None
    year = previous.value[:2] + digits
    return Value("year", text[start - 1 : match.end()], Span(start - 1, match.end()), year)


def _word_number(word: str) -> int:
    parts = re.split(r"[-\s]+", word.lower())
    if parts[0] == "one":
        return 1
    return _NUMBER_WORDS[parts[0]] + (_DIGITS_WORDS[parts[1]] if len(parts) > 1 else 0)


def _is_year(text: str, match: re.Match[str], previous: Value | None) -> bool:
    digits = match["digits"]
    if len(digits) != 4 or not digits.isdigit() or not 1000 <= int(digits) <= 2100:
        return False
    if _ERA_AFTER.match(text, match.end()):
        return True
    if (
        previous is not None
        and previous.kind in ("year", "date")
        and _YEAR_LINK.fullmatch(text, previous.span.end, match.start())
    ):
        return True
    if _PREFIX_BEFORE.search(text, max(0, match.start() - 5), match.start()):
        return True  # "mid-1990", "post-2000"
    before = _WORD_BEFORE.search(text, max(0, match.start() - 20), match.start())
    return before is not None and before["word"].lower() in _YEAR_CUES


# --- comparison ---------------------------------------------------------------------------------


def compare(claim: Value, evidence: Value, *, years_as_numbers: bool = False) -> Relation:
    """How ``claim`` stands to ``evidence``: match, conflict, vaguer or incomparable.

    - Equal normalised values of the same kind match ("1,200" and "1.2 thousand").
    - Amounts (number, percent, money of one currency, quantity of one base unit) that differ
      conflict, unless the coarser of the two steps rounds them to the same amount: then they
      match when the evidence is at least as precise as the claim ("2.1 million" vs
      "2,102,650") and are ``vaguer`` otherwise (the evidence is too coarse to confirm).
    - Dates and years compare at the precision given: every part both state (decade, year,
      month, day) must agree, else they conflict; they match when the evidence states every
      part the claim does ("2022" vs "20 Sept 2022", "the 1990s" vs "1994"), else ``vaguer``.
    - A number matches a year of the same value ("1886"); they conflict when the number is
      written like a year (four digits from 1000 to 2100, as in "the 1973 Nobel Prize") or
      ``years_as_numbers`` (a knowledge-base value such as "1886" has no cue word).
    - Anything else (percent vs number, euros vs dollars, km vs kg, any ``code`` token) is
      ``incomparable``.

    >>> euro = extract_values("€3.2bn")[0]
    >>> compare(euro, extract_values("EUR 3,214 million")[0]), compare(euro, euro)
    ('match', 'match')
    """
    kinds = {claim.kind, evidence.kind}
    if "code" in kinds:  # tokens compare by tokens.compare_tokens
        return "incomparable"
    if kinds <= {"date", "year"}:
        return _compare_dates(_date_parts(claim.value), _date_parts(evidence.value))
    if kinds == {"number", "year"}:
        year = claim if claim.kind == "year" else evidence
        if year.value.endswith("s"):
            return "incomparable"
        if claim.value == evidence.value:
            return "match"
        number = evidence if year is claim else claim
        return "conflict" if years_as_numbers or year_like(number) else "incomparable"
    if claim.kind != evidence.kind or claim.unit != evidence.unit:
        return "incomparable"
    return _compare_amounts(value_amount(claim), claim.step, value_amount(evidence), evidence.step)


def year_like(value: Value) -> bool:
    """A year, or a number written like one ("the 1911 prize"): four digits from 1000 to 2100."""
    if value.kind == "year":
        return not value.value.endswith("s")
    return (
        value.kind == "number"
        and len(value.text) == 4
        and value.text.isdigit()
        and 1000 <= int(value.text) <= 2100
    )


def value_amount(value: Value) -> Decimal:
    """The amount of a number, percent, money or quantity value (in its base unit)."""
    return Decimal(value.value.rstrip("%").split()[-1 if value.kind == "money" else 0])


def _rounded(amount: Decimal, step: Decimal) -> Decimal:
    return (amount / step).quantize(Decimal(1), rounding=ROUND_HALF_UP) * step


def _compare_amounts(
    claim: Decimal, claim_step: Decimal, evidence: Decimal, evidence_step: Decimal
) -> Relation:
    if claim == evidence:
        return "match"
    step = max(claim_step, evidence_step)
    if step > 0 and _rounded(claim, step) == _rounded(evidence, step):
        return "match" if evidence_step <= claim_step else "vaguer"
    return "conflict"


DateParts = tuple[int | None, int | None, int | None, int | None]


def _date_parts(value: str) -> DateParts:
    """(decade, year, month, day) of a normalised date or year; missing parts are ``None``."""
    if value.endswith("s"):
        return int(value[:-1]), None, None, None
    if value.startswith("--"):
        return None, None, int(value[2:4]), int(value[5:7])
    pieces = [int(piece) for piece in value.split("-")]
    year = pieces[0]
    return (
        year // 10 * 10,
        year,
        pieces[1] if len(pieces) > 1 else None,
        pieces[2] if len(pieces) > 2 else None,
    )


def _compare_dates(claim: DateParts, evidence: DateParts) -> Relation:
    for mine, theirs in zip(claim, evidence, strict=True):
        if mine is not None and theirs is not None and mine != theirs:
            return "conflict"
    if all(
        theirs is not None for mine, theirs in zip(claim, evidence, strict=True) if mine is not None
    ):
        return "match"
    return "vaguer"
