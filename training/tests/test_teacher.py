"""Distillation targets: computed once in training order, resumable, calibrated on training rows."""

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pytest

from veracity.errors import ClaimTooLongError, InputError
from veracity_training.teacher import Calibration, teacher_scores

pytestmark = pytest.mark.unit


@dataclass(frozen=True)
class FakeRow:
    premise: str
    hypothesis: str
    label: int


@dataclass(frozen=True)
class FakeResult:
    values: tuple[float, ...]

    def supported(self) -> Sequence[float]:
        return self.values


class FakeTeacher:
    """Scores a claim by its length in words / 10; a claim containing "long" cannot be read."""

    def __init__(self) -> None:
        self.claims_scored: list[str] = []

    def run(self, premises: Sequence[str], claims: Sequence[str]) -> FakeResult:
        if any("long" in claim for claim in claims):
            raise ClaimTooLongError("claim too long for the window")
        self.claims_scored.extend(claims)
        return FakeResult(tuple(len(c.split()) / 10 for c in claims))


def rows() -> list[FakeRow]:
    # supported rows (label 0) have long claims, the rest short ones: the score separates them
    out = [FakeRow("P.", " ".join(["w"] * (6 + i % 3)), 0) for i in range(6)]
    out += [FakeRow("P.", " ".join(["w"] * (1 + i % 3)), 2) for i in range(6)]
    out.append(FakeRow("P.", "a long claim", 0))
    return out


def test_scores_follow_training_order_and_unreadable_rows_have_no_target(tmp_path: Path) -> None:
    teacher = FakeTeacher()
    result = teacher_scores(rows(), teacher, tmp_path / "t.npz", chunk=5)
    assert result.scores[:3].tolist() == [0.6, 0.7, 0.8]
    assert np.isnan(result.scores[-1])  # its chunk was retried row by row, the rest kept
    targets = result.targets()
    assert np.isnan(targets[-1])
    assert result.calibration.slope > 0
    assert targets[:6].min() > 0.5 > targets[6:12].max()


def test_a_stopped_computation_resumes_without_rescoring(tmp_path: Path) -> None:
    cache = tmp_path / "t.npz"
    first = FakeTeacher()

    def stop(done: int, total: int) -> None:
        if done >= 5:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        teacher_scores(rows(), first, cache, chunk=5, progress=stop)
    assert len(first.claims_scored) == 5
    second = FakeTeacher()
    resumed = teacher_scores(rows(), second, cache, chunk=5)
    assert len(second.claims_scored) == len(rows()) - 5 - 1  # the unreadable row scores nothing
    whole = teacher_scores(rows(), FakeTeacher(), tmp_path / "whole.npz", chunk=5)
    np.testing.assert_array_equal(resumed.scores, whole.scores)
    assert resumed.calibration == whole.calibration
    with pytest.raises(InputError, match="delete it or use a new --out folder"):
        teacher_scores(rows()[:4], FakeTeacher(), cache)


def test_calibration_needs_both_classes(tmp_path: Path) -> None:
    only_supported = [FakeRow("P.", "a b c", 0)] * 4
    with pytest.raises(InputError, match="both classes"):
        teacher_scores(only_supported, FakeTeacher(), tmp_path / "t.npz")


def test_calibration_is_a_logistic_curve() -> None:
    calibration = Calibration(slope=2.0, bias=-1.0)
    np.testing.assert_allclose(
        calibration.probabilities(np.array([0.5, 0.0])), [0.5, 1 / (1 + np.e)]
    )
