"""Check proposed edits before any is made (step 4 of :mod:`veracity.repair.pipeline`): each
within the edit limits, placed in the answer without overlapping another, and the edited claim
found supported by its evidence by the answer verifier; an edit that fails is rejected with
the reason and the claim kept."""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence

from veracity.repair.changes import (
    Change,
    add_calls,
    claim_repair,
    label_of,
    position_of,
    quote_placement,
)
from veracity.repair.research import Research
from veracity.repair.result import ClaimRepair
from veracity.repair.revise import QUOTATION_RULE, SUBSTITUTION_RULE, EditLimits, Placement, place
from veracity.types import ClaimSet, ClaimVerdict, Report, Span
from veracity.verify.gather import ClaimEvidence, EvidenceSet
from veracity.verify.pipeline import AnswerVerifier, timed

__all__ = ["EditChecker", "Proposed"]

#: A proposal waiting for its check: the claim's verdict, its evidence, the edited text, the
#: rule or prompt, the agreement state and, for a quotation, the sentence's replacement.
Proposed = tuple[ClaimVerdict, ClaimEvidence, str, str, str, str | None]


class EditChecker:
    """Checks proposals with ``verifier`` within ``limits`` (see the module docstring)."""

    def __init__(self, verifier: AnswerVerifier, limits: EditLimits) -> None:
        self.verifier = verifier
        self.limits = limits

    def run(
        self,
        answer: str,
        proposals: Sequence[Proposed],
        before: Report,
        research: Research,
        to_repair: Sequence[ClaimVerdict],
        calls: dict[str, int],
        timings: dict[str, float],
        question: str | None,
    ) -> list[tuple[Change | None, ClaimRepair]]:
        """Each proposal through the limits, the placement and the verifier's check."""
        out: list[tuple[Change | None, ClaimRepair]] = []
        waiting: list[tuple[ClaimVerdict, ClaimEvidence, str, str, str, Placement]] = []
        taken: list[Span] = []
        for verdict, item, new_text, method, state, replacement in proposals:
            claim = verdict.claim
            questions = research.questions[position_of(to_repair, claim.index)]
            failure = research.failures[position_of(to_repair, claim.index)]
            base = claim_repair(
                verdict,
                state,
                "rejected",
                label_of(before, claim.index),
                questions,
                failure,
                proposed=replacement or new_text,
            )
            if replacement is not None:
                placed = quote_placement(answer, claim, replacement, before)
            else:
                why = self.limits.check(claim.text, new_text)
                placed = place(answer, claim, new_text) if why is None else why
            if isinstance(placed, Placement) and any(
                placed.span.start < span.end and span.start < placed.span.end for span in taken
            ):
                placed = "the edit overlaps another claim's edit"
            if isinstance(placed, str):
                out.append((None, dataclasses.replace(base, reason=placed)))
                continue
            taken.append(placed.span)
            waiting.append((verdict, item, new_text, method, state, placed))
        if not waiting:
            return out
        edited = tuple(
            dataclasses.replace(verdict.claim, text=new_text)
            for verdict, _, new_text, _, _, _ in waiting
        )
        evidence = EvidenceSet(
            tuple(
                dataclasses.replace(item, claim=claim)
                for (_, item, *_), claim in zip(waiting, edited, strict=True)
            ),
            research.method,
            0,
        )
        checked = timed(
            timings,
            "edit check",
            lambda: self.verifier.judge(ClaimSet(answer, edited), evidence, question=question),
        )
        add_calls(calls, checked.calls)
        for (verdict, _, new_text, method, state, placed), after in zip(
            waiting, checked.verdicts, strict=True
        ):
            claim = verdict.claim
            questions = research.questions[position_of(to_repair, claim.index)]
            failure = research.failures[position_of(to_repair, claim.index)]
            label = label_of(before, claim.index)
            if after.label != "supported" or after.contested:
                why = (
                    "the sources conflict on the edited claim"
                    if after.contested
                    else f"the verifier does not find the edited claim supported by its "
                    f"evidence ({after.label})"
                )
                out.append(
                    (
                        None,
                        claim_repair(
                            verdict,
                            state,
                            "rejected",
                            label,
                            questions,
                            failure,
                            proposed=new_text,
                            reason=f"{why}; the original is kept",
                        ),
                    )
                )
                continue
            rests_on = after.citations[:2]
            kind = {SUBSTITUTION_RULE: "substitute", QUOTATION_RULE: "quote"}.get(method, "rewrite")
            reason = {
                "substitute": "the evidence states another value",
                "quote": "the source's own sentence that answers the same question, "
                "quoted in place of the claim's",
                "rewrite": "the chat model's edit, supported by the evidence",
            }[kind]
            change = Change(placed, kind, (claim.index,), method, reason, rests_on)
            out.append(
                (
                    change,
                    claim_repair(
                        verdict, state, "revised", label, questions, failure, reason=reason
                    ),
                )
            )
        return out
