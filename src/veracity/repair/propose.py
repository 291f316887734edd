"""Propose an edit for a claim its evidence does not support (step 4 of
:mod:`veracity.repair.pipeline`, policy ``revise``): the evidence's value substituted (no
model), else the source's own sentence quoted (no chat model), else the chat model's edit.
Nothing proposed here is made before :class:`~veracity.repair.check.EditChecker` passes it."""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence

from veracity.errors import GenerationError
from veracity.repair.agreement import agreement, mismatches
from veracity.repair.changes import best_passage, claim_repair
from veracity.repair.result import ClaimRepair
from veracity.repair.revise import (
    QUOTATION_RULE,
    SUBSTITUTION_RULE,
    LLMEditor,
    Quotation,
    ValueSubstitution,
    evidence_quote,
)
from veracity.types import Claim, ClaimVerdict
from veracity.verify.pipeline import timed

__all__ = ["Proposal", "Proposer"]

#: The edited claim, the rule or prompt that made it and, for a quotation, the text that
#: replaces the claim's whole sentence.
Proposal = tuple[str, str, str | None]


class Proposer:
    """Proposes one edit per claim: ``editor`` is the chat model's editor (none: values are
    substituted, else ``quotation`` quotes the source; ``quotation=None`` turns quoting off)."""

    def __init__(
        self,
        editor: LLMEditor | None = None,
        quotation: Quotation | None = Quotation(),  # noqa: B008 - immutable
    ) -> None:
        self.editor = editor
        self.quotation = quotation
        self.substitution = ValueSubstitution()

    def run(
        self,
        claim: Claim,
        verdict: ClaimVerdict,
        old: ClaimVerdict,
        calls: dict[str, int],
        timings: dict[str, float],
        questions: Sequence[str] = (),
    ) -> Proposal | ClaimRepair:
        """The edited claim, the rule or prompt that made it and, for a quotation, the text
        that replaces the claim's whole sentence; or the decision without one."""
        values = mismatches(verdict) or mismatches(old)
        substituted = self.substitution.run(claim, values)
        if substituted is not None:
            return substituted, SUBSTITUTION_RULE, None
        base = claim_repair(verdict, agreement(verdict), "flagged", old.label)
        if self.editor is None and self.quotation is not None:
            quote = self.quotation.run(claim, verdict.evidence, questions)
            if quote is not None:
                return quote.sentence, QUOTATION_RULE, quote.sentence
        if self.editor is None:
            if agreement(verdict) == "missing":
                return dataclasses.replace(
                    base,
                    reason=(
                        "no passage supports it or says what to write instead (give --llm to try "
                        "an edit, or use --policy delete)"
                    ),
                )
            return dataclasses.replace(
                base,
                reason=(
                    "no value of the evidence to substitute, and no chat model to edit it (give "
                    "--llm, or use --policy delete)"
                ),
            )
        best = best_passage(verdict)
        if best is None:
            return dataclasses.replace(base, reason="no passage to edit the claim against")
        editor = self.editor
        calls["chat"] = calls.get("chat", 0) + 1
        try:
            new_text = timed(timings, "edit", lambda: editor.run(claim.text, evidence_quote(best)))
        except GenerationError as exc:
            return dataclasses.replace(
                base,
                action="failed",
                failure=str(exc),
                reason="the chat model's reply could not be read; the claim is left as it is",
            )
        if new_text.strip() == claim.text.strip():
            return dataclasses.replace(base, reason="the chat model proposed no change")
        return new_text, editor.method, None
