"""Numbers as written in English text: read, normalised and written back.

>>> numbers("In the 1990s, 1,200 people paid $1.2 million.")
['1990s', '1200', '1200000']
"""

from __future__ import annotations

import re
from decimal import Decimal, InvalidOperation

__all__ = ["format_number", "numbers", "parse_number"]

_NUMBER = re.compile(
    r"(?<![\w.])(?P<value>\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?|\.\d+)"
    r"(?P<suffix>s\b|st\b|nd\b|rd\b|th\b)?"
    r"(?:\s*(?P<percent>%|percent\b|per\s+cent\b))?"
    r"(?:\s+(?P<scale>thousand|million|billion|trillion)\b)?",
    re.IGNORECASE,
)
_SCALES = {"thousand": 10**3, "million": 10**6, "billion": 10**9, "trillion": 10**12}


def parse_number(value: str, scale: str | None = None) -> Decimal:
    """A written number as a ``Decimal``: commas go, a scale word multiplies.

    Raises ``decimal.InvalidOperation`` when ``value`` is not a decimal numeral.

    >>> parse_number("1,200"), parse_number("1.2", "million")
    (Decimal('1200'), Decimal('1200000.0'))
    """
    number = Decimal(value.replace(",", ""))
    if scale:
        number *= _SCALES[scale.lower()]
    return number


def format_number(number: Decimal) -> str:
    """The canonical text of a number: no exponent, no trailing zeros ("2.50" -> "2.5").

    >>> format_number(Decimal("1200000.0")), format_number(Decimal("2.50"))
    ('1200000', '2.5')
    """
    text = format(number.normalize(), "f")
    return text if "." not in text else text.rstrip("0").rstrip(".")


def _canonical(value: str, scale: str | None) -> str:
    try:
        return format_number(parse_number(value, scale))
    except InvalidOperation:  # pragma: no cover - the pattern only admits decimals
        return value


def numbers(text: str) -> list[str]:
    """Numbers in ``text`` in a canonical form, in order.

    Thousands separators go ("1,200" -> "1200"), trailing zeros go ("2.50" -> "2.5"), scale words
    multiply ("1.2 million" -> "1200000"), percentages keep a "%" ("2.5 percent" -> "2.5%"),
    ordinals lose their suffix ("21st" -> "21") and decades keep theirs ("1990s").
    Number words ("three") are not read.

    >>> numbers("In the 1990s, 1,200 people (2.50 per cent) paid $1.2 million on May 21st.")
    ['1990s', '1200', '2.5%', '1200000', '21']
    """
    found: list[str] = []
    for match in _NUMBER.finditer(text):
        canonical = _canonical(match["value"], match["scale"])
        if match["percent"]:
            canonical += "%"
        elif (match["suffix"] or "").lower() == "s":
            canonical += "s"
        found.append(canonical)
    return found
