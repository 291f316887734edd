"""The edits of a repair and the decision on each claim, as data: what the planner, the
proposer and the checker of :mod:`veracity.repair.pipeline` hand each other, and how the edits
are made in the answer's text (:func:`apply_changes`)."""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence

from veracity.repair.result import Action, ClaimRepair, Edit
from veracity.repair.revise import Placement, sentence_span
from veracity.types import Claim, ClaimVerdict, EvidenceJudgement, Report, Span

__all__ = [
    "Change",
    "add_calls",
    "apply_changes",
    "best_passage",
    "claim_repair",
    "label_of",
    "position_of",
    "quote_placement",
]


@dataclasses.dataclass(frozen=True)
class Change:
    """An edit to make: where (``placement``), its kind, the claims it touches, the rule or
    prompt that made it, why, and the passages it rests on."""

    placement: Placement
    kind: str
    claims: tuple[int, ...]
    method: str
    reason: str
    evidence: tuple[EvidenceJudgement, ...]


def claim_repair(
    verdict: ClaimVerdict,
    state: str,
    action: Action,
    label: str,
    questions: tuple[str, ...] = (),
    failure: str | None = None,
    *,
    reason: str = "",
    proposed: str | None = None,
) -> ClaimRepair:
    return ClaimRepair(
        claim=verdict.claim,
        label=label,
        agreement=state,
        action=action,
        reason=reason,
        questions=questions,
        supporting=verdict.citations,
        contradicting=verdict.anti_citations,
        proposed=proposed,
        failure=failure,
    )


def label_of(report: Report, claim_index: int) -> str:
    return next(v.label for v in report.verdicts if v.claim.index == claim_index)


def position_of(verdicts: Sequence[ClaimVerdict], claim_index: int) -> int:
    return next(i for i, v in enumerate(verdicts) if v.claim.index == claim_index)


def quote_placement(answer: str, claim: Claim, replacement: str, before: Report) -> Placement | str:
    """Where a quotation goes: the claim's whole sentence, when no other claim is in it."""
    sentence = sentence_span(answer, claim.span)
    if sentence is None:
        return "the claim is only part of its sentence, so a quotation cannot replace it"
    if any(
        v.claim.index != claim.index
        and v.claim.span.start < sentence.end
        and sentence.start < v.claim.span.end
        for v in before.verdicts
    ):
        return "the sentence holds other claims, which a quotation would remove"
    return Placement(sentence, replacement)


def best_passage(verdict: ClaimVerdict) -> EvidenceJudgement | None:
    """The passage to edit against: the most contradicting one, else the most relevant one
    that can state the claim (highest P(supported) + P(contradicted))."""
    if verdict.anti_citations:
        return verdict.anti_citations[0]
    usable = [j for j in verdict.evidence if j.error is None and j.cannot_state is None]
    return max(usable, key=lambda j: j.supported + j.contradicted, default=None)


def apply_changes(answer: str, changes: Sequence[Change]) -> tuple[str, tuple[Edit, ...]]:
    """``answer`` with ``changes`` made (they do not overlap), and the edits with their spans
    in both texts."""
    pieces: list[str] = []
    edits: list[Edit] = []
    cursor = shift = 0
    for change in sorted(changes, key=lambda c: c.placement.span.start):
        span, replacement = change.placement.span, change.placement.replacement
        if span.start < cursor:  # pragma: no cover - the planners never overlap
            continue
        pieces.append(answer[cursor : span.start])
        pieces.append(replacement)
        start = span.start + shift
        edits.append(
            Edit(
                change.kind,
                change.claims,
                span,
                Span(start, start + len(replacement)),
                span.of(answer),
                replacement,
                change.method,
                change.reason,
                change.evidence,
            )
        )
        shift += len(replacement) - len(span)
        cursor = span.end
    pieces.append(answer[cursor:])
    return "".join(pieces), tuple(edits)


def add_calls(calls: dict[str, int], more: Mapping[str, int]) -> None:
    for name, count in more.items():
        calls[name] = calls.get(name, 0) + count
