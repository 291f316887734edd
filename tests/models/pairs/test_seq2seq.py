"""Seq2SeqVerifier on a tiny T5 checker that the test builds and saves itself (no hub access)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from veracity.errors import ModelError, OptionError
from veracity.models.pairs.registry import make_verifier
from veracity.models.pairs.seq2seq import SEQ2SEQ_PRESETS, Seq2SeqFormat, Seq2SeqVerifier
from veracity.testing import save_tiny_seq2seq

pytestmark = pytest.mark.unit

PREMISE = "The Eiffel Tower is in Paris. It was finished in 1889 and is 330 metres tall."
CLAIMS = ["The Eiffel Tower is in Paris.", "The Eiffel Tower was finished in 1925."]
LONG = " ".join(f"Sentence {i} talks about subject number {i} in some detail." for i in range(40))


@pytest.fixture(scope="module")
def folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    pytest.importorskip("transformers")
    return save_tiny_seq2seq(tmp_path_factory.mktemp("tiny-t5") / "t5")


@pytest.fixture(scope="module")
def verifier(folder: Path) -> Seq2SeqVerifier:
    return Seq2SeqVerifier(folder).load()


def _first_step(folder: Path, text: str, tokens: list[int]) -> np.ndarray:
    """The label tokens' probabilities from a direct transformers forward pass of ``text``."""
    import torch
    from transformers import AutoModelForSeq2SeqLM, AutoTokenizer

    tokenizer = AutoTokenizer.from_pretrained(folder)
    model = AutoModelForSeq2SeqLM.from_pretrained(folder).eval()
    inputs = tokenizer(text, return_tensors="pt")
    with torch.no_grad():
        logits = model(**inputs, decoder_input_ids=torch.zeros((1, 1), dtype=torch.long)).logits
    picked = logits[0, 0, tokens].double()
    return torch.softmax(picked, dim=0).numpy()


def test_the_label_tokens_of_minicheck_s_format_give_p_supported(
    folder: Path, verifier: Seq2SeqVerifier
) -> None:
    result = verifier.run([PREMISE] * 2, CLAIMS)
    for claim, score in zip(CLAIMS, result.scores, strict=True):
        expected = _first_step(folder, f"predict: {PREMISE}[SEP]{claim}", [209, 3])
        assert score.supported == pytest.approx(expected[0], abs=1e-5)
        assert score.contradicted == 0.0
        assert score.supported + score.neither == pytest.approx(1.0)
    assert result.model_id == str(folder)
    assert result.model_version == "local"


def test_a_score_does_not_depend_on_its_batch(verifier: Seq2SeqVerifier) -> None:
    together = verifier.run([PREMISE, PREMISE], CLAIMS).scores
    alone = [verifier.run([PREMISE], [claim]).scores[0] for claim in CLAIMS]
    for a, b in zip(together, alone, strict=True):
        assert a.supported == pytest.approx(b.supported, abs=1e-6)


def test_a_long_premise_is_windowed_with_exact_evidence_spans(verifier: Seq2SeqVerifier) -> None:
    premise = LONG + " " + PREMISE
    score = verifier.run([premise], [CLAIMS[0]]).scores[0]
    assert score.windows >= 1
    assert score.evidence
    assert all(premise[span.start : span.end] for span in score.evidence)
    assert "Eiffel" in " ".join(span.of(premise) for span in score.evidence)


def test_the_registry_builds_it_by_name(folder: Path) -> None:
    built = make_verifier(f"seq2seq:{folder}")
    assert isinstance(built, Seq2SeqVerifier)
    assert built.format == SEQ2SEQ_PRESETS["minicheck"]


def test_label_tokens_outside_the_vocabulary_are_refused(folder: Path) -> None:
    with pytest.raises(ModelError, match="outside its vocabulary"):
        Seq2SeqVerifier(folder, preset=Seq2SeqFormat("predict: ", 10**6, 3)).load()


def test_an_unknown_preset_is_refused_by_name(folder: Path) -> None:
    with pytest.raises(OptionError, match="preset='flan' is not allowed"):
        Seq2SeqVerifier(folder, preset="flan")


def test_a_missing_folder_says_what_to_give() -> None:
    with pytest.raises(ModelError, match="no such folder"):
        Seq2SeqVerifier("./no-such-model").load()
