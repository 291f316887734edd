"""Rows that keep a cue from deciding the label, and the scope twin."""

from __future__ import annotations

from collections import Counter

import pytest

from veracity_training.data.balance import (
    aligned_sentence,
    negation_pair_rows,
    verbatim_number_rows,
)
from veracity_training.data.contrast import widen_scope
from veracity_training.data.schema import Row

pytestmark = pytest.mark.unit

PREMISE = (
    "The river is wide. The bridge was built in 1932 by the city. "
    "It is closed in winter. The museum opened on 1 May 1990 (after a long delay)."
)


def _row(hypothesis: str, label: str = "supported") -> Row:
    return Row("r1", PREMISE, hypothesis, label, "s", "k", "g")  # type: ignore[arg-type]


def test_aligned_sentence_is_the_one_that_says_the_claim() -> None:
    span = aligned_sentence(PREMISE, "The bridge was built in 1932.")
    assert span is not None
    assert PREMISE[span[0] : span[1]] == "The bridge was built in 1932 by the city."
    assert aligned_sentence(PREMISE, "Dogs bark at night.") is None


def test_negation_pairs_put_a_negation_on_both_sides_of_both_labels() -> None:
    stats: Counter[str] = Counter()
    rows = negation_pair_rows([_row("The bridge was built in 1932.")], quota=5, seed=1, stats=stats)
    by_kind = {r.kind: r for r in rows}
    both, premise_only = by_kind["negated_both"], by_kind["premise_negated"]
    assert both.label == "supported"
    assert premise_only.label == "contradicted"
    assert "was not built" in both.premise
    assert "was not built" in both.hypothesis
    assert premise_only.premise == both.premise
    assert premise_only.hypothesis == "The bridge was built in 1932."
    assert stats["negated_both"] == stats["premise_negated"] == 1


def test_verbatim_number_rows_repeat_a_sentence_with_figures() -> None:
    stats: Counter[str] = Counter()
    rows = verbatim_number_rows([_row("It is closed in winter.")], quota=3, seed=2, stats=stats)
    assert len(rows) == 1
    assert rows[0].label == "supported"
    claim = rows[0].hypothesis
    assert any(ch.isdigit() for ch in claim)
    # the claim is a sentence of the premise, or one with a parenthetical dropped or a date
    # respelled
    assert claim in PREMISE or "1932" in claim or "1990" in claim


@pytest.mark.parametrize(
    ("sentence", "wider"),
    [
        ("Most users prefer the dark theme.", "All users prefer the dark theme."),
        ("Some of the hives failed.", "All the hives failed."),
        ("The ferry usually leaves at noon.", "The ferry always leaves at noon."),
        ("The bridge is closed in winter.", None),
        ("It is one of the most visited sites.", None),
    ],
)
def test_widen_scope(sentence: str, wider: str | None) -> None:
    assert widen_scope(sentence) == wider
