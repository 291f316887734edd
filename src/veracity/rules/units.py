"""The units and currencies that values are read with: a small unit table (metric prefixes
converted exactly, other units kept as written) and the currency symbols, codes and words.

:func:`veracity.rules.values.extract_values` reads a quantity's unit with :data:`UNIT_AFTER` and
:func:`lookup_unit`, and money's currency with :data:`CURRENCY_BEFORE` and
:data:`CURRENCY_AFTER`; repair writes a corrected value back with :data:`UNITS`.

>>> lookup_unit("kilometres").symbol, lookup_unit("km").factor
('km', Decimal('1000'))
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from decimal import Decimal

__all__ = [
    "CURRENCY_AFTER",
    "CURRENCY_BEFORE",
    "CURRENCY_SYMBOLS",
    "CURRENCY_WORDS",
    "UNITS",
    "UNIT_AFTER",
    "UNIT_WORDS",
    "Unit",
    "currency_after",
    "lookup_unit",
]


@dataclass(frozen=True, slots=True)
class Unit:
    """A unit: its symbol, the base unit it converts to, and the factor (``1`` when none)."""

    symbol: str
    base: str
    factor: Decimal


def _unit(
    symbol: str, base: str, factor: str, symbols: tuple[str, ...], words: tuple[str, ...]
) -> tuple[Unit, tuple[str, ...], tuple[str, ...]]:
    return Unit(symbol, base, Decimal(factor)), symbols, words


# (unit, case-sensitive symbols, case-insensitive words). Bare "s", "t", "K", "B" and "in" are
# left out on purpose: they are far more often a word, a decade or a scale than a unit.
_UNIT_TABLE = (
    _unit("mm", "m", "0.001", ("mm",), ("millimetre", "millimetres", "millimeter", "millimeters")),
    _unit("cm", "m", "0.01", ("cm",), ("centimetre", "centimetres", "centimeter", "centimeters")),
    _unit("m", "m", "1", ("m",), ("metre", "metres", "meter", "meters")),
    _unit("km", "m", "1000", ("km",), ("kilometre", "kilometres", "kilometer", "kilometers")),
    _unit("mi", "mi", "1", ("mi",), ("mile", "miles")),
    _unit("ft", "ft", "1", ("ft",), ("foot", "feet")),
    _unit("in", "in", "1", (), ("inch", "inches")),
    _unit("yd", "yd", "1", ("yd",), ("yard", "yards")),
    _unit("mg", "kg", "0.000001", ("mg",), ("milligram", "milligrams")),
    _unit("g", "kg", "0.001", ("g",), ("gram", "grams", "gramme", "grammes")),
    _unit(
        "kg",
        "kg",
        "1",
        ("kg",),
        ("kilogram", "kilograms", "kilogramme", "kilogrammes", "kilo", "kilos"),
    ),
    _unit("t", "kg", "1000", (), ("tonne", "tonnes", "metric ton", "metric tons")),
    _unit("ton", "ton", "1", (), ("ton", "tons")),
    _unit("lb", "lb", "1", ("lb", "lbs"), ("pound", "pounds")),
    _unit("oz", "oz", "1", ("oz",), ("ounce", "ounces")),
    _unit(
        "ml", "l", "0.001", ("ml", "mL"), ("millilitre", "millilitres", "milliliter", "milliliters")
    ),
    _unit("l", "l", "1", ("l", "L"), ("litre", "litres", "liter", "liters")),
    _unit("gal", "gal", "1", ("gal",), ("gallon", "gallons")),
    _unit(
        "m3",
        "m3",
        "1",
        ("m3", "m³"),
        ("cubic metre", "cubic metres", "cubic meter", "cubic meters"),
    ),
    _unit(
        "km3",
        "m3",
        "1000000000",
        ("km3", "km³"),
        ("cubic kilometre", "cubic kilometres", "cubic kilometer", "cubic kilometers"),
    ),
    _unit("ms", "s", "0.001", ("ms",), ("millisecond", "milliseconds")),
    _unit("s", "s", "1", ("sec", "secs"), ("second", "seconds")),
    _unit("min", "s", "60", ("min", "mins"), ("minute", "minutes")),
    _unit("h", "s", "3600", ("h", "hr", "hrs"), ("hour", "hours")),
    _unit("day", "s", "86400", (), ("day", "days")),
    _unit("week", "s", "604800", (), ("week", "weeks")),
    _unit("month", "month", "1", (), ("month", "months")),
    _unit("year", "year", "1", ("yr", "yrs"), ("year", "years")),
    _unit(
        "°c", "°c", "1", ("°C", "° C", "ºC"), ("degrees celsius", "degrees centigrade", "celsius")
    ),
    _unit("°f", "°f", "1", ("°F", "° F", "ºF"), ("degrees fahrenheit", "fahrenheit")),
    _unit(
        "km/h", "km/h", "1", ("km/h", "kph", "kmh"), ("kilometres per hour", "kilometers per hour")
    ),
    _unit("mph", "mph", "1", ("mph",), ("miles per hour",)),
    _unit("m/s", "m/s", "1", ("m/s",), ("metres per second", "meters per second")),
    _unit(
        "m2",
        "m2",
        "1",
        ("m2", "m²", "sq m"),
        ("square metre", "square metres", "square meter", "square meters"),
    ),
    _unit(
        "km2",
        "m2",
        "1000000",
        ("km2", "km²", "sq km"),
        ("square kilometre", "square kilometres", "square kilometer", "square kilometers"),
    ),
    _unit("ha", "m2", "10000", ("ha",), ("hectare", "hectares")),
    _unit("acre", "acre", "1", (), ("acre", "acres")),
    _unit("mi2", "mi2", "1", ("sq mi",), ("square mile", "square miles")),
    _unit("W", "W", "1", ("W",), ("watt", "watts")),
    _unit("kW", "W", "1000", ("kW",), ("kilowatt", "kilowatts")),
    _unit("MW", "W", "1000000", ("MW",), ("megawatt", "megawatts")),
    _unit("GW", "W", "1000000000", ("GW",), ("gigawatt", "gigawatts")),
    _unit("Wh", "Wh", "1", ("Wh",), ("watt-hour", "watt-hours")),
    _unit("kWh", "Wh", "1000", ("kWh",), ("kilowatt-hour", "kilowatt-hours")),
    _unit("MWh", "Wh", "1000000", ("MWh",), ("megawatt-hour", "megawatt-hours")),
    _unit("GWh", "Wh", "1000000000", ("GWh",), ("gigawatt-hour", "gigawatt-hours")),
    _unit("TWh", "Wh", "1000000000000", ("TWh",), ("terawatt-hour", "terawatt-hours")),
    _unit("Hz", "Hz", "1", ("Hz",), ("hertz",)),
    _unit("kHz", "Hz", "1000", ("kHz",), ("kilohertz",)),
    _unit("MHz", "Hz", "1000000", ("MHz",), ("megahertz",)),
    _unit("GHz", "Hz", "1000000000", ("GHz",), ("gigahertz",)),
    _unit("V", "V", "1", ("V",), ("volt", "volts")),
    _unit("kV", "V", "1000", ("kV",), ("kilovolt", "kilovolts")),
    _unit("KB", "KB", "1", ("KB", "kB"), ("kilobyte", "kilobytes")),
    _unit("MB", "MB", "1", ("MB",), ("megabyte", "megabytes")),
    _unit("GB", "GB", "1", ("GB",), ("gigabyte", "gigabytes")),
    _unit("TB", "TB", "1", ("TB",), ("terabyte", "terabytes")),
)


_UNIT_SYMBOLS = {alias: unit for unit, symbols, _ in _UNIT_TABLE for alias in symbols}


UNIT_WORDS = {alias: unit for unit, _, words in _UNIT_TABLE for alias in words}


#: Every unit by symbol or word (words lowercased), for readers of this table.
UNITS: dict[str, Unit] = {**UNIT_WORDS, **_UNIT_SYMBOLS}


def _alternation(symbols: list[str], words: list[str]) -> str:
    items = [(alias, False) for alias in symbols] + [(alias, True) for alias in words]
    items.sort(key=lambda item: -len(item[0]))  # longest first: "km/h" before "km"
    parts = []
    for alias, word in items:
        escaped = re.escape(alias)
        # A space inside a word unit is any whitespace; inside a symbol ("° C") it is optional.
        parts.append(
            "(?i:" + escaped.replace(r"\ ", r"\s+") + ")"
            if word
            else escaped.replace(r"\ ", r"\s*")
        )
    return "|".join(parts)


UNIT_AFTER = re.compile(
    r"\s*(?P<unit>" + _alternation(list(_UNIT_SYMBOLS), list(UNIT_WORDS)) + r")(?![^\W_])"
)


#: Currency words (lowercase) and the ISO code they stand for.
CURRENCY_WORDS: dict[str, str] = {
    "dollar": "usd",
    "dollars": "usd",
    "euro": "eur",
    "euros": "eur",
    "sterling": "gbp",
    "pounds sterling": "gbp",
    "yen": "jpy",
    "yuan": "cny",
    "renminbi": "cny",
    "rupee": "inr",
    "rupees": "inr",
    "swiss francs": "chf",
    "francs": "franc",
    "franc": "franc",
    "won": "krw",
}


_DOLLAR_QUALIFIERS = {
    "us": "usd",
    "u.s.": "usd",
    "american": "usd",
    "canadian": "cad",
    "australian": "aud",
    "new zealand": "nzd",
    "hong kong": "hkd",
    "singapore": "sgd",
}


CURRENCY_SYMBOLS = {
    "US$": "usd",
    "U.S.$": "usd",
    "A$": "aud",
    "AU$": "aud",
    "C$": "cad",
    "CA$": "cad",
    "NZ$": "nzd",
    "HK$": "hkd",
    "S$": "sgd",
    "R$": "brl",
    "$": "usd",
    "€": "eur",
    "£": "gbp",
    "¥": "jpy",
    "₹": "inr",
    "₩": "krw",
    "₽": "rub",
    "CHF": "chf",
}


_CURRENCY_CODES = (
    "USD",
    "EUR",
    "GBP",
    "JPY",
    "CNY",
    "INR",
    "AUD",
    "CAD",
    "CHF",
    "NZD",
    "HKD",
    "SGD",
    "BRL",
    "KRW",
    "RUB",
    "SEK",
    "NOK",
    "DKK",
    "MXN",
    "ZAR",
)


CURRENCY_BEFORE = re.compile(
    r"(?<![^\W\d_])(?P<cur>"
    + "|".join(
        re.escape(s) for s in sorted([*CURRENCY_SYMBOLS, *_CURRENCY_CODES], key=len, reverse=True)
    )
    + r")\s?\Z"
)


CURRENCY_AFTER = re.compile(
    r"\s*(?:(?P<qual>(?i:u\.s\.|us|american|canadian|australian|new\s+zealand|hong\s+kong|"
    r"singapore))\s+(?P<dollars>(?i:dollars?))"
    r"|(?P<word>(?i:pounds\s+sterling|swiss\s+francs|"
    + "|".join(sorted((w for w in CURRENCY_WORDS if " " not in w), key=len, reverse=True))
    + r"))"
    r"|(?P<code>" + "|".join(_CURRENCY_CODES) + r"))(?![^\W_])"
)


def currency_after(match: re.Match[str]) -> str:
    if match["code"]:
        return match["code"].lower()
    if match["qual"]:
        return _DOLLAR_QUALIFIERS[" ".join(match["qual"].lower().split())]
    return CURRENCY_WORDS[" ".join(match["word"].lower().split())]


def lookup_unit(alias: str) -> Unit | None:
    alias = " ".join(alias.split())
    if alias in _UNIT_SYMBOLS:
        return _UNIT_SYMBOLS[alias]
    return UNIT_WORDS.get(alias.lower())
