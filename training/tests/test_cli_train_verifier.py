"""train-verifier's options for continued and distilled runs fail early with a clear message."""

from pathlib import Path

import pytest
from typer.testing import CliRunner

from veracity.cli import app

pytestmark = pytest.mark.unit
runner = CliRunner()


def test_init_from_a_folder_without_a_checkpoint_is_refused(tmp_path: Path) -> None:
    result = runner.invoke(
        app,
        [
            "train-verifier",
            "--data",
            str(tmp_path),
            "--out",
            str(tmp_path / "run"),
            "--init-from",
            str(tmp_path),
        ],
    )
    assert result.exit_code == 2
    assert "no config.json there" in " ".join(result.output.split())
    assert not (tmp_path / "run").exists()  # nothing was started


@pytest.mark.parametrize(
    ("option", "value", "message"),
    [
        ("--teacher", "oracle", "one of align"),
        ("--distill-weight", "-1", "0 or more"),
    ],
)
def test_bad_distillation_options_are_refused(
    tmp_path: Path, option: str, value: str, message: str
) -> None:
    result = runner.invoke(
        app,
        ["train-verifier", "--data", str(tmp_path), "--out", str(tmp_path / "run"), option, value],
    )
    assert result.exit_code == 2
    assert message in " ".join(result.output.split())


@pytest.mark.parametrize(
    "sources", [[], ["--checkpoint", "RUN/checkpoint", "--from-verifier", "VERIFIER"]]
)
def test_export_needs_exactly_one_source(tmp_path: Path, sources: list[str]) -> None:
    result = runner.invoke(
        app,
        ["export-verifier", "--data", str(tmp_path), "--out", str(tmp_path / "model"), *sources],
    )
    assert result.exit_code == 2
    assert "--from-verifier DIR, not both or neither" in " ".join(result.output.split())
    assert not (tmp_path / "model").exists()


def test_export_from_a_folder_without_a_verifier_names_it(tmp_path: Path) -> None:
    (tmp_path / "card.json").write_text("{}")
    result = runner.invoke(
        app,
        [
            "export-verifier",
            "--data",
            str(tmp_path),
            "--out",
            str(tmp_path / "model"),
            "--from-verifier",
            str(tmp_path),
        ],
    )
    assert result.exit_code != 0
    assert "is not an exported verifier (no config.json)" in " ".join(result.output.split())
