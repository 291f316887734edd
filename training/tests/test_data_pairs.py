"""The minimal-pair suite: twins of held-out supported claims, the suite's half only."""

from __future__ import annotations

import pytest

from veracity_training.data.contrast import suite_half, twin_edits
from veracity_training.data.pairs import main, suite_pairs

pytestmark = pytest.mark.unit


def _rows() -> list[dict[str, str]]:
    claims = [
        "The museum opens on Mondays.",
        "Most workers live for six weeks.",
        "The bridge was opened in 1932.",
        "Smoke calms bees for about ten minutes.",
    ]
    rows = []
    for i in range(40):
        claim = claims[i % len(claims)]
        rows.append(
            {
                "id": f"r{i}",
                "premise": f"Premise {i}. {claim}",
                "hypothesis": claim,
                "label": "supported" if i % 5 else "neither",
                "source": "vitaminc_bigbench" if i % 7 == 0 else "s",
                "kind": "public",
            }
        )
    return rows


PREMISE_KINDS = {
    "negated_both": "supported",
    "premise_negated": "contradicted",
    "verbatim_number": "supported",
}


def test_pairs_come_from_supported_rows_of_the_suites_half_only() -> None:
    rows = _rows()
    pairs = suite_pairs(rows, per_kind=3, seed=13)
    assert pairs == suite_pairs(rows, per_kind=3, seed=13)
    by_id = {row["id"]: row for row in rows}
    for pair in pairs:
        row = by_id[pair["id"]]
        assert row["label"] == "supported"
        assert row["source"] != "vitaminc_bigbench"  # not to be published
        assert suite_half(row["premise"])
        assert pair["claim"] == row["hypothesis"]
        if pair["kind"] in PREMISE_KINDS:  # the twin is read against a changed premise
            assert pair["expected"] == PREMISE_KINDS[pair["kind"]]
            if pair["kind"] != "verbatim_number":
                assert pair["twin_premise"] != pair["premise"]
            continue
        assert pair["twin"] != pair["claim"]
        assert "twin_premise" not in pair
        assert pair["expected"] == twin_edits()[pair["kind"]][0]
    kinds = [pair["kind"] for pair in pairs]
    assert {"antonym", "negation", "quantifier", "duration_unit"} <= set(kinds)
    assert max(kinds.count(kind) for kind in kinds) <= 3


def test_a_missing_data_folder_is_an_error_that_says_how_to_build_it(tmp_path, capsys) -> None:
    assert main(["--data", str(tmp_path), "--out", str(tmp_path / "p.jsonl")]) == 2
    assert "python -m veracity_training.data --out DATA" in capsys.readouterr().err
