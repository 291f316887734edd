"""Commands that other packages add to ``veracity``: the training package's (``training/``).

A package adds a command by an entry point of the group ``veracity.commands`` (its pyproject's
``[project.entry-points."veracity.commands"]``): the entry point's name is the command, its value
the Typer command function. The training package declares ``train-verifier``, ``train-reranker``,
``export-verifier``, ``export-embedder``, ``distill-embedder`` and ``export-reranker``; they are
listed where they always were, after ``check``. Without the package each of them is still a
(hidden) command that says how to install it, and exits with the failure code.
"""

from __future__ import annotations

from collections.abc import Callable
from importlib.metadata import EntryPoint, entry_points
from typing import Any

import typer

from veracity._deps import TRAINING_INSTALL
from veracity.cli.application import fail
from veracity.errors import VeracityError

__all__ = ["COMMAND_GROUP", "TRAINING_COMMANDS", "add_commands", "installed_commands"]

#: The entry-point group of the commands other packages add.
COMMAND_GROUP = "veracity.commands"
#: The training package's commands, in the order ``veracity --help`` lists them.
TRAINING_COMMANDS = (
    "train-verifier",
    "train-reranker",
    "export-verifier",
    "export-embedder",
    "distill-embedder",
    "export-reranker",
)

Command = Callable[..., Any]


def installed_commands() -> dict[str, Command]:
    """Every command of the group :data:`COMMAND_GROUP` that the installed packages declare.

    One that cannot be loaded (a broken install) becomes a command that says why, so it never
    stops the other commands from running.
    """
    return {point.name: _load(point) for point in entry_points(group=COMMAND_GROUP)}


def add_commands(app: typer.Typer, commands: dict[str, Command] | None = None) -> None:
    """Add ``commands`` (default: :func:`installed_commands`) to ``app``: the training commands
    first, in their order (a missing one as a hidden command that says how to install it), then
    any others by name.

    >>> from typer.testing import CliRunner
    >>> app = typer.Typer()
    >>> add_commands(app, {})
    >>> result = CliRunner().invoke(app, ["train-verifier", "--data", "DATA"])
    >>> result.exit_code, "pip install -e training" in result.output
    (2, True)
    """
    found = dict(installed_commands() if commands is None else commands)
    for name in TRAINING_COMMANDS:
        if name in found:
            app.command(name)(found.pop(name))
        else:
            app.command(
                name,
                hidden=True,
                context_settings={"allow_extra_args": True, "ignore_unknown_options": True},
            )(_not_installed(name))
    for name in sorted(found):
        app.command(name)(found[name])


def _not_installed(name: str) -> Command:
    def command() -> None:
        raise fail(
            VeracityError(
                f"`veracity {name}` is a command of the training package, which is not "
                f"installed. Install it with: {TRAINING_INSTALL}"
            )
        )

    command.__doc__ = f"Needs the training package: {TRAINING_INSTALL}."
    return command


def _load(point: EntryPoint) -> Command:
    try:
        loaded: Command = point.load()
    except Exception as exc:  # any failure of a broken install: shown when the command runs
        reason = f"{type(exc).__name__}: {exc}"

        def command() -> None:
            raise fail(
                VeracityError(
                    f"`veracity {point.name}` could not be loaded from {point.value} ({reason}); "
                    f"install it again with: {TRAINING_INSTALL}"
                )
            )

        command.__doc__ = f"Could not be loaded ({reason})."
        return command
    return loaded
