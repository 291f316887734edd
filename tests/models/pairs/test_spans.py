"""TokenSpanDetector on a tiny BERT token classifier that the test builds (no hub access)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from veracity.errors import ModelError, OptionError
from veracity.models.pairs.hf import HFOptions
from veracity.models.pairs.spans import ClaimSpans, TokenSpanDetector
from veracity.testing import save_tiny_classifier
from veracity.types import Span

pytestmark = pytest.mark.unit

PREMISE = "The museum opens at nine and is closed on Mondays."
CLAIM = "The museum opens at ten on Sundays."
LONG = " ".join(f"Sentence {i} talks about subject number {i} in some detail." for i in range(40))


@pytest.fixture(scope="module")
def folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    pytest.importorskip("transformers")
    return save_tiny_classifier(
        tmp_path_factory.mktemp("tiny-tokens") / "model",
        {0: "supported", 1: "hallucinated"},
        tokens=True,
    )


def _token_probabilities(folder: Path, premise: str, claim: str) -> dict[tuple[int, int], float]:
    """P(hallucinated) of each claim token from a direct transformers forward pass."""
    import torch
    from transformers import AutoModelForTokenClassification, AutoTokenizer

    tokenizer = AutoTokenizer.from_pretrained(folder)
    model = AutoModelForTokenClassification.from_pretrained(folder).eval()
    inputs = tokenizer(premise, claim, return_tensors="pt", return_offsets_mapping=True)
    offsets = inputs.pop("offset_mapping")[0].tolist()
    with torch.no_grad():
        probabilities = torch.softmax(model(**inputs).logits[0].double(), dim=-1)[:, 1]
    sequence = inputs.sequence_ids(0)
    return {
        (a, b): float(p)
        for (a, b), p, s in zip(offsets, probabilities.tolist(), sequence, strict=True)
        if s == 1 and b > a
    }


def test_spans_are_the_claim_tokens_at_or_above_the_threshold(folder: Path) -> None:
    expected = _token_probabilities(folder, PREMISE, CLAIM)
    threshold = float(np.median(list(expected.values())))  # half the tokens, whatever the weights
    (found,) = TokenSpanDetector(folder, threshold=threshold).load().run([PREMISE], [CLAIM])
    assert isinstance(found, ClaimSpans)
    marked = {offsets for offsets, p in expected.items() if p >= threshold}
    covered = {
        offsets
        for offsets in expected
        if any(s.span.start <= offsets[0] and offsets[1] <= s.span.end for s in found.spans)
    }
    assert covered == marked
    for span in found.spans:
        inside = [
            p for (a, b), p in expected.items() if span.span.start <= a and b <= span.span.end
        ]
        assert span.confidence == pytest.approx(float(np.mean(inside)), abs=1e-5)
        assert (
            CLAIM[span.span.start : span.span.end].strip() == CLAIM[span.span.start : span.span.end]
        )
    payload = found.to_dict()
    assert payload["unsupported"][0]["text"] == found.spans[0].span.of(CLAIM)


def test_a_long_premise_is_windowed_and_a_token_supported_anywhere_is_supported(
    folder: Path,
) -> None:
    detector = TokenSpanDetector(folder, options=HFOptions(max_tokens=64, strategy="slide")).load()
    (found,) = detector.run([LONG + " " + PREMISE], [CLAIM])
    assert found.windows > 1
    assert all(isinstance(span.span, Span) for span in found.spans)


def test_the_hallucinated_label_can_be_named(folder: Path) -> None:
    assert TokenSpanDetector(folder, hallucinated="HALLUCINATED").load()._column == 1
    with pytest.raises(ModelError, match="none is 'unsupported'"):
        TokenSpanDetector(folder, hallucinated="unsupported").load()


def test_a_threshold_outside_zero_one_is_refused() -> None:
    with pytest.raises(OptionError, match=r"threshold=1\.0"):
        TokenSpanDetector("some/model", threshold=1.0)
