"""The public API of veracity.generate, its docstring examples, and the new result types."""

from __future__ import annotations

import dataclasses

import pytest

import veracity.generate
from veracity.types import AbstentionCheck, Answer, Citation, SentenceCheck, Span, Timings

pytestmark = pytest.mark.unit

MODULES = [
    "abstain",
    "blocks",
    "calibration",
    "chat",
    "check",
    "citations",
    "factual",
    "grounded",
    "refusal",
    "segment",
]


def test_public_api_is_pinned():
    assert sorted(veracity.generate.__all__) == sorted(
        [
            "WRITERS",
            "AnswerSentence",
            "AnswerGenerator",
            "Asker",
            "CheckedAnswer",
            "CitationChecker",
            "ExtractiveAnswerer",
            "ExtractiveGenerator",
            "GroundedGenerator",
            "Marker",
            "StreamingAsker",
            "Writer",
            "detect_refusal",
            "find_markers",
            "format_context",
            "is_factual",
            "make_generator",
            "make_writer",
            "open_asker",
            "refusal_languages",
            "search_asker",
            "resolve_markers",
            "segment_answer",
        ]
    )
    for name in veracity.generate.__all__:
        assert hasattr(veracity.generate, name), name


def test_results_are_frozen():
    citation = Citation(1, Span(0, 3), "c", "d", "t", (), None, None, 0, 5)
    sentence = SentenceCheck(0, Span(0, 3), "A.", "A.", "supported", (citation,))
    answer = Answer("q", "A.", sentences=(sentence,))
    for value in (citation, sentence, answer, Timings(), AbstentionCheck("s", 1.0, 2.0, True)):
        field = dataclasses.fields(value)[0].name
        with pytest.raises(dataclasses.FrozenInstanceError):
            setattr(value, field, None)
    assert answer.flagged == ()
    assert answer.failures == 0
    assert answer.answered
    assert Timings(1.0, 0.5, 2.0, 0.25).total == 3.75
