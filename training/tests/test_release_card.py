"""The model card records every run that led to the shipped weights."""

import json
from pathlib import Path

import numpy as np
import pytest

from veracity.errors import InputError
from veracity_training.release import model_card

pytestmark = pytest.mark.unit

BASE = {
    "seed": 13,
    "examples": 32000,
    "max_tokens": 192,
    "batch_size": 16,
    "learning_rate": 5e-05,
    "freeze_embeddings": True,
    "exclude_kinds": ["public"],
}


def test_a_continued_distilled_run_records_both_commands_and_the_teacher(tmp_path: Path) -> None:
    first = tmp_path / "r4" / "checkpoint"
    first.mkdir(parents=True)
    (first / "state.json").write_text(
        json.dumps({"config": BASE, "step": 2000, "train_seconds": 3600.0})
    )
    second = {
        "config": BASE
        | {
            "seed": 14,
            "examples": 19200,
            "learning_rate": 2e-05,
            "init_from": str(first),
            "distill_weight": 2.0,
            "teacher": "align",
            "distill_skip_contradicted": True,
        },
        "step": 1200,
        "train_seconds": 1800.0,
        "teacher_seconds": 1800.0,
        "teacher_calibration": {"slope": 3.5, "bias": -2.25},
    }
    config = {
        "model_id": "veracity-verifier",
        "version": "9",
        "max_tokens": 192,
        "validation": {"rows": 10.0},
    }
    data = {
        "command": "python -m veracity_training.data --out DATA",
        "rows": {"train": 5, "val": 2},
        "per_source": {"t": 7},
        "per_kind": {"t": 7},
    }
    export = "veracity export-verifier --checkpoint RUN/checkpoint --data DATA --version 9"
    card = model_card(config, second, data, export, 1_000_000, 0.001)
    assert "veracity export-verifier --checkpoint RUN2/checkpoint --data DATA" in card
    assert (
        "veracity train-verifier --data DATA --out RUN1 --seed 13 --examples 32000 "
        "--max-tokens 192 --batch-size 16 --learning-rate 5e-05 --exclude-kind public\n"
    ) in card
    assert (
        "veracity train-verifier --data DATA --out RUN2 --seed 14 --examples 19200 "
        "--max-tokens 192 --batch-size 16 --learning-rate 2e-05 --exclude-kind public "
        "--init-from RUN1/checkpoint --distill-weight 2.0 --teacher align "
        "--distill-skip-contradicted\n"
    ) in card
    assert "rows labelled contradicted had no distillation target" in card
    assert "From all-MiniLM-L6-v2: seed 13; 2000 steps" in card
    assert "Continued from the run before: seed 14; 1200 steps" in card
    assert "sigmoid(3.500 × score -2.250)" in card
    assert "2.00 CPU-hours of training in all" in card  # both runs and the teacher's scoring
    (first / "state.json").unlink()
    with pytest.raises(InputError, match="which is gone"):
        model_card(config, second, data, "x", 1, 0.0)


def test_a_single_run_keeps_its_one_command() -> None:
    state = {"config": BASE, "step": 2000, "train_seconds": 7200.0}
    config = {"model_id": "m", "version": "1", "max_tokens": 192, "validation": {}}
    data = {"rows": {"train": 5, "val": 2}, "per_source": {}, "per_kind": {}}
    card = model_card(config, state, data, "export", 1, 0.0)
    assert "--out RUN --seed 13" in card
    assert "--init-from" not in card
    assert "Distilled" not in card
    assert "2.00 CPU-hours of training on 2 cores" in card


def test_a_refit_from_an_exported_verifier_keeps_its_rebuild_commands(tmp_path: Path) -> None:
    from veracity_training.release import _copy_network, _source_rebuild

    source = tmp_path / "v020"
    source.mkdir()
    (source / "model.onnx").write_bytes(b"onnx")
    (source / "config.json").write_text(
        json.dumps(
            {
                "model_id": "veracity-verifier",
                "version": "0.2.0",
                "labels": ["a", "b", "c"],
                "max_tokens": 192,
                "strategy": "select",
                "tokenizer": "minilm",
                "training": {"config": BASE, "step": 2000},
            }
        )
    )
    (source / "CARD.md").write_text(
        "# v 0.2.0\n\nexported (23.1 MB; largest probability difference to the fp32 model on a "
        "probe input 0.0070).\n\n## Rebuild\n\n```sh\npython -m veracity_training.data --out D\n"
        "veracity train-verifier --data DATA --out RUN --seed 13\n"
        "veracity export-verifier --checkpoint RUN/checkpoint --data DATA --version 0.2.0\n"
        "```\n\n1.10 CPU-hours of training on 2 cores\n"
    )
    assert _source_rebuild(source, (source / "CARD.md").read_text()) == [
        "python -m veracity_training.data --out D",
        "veracity train-verifier --data DATA --out RUN --seed 13",
        "veracity export-verifier --checkpoint RUN/checkpoint --data DATA --version 0.2.0 "
        "--no-aligner --out VERIFIER",
    ]
    state, exported = _copy_network(source, tmp_path / "out", "0.4.0")
    assert state["rebuild"][-1].endswith("--no-aligner --out VERIFIER")
    assert state["train_seconds"] == pytest.approx(1.10 * 3600)
    assert exported.max_abs_difference == pytest.approx(0.007)
    assert json.loads((tmp_path / "out" / "config.json").read_text())["version"] == "0.4.0"
    with pytest.raises(InputError, match="no Rebuild section"):
        _source_rebuild(source, "# v\n")


def test_the_combiner_fits_on_three_way_rows_outside_the_suites_half() -> None:
    from veracity_training.data.contrast import suite_half
    from veracity_training.release import combiner_fit_mask

    premises = [f"Premise {i}." for i in range(40)]
    labels = np.array([i % 4 for i in range(40)])  # 3 = not_supported: no three-way label
    mask = combiner_fit_mask(premises, labels)
    for premise, label, fits in zip(premises, labels, mask, strict=True):
        assert fits == (label < 3 and not suite_half(premise))
    assert 0 < mask.sum() < 30
