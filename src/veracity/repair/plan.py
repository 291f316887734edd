"""Plan a repair (step 4 of :mod:`veracity.repair.pipeline`): for each claim to repair, its
agreement with the research's evidence decides: kept (the evidence supports it), flagged for a
person (the verifier failed, the sources conflict), deleted (policy ``delete``, by
:class:`~veracity.repair.delete.Deleter`), or edited as :class:`~veracity.repair.propose.Proposer`
proposes and :class:`~veracity.repair.check.EditChecker` accepts."""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence

from veracity.defaults import Policy
from veracity.repair.agreement import agreement
from veracity.repair.changes import Change, claim_repair, label_of, position_of
from veracity.repair.check import EditChecker, Proposed
from veracity.repair.delete import Deleter
from veracity.repair.propose import Proposer
from veracity.repair.research import Research
from veracity.repair.result import ClaimRepair
from veracity.types import ClaimVerdict, Report

__all__ = ["Planner"]


class Planner:
    """Decides each claim under ``policy`` (see the module docstring)."""

    def __init__(self, policy: Policy, proposer: Proposer, checker: EditChecker) -> None:
        self.policy = policy
        self.proposer = proposer
        self.checker = checker
        self.deleter = Deleter()

    def run(
        self,
        answer: str,
        before: Report,
        to_repair: Sequence[ClaimVerdict],
        research: Research,
        found: Report,
        calls: dict[str, int],
        timings: dict[str, float],
        question: str | None,
    ) -> tuple[tuple[ClaimRepair, ...], list[Change]]:
        decided: dict[int, ClaimRepair] = {}
        to_delete: dict[int, ClaimVerdict] = {}
        proposals: list[Proposed] = []
        for position, old in enumerate(to_repair):
            verdict = found.verdicts[position]
            claim = old.claim
            questions = research.questions[position]
            failure = research.failures[position]
            state = agreement(verdict)
            base = claim_repair(verdict, state, "flagged", old.label, questions, failure)
            if state == "error":
                decided[claim.index] = dataclasses.replace(
                    base, reason="the verifier could not judge the claim on its evidence"
                )
            elif state == "conflict":
                decided[claim.index] = dataclasses.replace(
                    base,
                    reason="the sources conflict: some passages support the claim and "
                    "others contradict it; a person should decide",
                )
            elif state == "agrees":
                decided[claim.index] = dataclasses.replace(
                    base, action="kept", reason="the research found passages that support it"
                )
            elif self.policy == "delete":
                to_delete[claim.index] = verdict
            else:
                proposal = self.proposer.run(claim, verdict, old, calls, timings, questions)
                if isinstance(proposal, ClaimRepair):
                    decided[claim.index] = dataclasses.replace(
                        proposal,
                        questions=questions,
                        failure=proposal.failure or failure,
                        agreement=state,
                        label=old.label,
                    )
                else:
                    new_text, method, replacement = proposal
                    proposals.append(
                        (
                            verdict,
                            research.evidence.items[position],
                            new_text,
                            method,
                            state,
                            replacement,
                        )
                    )
        changes: list[Change] = []
        if to_delete:
            plan = self.deleter.run(answer, [v.claim for v in before.verdicts], to_delete)
            for claim_index, why in plan.kept.items():
                verdict = to_delete.pop(claim_index)
                decided[claim_index] = claim_repair(
                    verdict,
                    agreement(verdict),
                    "flagged",
                    label_of(before, claim_index),
                    research.questions[position_of(to_repair, claim_index)],
                    research.failures[position_of(to_repair, claim_index)],
                    reason=why,
                )
            for cut, removed in zip(plan.cuts, plan.removes, strict=True):
                evidence = tuple(j for i in removed for j in to_delete[i].anti_citations[:1])
                changes.append(
                    Change(
                        cut,
                        "delete",
                        removed,
                        "delete@1",
                        "the sources do not support it",
                        evidence,
                    )
                )
                for claim_index in removed:
                    verdict = to_delete[claim_index]
                    state = agreement(verdict)
                    decided[claim_index] = claim_repair(
                        verdict,
                        state,
                        "deleted",
                        label_of(before, claim_index),
                        research.questions[position_of(to_repair, claim_index)],
                        research.failures[position_of(to_repair, claim_index)],
                        reason="contradicted by its evidence"
                        if state == "disagrees"
                        else "no passage supports it",
                    )
        if proposals:
            for change, decision in self.checker.run(
                answer, proposals, before, research, to_repair, calls, timings, question
            ):
                decided[decision.claim.index] = decision
                if change is not None:
                    changes.append(change)
        ordered = tuple(
            decided.get(v.claim.index)
            or claim_repair(v, "agrees", "kept", v.label, reason="supported")
            for v in before.verdicts
        )
        return ordered, changes
