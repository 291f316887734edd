"""Write the evidence's value in the answer's own format, for a value substitution.

The knowledge layer found that the claim says ``claim_text`` where the evidence says
``evidence_text``; the substitution writes the evidence's amount with the claim's unit, scale,
currency and digit grouping, and a date in the claim's style (day-month or month-day, full or
short month names, ISO). Whatever cannot be written so is taken as the evidence writes it.

>>> render_like("1983", "1973")
'1973'
>>> render_like("$5 million", "$4,200,000")
'$4.2 million'
>>> render_like("50 metres", "0.1 km")
'100 metres'
>>> render_like("20 Sept 2022", "October 5, 2022")
'5 Oct 2022'
>>> render_like("12,000", "15000")
'15,000'
"""

from __future__ import annotations

import re
from decimal import Decimal, InvalidOperation

from veracity.rules.units import UNITS
from veracity.rules.values import Value, extract_values
from veracity.text.numbers import format_number

__all__ = ["render_like"]

_LITERAL = re.compile(r"\d[\d,]*(?:\.\d+)?")
_SCALES = {
    "thousand": Decimal(10) ** 3,
    "million": Decimal(10) ** 6,
    "billion": Decimal(10) ** 9,
    "trillion": Decimal(10) ** 12,
    "k": Decimal(10) ** 3,
    "m": Decimal(10) ** 6,
    "mn": Decimal(10) ** 6,
    "bn": Decimal(10) ** 9,
    "b": Decimal(10) ** 9,
    "tn": Decimal(10) ** 12,
}
_SCALE = re.compile(r"\d\s?(thousand|million|billion|trillion|bn|mn|tn|m|k|b)\b", re.I)
_MONTH_NAMES = (
    "January February March April May June July August September October November December"
).split()


def render_like(claim_text: str, evidence_text: str) -> str:
    """``evidence_text``'s value written as ``claim_text`` writes its own (see the module)."""
    claimed, stated = _value(claim_text), _value(evidence_text)
    if claimed is None or stated is None:
        return evidence_text
    if claimed.kind == "date" and stated.kind == "date":
        return _date_like(claimed, stated) or evidence_text
    if claimed.kind in ("number", "percent", "money", "quantity") and claimed.kind == stated.kind:
        amount = _amount(stated)
        if claimed.kind == "quantity":
            factor = _unit_factor(claim_text)
            if factor is None:
                return evidence_text
            amount = amount / factor
        scale = _SCALE.search(claim_text)
        if scale is not None and claimed.kind != "quantity":
            amount = amount / _SCALES[scale.group(1).lower()]
        literal = _LITERAL.search(claim_text)
        if literal is None:
            return evidence_text
        number = format_number(amount)
        if "," in literal.group() or (len(literal.group()) > 4 and "," in evidence_text):
            whole, _, fraction = number.partition(".")
            number = f"{int(whole):,}" + (f".{fraction}" if fraction else "")
        return claim_text[: literal.start()] + number + claim_text[literal.end() :]
    return evidence_text


def _value(text: str) -> Value | None:
    values = extract_values(text)
    return values[0] if len(values) == 1 else None


def _amount(value: Value) -> Decimal:
    number = value.value.rstrip("%").split()
    return Decimal(number[-1] if value.kind == "money" else number[0])


def _unit_factor(claim_text: str) -> Decimal | None:
    literal = _LITERAL.search(claim_text)
    if literal is None:
        return None
    written = " ".join(claim_text[literal.end() :].split())
    unit = UNITS.get(written) or UNITS.get(written.lower())
    return None if unit is None else unit.factor


def _date_like(claimed: Value, stated: Value) -> str | None:
    mine, theirs = claimed.value.split("-"), stated.value.split("-")
    if claimed.value.startswith("--") or stated.value.startswith("--") or len(mine) != len(theirs):
        return None
    if re.fullmatch(r"\d{4}-\d{2}(?:-\d{2})?", claimed.text):
        return stated.value
    try:
        year, month = int(theirs[0]), int(theirs[1])
        day = int(theirs[2]) if len(theirs) > 2 else None
    except (ValueError, InvalidOperation, IndexError):
        return None
    full = _MONTH_NAMES[month - 1]
    short = re.search(r"[A-Z][a-z]+\.?", claimed.text)
    name = full
    if short is not None and short.group().rstrip(".") not in _MONTH_NAMES:
        name = "Sept" if month == 9 and short.group().startswith("Sept") else full[:3]
        name += "." if short.group().endswith(".") else ""
    if day is None:
        return f"{name} {year}"
    if claimed.text[0].isdigit():
        return f"{day} {name} {year}"
    return f"{name} {day}, {year}"
