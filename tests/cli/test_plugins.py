"""Commands from other packages (the entry points of ``veracity.commands``): where they are
listed, and what a training command says where the training package is not installed."""

from __future__ import annotations

from importlib.metadata import EntryPoint

import pytest
import typer
from typer.testing import CliRunner

from veracity.cli import plugins

pytestmark = pytest.mark.unit
runner = CliRunner()


def _listed(app: typer.Typer) -> list[str]:
    @app.callback()
    def root() -> None:
        """A test app."""

    result = runner.invoke(app, ["--help"], terminal_width=100)
    if "Commands:" not in result.stdout:
        return []
    commands = result.stdout.split("Commands:\n", 1)[1]
    return [line.split()[0] for line in commands.splitlines() if line.strip()]


def test_without_the_training_package_its_commands_say_how_to_install_it() -> None:
    app = typer.Typer(rich_markup_mode=None)
    plugins.add_commands(app, {})
    for name in plugins.TRAINING_COMMANDS:
        result = runner.invoke(app, [name, "--data", "DATA", "--json"])
        assert result.exit_code == 2
        message = " ".join(result.output.split())
        assert f"`veracity {name}` is a command of the training package" in message
        assert "pip install -e training" in message
    assert _listed(app) == []  # hidden: --help lists only what runs


def test_installed_commands_keep_the_training_order_and_others_follow_by_name() -> None:
    def command() -> None:
        """Does nothing."""

    app = typer.Typer(rich_markup_mode=None)
    given = {"zz-extra": command, "export-reranker": command, "train-verifier": command}
    plugins.add_commands(app, given)
    assert _listed(app) == ["train-verifier", "export-reranker", "zz-extra"]
    assert runner.invoke(app, ["train-verifier"]).exit_code == 0


def test_a_command_that_cannot_be_loaded_says_why_and_leaves_the_others_alone() -> None:
    broken = EntryPoint("train-verifier", "no_such_module:command", plugins.COMMAND_GROUP)
    app = typer.Typer(rich_markup_mode=None)
    plugins.add_commands(app, {"train-verifier": plugins._load(broken)})
    result = runner.invoke(app, ["train-verifier"])
    assert result.exit_code == 2
    message = " ".join(result.output.split())
    assert "could not be loaded from no_such_module:command" in message
    assert "ModuleNotFoundError" in message
