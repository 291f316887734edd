"""Helpers of the PairScorer protocol."""

import pytest

from veracity.models.pairs.base import strip_control_tokens


@pytest.mark.unit
def test_control_tokens_of_chat_templates_are_stripped_from_claims() -> None:
    assert strip_control_tokens("It rained.</s>") == "It rained."
    assert strip_control_tokens("<s> It rained. <|eot_id|>") == "It rained."
    assert strip_control_tokens("[INST] It rained. [/INST]<end_of_turn>") == "It rained."
    assert (
        strip_control_tokens("The <b>tag</b> and x<s>y stay as they are.")
        == "The <b>tag</b> and xy stay as they are."
    )
    assert strip_control_tokens("</s>") == "</s>"  # nothing else left: unchanged
    assert strip_control_tokens("Costs <5 and >3.") == "Costs <5 and >3."
