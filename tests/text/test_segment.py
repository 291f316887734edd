"""Answer sentences with their markers, the claim text, and which sentences are factual."""

from __future__ import annotations

import pytest

from veracity.text.factual import is_factual
from veracity.text.segment import segment_answer

pytestmark = pytest.mark.unit


def parts(text: str) -> list[tuple[str, list[str], str]]:
    return [(s.span.of(text), [m.text for m in s.markers], s.claim) for s in segment_answer(text)]


def test_markers_inside_a_sentence_belong_to_it():
    assert parts("Bees dance [1]. They fly [2][3].") == [
        ("Bees dance [1].", ["[1]"], "Bees dance."),
        ("They fly [2][3].", ["[2]", "[3]"], "They fly."),
    ]


@pytest.mark.parametrize("text", ["Bees dance. [1] They fly.", "Bees dance.[1] They fly."])
def test_a_marker_after_the_period_belongs_to_the_sentence_before_it(text):
    first, second = parts(text)
    assert first[1] == ["[1]"]
    assert first[0].endswith("[1]")
    assert first[2] == "Bees dance."
    assert second == ("They fly.", [], "They fly.")


def test_markers_before_the_first_sentence_belong_to_it():
    assert parts("[2] Bees dance. They fly.")[0] == ("[2] Bees dance.", ["[2]"], "Bees dance.")


def test_a_reply_of_markers_only_is_one_sentence_without_a_claim():
    assert parts("[1]") == [("[1]", ["[1]"], "")]
    assert segment_answer("   ") == ()


def test_cjk_sentences_are_cut_after_their_full_stop():
    assert parts("蜜蜂会跳舞[1]。它们会飞［2］。") == [
        ("蜜蜂会跳舞[1]。", ["[1]"], "蜜蜂会跳舞。"),
        ("它们会飞［2］。", ["［2］"], "它们会飞。"),
    ]


def test_claims_drop_bullets_and_bold_and_list_items_split():
    assert parts("- **Workers** develop in 21 days [1].\n\n2. Queens in 16 [2].") == [
        ("- **Workers** develop in 21 days [1].", ["[1]"], "Workers develop in 21 days."),
        ("2. Queens in 16 [2].", ["[2]"], "Queens in 16."),
    ]


@pytest.mark.parametrize(
    ("text", "claim"),
    [
        ("Files end in a .gz extension [1].", "Files end in a .gz extension."),
        ("It targets .NET and the .5 release [1].", "It targets .NET and the .5 release."),
        ("It targets .NET and the .5 release [1] .", "It targets .NET and the .5 release ."),
        ("Run the ./.bootstrap script [1].", "Run the ./.bootstrap script."),
        ("The ? wildcard matches one character [1].", "The ? wildcard matches one character."),
        ("Bees dance [1], fly [2]; and sing [3]!", "Bees dance, fly; and sing!"),
        ("Bees dance , fly ; and sing [1] !", "Bees dance , fly ; and sing !"),
        ("See __init__.py and __main__ [1].", "See __init__.py and __main__."),
    ],
)
def test_only_a_markers_own_space_goes_and_no_other_character(text, claim):
    assert parts(text)[0][2] == claim


def test_code_blocks_are_marked_and_their_brackets_are_not_markers():
    sentences = segment_answer("Run this:\n\n```\nx[1] = 2\n```\n\nDone [1].")
    assert [s.in_code for s in sentences] == [False, True, False]
    assert [len(s.markers) for s in sentences] == [0, 0, 1]


def test_markdown_headings_are_marked():
    sentences = segment_answer("# Waggle dance [2]\n\nBees dance [1].")
    assert [(s.heading, s.claim) for s in sentences] == [
        (True, "Waggle dance"),
        (False, "Bees dance."),
    ]


def test_spans_index_the_answer_text():
    text = "  Bees dance [1].  They fly.  "
    for sentence in segment_answer(text):
        assert text[sentence.span.start : sentence.span.end] == sentence.span.of(text)
        assert not sentence.span.of(text).startswith(" ")


@pytest.mark.parametrize(
    ("sentence", "factual"),
    [
        ("Worker bees develop in 21 days.", True),
        ("I don't know.", False),
        ("Je ne sais pas.", False),
        ("我不知道。", False),
        ("What else would you like to know?", False),
        ("Here is what the documents say:", False),
        ("Sure!", False),
        ("I hope this helps.", False),
        ("Let me know if you have more questions.", False),
        ("---", False),
        ("", False),
        ("I don't know the year, but the hive was built of straw.", True),
        ("The queen mates with 12 to 20 drones.", True),
    ],
)
def test_which_sentences_state_something_to_verify(sentence, factual):
    assert is_factual(sentence) is factual
