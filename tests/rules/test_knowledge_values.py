"""Values: extraction, normalisation and comparison at the precision given."""

from __future__ import annotations

from decimal import Decimal

import pytest

from veracity.rules.units import UNITS
from veracity.rules.values import Value, compare, extract_values
from veracity.text.numbers import numbers

pytestmark = pytest.mark.unit


def kinds_and_values(text: str) -> list[tuple[str, str]]:
    return [(value.kind, value.value) for value in extract_values(text)]


def only(text: str) -> Value:
    values = extract_values(text)
    assert len(values) == 1, values
    return values[0]


def test_spans_index_the_text_and_values_come_in_order() -> None:
    text = (
        "On 20 Sept 2022 the city council said that 1,200 residents (45 percent) paid "
        "$5 million for a 10 km road, up from the 1990s."
    )
    values = extract_values(text)
    assert [v.text for v in values] == [
        "20 Sept 2022",
        "1,200",
        "45 percent",
        "$5 million",
        "10 km",
        "1990s",
    ]
    assert all(v.span.of(text) == v.text for v in values)
    assert [v.span.start for v in values] == sorted(v.span.start for v in values)


@pytest.mark.parametrize(
    ("text", "kind", "value"),
    [
        ("1,200", "number", "1200"),
        ("1200", "number", "1200"),
        ("1.2 thousand", "number", "1200"),
        ("3.50", "number", "3.5"),
        ("1.2 million", "number", "1200000"),
        ("5bn", "number", "5000000000"),
        ("three", "number", "3"),
        ("twenty-five", "number", "25"),
        ("one million", "number", "1000000"),
        ("the 20th", "number", "20"),
        ("60,000 bees", "number", "60000"),
        ("45%", "percent", "45%"),
        ("45 percent", "percent", "45%"),
        ("2.5 per cent", "percent", "2.5%"),
        ("$5 million", "money", "usd 5000000"),
        ("5 million dollars", "money", "usd 5000000"),
        ("US$5m", "money", "usd 5000000"),
        ("USD 5,000,000", "money", "usd 5000000"),
        ("€3.2bn", "money", "eur 3200000000"),
        ("£40", "money", "gbp 40"),
        ("3 million Canadian dollars", "money", "cad 3000000"),
        ("7.8 million francs", "money", "franc 7800000"),
        ("10 km", "quantity", "10000 m"),
        ("10,000 metres", "quantity", "10000 m"),
        ("5 kg", "quantity", "5 kg"),
        ("500 g", "quantity", "0.5 kg"),
        ("2 hours", "quantity", "7200 s"),
        ("30 km/h", "quantity", "30 km/h"),
        ("-5 °C", "quantity", "-5 °c"),
        ("12 miles", "quantity", "12 mi"),
        ("209,000 cubic metres", "quantity", "209000 m3"),
        ("for fiscal 2022", "year", "2022"),
        ("twenty years", "quantity", "20 year"),
        ("3 km²", "quantity", "3000000 m2"),
        ("20 Sept 2022", "date", "2022-09-20"),
        ("September 20, 2022", "date", "2022-09-20"),
        ("the 20th of September 2022", "date", "2022-09-20"),
        ("2022-09-20", "date", "2022-09-20"),
        ("Sept. 2022", "date", "2022-09"),
        ("20 September", "date", "--09-20"),
        ("in 1886", "year", "1886"),
        ("the 1990s", "year", "1990s"),
        ("the mid-1990s", "year", "1990s"),
        ("since 2001", "year", "2001"),
        ("in 44 BC", "number", "44"),
    ],
)
def test_normalised_forms(text: str, kind: str, value: str) -> None:
    found = only(text)
    assert (found.kind, found.value) == (kind, value)


def test_equal_amounts_written_differently_normalise_alike() -> None:
    written = ["1,200", "1200", "1.2 thousand"]
    assert {only(text).value for text in written} == {"1200"}
    dates = ["20 Sept 2022", "September 20, 2022", "2022-09-20", "the 20th of September 2022"]
    assert {only(text).value for text in dates} == {"2022-09-20"}
    money = ["$5 million", "5 million dollars", "USD 5m", "US$5,000,000"]
    assert {only(text).value for text in money} == {"usd 5000000"}


def test_four_digit_numbers_are_years_only_with_a_cue() -> None:
    assert kinds_and_values("A population of 2000 grew.") == [("number", "2000")]
    assert kinds_and_values("It was founded in 2000.") == [("year", "2000")]
    assert kinds_and_values("The war lasted from 1914 to 1918.") == [
        ("year", "1914"),
        ("year", "1918"),
    ]
    assert kinds_and_values("It ran between 1939 and 1945.") == [("year", "1939"), ("year", "1945")]


def test_abbreviated_scales_need_a_currency_but_bn_does_not() -> None:
    assert kinds_and_values("a 5m wall") == [("quantity", "5 m")]
    assert kinds_and_values("a $5m wall") == [("money", "usd 5000000")]
    assert kinds_and_values("sales of 5bn units") == [("number", "5000000000")]


def test_the_rounding_step_of_a_scaled_decimal() -> None:
    assert only("2.1 million").step == Decimal("100000")
    assert only("€3.2bn").step == Decimal("100000000")
    assert only("$394 billion").step == Decimal("1000000000")
    assert only("2,100,000").step == 0


def test_not_read_as_values() -> None:
    text = "At 10:30 on 20/09/2022 COVID-19 hit; the B-52 and 3's were listed."
    assert extract_values(text) == ()
    assert extract_values("He may go. One of them said so. No one came.") == ()


def test_an_invalid_date_is_not_a_date() -> None:
    assert all(value.kind != "date" for value in extract_values("on 31 February 2022"))


def test_number_words_stop_at_word_boundaries() -> None:
    assert extract_values("Someone threw tennis balls.") == ()
    assert kinds_and_values("Three queens and twelve drones.") == [
        ("number", "3"),
        ("number", "12"),
    ]


def test_unit_table_is_consistent() -> None:
    assert UNITS["km"].base == "m"
    assert UNITS["km"].factor == 1000
    assert UNITS["kilometres"] is UNITS["km"]
    assert all(unit.factor > 0 for unit in UNITS.values())


def test_the_signals_number_parser_is_shared_and_unchanged() -> None:
    # numbers() feeds the fitted combiner: its output must stay what it was.
    text = "In the 1990s, 1,200 people (2.50 per cent) paid $1.2 million on May 21st."
    assert numbers(text) == ["1990s", "1200", "2.5%", "1200000", "21"]


# --- compare --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("claim", "evidence", "relation"),
    [
        ("1,200", "1.2 thousand", "match"),
        ("1.2 thousand", "1,200", "match"),
        ("60,000", "50,000", "conflict"),
        ("45%", "45 percent", "match"),
        ("45%", "46%", "conflict"),
        ("45%", "45", "incomparable"),
        ("$5 million", "5 million dollars", "match"),
        ("$5 million", "$6 million", "conflict"),
        ("$5 million", "€5 million", "incomparable"),
        ("10 km", "10,000 metres", "match"),
        ("10 km", "12 km", "conflict"),
        ("10 km", "10 kg", "incomparable"),
        ("2.1 million", "2,102,650", "match"),
        ("2,102,650", "2.1 million", "vaguer"),
        ("2.1 million", "2,190,000", "conflict"),
        ("$394 billion", "$394.3 billion", "match"),
        ("$394.3 billion", "$394 billion", "vaguer"),
        ("$5 million", "$5.6 million", "conflict"),
        ("in 2022", "on 20 Sept 2022", "match"),
        ("on 20 Sept 2022", "in 2022", "vaguer"),
        ("on 20 Sept 2022", "21 September 2022", "conflict"),
        ("in 2021", "20 Sept 2022", "conflict"),
        ("Sept. 2022", "20 September 2022", "match"),
        ("20 September", "2022-09-20", "match"),
        ("the 1990s", "in 1994", "match"),
        ("in 1994", "the 1990s", "vaguer"),
        ("the 1990s", "in 2003", "conflict"),
        ("1886", "in 1886", "match"),
        ("1887", "in 1886", "conflict"),
        ("1887 bees", "in 1886", "conflict"),
        ("3,000", "in 1886", "incomparable"),
    ],
)
def test_compare(claim: str, evidence: str, relation: str) -> None:
    assert compare(only(claim), only(evidence)) == relation


def test_a_bare_number_conflicts_with_a_year_when_written_like_one_or_when_asked() -> None:
    year, number = only("in 1886"), only("1887")
    assert compare(year, number) == "conflict"  # "the 1887 prize" reads as a year
    assert compare(year, only("12,000")) == "incomparable"
    assert compare(year, only("12,000"), years_as_numbers=True) == "conflict"
    assert compare(only("the 1880s"), number, years_as_numbers=True) == "incomparable"


def test_days_and_weeks_are_seconds_and_one_unit_needs_no_number() -> None:
    (weeks,) = extract_values("It takes two weeks.")
    (days,) = extract_values("It takes 14 days.")
    assert compare(weeks, days) == "match"
    assert [v.value for v in extract_values("for an hour, a day or one week")] == [
        "3600 s",
        "86400 s",
        "604800 s",
    ]
    rates = extract_values("twice a day, once a week, 5 times an hour")
    assert [(v.kind, v.text) for v in rates] == [("number", "5")]
