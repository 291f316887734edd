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
from typing import Any, get_args

from veracity import defaults
from veracity.config import RepairConfig, VerifyConfig
from veracity.defaults import Policy
from veracity.errors import InputError, OptionError
from veracity.models.chat.base import ChatModel
from veracity.models.pairs.base import PairScorer
from veracity.repair.agreement import agreement
from veracity.repair.changes import add_calls, apply_changes, claim_repair
from veracity.repair.check import EditChecker
from veracity.repair.measure import attribution_report, preservation
from veracity.repair.plan import Planner
from veracity.repair.propose import Proposer
from veracity.repair.research import Researcher
from veracity.repair.result import ClaimRepair, Edit, RepairResult
from veracity.repair.revise import (
    EditLimits,
    LLMEditor,
    Quotation,
)
from veracity.retrieve.base import Retriever
from veracity.types import Chunk, ClaimSet, ClaimVerdict, Report, Span
from veracity.verify.pipeline import AnswerVerifier, make_answer_verifier, timed

__all__ = ["POLICIES", "Policy", "Repairer", "make_repairer"]

POLICIES: tuple[Policy, ...] = get_args(Policy)


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
        self.quotation = quotation
        #: The saved config that made this repairer (``RepairConfig.to_dict()``), which its
        #: results carry; ``None`` for one composed by hand.
        self.config: dict[str, Any] | None = None
        self.planner = Planner(
            policy, Proposer(editor, quotation), EditChecker(verifier, self.limits)
        )

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
        add_calls(calls, before.calls)
        # A supported claim whose sources conflict goes to a person too.
        to_repair = [v for v in before.verdicts if v.label != "supported" or v.contested]
        if not to_repair:
            why = (
                "nothing to repair: the answer has no claims to check"
                if not before.verdicts
                else f"nothing to repair: all {len(before.verdicts)} claims are supported"
            )
            decisions = tuple(
                claim_repair(v, "agrees", "kept", "supported", reason="supported")
                for v in before.verdicts
            )
            return self._result(
                answer, answer, decisions, (), (before, before), (why,), (calls, timings), "none"
            )
        if self.policy == "flag":
            decisions = tuple(
                self._flag(v, "the flag policy changes nothing") for v in before.verdicts
            )
            return self._result(
                answer, answer, decisions, (), (before, before), (), (calls, timings), "none"
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
        add_calls(calls, found.calls)
        if research.chat_calls:
            calls["chat"] = calls.get("chat", 0) + research.chat_calls
        plan = self.planner.run(
            answer, before, to_repair, research, found, calls, timings, question
        )
        decisions, changes = plan
        text, edits = apply_changes(answer, changes)
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
            add_calls(calls, after.calls)
        else:
            notes.append("every claim was deleted: nothing of the answer is left")
        return self._result(
            answer,
            text,
            decisions,
            edits,
            (before, after),
            tuple(notes),
            (calls, timings),
            research.method,
        )

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
                answer, answer, decisions, (), (before, before), (), (calls, timings), "none"
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
            claim_repair(v, agreement(v), "refused", v.label, reason=reason)
            for v in before.verdicts
        )
        return self._result(
            answer, text, decisions, (edit,), (before, None), (), (calls, timings), "none"
        )

    def _flag(self, verdict: ClaimVerdict, reason: str) -> ClaimRepair:
        if verdict.label == "supported" and not verdict.contested:
            return claim_repair(verdict, "agrees", "kept", verdict.label, reason="supported")
        return claim_repair(verdict, agreement(verdict), "flagged", verdict.label, reason=reason)

    def _result(
        self,
        answer: str,
        text: str,
        decisions: tuple[ClaimRepair, ...],
        edits: tuple[Edit, ...],
        reports: tuple[Report, Report | None],
        notes: tuple[str, ...],
        spent: tuple[dict[str, int], dict[str, float]],
        query_mode: str,
    ) -> RepairResult:
        """The result: ``reports`` are the verifier's before and after (``None``: refused, or
        nothing left), ``spent`` the model calls and the seconds per stage."""
        before, after = reports
        calls, timings = spent
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
            refused=any(edit.kind == "refuse" for edit in edits),
            query_mode=query_mode,
            notes=notes,
            calls=calls,
            timings=timings,
            config=self.config,
        )


def make_repairer(
    scorer: PairScorer,
    config: RepairConfig | None = None,
    *,
    retriever: Retriever | None = None,
    sources: Sequence[Chunk] = (),
    chat: ChatModel | None = None,
) -> Repairer:
    """A :class:`Repairer` as ``config`` says (default :class:`~veracity.config.RepairConfig`):
    the verifier's ``nli`` and ``knowledge`` layers, evidence from ``retriever`` or
    ``sources``, and ``chat`` (when given) writing the research questions and the edits
    (``revise``) or the questions (``delete``). Its results carry the config.
    :func:`~veracity.repair.open.open_repairer` makes the parts by name.

    >>> from veracity.testing import TablePairScorer, ScriptedChatModel
    >>> make_repairer(TablePairScorer({}), RepairConfig().with_options(policy="flag"),
    ...               chat=ScriptedChatModel([]))
    Traceback (most recent call last):
    ...
    veracity.errors.OptionError: chat='scripted' is not allowed: a chat model only with policy \
revise or delete. The flag policy makes no model call: drop the chat model.
    """
    config = config or RepairConfig()
    options, evidence = config.policy, config.evidence
    policy = options.policy
    if chat is not None and not options.uses_chat:
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
        VerifyConfig().with_options(k=evidence.k, tau=config.tau, window="passage"),
        retriever=retriever,
        sources=sources,
    )
    researcher = None
    if options.uses_chat:
        researcher = Researcher(
            retriever=retriever,
            sources=sources,
            k=evidence.k,
            query=evidence.query,
            chat=chat if evidence.query == "question" else None,
            questions=options.questions,
        )
    editor = LLMEditor(chat) if chat is not None and policy == "revise" else None
    repairer = Repairer(
        verifier,
        researcher,
        policy=policy,
        editor=editor,
        limits=EditLimits(options.max_edit_chars, options.max_edit_share),
        refuse_below=options.refuse_below,
        quotation=Quotation() if options.quote else None,
    )
    repairer.config = config.to_dict()
    return repairer
