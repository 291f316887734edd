"""The training reports' JSON, as the training commands print it with ``--json``."""

from __future__ import annotations

from pathlib import Path

import pytest

from veracity_training.config import TrainReport
from veracity_training.embedder import EmbedderExport
from veracity_training.release import ReleaseReport

pytestmark = pytest.mark.unit


def test_training_reports_as_the_commands_print_them() -> None:
    trained = TrainReport(10, 20, False, 12.345, Path("run/checkpoint"), ({"f1": 0.5},))
    assert trained.to_dict() == {
        "step": 10,
        "steps": 20,
        "finished": False,
        "seconds": 12.3,
        "checkpoint": str(Path("run/checkpoint")),
        "evaluations": [{"f1": 0.5}],
    }
    released = ReleaseReport(Path("model"), 1000, {"accuracy": 0.9})
    assert released.to_dict() == {
        "directory": "model",
        "model_bytes": 1000,
        "validation": {"accuracy": 0.9},
    }
    exported = EmbedderExport(Path("emb"), 2000, 61.26, 0.9987)
    assert exported.to_dict() == {
        "directory": "emb",
        "model_bytes": 2000,
        "seconds": 61.3,
        "min_cosine_to_legacy": 0.9987,
    }
