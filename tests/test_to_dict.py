"""``to_dict()`` on the result types: plain JSON values, spans as ``[start, end]``, no CLI.

The shapes of whole command outputs are pinned in tests/cli/test_json.py; these tests pin what
the commands cannot reach cheaply and the choices inside a value.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

from veracity.corpus.indexer import Failure, IndexReport
from veracity.retrieve.calibration import Calibration, StoredCalibration, ThresholdPoint
from veracity.types import (
    Chunk,
    Claim,
    ClaimVerdict,
    EvidenceJudgement,
    Hit,
    LayerResult,
    PairScore,
    Report,
    ScoredPair,
    Span,
    ValueCheck,
)

pytestmark = pytest.mark.unit


def test_a_similarity_pair_has_no_label_and_quotes_its_evidence() -> None:
    score = PairScore(0.7, 0.1, 0.2, Span(0, 19), evidence=(Span(5, 10), Span(11, 19)))
    premise = "Bees dance daily at noon."
    assert ScoredPair(premise, "Bees dance.", score).to_dict()["label"] == "supported"
    similar = ScoredPair(premise, "Bees dance.", score, probabilities=False).to_dict()
    assert (similar["label"], similar["probabilities"]) == (None, False)
    assert similar["evidence"] == [
        {"start": 5, "end": 10, "text": "dance"},
        {"start": 11, "end": 19, "text": "daily at"},
    ]


def test_a_pair_score_keeps_its_spans_and_its_error() -> None:
    failed = PairScore.failure("unparseable reply", window=Span(0, 4), windows=2)
    payload = failed.to_dict()
    assert (payload["label"], payload["error"], payload["window"]) == (
        "error",
        "unparseable reply",
        [0, 4],
    )
    assert math.isnan(payload["supported"])


def test_a_hit_flattens_its_chunk() -> None:
    chunk = Chunk("a.md#0", "a.md", 0, "Bees.", 3, 8, title="A", section=("H",), page=2)
    payload = Hit(chunk, 1.5, 1, "bm25", {"bm25": 1.5}).to_dict()
    assert payload == {
        "rank": 1,
        "score": 1.5,
        "scores": {"bm25": 1.5},
        "retriever": "bm25",
        "doc_id": "a.md",
        "title": "A",
        "section": ["H"],
        "page": 2,
        "page_end": None,
        "start": 3,
        "end": 8,
        "chunk_id": "a.md#0",
        "chunk_index": 0,
        "source": "",
        "text": "Bees.",
    }


def test_a_verdict_puts_the_claim_first_and_spans_as_pairs() -> None:
    judgement = EvidenceJudgement(
        "a#0", "a", "", (), None, 0, 5, "Bees.", 0.9, 0.0, 0.1, evidence=(Span(0, 5),)
    )
    value = ValueCheck("number", "21", Span(4, 6), "21", "absent")
    verdict = ClaimVerdict(
        Claim(0, "Bees.", Span(0, 5), 0, markers=(1,)),
        "supported",
        (LayerResult("nli", "supported", False, 0.1),),
        citations=(judgement,),
        values=(value,),
    )
    report = Report("Bees.", (verdict,), layers=("nli",), timings={"nli": 0.5})
    payload = json.loads(json.dumps(report.to_dict()))  # plain JSON all the way down
    claim = payload["claims"][0]
    assert list(claim)[:7] == ["index", "text", "span", "sentence", "markers", "edits", "label"]
    assert (claim["span"], claim["markers"]) == ([0, 5], [1])
    assert claim["citations"][0]["evidence"] == [[0, 5]]
    assert claim["values"][0]["evidence"] is None
    assert payload["summary"]["supported"] == 1
    assert payload["timings"] == {"nli": 0.5}


def test_an_index_report_lists_failures_as_objects() -> None:
    report = IndexReport(
        "idx",
        "gen-000001",
        2,
        1,
        0,
        0,
        1,
        0,
        0,
        0,
        1,
        3,
        (Failure("b.pdf", "unreadable", "b.pdf: cannot be read"),),
        {"bm25": {"count": 3}},
    )
    payload = report.to_dict()
    assert payload["failures"] == [
        {"path": "b.pdf", "reason": "unreadable", "message": "b.pdf: cannot be read"}
    ]
    assert list(payload)[-2:] == ["failures", "builders"]


def test_a_stored_calibration_gives_its_path_as_text_and_keeps_content_in_the_file() -> None:
    point = ThresholdPoint(1.0, 1.0, 0.5, 0.667, 1, 2)
    calibration = Calibration("top_bm25", 1.0, 1.0, 0.5, 0.667, 1, 2, 2, 2, 0, (point,))
    stored = StoredCalibration(
        calibration,
        "gen-000001",
        "bm25",
        5,
        None,
        "dev.jsonl",
        "2024-01-01T00:00:00+00:00",
        Path("idx/calibration.json"),
        content="abc",
    )
    payload = stored.to_dict()
    assert payload["path"] == str(Path("idx/calibration.json"))
    assert "content" not in payload
    assert payload["curve"] == [
        {
            "threshold": 1.0,
            "precision": 1.0,
            "recall": 0.5,
            "f1": 0.667,
            "abstained": 1,
            "answered": 2,
        }
    ]
