"""Which source sentences read as prose (veracity.text.prose)."""

from __future__ import annotations

import pytest

from veracity.text.prose import line_reason, prose_span, prose_spans
from veracity.text.sentences import split_sentences

pytestmark = pytest.mark.unit


def reasons(passage: str) -> list[tuple[str, str | None]]:
    """(the prose as written or the sentence as split, the reason) per sentence."""
    out = []
    spans = split_sentences(passage)
    for span, (prose, reason) in zip(spans, prose_spans(passage, spans), strict=True):
        out.append((prose.of(passage) if prose is not None else span.of(passage), reason))
    return out


@pytest.mark.parametrize(
    ("line", "reason"),
    [
        (
            "Next: Thread Safety, Previous: The Closure API, Up: Using libffi [Index [2]]",
            "navigation",
        ),
        ("Home » Guides » Install", "navigation"),
        ("| Option | Default |", "table row"),
        ("|---|---|", "table row"),
        ("## Bee space", "heading"),
        ("ffi_prep_cif(&cif, FFI_DEFAULT_ABI, 1, &ffi_type_sint, args);", "code"),
        ("The previous chapter covers the closure API in detail.", None),
        ("Use it up to the limit of the index.", None),
    ],
)
def test_line_reasons(line: str, reason: str | None) -> None:
    assert line_reason(line) == reason


def test_a_heading_glued_to_its_paragraph_is_cut_off_exactly() -> None:
    passage = "Closures\nA closure is a function that is called with its own data."
    [(text, reason)] = reasons(passage)
    assert (text, reason) == ("A closure is a function that is called with its own data.", None)


def test_bullets_are_cut_from_sentences_and_list_words_are_dropped() -> None:
    passage = "- Bees dance to tell nestmates where food is.\n\n- Wax\n\n1. Drones have no sting."
    # Punkt splits an enumerator off its item: the number alone is a fragment.
    assert reasons(passage) == [
        ("Bees dance to tell nestmates where food is.", None),
        ("- Wax", "list item"),
        ("1.", "fragment"),
        ("Drones have no sting.", None),
    ]


def test_code_blocks_tables_and_navigation_are_not_prose() -> None:
    passage = (
        "Call it like this:\n\n```c\nint rc = ffi_call(&cif, fn, &result, values);\n"
        "```\n\n| a | b |\n| 1 | 2 |\n\nNext: Types, Previous: Intro, Up: Top\n\n"
        "The call returns when the function does."
    )
    found = reasons(passage)
    assert [reason for _, reason in found] == ["lead-in", "code", "table row", "navigation", None]
    assert found[-1][0] == "The call returns when the function does."


def test_a_passage_that_simply_ends_without_a_period_is_prose() -> None:
    passage = "Incubation of worker bees lasts about 21 days from egg to adult"
    [(text, reason)] = reasons(passage)
    assert reason is None
    assert text == passage


def test_the_span_returned_is_the_prose_inside_the_sentence() -> None:
    passage = "Intro text here.\n# Hives\nLangstroth patented the movable frame hive in 1852."
    spans = split_sentences(passage)
    found = [prose_span(passage, span) for span in spans]
    assert [reason for _, reason in found] == [None, None]
    hive = found[1][0]
    assert hive is not None
    assert (hive.start, hive.end) == (passage.index("Langstroth"), len(passage))
    assert spans[1].start < hive.start
