"""The [n] marker parser and resolver: every written form, code left alone, invalid numbers."""

from __future__ import annotations

import pytest

from veracity.errors import OptionError
from veracity.text.citations import code_spans, find_markers, resolve_markers
from veracity.types import Span

pytestmark = pytest.mark.unit


def numbers(text: str, blocks: int = 4) -> list[int]:
    valid, _ = resolve_markers(find_markers(text), blocks=blocks)
    return [number for number, _ in valid]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Bees dance [1].", [1]),
        ("Bees dance [1, 2].", [1, 2]),
        ("Bees dance [1,2].", [1, 2]),
        ("Bees dance [1; 3].", [1, 3]),
        ("Bees dance [1][3].", [1, 3]),
        ("Bees dance [1] [3].", [1, 3]),
        ("Bees dance [1-3].", [1, 2, 3]),
        ("Bees dance [1–3].", [1, 2, 3]),
        ("Bees dance [2, 1-2].", [2, 1]),
        ("Bees dance ［1］.", [1]),
        ("Bees dance 【２】.", [2]),
        ("Bees dance ［１，２］.", [1, 2]),
        ("Bees dance [Block 2].", [2]),
        ("Bees dance [source 3].", [3]),
        ("Bees dance [^1].", [1]),
        ("Bees dance [ 4 ].", [4]),
    ],
)
def test_every_written_form_is_read(text, expected):
    assert numbers(text) == expected


@pytest.mark.parametrize(
    "text",
    [
        "Bees dance [a].",
        "Bees dance [citation needed].",
        "See [1](https://example.org/bees).",
        "Use `hives[1]` in code.",
        "Use ``x[1]`` in code.",
        "```python\nhives[1] = 2\n```",
        "~~~\nhives[1]\n~~~",
        "```\nan unclosed fence [1]",
        "Bees dance [1a].",
        "Bees dance [].",
    ],
)
def test_non_citations_and_code_are_left_alone(text):
    assert find_markers(text) == ()


def test_spans_point_at_the_marker_group_as_written():
    text = "Bees dance [1, 2] and fly［3］. Code `x[4]` then [4]"
    markers = find_markers(text)
    assert [m.span.of(text) for m in markers] == ["[1, 2]", "［3］", "[4]"]
    assert [m.text for m in markers] == ["[1, 2]", "［3］", "[4]"]
    assert markers[2].span == Span(len(text) - 3, len(text))


def test_markers_after_a_closed_fence_are_found():
    text = "```\nx[1]\n```\nBees dance [2]."
    assert [m.text for m in find_markers(text)] == ["[2]"]
    assert code_spans(text) == [Span(0, 12)]


@pytest.mark.parametrize(
    ("text", "marker", "reason"),
    [
        ("Bees dance [7].", "7", "out of range: 4 blocks were given"),
        ("Bees dance [2020].", "2020", "out of range: 4 blocks were given"),
        ("Bees dance [0].", "0", "blocks are numbered from 1"),
        ("Bees dance [3-1].", "3-1", "reversed range: write [1-3]"),
        ("Bees dance [1-40].", "1-40", "a range of 40 blocks (at most 20 allowed)"),
    ],
)
def test_numbers_that_name_no_block_are_invalid_not_ignored(text, marker, reason):
    valid, invalid = resolve_markers(find_markers(text), blocks=4)
    assert valid == []
    assert [(i.marker, i.reason) for i in invalid] == [(marker, reason)]
    assert invalid[0].span.of(text) == f"[{marker}]"


def test_a_range_that_overruns_keeps_its_valid_part():
    valid, invalid = resolve_markers(find_markers("Bees [3-6]."), blocks=4)
    assert [n for n, _ in valid] == [3, 4]
    assert invalid[0].marker == "3-6"
    assert invalid[0].reason == "out of range: 4 blocks were given (5-6 do not exist)"


def test_a_group_reports_only_its_bad_numbers():
    valid, invalid = resolve_markers(find_markers("Bees [1, 9, 2]."), blocks=2)
    assert [n for n, _ in valid] == [1, 2]
    assert [(i.marker, i.reason) for i in invalid] == [("9", "out of range: 2 blocks were given")]


def test_one_block_is_named_in_the_singular():
    _, invalid = resolve_markers(find_markers("[2]"), blocks=1)
    assert invalid[0].reason == "out of range: 1 block was given"


def test_blocks_must_be_a_count():
    with pytest.raises(OptionError, match="blocks=-1"):
        resolve_markers((), blocks=-1)


# --- brackets attached to a word (Harden-2 #8) ---------------------------------------------


@pytest.mark.parametrize(
    "text",
    [
        "The smallest item of a min-heap is always heap[5].",
        "Read argv[1] first.",
        "Set grid[2][3] to 0.",
        "Use x_1[2, 3] here.",
    ],
)
def test_an_index_attached_to_a_word_is_text_without_numbered_blocks(text):
    assert find_markers(text) == ()


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Bees dance [1][3].", ["[1]", "[3]"]),
        ("Founded in 1889[3].", ["[3]"]),  # a number is no word: a footnote
        ("Founded in 1889.[3]", ["[3]"]),
        ("Bees dance[^1].", ["[^1]"]),  # a Markdown footnote
        ("Bees dance[Block 1].", ["[Block 1]"]),
        ("蜜蜂跳舞[1]。", ["[1]"]),  # CJK writes citations without a space
        ("Bees dance ［1］.", ["［1］"]),
    ],
)
def test_other_attached_markers_stay_citations(text, expected):
    assert [m.text for m in find_markers(text)] == expected


def test_over_numbered_blocks_an_attached_marker_cites_unless_the_block_says_so():
    blocks = ["The smallest item of a min-heap is always heap[0]."]
    assert [m.text for m in find_markers("Bees dance[1].", blocks=blocks)] == ["[1]"]
    assert find_markers("It is always heap[0].", blocks=blocks) == ()
    found = find_markers("It is always heap[0][1].", blocks=blocks)
    assert [m.text for m in found] == ["[1]"]
