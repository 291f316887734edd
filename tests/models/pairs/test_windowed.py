import numpy as np
import pytest

from veracity.models.pairs.windowed import score_pairs
from veracity.models.pairs.windows import EvidenceSelector

pytestmark = pytest.mark.unit


def test_best_window_by_support_is_kept_with_its_span() -> None:
    premise = " ".join(f"Sentence {i} is filler text about nothing much at all." for i in range(30))
    premise += " The answer is forty-two."
    calls: list[int] = []

    def score(pairs: list[tuple[str, str]]) -> np.ndarray:
        calls.append(len(pairs))
        return np.array(
            [[0.9, 0.05, 0.05] if "forty-two" in text else [0.1, 0.1, 0.8] for text, _ in pairs]
        )

    selector = EvidenceSelector(max_tokens=64, strategy="slide")
    (result,) = score_pairs(selector, [premise], ["The answer is forty-two."], score)
    assert result.supported == pytest.approx(0.9)
    assert result.windows > 1
    assert result.window_index == result.windows - 1
    assert "forty-two" in result.window.of(premise)
    assert calls == [result.windows]  # one batch for all windows


def test_pairs_keep_input_order() -> None:
    def score(pairs: list[tuple[str, str]]) -> np.ndarray:
        return np.array(
            [[float(claim[-2]) / 10, 0.0, 1 - float(claim[-2]) / 10] for _, claim in pairs]
        )

    selector = EvidenceSelector(max_tokens=64)
    results = score_pairs(selector, ["a.", "b.", "c."], ["x 3.", "x 1.", "x 2."], score)
    assert [r.supported for r in results] == pytest.approx([0.3, 0.1, 0.2])
