"""A whole answer verified sentence by sentence gives the report of verifying it at once."""

from __future__ import annotations

import pytest

from veracity.config import VerifyConfig
from veracity.testing import TablePairScorer
from veracity.types import Chunk
from veracity.verify.pipeline import make_answer_verifier
from veracity.verify.stream import StreamVerifier, merge_reports, sentence_pieces

pytestmark = pytest.mark.unit

TEXT = "Karl von Frisch decoded the waggle dance. He won the Nobel Prize in 1973."
SOURCE = Chunk("bees.md#0", "bees.md", 0, TEXT, 0, len(TEXT))
ANSWER = (
    "Great question! Karl von Frisch decoded the waggle dance. "
    "He won the Nobel Prize in 1983. Bumblebees dance too."
)


def _verifier() -> object:
    table = {
        (TEXT, "Karl von Frisch decoded the waggle dance."): (0.9, 0.0, 0.1),
        (TEXT, "Karl von Frisch won the Nobel Prize in 1983."): (0.1, 0.8, 0.1),
    }
    return make_answer_verifier(
        TablePairScorer(table),
        VerifyConfig().with_options(layers=("nli", "knowledge")),
        sources=[SOURCE],
    )


def _without_timings(payload: dict[str, object]) -> dict[str, object]:
    return {key: value for key, value in payload.items() if key not in ("timings", "calls")}


def test_sentence_pieces_join_to_the_answer() -> None:
    pieces = sentence_pieces(ANSWER)
    assert "".join(pieces) == ANSWER
    assert len(pieces) == 4


def test_the_merged_report_is_the_report_on_the_whole_answer() -> None:
    verifier = _verifier()
    streamed = list(StreamVerifier(verifier).run(sentence_pieces(ANSWER)))  # type: ignore[arg-type]
    assert [s.index for s in streamed] == [0, 1, 2, 3]
    merged = merge_reports(ANSWER, streamed)
    whole = _verifier().run(ANSWER)  # type: ignore[attr-defined]
    assert _without_timings(merged.to_dict()) == _without_timings(whole.to_dict())
    assert merged.summary["contradicted"] == 1
    # the same pairs, in one verifier call per verified sentence rather than one in all
    assert merged.calls == dict(whole.calls) | {"verifier_calls": 3}


def test_nothing_streamed_is_an_empty_report() -> None:
    assert merge_reports("", []).summary["claims"] == 0
