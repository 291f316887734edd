"""The one decision: features, label rules, fitting, saving, and the shipped weights."""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pytest

from veracity.decision import (
    FEATURES,
    Decision,
    coverage,
    features,
    fit_decision,
    sentence_coverage,
)
from veracity.errors import InputError, ModelError
from veracity.types import ClaimSignals, Reading, Span, ValueCheck

pytestmark = pytest.mark.unit


def _check(kind: str, status: str) -> ValueCheck:
    return ValueCheck(kind, "x", Span(0, 1), "x", status)  # type: ignore[arg-type]


def test_features_read_every_signal() -> None:
    signals = ClaimSignals(
        (Reading(0.9, 0.05, 0.05), Reading(0.1, 0.8, 0.1), Reading(0.2, 0.9, 0.1, can_state=False)),
        (_check("year", "mismatch"), _check("entity", "absent"), _check("negation", "mismatch")),
        coverage=0.75,
        coverage_all=0.9,
        coverage_sentence=0.6,
    )
    row = dict(zip(FEATURES, features(signals).tolist(), strict=True))
    assert row["support_logit"] == pytest.approx(math.log(0.9 / 0.1))
    # the passage that cannot state the claim does not count against it
    assert row["contradiction_logit"] == pytest.approx(math.log(0.8 / 0.2))
    assert row["passages_for"] == pytest.approx(math.log(2))
    assert row["passages_against"] == pytest.approx(math.log(2))
    assert "coverage" not in row  # the best passage's coverage is reported, not read
    assert row["coverage_all"] == pytest.approx(0.4)
    assert row["coverage_sentence"] == pytest.approx(0.1)
    assert (row["value_mismatch"], row["value_match"], row["entity_absent"]) == (1.0, 0.0, 1.0)
    assert row["polarity_mismatch"] == 1.0
    assert row["no_reading"] == 0.0


def test_failed_readings_count_as_none() -> None:
    nan = float("nan")
    row = dict(
        zip(FEATURES, features(ClaimSignals((Reading(nan, nan, nan),))).tolist(), strict=False)
    )
    assert row["no_reading"] == 1.0


def _toy() -> tuple[np.ndarray, list[int], list[int | None]]:
    rng = np.random.default_rng(0)
    rows, supported, contradicted = [], [], []
    for i in range(400):
        label = i % 3  # 0 supported, 1 contradicted, 2 unsupported
        p = (0.9, 0.1, 0.1)[label] + rng.normal(0, 0.05)
        c = (0.05, 0.8, 0.1)[label] + rng.normal(0, 0.05)
        signals = ClaimSignals((Reading(min(max(p, 0.01), 0.99), min(max(c, 0.01), 0.99), 0.1),))
        rows.append(features(signals))
        supported.append(int(label == 0))
        contradicted.append(None if label == 0 else int(label == 1))
    return np.asarray(rows), supported, contradicted


def test_fit_separates_three_labels_and_reports_contributions() -> None:
    x, supported, contradicted = _toy()
    decision = fit_decision(x, supported, contradicted, version="t")
    labels = [decision.decide(row).label for row in x]
    truth = ["supported" if s else "contradicted" if c else "unsupported"
             for s, c in zip(supported, contradicted, strict=True)]  # fmt: skip
    assert np.mean([a == b for a, b in zip(labels, truth, strict=True)]) > 0.95
    result = decision.decide(x[0])
    assert result.supported + result.contradicted + result.unsupported == pytest.approx(1.0)
    assert set(result.support) == set(FEATURES)
    total = sum(result.support.values()) + decision.support_bias
    assert result.supported == pytest.approx(1 / (1 + math.exp(-total)))


def test_round_trip_and_refusals(tmp_path: Path) -> None:
    x, supported, contradicted = _toy()
    decision = fit_decision(x, supported, contradicted, version="t")
    path = tmp_path / "decision.json"
    path.write_text(json.dumps(decision.to_json()))
    assert Decision.load(path) == decision
    with pytest.raises(ModelError, match="refit"):
        Decision.from_json({**decision.to_json(), "inputs": ["a"]})
    with pytest.raises(InputError, match="contradicted rows"):
        fit_decision(x, supported, [None] * len(supported))


def test_a_decision_fit_before_an_input_existed_reads_it_with_weight_zero() -> None:
    x, supported, contradicted = _toy()
    decision = fit_decision(x, supported, contradicted, version="t")
    data = decision.to_json()
    keep = [i for i, name in enumerate(FEATURES) if name != "coverage_sentence"]
    older = {
        **data,
        "inputs": [FEATURES[i] for i in keep],
        "support": {"weights": [data["support"]["weights"][i] for i in keep], "bias": 0.0},
        "contradiction": {
            "weights": [data["contradiction"]["weights"][i] for i in keep],
            "bias": 0.0,
        },
    }
    read = Decision.from_json(older)
    assert read.names == FEATURES
    weights = dict(zip(FEATURES, read.support_weights, strict=True))
    assert weights["coverage_sentence"] == 0.0
    assert weights["support_logit"] == data["support"]["weights"][FEATURES.index("support_logit")]


def test_sentence_coverage_finds_the_words_a_passage_holds_only_apart() -> None:
    passage = "Wget 1.21.3 adds TLS 1.3. HTTP/2 support is planned. The default protocol is HTTP."
    claim = "Wget 1.21.3 adds HTTP/2 as the default protocol."
    assert coverage(claim, passage) == 1.0
    # the best window, the first two sentences, lacks "default" and "protocol"
    assert sentence_coverage(claim, [passage]) == pytest.approx(7 / 9)
    assert sentence_coverage(claim, []) == 0.0
    assert sentence_coverage("the of", [passage]) == 1.0


def test_shipped_decision_reads_the_network() -> None:
    decision = Decision.shipped()
    strong = decision.run(ClaimSignals((Reading(0.98, 0.01, 0.01),), coverage_all=1.0))
    against = decision.run(ClaimSignals((Reading(0.02, 0.97, 0.01),), coverage_all=1.0))
    nothing = decision.run(ClaimSignals())
    assert strong.label == "supported"
    assert against.label == "contradicted"
    assert nothing.label == "unsupported"
    # the network carries real weight in the support model
    assert abs(strong.support["support_logit"]) > 1.0
