"""The shipped verifier reads: the issue's probe pairs and negated twins, with the real model."""

from __future__ import annotations

import pytest

from veracity.models.pairs.shipped import EmbeddedVerifier
from veracity.verify.pairs import PairChecker

pytestmark = pytest.mark.integration

#: (premise, claim): the probes of issue Verifier-reads; none of the claims is supported.
PROBES = [
    ("The museum does not open on Mondays.", "The museum opens on Mondays."),
    (
        "Aspirin is not recommended for children under 16.",
        "Aspirin is recommended for children under 16.",
    ),
    (
        "The closure API of libffi is not completely thread-safe; a program that uses closures "
        "from several threads must serialise them.",
        "libffi is completely thread-safe.",
    ),
    ("Smoke calms bees for about ten minutes.", "Smoke calms bees for an hour."),
]


@pytest.fixture(scope="module")
def checker() -> PairChecker:
    return PairChecker(EmbeddedVerifier()).load()


@pytest.mark.parametrize(("premise", "claim"), PROBES)
def test_a_probe_is_contradicted_and_the_rules_say_why(
    checker: PairChecker, premise: str, claim: str
) -> None:
    pair = checker.run([premise], [claim]).pairs[0]
    assert pair.label == "contradicted"
    assert pair.rules  # the reason a reader can check: the rule and both spans


@pytest.mark.parametrize(("premise", "claim"), [PROBES[0], PROBES[1], PROBES[3]])
def test_the_verifier_alone_reads_the_negations_and_the_duration(
    checker: PairChecker, premise: str, claim: str
) -> None:
    score = checker.run([premise], [claim]).pairs[0].score
    assert score.label == "contradicted"
    assert score.supported < 0.5


def test_a_claim_and_its_negation_never_both_pass(checker: PairChecker) -> None:
    premise = "The museum opens on Mondays and closes at six."
    claims = ["The museum opens on Mondays.", "The museum does not open on Mondays."]
    stated, negated = checker.run([premise] * 2, claims).pairs
    assert stated.label == "supported"
    assert negated.label == "contradicted"
    assert negated.score.label == "contradicted"  # the verifier itself, not only the rules
    assert negated.score.contradicted > stated.score.contradicted
