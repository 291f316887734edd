"""Every choice option's help lists the values of the library's registry, and a bad value is
refused with them (the help is built from the registries, so a new value shows up in both)."""

from __future__ import annotations

import typing

import pytest
import typer.main

from veracity import cli, defaults
from veracity.config import BATCH_LAYERS
from veracity.generate.abstain import SIGNALS
from veracity.models import VERIFIERS
from veracity.repair.pipeline import POLICIES
from veracity.verify.nli import WINDOWS
from veracity.verify.pipeline import LAYERS
from veracity.verify.questions import QUERY_MODES
from veracity.verify.rules import RULES

pytestmark = pytest.mark.unit


def _help(command: str, option: str) -> str:
    # typer 0.2x carries its own copy of click: read its command tree by attribute
    found = typer.main.get_command(cli.app).commands[command]
    param = next(p for p in found.params if option in p.opts)
    return str(param.help)


def _listed(help_text: str) -> list[str]:
    """The words of ``help_text``, without the punctuation around them."""
    return [word.strip(",.;:()") for word in help_text.split()]


@pytest.mark.parametrize(
    ("command", "option", "choices"),
    [
        ("verify", "--layers", LAYERS),
        ("verify", "--rule", RULES),
        ("verify", "--query", QUERY_MODES),
        ("verify", "--window", WINDOWS),
        ("verify", "--mode", defaults.SEARCH_MODES),
        ("verify", "--verifier", tuple(VERIFIERS)),
        ("verify-batch", "--layers", BATCH_LAYERS),
        ("verify-batch", "--window", WINDOWS),
        ("repair", "--policy", POLICIES),
        ("repair", "--query", QUERY_MODES),
        ("ask", "--policy", POLICIES),
        ("ask", "--signal", tuple(SIGNALS)),
        ("ask", "--mode", defaults.SEARCH_MODES),
        ("calibrate", "--signal", tuple(SIGNALS)),
        ("search", "--mode", defaults.SEARCH_MODES),
        ("evolve", "--mode", defaults.SEARCH_MODES),
        ("serve", "--mode", defaults.SEARCH_MODES),
    ],
)
def test_a_choice_option_lists_every_registered_value(
    command: str, option: str, choices: tuple[str, ...]
) -> None:
    listed = _listed(_help(command, option))
    assert [choice for choice in choices if choice not in listed] == []


def test_verify_batch_lists_only_what_a_batch_runs() -> None:
    assert _help("verify-batch", "--layers") == f"comma-separated: {', '.join(BATCH_LAYERS)}"
    rules = _listed(_help("verify-batch", "--rule"))
    assert "logistic" not in rules  # it needs --weights, which verify-batch has not
    assert all(rule in rules for rule in RULES if rule != "logistic")


def test_the_signal_registry_and_its_literal_agree() -> None:
    assert tuple(SIGNALS) == typing.get_args(defaults.Signal)
