"""PairChecker: the verifier's scores and the rules' mismatches, side by side."""

from __future__ import annotations

import pytest

from veracity.testing import TablePairScorer
from veracity.verify.pairs import PairChecker

pytestmark = pytest.mark.unit


def test_rules_are_reported_beside_the_scores_and_never_change_them() -> None:
    table = {
        ("The museum does not open on Mondays.", "The museum opens on Mondays."): (0.6, 0.1, 0.3),
        ("Smoke calms bees for about ten minutes.", "Smoke calms bees for ten minutes."): (
            0.9,
            0.0,
            0.1,
        ),
    }
    checked = (
        PairChecker(TablePairScorer(table))
        .load()
        .run([premise for premise, _ in table], [claim for _, claim in table])
    )
    denied, agreed = checked.pairs
    assert denied.score.supported == 0.6
    assert [(r.kind, r.text, r.found) for r in denied.rules] == [
        ("negation", "opens", "does not open")
    ]
    assert denied.to_dict()["rules"] == [
        {
            "kind": "negation",
            "claim": "opens",
            "claim_span": [11, 16],
            "premise": "does not open",
            "premise_span": [11, 24],
        }
    ]
    assert agreed.rules == ()
    assert checked.model_id == "table"


def test_a_rule_s_mismatch_makes_the_label_contradicted_and_keeps_the_verifier_s() -> None:
    """The label is decided as verify's default rule (any) decides; the scores stay."""
    table = {
        ("The museum does not open on Mondays.", "The museum opens on Mondays."): (0.6, 0.1, 0.3),
        ("The museum opens on Mondays.", "The museum opens on Mondays."): (0.9, 0.0, 0.1),
    }
    denied, agreed = (
        PairChecker(TablePairScorer(table))
        .load()
        .run([premise for premise, _ in table], [claim for _, claim in table])
        .pairs
    )
    assert (denied.label, denied.verifier_label) == ("contradicted", "supported")
    assert denied.to_dict()["label"] == "contradicted"
    assert denied.to_dict()["verifier_label"] == "supported"
    assert (agreed.label, agreed.verifier_label) == ("supported", "supported")
