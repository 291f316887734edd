"""The answer pipeline's span step: each claim's unsupported characters, as offsets into the
answer, from a tiny token classifier built in the test and from the overlap fake."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from veracity.config import VerifyConfig
from veracity.testing import OverlapSpanDetector, TablePairScorer, save_tiny_classifier
from veracity.types import Report
from veracity.verify.gather import source_chunks, source_documents
from veracity.verify.pipeline import make_answer_verifier
from veracity.verify.stream import StreamVerifier, merge_reports

pytestmark = pytest.mark.unit

SOURCE = "The museum opens at nine and is closed on Mondays."
ANSWER = "The museum is closed on Mondays. It opens at ten on Sundays."


def _verify(answer: str, **options: Any) -> Report:
    chunks = source_chunks(source_documents(texts=[SOURCE]))
    config = VerifyConfig().with_options(layers=("nli",), decontextualize=False)
    verifier = make_answer_verifier(TablePairScorer({}), config, sources=chunks, **options)
    return verifier.run(answer)


def _assert_exact(report: Report) -> None:
    for verdict in report.verdicts:
        assert verdict.unsupported_spans is not None
        for found in verdict.unsupported_spans:
            assert report.answer[found.span.start : found.span.end] == found.text
            assert verdict.claim.span.start <= found.span.start
            assert found.span.end <= verdict.claim.span.end


@pytest.fixture(scope="module")
def folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    pytest.importorskip("transformers")
    return save_tiny_classifier(
        tmp_path_factory.mktemp("tiny-tokens") / "model",
        {0: "supported", 1: "hallucinated"},
        tokens=True,
    )


def test_the_token_model_s_spans_index_the_answer_not_the_claim(folder: Path) -> None:
    from veracity.models.pairs.spans import TokenSpanDetector

    detector = TokenSpanDetector(folder, threshold=0.3).load()
    report = _verify(ANSWER, spans=detector)
    _assert_exact(report)
    second = report.verdicts[-1]
    assert second.claim.span.start > 0  # so that an offset into the claim would be wrong
    written = second.claim.span.of(ANSWER)
    (direct,) = detector.run([SOURCE], [written])
    assert direct.spans, "the tiny model marks nothing at this threshold: lower it"
    assert second.unsupported_spans == tuple(
        span.shifted(second.claim.span.start) for span in direct.spans
    )
    assert [found.text for found in second.unsupported_spans] == [
        written[span.span.start : span.span.end] for span in direct.spans
    ]
    assert report.span_detector == str(folder)
    assert report.to_dict()["claims"][-1]["unsupported_spans"][0] == {
        "start": second.claim.span.start + direct.spans[0].span.start,
        "end": second.claim.span.start + direct.spans[0].span.end,
        "text": direct.spans[0].text,
        "confidence": direct.spans[0].confidence,
    }


def test_words_the_source_lacks_are_marked_and_every_claim_is_read_in_one_batch() -> None:
    detector = OverlapSpanDetector()
    report = _verify(ANSWER, spans=detector)
    _assert_exact(report)
    first, second = report.verdicts
    assert first.unsupported_spans == ()
    assert second.unsupported_spans is not None
    assert [found.text for found in second.unsupported_spans] == ["ten", "Sundays"]
    assert detector.calls == [2]
    assert "spans" in report.timings
    assert report.to_dict()["claims"][0]["unsupported_spans"] == []


def test_without_a_detector_nothing_changes() -> None:
    report = _verify(ANSWER)
    assert all(verdict.unsupported_spans is None for verdict in report.verdicts)
    payload = report.to_dict()
    assert "span_detector" not in payload
    assert all("unsupported_spans" not in claim for claim in payload["claims"])


def test_streamed_sentences_keep_offsets_into_the_whole_answer() -> None:
    chunks = source_chunks(source_documents(texts=[SOURCE]))
    verifier = make_answer_verifier(
        TablePairScorer({}),
        VerifyConfig().with_options(layers=("nli",)),
        sources=chunks,
        spans=OverlapSpanDetector(),
    )
    words = ANSWER.split(" ")
    streamed = list(StreamVerifier(verifier).run(word + " " for word in words))
    merged = merge_reports(ANSWER + " ", streamed)
    _assert_exact(merged)
    assert merged.span_detector == "overlap-spans"
    texts = [found.text for verdict in merged.verdicts for found in verdict.unsupported_spans or ()]
    assert texts == ["ten", "Sundays"]
