"""Scope findings: a universal word of the claim against aligned evidence that limits it,
states it, or leaves it out."""

from __future__ import annotations

import pytest

from veracity.rules.scope import scope_checks, scope_conflicts
from veracity.types import Chunk


@pytest.mark.unit
@pytest.mark.parametrize(
    ("claim", "premise", "word", "limit"),
    [
        (
            "Cscope works only with C code, including lex and yacc files.",
            "Cscope is primarily designed to search C code, including lex and yacc files.",
            "only",
            "primarily",
        ),
        (
            "The decoder always reaches the RAM speed limit.",
            "The decoder typically reaches the RAM speed limit on multi-core systems.",
            "always",
            "typically",
        ),
        (
            "The bug caused problems under all file systems.",
            "The bug caused problems under certain fuse-like file systems.",
            "all",
            "certain",
        ),
        (
            "Templates are always compiled to optimized Python code.",
            "Templates can be compiled to optimized Python code.",
            "always",
            "can",
        ),
    ],
)
def test_a_limited_scope_mismatches(claim: str, premise: str, word: str, limit: str) -> None:
    (check,) = scope_conflicts(claim, premise, doc_id="d", offset=10) or ()
    assert (check.kind, check.status, check.text, check.found) == ("scope", "mismatch", word, limit)
    assert check.span.of(claim) == word
    assert check.evidence is not None
    assert premise[check.evidence.start - 10 : check.evidence.end - 10] == limit
    assert check.aligned is True


@pytest.mark.unit
def test_a_scope_the_evidence_leaves_out_is_absent() -> None:
    claim = "Debian's less always invokes the editor named by VISUAL."
    premise = "Debian's less invokes the editor named by VISUAL when it is set."
    (check,) = scope_conflicts(claim, premise) or ()
    assert (check.status, check.text, check.found) == ("absent", "always", premise)
    assert check.sentence is not None
    assert check.sentence.of(premise) == premise


@pytest.mark.unit
@pytest.mark.parametrize(
    ("claim", "premise"),
    [
        ("All bees dance.", "Every bee dances."),
        ("The tool always writes a log.", "The tool invariably writes a log."),
        ("It works only on Linux.", "It works solely on Linux."),
        (
            "Decompression speed stays the same at all settings.",
            "Decompression speed stays the same at all settings.",
        ),
    ],
)
def test_a_stated_scope_says_nothing(claim: str, premise: str) -> None:
    assert scope_conflicts(claim, premise) is None
    assert scope_checks(claim, [Chunk("c#0", "c.md", 0, premise, 0, len(premise))]) == []


@pytest.mark.unit
@pytest.mark.parametrize(
    ("claim", "premise"),
    [
        # no universal word, or one in an idiom that sets no scope
        ("The tool writes a log.", "The tool usually writes a log."),
        ("It is not only fast but small.", "It is fast and sometimes small."),
        # nothing aligned: other inputs say the claim is not stated
        ("All bees dance.", "The museum opens on Mondays."),
    ],
)
def test_no_scope_or_no_alignment_finds_nothing(claim: str, premise: str) -> None:
    assert scope_conflicts(claim, premise) == ()


@pytest.mark.unit
def test_one_passage_that_states_the_scope_outweighs_the_others() -> None:
    claim = "The decoder always reaches the RAM speed limit."
    limiting = "The decoder typically reaches the RAM speed limit."
    stating = "The decoder always reaches the RAM speed limit."
    chunks = [
        Chunk("a#0", "a.md", 0, limiting, 0, len(limiting)),
        Chunk("b#0", "b.md", 0, stating, 0, len(stating)),
    ]
    assert scope_checks(claim, chunks) == []
    (check,) = scope_checks(claim, chunks[:1])
    assert check.doc_id == "a.md"
