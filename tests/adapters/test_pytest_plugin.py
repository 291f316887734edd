"""The pytest plugin: assert_grounded in a user's test suite, run by pytest in a subprocess
(pytester; in-process runs unload numpy between runs, which it does not survive). A fresh
Python that imports veracity and runs a suite takes seconds: those are integration tests."""

from __future__ import annotations

import tomllib
from pathlib import Path

import pytest

pytest_plugins = ("pytester",)

PLUGIN = "veracity.adapters.pytest_plugin"
ROOT = Path(__file__).resolve().parents[2]

USER_TESTS = """
def test_grounded(assert_grounded):
    grounding = assert_grounded("Honey bees dance to share where food is.",
                                ["Honey bees dance to share where food is found."])
    assert grounding.passed

def test_not_grounded(assert_grounded):
    assert_grounded("Tickets to the museum cost forty euros on Sundays.",
                    ["Honey bees dance to share where food is found."])

def test_no_contradicted_lets_unsupported_claims_pass(assert_grounded):
    assert_grounded("Tickets to the museum cost forty euros on Sundays.",
                    ["Honey bees dance to share where food is found."], mode="no-contradicted")
"""


@pytest.fixture
def user_suite(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> pytest.Pytester:
    # Load the plugin by name only, whether or not this environment installed its entry point.
    monkeypatch.setenv("PYTEST_DISABLE_PLUGIN_AUTOLOAD", "1")
    pytester.makepyfile(test_user=USER_TESTS)
    return pytester


@pytest.mark.integration
def test_a_user_suite_passes_and_fails_with_a_report_per_claim(user_suite: pytest.Pytester) -> None:
    user_suite.makeini("[pytest]\nveracity_verifier = lexical\n")  # the ini option picks it
    result = user_suite.runpytest_subprocess("-p", PLUGIN, "-p", "no:cacheprovider")
    result.assert_outcomes(passed=2, failed=1)
    result.stdout.fnmatch_lines(
        [
            "*NotGroundedError: not grounded: 0 of 1 claims supported, 0 contradicted "
            "(needed: every claim supported)",
            "*- claim 1 [[]0:50[]] 'Tickets to the museum cost forty euros on Sundays.': "
            "unsupported*",
            "*closest evidence text-1 [[]0:*",
        ]
    )


@pytest.mark.integration
def test_an_unknown_verifier_is_an_error_naming_it(user_suite: pytest.Pytester) -> None:
    result = user_suite.runpytest_subprocess(
        "-p", PLUGIN, "--veracity-verifier", "bogus", "-p", "no:cacheprovider"
    )
    result.assert_outcomes(errors=3)
    result.stdout.fnmatch_lines(["*verifier='bogus' is not allowed*"])


@pytest.mark.unit
def test_the_plugin_is_declared_as_a_pytest11_entry_point() -> None:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    assert project["project"]["entry-points"]["pytest11"] == {"veracity": PLUGIN}
