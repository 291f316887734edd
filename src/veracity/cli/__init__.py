"""The ``veracity`` command: a thin adapter over the library, one module per command.

``application`` builds the Typer app (:func:`build_app`) and holds what the commands share;
``index``, ``search``, ``check``, ``ask`` (with ``calibrate``), ``verify`` and the others are
the commands, and ``plugins`` adds those of other packages (the training package's
``train-verifier`` and its kin); ``output`` is their terminal output, one module per result,
and ``render`` the one path to the terminal, which prints every text as data. ``--json`` prints
the result's ``to_dict()`` with the command's own fields (``exit_code``, ``notes``).

Exit codes: 0 success; 1 partial success (some inputs failed, the rest was done);
2 failure (nothing was done: bad options, missing index, unreadable input).

Tests and other front ends give the models to :func:`build_app`:
``build_app(Models(verifier=lambda name: TablePairScorer(table)))``.
"""

import typer

from veracity.cli.application import EXIT_FAILED, EXIT_OK, EXIT_PARTIAL, Models, build_app, main

__all__ = ["EXIT_FAILED", "EXIT_OK", "EXIT_PARTIAL", "Models", "app", "build_app", "main"]


def __getattr__(name: str) -> typer.Typer:
    """``app``, the command with the real models (what the ``veracity`` script runs), made at
    first use: the commands of other packages (:mod:`veracity.cli.plugins`) import this package,
    so it cannot load them while it is itself being imported."""
    if name == "app":
        made = globals()["app"] = build_app()
        return made
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
