"""Polarity rules: a "not", an antonym or a reversed quantifier on the claim's aligned sentence."""

from __future__ import annotations

import pytest

from veracity.rules.layer import KnowledgeLayer
from veracity.rules.polarity import polarity_checks, polarity_conflicts
from veracity.types import Chunk, Claim, Span

pytestmark = pytest.mark.unit


@pytest.mark.parametrize(
    ("claim", "premise", "kind", "said", "found"),
    [
        (
            "The museum opens on Mondays.",
            "The museum does not open on Mondays.",
            "negation",
            "opens",
            "does not open",
        ),
        (
            "Aspirin is recommended for children under 16.",
            "Aspirin is not recommended for children under 16.",
            "negation",
            "recommended",
            "is not recommended",
        ),
        (
            "libffi is completely thread-safe.",
            "The closure API of libffi is not completely "
            "thread-safe; a program that uses closures from several threads must lock.",
            "negation",
            "completely",
            "is not completely",
        ),
        (
            "The museum does not open on Mondays.",
            "The museum opens on Mondays.",
            "negation",
            "does not open",
            "opens",
        ),
        (
            "The museum opens on Mondays.",
            "The museum is closed on Mondays. It opens on Tuesdays.",
            "antonym",
            "opens",
            "closed",
        ),
        (
            "The drug increases blood pressure.",
            "The drug reduces blood pressure in most patients.",
            "antonym",
            "increases",
            "reduces",
        ),
        (
            "All bees in the hive are female.",
            "No bees in the hive are female.",
            "quantifier",
            "All",
            "No",
        ),
        (
            "Workers always sting intruders.",
            "Workers never sting intruders.",
            "quantifier",
            "always",
            "never",
        ),
        (  # a "without" that only says how ("without asking") leaves the claim's denial
            "The cleanup job does not delete the old backups.",
            "The cleanup job deletes the old backups without asking.",
            "negation",
            "does not delete",
            "deletes",
        ),
        (  # "need" stands between the cue and the word it denies
            "After editing the configuration, you do not need to restart the daemon.",
            "After editing the configuration, you need to restart the daemon.",
            "negation",
            "do not need to restart",
            "restart",
        ),
        (  # the antonym stands where the claim's word does; the shared "faster" does not
            "The new parser is faster than the old one, and faster than the reference parser.",
            "The new parser is slower than the old one, but faster than the reference parser.",
            "antonym",
            "faster",
            "slower",
        ),
    ],
)
def test_a_reversed_claim_is_caught_with_both_spans(
    claim: str, premise: str, kind: str, said: str, found: str
) -> None:
    (check,) = polarity_conflicts(claim, premise, doc_id="d", offset=100)
    assert (check.kind, check.status, check.text, check.found) == (kind, "mismatch", said, found)
    assert check.span.of(claim) == said
    assert check.evidence is not None
    assert premise[check.evidence.start - 100 : check.evidence.end - 100] == found


@pytest.mark.parametrize(
    ("claim", "premise"),
    [
        ("The museum is open on Mondays.", "The museum is not closed on Mondays."),  # two flips
        ("The museum does not open on Mondays.", "The museum is closed on Mondays."),
        ("Bees are insects.", "Bees are not birds, but they are insects."),  # "not" denies birds
        (
            "The treaty was signed in 1990.",
            "The treaty was not ratified until 1995, although it was signed in 1990.",
        ),
        ("Python supports closures.", "Python does not only support closures but also generators."),
        ("The museum opens on Mondays.", "Penguins do not fly."),  # nothing aligned
        (  # both sides carry a negation, each on its own word: no clear reading
            "Avenged Sevenfold is not an album by a metal band.",
            "Avenged Sevenfold is not the fourth studio album by the metal band.",
        ),
        (
            "A civilian policeman was not killed in the attack.",
            "A vehicle was not attacked, and a civilian policeman was killed in the attack.",
        ),
        (
            "Each Apache Contributor grants a license.",
            "Each Contributor hereby grants to You a "
            "perpetual, worldwide, non-exclusive, no-charge, royalty-free, irrevocable license.",
        ),
    ],
)
def test_agreeing_or_unaligned_evidence_is_no_conflict(claim: str, premise: str) -> None:
    assert polarity_conflicts(claim, premise) == ()


def _chunk(text: str, doc: str = "d") -> Chunk:
    return Chunk(f"{doc}#0", doc, 0, text, 0, len(text))


def test_a_passage_that_restates_the_claim_outweighs_one_that_denies_it() -> None:
    claim = "The museum opens on Mondays."
    denies, states = (
        _chunk("The museum does not open on Mondays."),
        _chunk("On Mondays the museum opens at ten.", "e"),
    )
    assert [c.kind for c in polarity_checks(claim, [denies])] == ["negation"]
    assert polarity_checks(claim, [denies, states]) == []


def test_the_knowledge_layer_reports_a_polarity_mismatch_as_contradicted() -> None:
    claim = "The museum opens on Mondays."
    result = KnowledgeLayer(entities=False).run(
        [Claim(0, claim, Span(0, len(claim)), 0)],
        [[_chunk("The museum does not open on Mondays.")]],
    )
    assert result.results[0].label == "contradicted"
    assert result.results[0].detail == (
        "'opens' contradicts the evidence, which says 'does not open' (document 'd')"
    )
    assert result.values[0][0].kind == "negation"


def test_an_hour_against_ten_minutes_is_a_duration_mismatch() -> None:
    claim = "Smoke calms bees for an hour."
    result = KnowledgeLayer(entities=False).run(
        [Claim(0, claim, Span(0, len(claim)), 0)],
        [[_chunk("Beekeepers use smoke. Smoke calms bees for about ten minutes.")]],
    )
    assert result.results[0].label == "contradicted"
    (check,) = result.values[0]
    assert (check.kind, check.text, check.found) == ("quantity", "an hour", "ten minutes")
