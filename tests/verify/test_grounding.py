"""GroundingCheck: one pass/fail decision on an answer, with the claims that failed it."""

from __future__ import annotations

from pathlib import Path

import pytest

from veracity.errors import InputError, OptionError
from veracity.testing import FailingPairScorer, TablePairScorer
from veracity.verify.grounding import GroundingCheck

pytestmark = pytest.mark.unit

SOURCE = "The museum does not open on Mondays."
TABLE = {
    (SOURCE, "The museum opens on Mondays."): (0.05, 0.9, 0.05),
    (SOURCE, "The museum is closed on Mondays."): (0.9, 0.05, 0.05),
    (SOURCE, "Tickets cost ten euros."): (0.1, 0.1, 0.8),
}


def check(**options: object) -> GroundingCheck:
    return GroundingCheck(TablePairScorer(TABLE), layers=("nli",), **options)  # type: ignore[arg-type]


def test_a_supported_answer_passes() -> None:
    grounding = check().run("The museum is closed on Mondays.", [SOURCE])
    assert grounding.passed
    assert grounding.supported_share == 1.0
    assert grounding.failing == ()


def test_a_contradicted_claim_fails_and_the_explanation_quotes_the_span() -> None:
    grounding = check().run(
        "The museum is closed on Mondays. The museum opens on Mondays.", [SOURCE]
    )
    assert not grounding.passed
    assert [verdict.label for verdict in grounding.failing] == ["contradicted"]
    text = grounding.explain()
    assert text.startswith("not grounded: 1 of 2 claims supported, 1 contradicted")
    assert "claim 2 [33:61] 'The museum opens on Mondays.': contradicted" in text
    assert f"contradicted by text-1 [0:36] {SOURCE!r}" in text


def test_a_threshold_lets_a_share_of_unsupported_claims_pass() -> None:
    answer = "The museum is closed on Mondays. Tickets cost ten euros."
    assert not check().run(answer, [SOURCE]).passed
    assert check(threshold=0.5).run(answer, [SOURCE]).passed


def test_no_contradicted_mode_passes_unsupported_claims_and_fails_contradicted_ones() -> None:
    assert check(mode="no-contradicted").run("Tickets cost ten euros.", [SOURCE]).passed
    failed = check(mode="no-contradicted").run("The museum opens on Mondays.", [SOURCE])
    assert not failed.passed
    assert "needed: no claim contradicted" in failed.explain()


def test_a_verifier_failure_fails_the_check_in_either_mode() -> None:
    for mode in ("supported", "no-contradicted"):
        grounding = GroundingCheck(
            FailingPairScorer("the judge's reply was unreadable"),
            layers=("nli",),
            mode=mode,
            threshold=0.5,
        ).run("The museum opens on Mondays.", [SOURCE])
        assert not grounding.passed
        assert grounding.failing[0].label == "error"
        assert "failed: " in grounding.explain()


def test_sources_may_be_files(tmp_path: Path) -> None:
    path = tmp_path / "museum.md"
    path.write_text(SOURCE + "\n", encoding="utf-8")
    grounding = check().run("The museum is closed on Mondays.", [path])
    assert grounding.passed
    assert grounding.report.verdicts[0].citations[0].doc_id == "museum.md"


@pytest.mark.parametrize(
    ("options", "named"),
    [
        ({"mode": "strict"}, "mode='strict'"),
        ({"threshold": 0}, "threshold=0"),
        ({"threshold": True}, "threshold=True"),
    ],
)
def test_bad_options_are_refused_by_name(options: dict[str, object], named: str) -> None:
    with pytest.raises(OptionError, match=named):
        check(**options)


def test_one_source_not_in_a_list_is_refused_with_the_fix() -> None:
    with pytest.raises(InputError, match=r"wrap the one source as \[source\]"):
        check().run("The museum is closed on Mondays.", SOURCE)


def test_no_sources_is_refused() -> None:
    with pytest.raises(InputError, match="no sources given"):
        check().run("The museum is closed on Mondays.", [])
