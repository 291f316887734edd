"""The reranker card's rebuild commands, for a run from all-MiniLM-L6-v2 and for one continued
from an exported reranker."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from veracity.errors import InputError
from veracity_training.release import run_chain, run_text
from veracity_training.rerank_release import rebuild_lines

pytestmark = pytest.mark.unit

TRAIN = {
    "data_dir": "/tmp/d",
    "seed": 13,
    "examples": 32000,
    "max_tokens": 192,
    "batch_size": 16,
    "learning_rate": 3e-05,
    "threads": 1,
    "eval_every": 250,
    "eval_rows": 600,
    "task": "rerank",
}
DATA = {"command": "python -m veracity_training.data.rerank --out /tmp/d --seed 13 --web-share 0.5"}
EXPORT = "veracity export-reranker --checkpoint RUN/checkpoint --data DATA --version 0.2.0"


def test_a_first_run_rebuilds_with_its_own_three_commands() -> None:
    lines = rebuild_lines({"config": TRAIN}, DATA, EXPORT)
    assert lines[0] == DATA["command"]
    assert lines[1].startswith("veracity train-reranker --data DATA --out RUN --seed 13")
    assert lines[2] == EXPORT


def test_a_continued_run_rebuilds_the_reranker_it_started_from_first(tmp_path: Path) -> None:
    before = tmp_path / "reranker"
    before.mkdir()
    (before / "model.onnx").write_bytes(b"")
    (before / "config.json").write_text(
        json.dumps({"model_id": "r", "version": "0.1.0", "training": {"config": TRAIN}})
    )
    (before / "CARD.md").write_text(
        "# r 0.1.0\n\n## Rebuild\n\n```sh\npython -m veracity_training.data.rerank --out d\n"
        "veracity train-reranker --data DATA --out RUN --seed 13\n"
        "veracity export-reranker --checkpoint RUN/checkpoint --data DATA --version 0.1.0\n```\n"
    )
    state = {"config": {**TRAIN, "init_from": str(before)}}
    lines = rebuild_lines(state, DATA, EXPORT)
    assert lines[:3] == [
        "python -m veracity_training.data.rerank --out d",
        "veracity train-reranker --data DATA --out RUN --seed 13",
        "veracity export-reranker --checkpoint RUN/checkpoint --data DATA --version 0.1.0 "
        "--out RERANKER0",
    ]
    assert (
        lines[3] == "python -m veracity_training.data.rerank --out DATA1 --seed 13 --web-share 0.5"
    )
    assert lines[4].startswith("veracity train-reranker --data DATA1 --out RUN1 --seed 13")
    assert lines[4].endswith("--init-from RERANKER0 --threads 1 --eval-every 250 --eval-rows 600")
    assert lines[5] == (
        "veracity export-reranker --checkpoint RUN1/checkpoint --data DATA1 --version 0.2.0"
    )
    (before / "CARD.md").write_text("# r\n")
    with pytest.raises(InputError, match="has no Rebuild section"):
        rebuild_lines(state, DATA, EXPORT)


def test_a_run_stopped_before_its_planned_steps_says_where() -> None:
    full = {"step": 2000, "config": {**TRAIN, "freeze_embeddings": True}}
    assert "stopped" not in run_text(full)
    text = run_text({**full, "step": 1500})
    assert "1500 steps of batch 16 (24,000 examples) (stopped there, of the 2000" in text
    assert "so stop it at step 1500 to rebuild this model" in text


def test_a_listwise_run_names_its_weight_in_the_command_and_the_text() -> None:
    state = {"step": 2000, "config": {**TRAIN, "freeze_embeddings": True, "listwise_weight": 1.0}}
    lines = rebuild_lines(state, DATA, EXPORT)
    assert "--listwise-weight 1.0" in lines[1]
    assert "softmax cross-entropy over each query's candidates" in run_text(state)
    assert "--listwise-weight" not in rebuild_lines({"config": TRAIN}, DATA, EXPORT)[1]


def test_a_chain_of_runs_lists_every_run_and_each_data_folder_once(tmp_path: Path) -> None:
    first_data = tmp_path / "d0"
    first_data.mkdir()
    (first_data / "card.json").write_text(
        json.dumps({"command": "python -m veracity_training.data.rerank --out /x --seed 13"})
    )
    first = tmp_path / "run0"
    (first / "checkpoint").mkdir(parents=True)
    first_state = {
        "step": 100,
        "train_seconds": 3600.0,
        "config": {**TRAIN, "data_dir": str(first_data), "freeze_embeddings": True},
    }
    (first / "checkpoint" / "state.json").write_text(json.dumps(first_state))
    second: dict[str, Any] = {
        "step": 200,
        "train_seconds": 1800.0,
        "config": {**TRAIN, "init_from": str(first / "checkpoint"), "freeze_embeddings": True},
    }
    lines = rebuild_lines(second, DATA, EXPORT)
    assert lines[0] == "python -m veracity_training.data.rerank --out DATA1 --seed 13"
    assert (
        lines[1] == "python -m veracity_training.data.rerank --out DATA2 --seed 13 --web-share 0.5"
    )
    assert lines[2].startswith("veracity train-reranker --data DATA1 --out RUN1 --seed 13")
    assert "--init-from" not in lines[2]
    assert lines[3].startswith("veracity train-reranker --data DATA2 --out RUN2 --seed 13")
    assert " --init-from RUN1/checkpoint " in lines[3]
    assert lines[4] == (
        "veracity export-reranker --checkpoint RUN2/checkpoint --data DATA2 --version 0.2.0"
    )
    # the same data folder is built once
    same = {**second, "config": {**second["config"], "data_dir": str(first_data)}}
    lines = rebuild_lines(
        same, {"command": "python -m veracity_training.data.rerank --out /x --seed 13"}, EXPORT
    )
    assert [line.split()[0] for line in lines] == ["python", "veracity", "veracity", "veracity"]
    assert lines[0].endswith("--out DATA --seed 13")
    assert "--data DATA --out RUN1" in lines[1]
    assert "--data DATA --out RUN2" in lines[2]
    assert "--data DATA " in lines[3]
    (first_data / "card.json").unlink()
    with pytest.raises(InputError, match=r"card.json is gone"):
        rebuild_lines(second, DATA, EXPORT)


def test_a_residual_run_names_its_teacher_in_the_command_and_the_text() -> None:
    state = {
        "step": 2000,
        "config": {**TRAIN, "freeze_embeddings": True, "residual": True, "teacher": "cosine"},
        "teacher_calibration": {"slope": 7.0, "bias": -3.0},
    }
    assert "--residual --teacher cosine" in rebuild_lines(state, DATA, EXPORT)[1]
    text = run_text(state)
    assert "what the `cosine` scorer gets wrong: its log-odds, 7.000 × score -3.000" in text


def test_a_run_continued_from_a_chained_export_stops_at_the_export(tmp_path: Path) -> None:
    # the export of a chain of runs: its config links to a run folder that is gone here (or
    # that now holds a later model), its card rebuilds the whole chain and sums its hours
    before = tmp_path / "reranker"
    before.mkdir()
    (before / "model.onnx").write_bytes(b"")
    gone = {**TRAIN, "init_from": str(tmp_path / "gone" / "checkpoint")}
    (before / "config.json").write_text(
        json.dumps(
            {
                "model_id": "r",
                "version": "0.2.0",
                "training": {"config": gone, "step": 2000, "train_seconds": 3600.0},
            }
        )
    )
    (before / "CARD.md").write_text(
        "# r 0.2.0\n\n## Rebuild\n\n```sh\npython -m veracity_training.data.rerank --out d\n"
        "python -m veracity_training.data.rerank --out DATA1\n"
        "veracity train-reranker --data DATA1 --out RUN1 --seed 13\n"
        "veracity train-reranker --data DATA1 --out RUN2 --init-from RUN1/checkpoint\n"
        "veracity export-reranker --checkpoint RUN2/checkpoint --data DATA1 --version 0.2.0\n"
        "```\n\n6.50 CPU-hours of training in all on 1 thread(s).\n"
    )
    state = {"config": {**TRAIN, "init_from": str(before)}}
    chain = run_chain(state)
    assert len(chain) == 2
    assert chain[0]["train_seconds"] == pytest.approx(6.5 * 3600)
    lines = rebuild_lines(state, DATA, EXPORT)
    assert lines[4].endswith("--version 0.2.0 --out RERANKER0")
    assert (
        lines[5] == "python -m veracity_training.data.rerank --out DATA2 --seed 13 --web-share 0.5"
    )
    assert lines[6].startswith("veracity train-reranker --data DATA2 --out RUN3 --seed 13")
    assert " --init-from RERANKER0 " in lines[6]
    assert lines[7] == (
        "veracity export-reranker --checkpoint RUN3/checkpoint --data DATA2 --version 0.2.0"
    )
