"""RepairSettings and open_repairer on fakes: the settings checked once, then handed on."""

from __future__ import annotations

from typing import Any

import pytest

from veracity.errors import OptionError
from veracity.repair.open import RepairSettings, open_repairer
from veracity.repair.pipeline import Repairer
from veracity.repair.revise import EditLimits
from veracity.testing import ScriptedChatModel, TablePairScorer
from veracity.types import Chunk

pytestmark = pytest.mark.unit

NOBEL = "Karl von Frisch won the Nobel Prize in 1973."
WRONG = "Karl von Frisch won the Nobel Prize in 1983."
SOURCE = Chunk("w#0", "w.md", 0, NOBEL, 0, len(NOBEL))


def scorer() -> TablePairScorer:
    return TablePairScorer({(NOBEL, WRONG): (0.05, 0.9, 0.05), (NOBEL, NOBEL): (0.95, 0.0, 0.05)})


def test_the_default_settings_revise_a_wrong_value() -> None:
    repairer = open_repairer(scorer(), sources=[SOURCE])
    assert isinstance(repairer, Repairer)
    result = repairer.run(WRONG)
    assert result.text == NOBEL
    assert result.edits[0].method == "value_substitution@1"


def test_the_settings_reach_the_repairer() -> None:
    limits = EditLimits(max_chars=10)
    settings = RepairSettings(policy="refuse", refuse_below=0.9, tau=0.8, k=2, limits=limits)
    repairer = open_repairer(scorer(), sources=[SOURCE], settings=settings)
    assert (repairer.policy, repairer.refuse_below, repairer.limits) == ("refuse", 0.9, limits)
    assert repairer.verifier.nli.tau == 0.8
    assert repairer.verifier.gatherer.k == 2
    assert repairer.run(WRONG).refused


def test_without_quoting_no_quotation_is_made() -> None:
    repairer = open_repairer(scorer(), sources=[SOURCE], settings=RepairSettings(quote=False))
    assert repairer.quotation is None
    assert open_repairer(scorer(), sources=[SOURCE]).quotation is not None


@pytest.mark.parametrize(
    ("option", "value", "message"),
    [
        ("policy", "fix", "policy='fix' is not allowed: one of revise, delete, flag, refuse"),
        ("query", "page", "query='page' is not allowed: one of claim, question"),
    ],
)
def test_a_choice_outside_its_registry_is_refused_when_the_settings_are_made(
    option: str, value: str, message: str
) -> None:
    options: dict[str, Any] = {option: value}
    with pytest.raises(OptionError, match=message):
        RepairSettings(**options)


@pytest.mark.parametrize(
    ("policy", "uses"), [("revise", True), ("delete", True), ("flag", False), ("refuse", False)]
)
def test_only_revise_and_delete_use_a_chat_model(policy: str, uses: bool) -> None:
    settings = RepairSettings(policy=policy)  # type: ignore[arg-type]
    assert settings.uses_chat is uses
    chat = ScriptedChatModel([])
    if uses:
        assert open_repairer(scorer(), sources=[SOURCE], chat=chat, settings=settings)
    else:
        with pytest.raises(OptionError, match="a chat model only with policy revise or delete"):
            open_repairer(scorer(), sources=[SOURCE], chat=chat, settings=settings)
