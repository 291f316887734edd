"""The ``veracity`` app: its commands, how models come in, and how it is started."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from veracity import cli
from veracity.cli.plugins import TRAINING_COMMANDS, installed_commands
from veracity.testing import TablePairScorer

pytestmark = pytest.mark.unit
runner = CliRunner()

PAIR = ["check", "--premise", "Bees dance.", "--claim", "Bees dance.", "--json"]


def test_the_commands_are_listed_as_before() -> None:
    """The training package's commands (where it is installed) keep their place after check."""
    result = runner.invoke(cli.app, ["--help"], terminal_width=100)
    assert result.exit_code == 0, result.output
    commands = result.stdout.split("Commands:\n", 1)[1]
    listed = [line.split()[0] for line in commands.splitlines() if line.strip()]
    training = [name for name in TRAINING_COMMANDS if name in installed_commands()]
    assert listed == [
        "index",
        "search",
        "check",
        *training,
        "ask",
        "calibrate",
        "evolve",
        "verify",
        "verify-batch",
        "report",
        "serve",
        "repair",
    ]


def test_models_given_to_one_app_stay_in_that_app() -> None:
    faked = cli.build_app(
        cli.Models(
            verifier=lambda name: TablePairScorer({("Bees dance.", "Bees dance."): (0.2, 0.7, 0.1)})
        )
    )
    assert json.loads(runner.invoke(faked, PAIR).stdout)["verifier_label"] == "contradicted"
    real = runner.invoke(cli.app, [*PAIR, "--verifier", "lexical"])  # no model file needed
    assert real.exit_code == 0, real.output
    assert json.loads(real.stdout)["model"] != "table"
