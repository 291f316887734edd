"""What a repair returns: the original answer, the repaired one, every edit and why.

Spans: an :class:`Edit`'s ``original`` indexes :attr:`RepairResult.original` and its ``new``
indexes :attr:`RepairResult.text`; an evidence passage's ``start``/``end`` index its document
(see :class:`~veracity.types.EvidenceJudgement`).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from veracity.types import Claim, EvidenceJudgement, Report, Span

__all__ = [
    "ACTIONS",
    "Action",
    "Attribution",
    "ClaimRepair",
    "Edit",
    "Preservation",
    "RepairResult",
]

#: What happened to a claim: ``kept`` (supported, or found supported by the research),
#: ``revised``, ``deleted``, ``flagged`` (left for a person: conflicting sources, no way to
#: fix it, or the flag policy), ``rejected`` (an edit was proposed and refused by the limits or
#: the verifier; the original is kept), ``failed`` (a model reply could not be read; the
#: original is kept), ``refused`` (the whole answer was withdrawn).
Action = Literal["kept", "revised", "deleted", "flagged", "rejected", "failed", "refused"]
ACTIONS: tuple[Action, ...] = (
    "kept",
    "revised",
    "deleted",
    "flagged",
    "rejected",
    "failed",
    "refused",
)


@dataclass(frozen=True, slots=True)
class Edit:
    """One change to the answer: ``before`` at ``original`` became ``after`` at ``new``.

    ``claims`` are the indexes of the claims it changes (none for a refusal); ``kind`` is
    ``substitute`` (a value replaced by the evidence's, no model), ``rewrite`` (the
    chat model's edit), ``quote`` (the claim's sentence replaced by a quoted source sentence,
    no model), ``delete`` or ``refuse``; ``method`` the rule or prompt that made it
    (``id@version``); ``evidence`` the passages it rests on.
    """

    kind: str
    claims: tuple[int, ...]
    original: Span
    new: Span
    before: str
    after: str
    method: str
    reason: str
    evidence: tuple[EvidenceJudgement, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        return {
            "kind": self.kind,
            "claims": list(self.claims),
            "original": [self.original.start, self.original.end],
            "new": [self.new.start, self.new.end],
            "before": self.before,
            "after": self.after,
            "method": self.method,
            "reason": self.reason,
            "evidence": [item.to_dict() for item in self.evidence],
        }


@dataclass(frozen=True)
class ClaimRepair:
    """What the repair decided for one claim of the original answer, and on what evidence.

    ``label`` is the verifier's verdict before repair; ``agreement`` what the research found
    (``agrees``, ``disagrees``, ``conflict``, ``missing``, ``error``); ``questions`` the
    retrieval queries of the research; ``proposed`` an edit that was rejected or could not be
    placed (``None`` otherwise); ``supporting`` and ``contradicting`` the two sides' passages.
    """

    claim: Claim
    label: str
    agreement: str
    action: Action
    reason: str
    questions: tuple[str, ...] = ()
    supporting: tuple[EvidenceJudgement, ...] = ()
    contradicting: tuple[EvidenceJudgement, ...] = ()
    edit: Edit | None = None
    proposed: str | None = None
    failure: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return {
            "claim": self.claim.to_dict(),
            "label": self.label,
            "agreement": self.agreement,
            "action": self.action,
            "reason": self.reason,
            "questions": list(self.questions),
            "supporting": [item.to_dict() for item in self.supporting],
            "contradicting": [item.to_dict() for item in self.contradicting],
            "edit": None if self.edit is None else self.edit.to_dict(),
            "proposed": self.proposed,
            "failure": self.failure,
        }


@dataclass(frozen=True, slots=True)
class Attribution:
    """The share of an answer's claims the verifier finds supported (auto-AIS at claim level);
    ``share`` is ``None`` for an answer without claims."""

    claims: int
    supported: int

    @property
    def share(self) -> float | None:
        return None if self.claims == 0 else self.supported / self.claims

    @classmethod
    def of(cls, report: Report | None) -> Attribution:
        if report is None:
            return cls(0, 0)
        return cls(len(report.verdicts), report.count("supported"))

    def to_dict(self) -> dict[str, Any]:
        return {"claims": self.claims, "supported": self.supported, "share": self.share}


@dataclass(frozen=True, slots=True)
class Preservation:
    """Pres_Lev = max(0, 1 - Levenshtein(original, repaired) / len(original)), over characters
    and over words (``\\w+`` and punctuation tokens)."""

    chars: float
    words: float

    def to_dict(self) -> dict[str, Any]:
        return {"chars": self.chars, "words": self.words}


@dataclass(frozen=True)
class RepairResult:
    """The repaired answer ``text`` of ``original`` under ``policy``, edit by edit.

    ``claims`` says what happened to each claim; ``attribution`` is the report of at most five
    passages that together support the repaired answer's claims; ``before`` and ``after`` are
    the verifier's reports on the original and the repaired text (``after`` is ``None`` when
    the answer was refused). ``notes`` say what a reader should know ("nothing to repair");
    ``failures`` count the model replies that could not be read; ``config`` is the saved
    config that made it (``RepairConfig.to_dict()``; ``None``, and left out of ``to_dict``,
    for a repairer composed by hand).
    """

    original: str
    text: str
    policy: str
    claims: tuple[ClaimRepair, ...]
    edits: tuple[Edit, ...]
    before: Report
    after: Report | None
    attribution: tuple[EvidenceJudgement, ...]
    preservation: Preservation
    refused: bool = False
    query_mode: str = "question"
    notes: tuple[str, ...] = ()
    calls: dict[str, int] = field(default_factory=dict)
    timings: dict[str, float] = field(default_factory=dict)
    config: Mapping[str, Any] | None = None

    @property
    def changed(self) -> bool:
        return self.text != self.original

    @property
    def failures(self) -> int:
        """Claims left unchanged because a model reply could not be read, plus claims the
        verifier could not judge."""
        return sum(item.action == "failed" for item in self.claims) + self.before.failures

    @property
    def attribution_before(self) -> Attribution:
        return Attribution.of(self.before)

    @property
    def attribution_after(self) -> Attribution:
        return Attribution.of(self.after)

    def count(self, action: Action) -> int:
        return sum(item.action == action for item in self.claims)

    @property
    def summary(self) -> dict[str, Any]:
        return {
            "claims": len(self.claims),
            **{action: self.count(action) for action in ACTIONS},
            "edits": len(self.edits),
            "changed": self.changed,
            "refused": self.refused,
            "failed": self.failures,
        }

    def to_dict(self) -> dict[str, Any]:
        """Everything above; the reports before and after appear as their summaries."""
        return {
            "summary": self.summary,
            "policy": self.policy,
            "original": self.original,
            "text": self.text,
            "changed": self.changed,
            "refused": self.refused,
            "query_mode": self.query_mode,
            "edits": [edit.to_dict() for edit in self.edits],
            "claims": [item.to_dict() for item in self.claims],
            "attribution_before": self.attribution_before.to_dict(),
            "attribution_after": self.attribution_after.to_dict(),
            "attribution": [item.to_dict() for item in self.attribution],
            "preservation": self.preservation.to_dict(),
            "before": self.before.summary,
            "after": None if self.after is None else self.after.summary,
            "verifier": self.before.verifier,
            "verifier_version": self.before.verifier_version,
            "notes": list(self.notes),
            "calls": dict(self.calls),
            "timings": dict(self.timings),
        } | ({} if self.config is None else {"config": dict(self.config)})
