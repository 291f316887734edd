"""Repair an answer so that its sources support it, changing as little as possible.

:class:`Repairer` is the pipeline behind ``veracity repair``, after RARR (Gao et al. 2023):

1. check: the answer verifier's report on the answer (the attribution before);
2. research: for each claim it does not find supported, questions and the evidence they
   retrieve (:class:`~veracity.repair.research.Researcher`);
3. agreement: the verifier's verdict on that evidence (:mod:`veracity.repair.agreement`);
4. the policy's remedy for a claim the evidence contradicts or does not support:

   - ``revise`` (default): substitute the evidence's value (no model), else the chat model's
     edit, else (no chat model) quote the source sentence that answers the same research
     question in place of the claim's sentence; an edit over the limits, that cannot be placed,
     or that the verifier does not then find supported by its evidence is rejected and the
     claim kept, with the reason;
   - ``delete``: cut the claim out (:class:`~veracity.repair.delete.Deleter`);
   - ``flag``: change nothing, report each claim with the evidence on both sides;
   - ``refuse``: replace the whole answer by "I don't know" and the reason when less than
     ``refuse_below`` of its claims is supported; otherwise flag;

   conflicting sources (some passages support the claim, others contradict it) are always
   flagged for a person, never edited;
5. the repaired answer checked again (the attribution after), the attribution report (at most
   five passages that together support it) and preservation (Pres_Lev).

The original answer is always in the result, and every edit has its span in both texts, the
evidence it rests on and the rule or prompt that made it.

>>> from veracity.testing import TablePairScorer
>>> from veracity.types import Chunk
>>> passage = "Karl von Frisch won the Nobel Prize in 1973."
>>> source = Chunk("w#0", "w.md", 0, passage, 0, len(passage))
>>> scorer = TablePairScorer({(passage, "Karl von Frisch won the Nobel Prize in 1983."):
...                           (0.05, 0.9, 0.05), (passage, passage): (0.95, 0.0, 0.05)})
>>> result = make_repairer(scorer, sources=[source]).run(
...     "Karl von Frisch won the Nobel Prize in 1983.")
>>> result.text, result.edits[0].method
('Karl von Frisch won the Nobel Prize in 1973.', 'value_substitution@1')
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from typing import get_args

from veracity import defaults
from veracity.checkers.base import PairScorer
from veracity.config import VerifyConfig
from veracity.defaults import Policy
from veracity.errors import GenerationError, InputError, OptionError
from veracity.llm.base import ChatModel
from veracity.repair.agreement import agreement, mismatches
from veracity.repair.delete import Deleter
from veracity.repair.measure import attribution_report, preservation
from veracity.repair.research import Research, Researcher
from veracity.repair.result import Action, ClaimRepair, Edit, RepairResult
from veracity.repair.revise import (
    QUOTATION_RULE,
    SUBSTITUTION_RULE,
    EditLimits,
    LLMEditor,
    Placement,
    Quotation,
    ValueSubstitution,
    evidence_quote,
    place,
    sentence_span,
)
from veracity.retrieve.base import Retriever
from veracity.types import Chunk, Claim, ClaimSet, ClaimVerdict, EvidenceJudgement, Report, Span
from veracity.verify.gather import ClaimEvidence, EvidenceSet
from veracity.verify.pipeline import AnswerVerifier, make_answer_verifier, timed
from veracity.verify.questions import QueryMode

__all__ = ["POLICIES", "Policy", "Repairer", "make_repairer"]

POLICIES: tuple[Policy, ...] = get_args(Policy)


@dataclasses.dataclass(frozen=True)
class _Change:
    placement: Placement
    kind: str
    claims: tuple[int, ...]
    method: str
    reason: str
    evidence: tuple[EvidenceJudgement, ...]


def check_policy(policy: str) -> Policy:
    """``policy`` if it is one of :data:`POLICIES`; else an error that names them."""
    if policy not in POLICIES:
        raise OptionError(
            "policy",
            policy,
            f"one of {', '.join(POLICIES)}",
            "revise fixes what the evidence contradicts, delete cuts unsupported "
            "claims, flag changes nothing, refuse withdraws a mostly unsupported "
            "answer.",
        )
    return policy


class Repairer:
    """Repairs an answer under a policy (see the module docstring), composed of its parts.

    ``verifier`` checks the answer before and after; ``researcher`` finds the evidence for each
    claim to repair (needed by ``revise`` and ``delete``); ``editor`` is the chat model's
    editor (``revise`` only; without one values are substituted, else ``quotation`` quotes
    the source; ``quotation=None`` turns quoting off).
    """

    def __init__(
        self,
        verifier: AnswerVerifier,
        researcher: Researcher | None = None,
        *,
        policy: Policy = defaults.REPAIR_POLICY,
        editor: LLMEditor | None = None,
        limits: EditLimits | None = None,
        refuse_below: float = defaults.REPAIR_REFUSE_BELOW,
        quotation: Quotation | None = Quotation(),  # noqa: B008 - immutable
    ) -> None:
        if not isinstance(verifier, AnswerVerifier):
            raise OptionError(
                "verifier",
                type(verifier).__name__,
                "an AnswerVerifier",
                "Use veracity.verify.make_answer_verifier(...).",
            )
        self.policy = check_policy(policy)
        if policy in ("revise", "delete") and researcher is None:
            raise OptionError(
                "researcher",
                None,
                f"a Researcher for policy {policy!r}",
                "Pass researcher=Researcher(retriever=... or sources=...).",
            )
        if editor is not None and policy != "revise":
            raise OptionError(
                "editor",
                editor.chat.model_id,
                "an editor only with policy 'revise'",
                "Drop the chat model or use policy='revise'.",
            )
        if not 0.0 <= refuse_below <= 1.0:
            raise OptionError("refuse_below", refuse_below, "a share between 0 and 1")
        self.verifier = verifier
        self.researcher = researcher
        self.editor = editor
        self.limits = limits or EditLimits()
        self.refuse_below = refuse_below
        self.substitution = ValueSubstitution()
        self.quotation = quotation
        self.deleter = Deleter()

    def load(self) -> Repairer:
        self.verifier.load()
        return self

    def run(
        self, answer: str, *, question: str | None = None, cited: Mapping[int, Chunk] | None = None
    ) -> RepairResult:
        """The repaired answer (see the module docstring); raises
        :class:`~veracity.errors.InputError` for an empty answer or when there are no sources."""
        if not isinstance(answer, str) or not answer.strip():
            raise InputError(
                "the answer is empty: give the text to repair (--answer FILE or --answer TEXT)"
            )
        timings: dict[str, float] = {}
        calls: dict[str, int] = {}
        before = timed(
            timings, "check", lambda: self.verifier.run(answer, question=question, cited=cited)
        )
        _add(calls, before.calls)
        # A supported claim whose sources conflict goes to a person too.
        to_repair = [v for v in before.verdicts if v.label != "supported" or v.contested]
        if not to_repair:
            why = (
                "nothing to repair: the answer has no claims to check"
                if not before.verdicts
                else f"nothing to repair: all {len(before.verdicts)} claims are supported"
            )
            decisions = tuple(
                _decision(v, "agrees", "kept", "supported", reason="supported")
                for v in before.verdicts
            )
            return self._result(
                answer, answer, decisions, (), before, before, (why,), calls, timings, "none"
            )
        if self.policy == "flag":
            decisions = tuple(
                self._flag(v, "the flag policy changes nothing") for v in before.verdicts
            )
            return self._result(
                answer, answer, decisions, (), before, before, (), calls, timings, "none"
            )
        if self.policy == "refuse":
            return self._refuse(answer, before, calls, timings)
        assert self.researcher is not None  # checked in __init__
        researcher = self.researcher
        claims = [verdict.claim for verdict in to_repair]
        research = timed(timings, "research", lambda: researcher.run(claims))
        found = timed(
            timings,
            "agreement",
            lambda: self.verifier.judge(
                ClaimSet(answer, tuple(claims)), research.evidence, question=question
            ),
        )
        _add(calls, found.calls)
        if research.chat_calls:
            calls["chat"] = calls.get("chat", 0) + research.chat_calls
        plan = self._plan(answer, before, to_repair, research, found, calls, timings, question)
        decisions, changes = plan
        text, edits = _apply(answer, changes)
        by_claim = {index: edit for edit in edits for index in edit.claims}
        decisions = tuple(
            dataclasses.replace(item, edit=by_claim.get(item.claim.index)) for item in decisions
        )
        after: Report | None = None
        notes: list[str] = []
        if text == answer:
            after = before
            notes.append(
                "the answer is returned unchanged: no edit was made (see each claim's reason)"
            )
        elif text.strip():
            after = timed(
                timings, "recheck", lambda: self.verifier.run(text, question=question, cited=cited)
            )
            _add(calls, after.calls)
        else:
            notes.append("every claim was deleted: nothing of the answer is left")
        return self._result(
            answer,
            text,
            decisions,
            edits,
            before,
            after,
            tuple(notes),
            calls,
            timings,
            research.method,
        )

    # --- the remedies -----------------------------------------------------------------------

    def _plan(
        self,
        answer: str,
        before: Report,
        to_repair: Sequence[ClaimVerdict],
        research: Research,
        found: Report,
        calls: dict[str, int],
        timings: dict[str, float],
        question: str | None,
    ) -> tuple[tuple[ClaimRepair, ...], list[_Change]]:
        decided: dict[int, ClaimRepair] = {}
        to_delete: dict[int, ClaimVerdict] = {}
        proposals: list[tuple[ClaimVerdict, ClaimEvidence, str, str, str, str | None]] = []
        for position, old in enumerate(to_repair):
            verdict = found.verdicts[position]
            claim = old.claim
            questions = research.questions[position]
            failure = research.failures[position]
            state = agreement(verdict)
            base = _decision(verdict, state, "flagged", old.label, questions, failure)
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
                proposal = self._propose(claim, verdict, old, calls, timings, questions)
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
        changes: list[_Change] = []
        if to_delete:
            plan = self.deleter.run(answer, [v.claim for v in before.verdicts], to_delete)
            for claim_index, why in plan.kept.items():
                verdict = to_delete.pop(claim_index)
                decided[claim_index] = _decision(
                    verdict,
                    agreement(verdict),
                    "flagged",
                    _label(before, claim_index),
                    research.questions[_at(to_repair, claim_index)],
                    research.failures[_at(to_repair, claim_index)],
                    reason=why,
                )
            for cut, removed in zip(plan.cuts, plan.removes, strict=True):
                evidence = tuple(j for i in removed for j in to_delete[i].anti_citations[:1])
                changes.append(
                    _Change(
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
                    decided[claim_index] = _decision(
                        verdict,
                        state,
                        "deleted",
                        _label(before, claim_index),
                        research.questions[_at(to_repair, claim_index)],
                        research.failures[_at(to_repair, claim_index)],
                        reason="contradicted by its evidence"
                        if state == "disagrees"
                        else "no passage supports it",
                    )
        if proposals:
            for change, decision in self._checked(
                answer, proposals, before, research, to_repair, calls, timings, question
            ):
                decided[decision.claim.index] = decision
                if change is not None:
                    changes.append(change)
        ordered = tuple(
            decided.get(v.claim.index)
            or _decision(v, "agrees", "kept", v.label, reason="supported")
            for v in before.verdicts
        )
        return ordered, changes

    def _propose(
        self,
        claim: Claim,
        verdict: ClaimVerdict,
        old: ClaimVerdict,
        calls: dict[str, int],
        timings: dict[str, float],
        questions: Sequence[str] = (),
    ) -> tuple[str, str, str | None] | ClaimRepair:
        """The edited claim, the rule or prompt that made it and, for a quotation, the text
        that replaces the claim's whole sentence; or the decision without one."""
        values = mismatches(verdict) or mismatches(old)
        substituted = self.substitution.run(claim, values)
        if substituted is not None:
            return substituted, SUBSTITUTION_RULE, None
        base = _decision(verdict, agreement(verdict), "flagged", old.label)
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
        best = _best_passage(verdict)
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

    def _checked(
        self,
        answer: str,
        proposals: Sequence[tuple[ClaimVerdict, ClaimEvidence, str, str, str, str | None]],
        before: Report,
        research: Research,
        to_repair: Sequence[ClaimVerdict],
        calls: dict[str, int],
        timings: dict[str, float],
        question: str | None,
    ) -> list[tuple[_Change | None, ClaimRepair]]:
        """Each proposal through the limits, the placement and the verifier's check."""
        out: list[tuple[_Change | None, ClaimRepair]] = []
        waiting: list[tuple[ClaimVerdict, ClaimEvidence, str, str, str, Placement]] = []
        taken: list[Span] = []
        for verdict, item, new_text, method, state, replacement in proposals:
            claim = verdict.claim
            questions = research.questions[_at(to_repair, claim.index)]
            failure = research.failures[_at(to_repair, claim.index)]
            base = _decision(
                verdict,
                state,
                "rejected",
                _label(before, claim.index),
                questions,
                failure,
                proposed=replacement or new_text,
            )
            if replacement is not None:
                placed = _quote_placement(answer, claim, replacement, before)
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
        _add(calls, checked.calls)
        for (verdict, _, new_text, method, state, placed), after in zip(
            waiting, checked.verdicts, strict=True
        ):
            claim = verdict.claim
            questions = research.questions[_at(to_repair, claim.index)]
            failure = research.failures[_at(to_repair, claim.index)]
            label = _label(before, claim.index)
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
                        _decision(
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
            change = _Change(placed, kind, (claim.index,), method, reason, rests_on)
            out.append(
                (
                    change,
                    _decision(verdict, state, "revised", label, questions, failure, reason=reason),
                )
            )
        return out

    def _refuse(
        self, answer: str, before: Report, calls: dict[str, int], timings: dict[str, float]
    ) -> RepairResult:
        total, supported = len(before.verdicts), before.count("supported")
        if supported >= self.refuse_below * total:
            decisions = tuple(
                self._flag(
                    v,
                    f"{supported} of {total} claims are supported, at "
                    f"least {self.refuse_below:.0%}: not refused",
                )
                for v in before.verdicts
            )
            return self._result(
                answer, answer, decisions, (), before, before, (), calls, timings, "none"
            )
        reason = (
            f"the sources support only {supported} of the answer's {total} claims "
            f"(less than {self.refuse_below:.0%})"
        )
        text = f"{defaults.REPAIR_REFUSAL}: {reason}."
        edit = Edit(
            "refuse", (), Span(0, len(answer)), Span(0, len(text)), answer, text, "refuse@1", reason
        )
        decisions = tuple(
            _decision(v, agreement(v), "refused", v.label, reason=reason) for v in before.verdicts
        )
        return self._result(
            answer, text, decisions, (edit,), before, None, (), calls, timings, "none", refused=True
        )

    def _flag(self, verdict: ClaimVerdict, reason: str) -> ClaimRepair:
        if verdict.label == "supported" and not verdict.contested:
            return _decision(verdict, "agrees", "kept", verdict.label, reason="supported")
        return _decision(verdict, agreement(verdict), "flagged", verdict.label, reason=reason)

    def _result(
        self,
        answer: str,
        text: str,
        decisions: tuple[ClaimRepair, ...],
        edits: tuple[Edit, ...],
        before: Report,
        after: Report | None,
        notes: tuple[str, ...],
        calls: dict[str, int],
        timings: dict[str, float],
        query_mode: str,
        *,
        refused: bool = False,
    ) -> RepairResult:
        return RepairResult(
            original=answer,
            text=text,
            policy=self.policy,
            claims=decisions,
            edits=edits,
            before=before,
            after=after,
            attribution=attribution_report(after),
            preservation=preservation(answer, text),
            refused=refused,
            query_mode=query_mode,
            notes=notes,
            calls=calls,
            timings=timings,
        )


def make_repairer(
    scorer: PairScorer,
    *,
    retriever: Retriever | None = None,
    sources: Sequence[Chunk] = (),
    policy: Policy = defaults.REPAIR_POLICY,
    chat: ChatModel | None = None,
    query: QueryMode = defaults.REPAIR_QUERY,
    k: int = defaults.VERIFY_TOP_K,
    tau: float = defaults.VERIFY_TAU,
    limits: EditLimits | None = None,
    refuse_below: float = defaults.REPAIR_REFUSE_BELOW,
    questions: int = defaults.REPAIR_QUESTIONS,
    quote: bool = True,
) -> Repairer:
    """A :class:`Repairer` for the common cases: the verifier's ``nli`` and ``knowledge``
    layers, evidence from ``retriever`` or ``sources``, and ``chat`` (when given) writing the
    research questions and the edits (``revise``) or the questions (``delete``); ``questions``
    is the most research questions per claim; ``quote=False`` keeps ``revise`` without a chat
    model from quoting the sources (values are still substituted).

    >>> from veracity.testing import TablePairScorer, ScriptedChatModel
    >>> make_repairer(TablePairScorer({}), policy="flag", chat=ScriptedChatModel([]))
    Traceback (most recent call last):
    ...
    veracity.errors.OptionError: chat='scripted' is not allowed: a chat model only with policy \
revise or delete. The flag policy makes no model call: drop the chat model.
    """
    policy = check_policy(policy)
    if chat is not None and policy not in ("revise", "delete"):
        raise OptionError(
            "chat",
            chat.model_id,
            "a chat model only with policy revise or delete",
            f"The {policy} policy makes no model call: drop the chat model.",
        )
    # each passage read on its own, whatever the library's default window: a conflict is a
    # claim one passage supports and another contradicts, which one window cannot tell
    verifier = make_answer_verifier(
        scorer,
        VerifyConfig().with_options(k=k, tau=tau, window="passage"),
        retriever=retriever,
        sources=sources,
    )
    researcher = None
    if policy in ("revise", "delete"):
        researcher = Researcher(
            retriever=retriever,
            sources=sources,
            k=k,
            query=query,
            chat=chat if query == "question" else None,
            questions=questions,
        )
    editor = LLMEditor(chat) if chat is not None and policy == "revise" else None
    return Repairer(
        verifier,
        researcher,
        policy=policy,
        editor=editor,
        limits=limits,
        refuse_below=refuse_below,
        quotation=Quotation() if quote else None,
    )


# --- helpers --------------------------------------------------------------------------------


def _decision(
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


def _label(report: Report, claim_index: int) -> str:
    return next(v.label for v in report.verdicts if v.claim.index == claim_index)


def _at(verdicts: Sequence[ClaimVerdict], claim_index: int) -> int:
    return next(i for i, v in enumerate(verdicts) if v.claim.index == claim_index)


def _quote_placement(
    answer: str, claim: Claim, replacement: str, before: Report
) -> Placement | str:
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


def _best_passage(verdict: ClaimVerdict) -> EvidenceJudgement | None:
    """The passage to edit against: the most contradicting one, else the most relevant one
    that can state the claim (highest P(supported) + P(contradicted))."""
    if verdict.anti_citations:
        return verdict.anti_citations[0]
    usable = [j for j in verdict.evidence if j.error is None and j.cannot_state is None]
    return max(usable, key=lambda j: j.supported + j.contradicted, default=None)


def _apply(answer: str, changes: Sequence[_Change]) -> tuple[str, tuple[Edit, ...]]:
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


def _add(calls: dict[str, int], more: Mapping[str, int]) -> None:
    for name, count in more.items():
        calls[name] = calls.get(name, 0) + count
