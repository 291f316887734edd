"""Open a repairer: the one place where ``repair``'s settings meet its parts.

:func:`open_repairer` is what ``veracity repair``, ``veracity ask --repair`` and the service's
``/v1/repair`` run. The settings (:class:`RepairSettings`) are checked when they are made; the
parts come in made: the verifier, the evidence (an index's retriever or source passages) and
the chat model, if any (:class:`veracity.models.Models` makes them by the names users give).
:func:`~veracity.repair.pipeline.make_repairer` composes them.

>>> from veracity.testing import TablePairScorer
>>> from veracity.types import Chunk
>>> passage = "Karl von Frisch won the Nobel Prize in 1973."
>>> source = Chunk("w#0", "w.md", 0, passage, 0, len(passage))
>>> scorer = TablePairScorer({(passage, "Karl von Frisch won the Nobel Prize in 1983."):
...                           (0.05, 0.9, 0.05), (passage, passage): (0.95, 0.0, 0.05)})
>>> repairer = open_repairer(scorer, sources=[source], settings=RepairSettings(policy="revise"))
>>> repairer.run("Karl von Frisch won the Nobel Prize in 1983.").text
'Karl von Frisch won the Nobel Prize in 1973.'
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from veracity import defaults
from veracity.defaults import Policy
from veracity.errors import check_choice
from veracity.models.chat.base import ChatModel
from veracity.models.pairs.base import PairScorer
from veracity.repair.pipeline import Repairer, check_policy, make_repairer
from veracity.repair.revise import EditLimits
from veracity.retrieve.base import Retriever
from veracity.types import Chunk
from veracity.verify.questions import QUERY_MODES, QueryMode

__all__ = ["RepairSettings", "open_repairer"]


@dataclass(frozen=True)
class RepairSettings:
    """How an answer is repaired (the options of ``veracity repair``).

    ``policy``: what to do with a claim the evidence does not support (``revise``, ``delete``,
    ``flag``, ``refuse``); ``query``: each research question is the claim itself or a
    question made from it; ``k``: passages per question; ``tau``: the P(supported) a claim
    must reach; ``refuse_below``: the share of supported claims below which ``refuse``
    withdraws the answer; ``questions``: the most research questions per claim; ``quote``:
    whether ``revise`` without a chat model may quote the source in place of a claim;
    ``limits``: the most an edit may change (default :class:`~veracity.repair.revise.EditLimits`).

    >>> RepairSettings(policy="flag").uses_chat
    False
    >>> RepairSettings(policy="fix")
    Traceback (most recent call last):
    ...
    veracity.errors.OptionError: policy='fix' is not allowed: one of revise, delete, flag, \
refuse. revise fixes what the evidence contradicts, delete cuts unsupported claims, flag \
changes nothing, refuse withdraws a mostly unsupported answer.
    """

    policy: Policy = defaults.REPAIR_POLICY
    query: QueryMode = defaults.REPAIR_QUERY
    k: int = defaults.VERIFY_TOP_K
    tau: float = defaults.VERIFY_TAU
    refuse_below: float = defaults.REPAIR_REFUSE_BELOW
    questions: int = defaults.REPAIR_QUESTIONS
    quote: bool = True
    limits: EditLimits | None = None

    def __post_init__(self) -> None:
        check_policy(self.policy)
        check_choice("query", self.query, QUERY_MODES)

    @property
    def uses_chat(self) -> bool:
        """Whether the policy can use a chat model: ``revise`` (questions and edits) and
        ``delete`` (questions); ``flag`` and ``refuse`` make no model call."""
        return self.policy in ("revise", "delete")


def open_repairer(
    scorer: PairScorer,
    *,
    retriever: Retriever | None = None,
    sources: Sequence[Chunk] = (),
    chat: ChatModel | None = None,
    settings: RepairSettings = RepairSettings(),
) -> Repairer:
    """A :class:`~veracity.repair.pipeline.Repairer` as ``settings`` say: ``scorer`` checks the
    answer before and after; the evidence comes from ``retriever`` or ``sources`` (passages,
    see :func:`~veracity.verify.gather.source_chunks`); ``chat`` (only for a policy that
    :attr:`~RepairSettings.uses_chat`) writes the research questions and the edits. A chat
    model given to a policy that makes no model call is an error, never ignored."""
    return make_repairer(
        scorer,
        retriever=retriever,
        sources=sources,
        policy=settings.policy,
        chat=chat,
        query=settings.query,
        k=settings.k,
        tau=settings.tau,
        limits=settings.limits,
        refuse_below=settings.refuse_below,
        questions=settings.questions,
        quote=settings.quote,
    )
