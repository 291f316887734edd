"""PairChecker: the verifier's scores and the rules' mismatches, side by side."""

from __future__ import annotations

import pytest

from veracity.decision import FEATURES, Decision
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


def test_the_decision_labels_the_pair_and_the_verifier_s_label_stays() -> None:
    """The label is the one decision's, read off the verifier's reading and the rules'
    findings by their fitted weights; the verifier's own label and scores stay as they are."""
    decision = Decision(
        tuple(1.0 if f == "support_logit" else -3.0 if f == "polarity_mismatch" else 0.0
              for f in FEATURES),
        0.0,
        tuple(1.0 if f == "polarity_mismatch" else 0.0 for f in FEATURES),
        -0.5,
        "test",
    )  # fmt: skip
    table = {
        ("The museum does not open on Mondays.", "The museum opens on Mondays."): (0.6, 0.1, 0.3),
        ("The museum opens on Mondays.", "The museum opens on Mondays."): (0.9, 0.0, 0.1),
    }
    denied, agreed = (
        PairChecker(TablePairScorer(table), decision=decision)
        .load()
        .run([premise for premise, _ in table], [claim for _, claim in table])
        .pairs
    )
    assert [rule.kind for rule in denied.rules] == ["negation"]
    assert (denied.label, denied.verifier_label) == ("contradicted", "supported")
    assert denied.decision is not None
    assert denied.decision.inputs["polarity_mismatch"] == 1.0
    assert denied.to_dict()["decision"]["label"] == "contradicted"
    assert denied.to_dict()["verifier_label"] == "supported"
    assert denied.score.supported == 0.6
    assert (agreed.label, agreed.verifier_label) == ("supported", "supported")


def test_a_claim_with_nothing_to_check_is_not_checkable_never_a_score() -> None:
    table = {("Docs are here.", "docs."): (0.85, 0.05, 0.1)}
    pair = PairChecker(TablePairScorer(table)).load().run(["Docs are here."], ["docs."]).pairs[0]
    assert pair.label == "not_checkable"
    assert pair.decision is None
    assert pair.to_dict()["not_checkable"] == "fragment"
