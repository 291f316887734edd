"""The polarity lexicon: negation cues, antonyms, units of time."""

from __future__ import annotations

import pytest

from veracity.rules.polarity import antonyms_of, negation_cues, unit_dimension

pytestmark = pytest.mark.unit


def test_antonyms_are_symmetric_and_case_blind() -> None:
    assert "closes" in antonyms_of("opens")
    assert "opens" in antonyms_of("Closes")
    assert {"higher", "raise", "upper"} <= antonyms_of("lower")
    assert antonyms_of("museum") == frozenset()


def test_negation_cues_are_whole_words() -> None:
    cues = [m.group(0) for m in negation_cues("Nothing is not known, it isn't; notable.")]
    assert cues == ["Nothing", "not", "n't"]


def test_units_of_time_share_a_dimension() -> None:
    assert unit_dimension("hours") == unit_dimension("hour") == "hour"
    assert unit_dimension("Minutes") == "minute"
    assert unit_dimension("metres") is None
