"""cannot_state: which passages cannot state a claim (so never count against it), and why."""

from __future__ import annotations

import pytest

from veracity.verify.fragments import FRAGMENT_MAX_WORDS, REASONS, cannot_state, claim_words

pytestmark = pytest.mark.unit

FRISCH = "The waggle dance was decoded by the Austrian zoologist Karl von Frisch."
NOBEL = "Karl von Frisch won the Nobel Prize in 1983."
HRUSCHKA = (
    "An Austrian army major living in Italy, Hruschka invented the centrifugal honey "
    "extractor in 1865. Combs could now be emptied and returned to the hive."
)


@pytest.mark.parametrize(
    ("passage", "claim", "reason"),
    [
        # headings and bold-only lines, nothing else
        ("# The Waggle Dance and Foraging", FRISCH, "heading"),
        ("## Who decoded it\n\n### Karl von Frisch\n", FRISCH, "heading"),
        ("**Key facts**\n#", NOBEL, "heading"),
        ("", NOBEL, "heading"),
        # titles, table-of-contents lines, captions, short fragments: no finite verb
        ("The Waggle Dance and Foraging", FRISCH, "fragment"),
        ("1. Introduction ........ 3\n2. The waggle dance ........ 5", FRISCH, "fragment"),
        ("Figure 2: The waggle dance of Apis mellifera", FRISCH, "fragment"),
        ("Karl von Frisch (1886-1982)", NOBEL, "fragment"),
        ("Nobel Prize 1973", NOBEL, "fragment"),
        ("# Karl von Frisch\n\nNobel laureate", NOBEL, "fragment"),
        ("Frisch.", NOBEL, "fragment"),
        # a statement about someone or something else
        (HRUSCHKA, FRISCH, "other subject"),
        ("Franz von Hruschka (1819-1888) was an Austrian army major.", NOBEL, "other subject"),
        ("Langstroth patented the movable-frame hive in 1852.", NOBEL, "other subject"),
        # about the same event, but holding too little of the claim to contradict it
        (
            "Spain celebrate their win after the final of the 2014 World Cup in July.",
            "The match was played at the Maracanã Stadium in Rio de Janeiro, Brazil, on 13 July "
            "2014.",
            "other subject",
        ),
    ],
)
def test_passages_that_cannot_state_the_claim_say_why(
    passage: str, claim: str, reason: str
) -> None:
    assert reason in REASONS
    assert cannot_state(passage, claim) == reason


@pytest.mark.parametrize(
    ("passage", "claim"),
    [
        ("Karl von Frisch shared the 1973 Nobel Prize.", NOBEL),  # a real contradiction
        ("## Who decoded it\n\nKarl von Frisch decoded the dance in 1945.", FRISCH),
        ("Konrad Lorenz decoded the bee dance.", FRISCH),  # shares "dance"
        ("Messi plays for Inter Miami.", "Messi plays for Barcelona."),  # -s verb off the lexicon
        ("Bees hum.", "Bees are silent."),  # base form off it
        ("Honeybees live in colonies.", "Honey bees live alone."),  # a compound
        ("The queens mate once.", "The queen mates twice."),  # plural and singular
        ("For this work he shared the 1973 prize.", "He shared the prize in 1983."),  # pronouns
        # a swapped subject is the commonest contradiction: the rest of the claim lets it count
        (
            "Daniil Medvedev defeated Novak Djokovic in the 2021 US Open final.",
            "Rafael Nadal defeated Novak Djokovic in the 2021 US Open final.",
        ),
        (
            "Athens became one of four cities to host the Summer Olympics twice.",
            "New York became one of four cities to host the Summer Olympics twice.",
        ),
        # longer verbless text can state a fact (a list of winners by year)
        (
            "Maxwell Award · 2020 - DeVonta Smith, Alabama · 2019 - Joe Burrow, Louisiana State",
            "2019 - Johnny Manziel, Louisiana State.",
        ),
        ("He won the prize in 1973 for this work.", "He won the Nobel Prize in 1983."),
    ],
)
def test_statements_on_the_claims_subject_can_state_it(passage: str, claim: str) -> None:
    assert cannot_state(passage, claim) is None


def test_the_title_and_section_say_what_a_paragraph_is_about() -> None:
    claim = "Honey bees sting intruders at the hive entrance in summer."
    assert cannot_state("They never sting.", claim) == "other subject"
    assert cannot_state("They never sting.", claim, context="Honey bees") is None
    frisch = "Karl von Frisch decoded the dance."
    assert cannot_state("It was done in 1945.", frisch) == "other subject"
    assert (
        cannot_state("It was done in 1945.", frisch, context="Honey bees\nKarl von Frisch") is None
    )


def test_a_heading_above_a_statement_names_its_subject_but_is_no_statement() -> None:
    assert (
        cannot_state(
            "# Karl von Frisch\n\nHe shared a prize in 1973.", "Karl von Frisch was born in 1886."
        )
        is None
    )
    assert (
        cannot_state(
            "# Karl von Frisch\n\nHe shared a prize in 1973.", "Konrad Lorenz was born in 1903."
        )
        == "other subject"
    )


@pytest.mark.parametrize(
    ("claim", "subject", "rest"),
    [
        (FRISCH, {"waggle", "dance"}, {"decoded", "austrian", "zoologist", "karl", "frisch"}),
        (
            "Karl von Frisch, an Austrian ethologist, won the Nobel Prize.",
            {"karl", "frisch"},
            {"austrian", "ethologist", "won", "nobel", "prize"},
        ),
        ("In 1973, Dr. Seeley's bees danced.", {"seeley", "bee"}, {"1973", "danced"}),
        ("He won it in 1973.", set(), {"won", "1973"}),  # pronoun: all in the rest
        ("It is.", set(), set()),
    ],
)
def test_claim_words_are_the_subjects_and_the_rests_content_words(
    claim: str, subject: set[str], rest: set[str]
) -> None:
    assert claim_words(claim) == (frozenset(subject), frozenset(rest))


def test_a_verbless_passage_is_a_fragment_only_while_short() -> None:
    row = " ".join(["Bees", "Wasps", "Ants", "Hornets", "Termites", "Moths"] * 2)
    assert cannot_state(row[: row.index("Moths")], "Bees sting.") == "fragment"
    assert len(row.split()) > FRAGMENT_MAX_WORDS
    assert cannot_state(row, "Bees sting.") is None


def test_a_claim_without_content_words_leaves_every_statement_free() -> None:
    assert cannot_state("Bees dance on the comb.", "It is.") is None


def test_three_shared_words_let_a_long_claim_be_contradicted_without_its_subject() -> None:
    claim = (
        "On November 29, 2017, Chinese-American actress Mi Yang was cast in the film to "
        "portray the titular role of Mulan."
    )
    assert (
        cannot_state("Liu Yifei is playing the titular heroine, Mulan, in the film.", claim) is None
    )
    assert (
        cannot_state("Liu Yifei sang the theme song of the 2020 remake.", claim) == "other subject"
    )
