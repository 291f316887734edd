"""The repair stages on their own: formats, placement, deletion, parsing, measures."""

from __future__ import annotations

import pytest

from veracity.errors import GenerationError, OptionError
from veracity.repair import Deleter, EditLimits, parse_edit, place, preservation, render_like
from veracity.types import Claim, Span
from veracity.verify.claims import ClaimExtractor

pytestmark = pytest.mark.unit


@pytest.mark.parametrize(
    ("claimed", "stated", "written"),
    [
        ("1983", "1973", "1973"),
        ("$5 million", "$4,200,000", "$4.2 million"),
        ("5 million dollars", "$6m", "6 million dollars"),
        ("50 metres", "0.1 km", "100 metres"),
        ("12,000", "15000", "15,000"),
        ("45%", "52 percent", "52%"),
        ("45 percent", "52%", "52 percent"),
        ("20 Sept 2022", "October 5, 2022", "5 Oct 2022"),
        ("September 20, 2022", "2022-10-05", "October 5, 2022"),
        ("2022-09-20", "5 October 2022", "2022-10-05"),
        ("March 2020", "June 2021", "June 2021"),
        ("20 September 2022", "June 2021", "June 2021"),  # less precise: as the evidence says
        ("/bin/bash", "/bin/sync", "/bin/sync"),
    ],
)
def test_the_evidence_value_is_written_in_the_answers_format(
    claimed: str, stated: str, written: str
) -> None:
    assert render_like(claimed, stated) == written


def test_an_edit_is_placed_on_the_words_that_differ() -> None:
    claim = Claim(0, "Karl von Frisch won in 1983.", Span(4, 19), 0)
    placed = place("Hi. He won in 1983.", claim, "Karl von Frisch won in 1973.")
    assert not isinstance(placed, str)
    assert (placed.span, placed.replacement) == (Span(14, 18), "1973")
    assert "cannot be placed" in str(
        place("Hi. He won in 1983.", claim, "Konrad Lorenz won in 1983.")
    )


def test_an_edit_of_a_word_that_occurs_twice_is_not_guessed() -> None:
    claim = Claim(0, "Bees hum and bees hum.", Span(0, 22), 0)
    assert "occurs 2 times" in str(
        place("Bees hum and bees hum.", claim, "Bees hum and bees dance.")
    )


def test_the_limits_count_characters_changed_and_validate() -> None:
    assert EditLimits().check("a" * 200, "b" * 51) is not None
    assert EditLimits().check("in 1983", "in 1973") is None
    with pytest.raises(OptionError):
        EditLimits(max_chars=0)
    with pytest.raises(OptionError):
        EditLimits(max_share=1.5)


@pytest.mark.parametrize(
    "reply", ["Fixed: Bees dance.", "fixed:Bees dance.", "\nBees dance.\n", 'My fix: "Bees dance."']
)
def test_the_edit_parser_reads_one_sentence(reply: str) -> None:
    assert parse_edit(reply) == "Bees dance."


@pytest.mark.parametrize("reply", ["", "Fixed:", "Claim: Bees dance.", "Bees", "Fixed: bees dance"])
def test_the_edit_parser_refuses_anything_else(reply: str) -> None:
    with pytest.raises(GenerationError, match="repair_edit_v1"):
        parse_edit(reply)


def _deleted(answer: str, delete: set[int]) -> str:
    claims = ClaimExtractor().run(answer).claims
    plan = Deleter().run(answer, claims, delete)
    text = answer
    for cut in sorted(plan.cuts, key=lambda c: -c.span.start):
        text = text[: cut.span.start] + cut.replacement + text[cut.span.end :]
    return text


def test_deleting_a_claim_keeps_the_sentence_grammatical() -> None:
    answer = "Bees dance. Karl von Frisch was born in 1886 and he died in 1983 [2]."
    assert _deleted(answer, {2}) == "Bees dance. Karl von Frisch was born in 1886 [2]."
    assert _deleted(answer, {0}) == "Karl von Frisch was born in 1886 and he died in 1983 [2]."
    assert _deleted(answer, {1, 2}) == "Bees dance."


def test_deleting_the_first_part_capitalises_the_next() -> None:
    answer = "Honey bees dance on the comb, and bumblebees dance to recruit nestmates."
    assert _deleted(answer, {0}) == "Bumblebees dance to recruit nestmates."


def test_preservation_is_pres_lev_in_characters_and_words() -> None:
    kept = preservation("Bees dance.", "Bees dance.")
    assert (kept.chars, kept.words) == (1.0, 1.0)
    gone = preservation("Bees dance.", "")
    assert (gone.chars, gone.words) == (0.0, 0.0)
    swapped = preservation("Bees dance well.", "Bees sing well.")
    assert swapped.words == pytest.approx(0.75)
    assert swapped.chars == pytest.approx(1 - 4 / 16)  # dance -> sing: 4 edits


def test_a_negation_stated_without_a_verb_is_not_substituted() -> None:
    from veracity.repair.agreement import mismatches
    from veracity.types import ClaimVerdict, ValueCheck

    def check(text: str, found: str) -> ValueCheck:
        return ValueCheck("negation", text, Span(0, len(text)), text, "mismatch", found)

    verbal = check("does not follow", "follows")
    noun = check("without SSL", "SSL")  # "available even SSL" would not read
    claim = Claim(0, "It does not follow redirects without SSL.", Span(0, 41), 0)
    verdict = ClaimVerdict(claim, "contradicted", (), values=(verbal, noun))
    assert mismatches(verdict) == (verbal,)
