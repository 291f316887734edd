"""RepairConfig and open_repairer on fakes: the options checked once, in the config, the
models made by the names it gives, the config in every result."""

from __future__ import annotations

from typing import Any

import pytest

from veracity.config import RepairConfig
from veracity.errors import OptionError
from veracity.models import Models
from veracity.repair.open import open_repairer
from veracity.repair.pipeline import Repairer
from veracity.testing import ScriptedChatModel, TablePairScorer
from veracity.types import Chunk

pytestmark = pytest.mark.unit

NOBEL = "Karl von Frisch won the Nobel Prize in 1973."
WRONG = "Karl von Frisch won the Nobel Prize in 1983."
SOURCE = Chunk("w#0", "w.md", 0, NOBEL, 0, len(NOBEL))


def scorer() -> TablePairScorer:
    return TablePairScorer({(NOBEL, WRONG): (0.05, 0.9, 0.05), (NOBEL, NOBEL): (0.95, 0.0, 0.05)})


def models(chat: ScriptedChatModel | None = None) -> Models:
    made = scorer()
    return Models(
        verifier=lambda name: made, chat=lambda spec, model: chat or ScriptedChatModel([])
    )


def config(**options: Any) -> RepairConfig:
    return RepairConfig().with_options(**options)


def test_the_default_config_revises_a_wrong_value() -> None:
    repairer = open_repairer(RepairConfig(), models(), sources=[SOURCE])
    assert isinstance(repairer, Repairer)
    result = repairer.run(WRONG)
    assert result.text == NOBEL
    assert result.edits[0].method == "value_substitution@1"


def test_the_config_reaches_the_repairer_and_its_result() -> None:
    chosen = config(policy="refuse", refuse_below=0.9, tau=0.8, k=2, max_edit_chars=10)
    repairer = open_repairer(chosen, models(), sources=[SOURCE])
    assert (repairer.policy, repairer.refuse_below) == ("refuse", 0.9)
    assert (repairer.limits.max_chars, repairer.limits.max_share) == (10, 0.5)
    assert repairer.verifier.nli.tau == 0.8
    assert repairer.verifier.evidence.k == 2
    result = repairer.run(WRONG)
    assert result.refused
    assert RepairConfig.from_dict(result.to_dict()["config"]) == chosen


def test_without_quoting_no_quotation_is_made() -> None:
    repairer = open_repairer(config(quote=False), models(), sources=[SOURCE])
    assert repairer.quotation is None
    assert open_repairer(RepairConfig(), models(), sources=[SOURCE]).quotation is not None


@pytest.mark.parametrize(
    ("option", "value", "message"),
    [
        ("policy", "fix", "policy='fix' is not allowed: one of revise, delete, flag, refuse"),
        ("query", "page", "query='page' is not allowed: one of claim, question"),
        ("refuse_below", 2, "refuse_below=2 is not allowed: from 0.0 to 1.0. A share, e.g. 0.5."),
        ("questions", 0, "questions=0 is not allowed: at least 1"),
    ],
)
def test_an_option_outside_its_choices_is_refused_when_the_config_is_made(
    option: str, value: object, message: str
) -> None:
    with pytest.raises(OptionError, match=message):
        config(**{option: value})


@pytest.mark.parametrize(
    ("policy", "uses"), [("revise", True), ("delete", True), ("flag", False), ("refuse", False)]
)
def test_only_revise_and_delete_use_a_chat_model(policy: str, uses: bool) -> None:
    assert config(policy=policy).policy.uses_chat is uses
    if uses:
        assert open_repairer(config(policy=policy, llm="scripted"), models(), sources=[SOURCE])
    else:
        with pytest.raises(OptionError, match="a chat model only with a policy that uses one"):
            config(policy=policy, llm="scripted")
