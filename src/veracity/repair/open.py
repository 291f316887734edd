"""Open a repairer: the one place where ``repair``'s config meets its models.

:func:`open_repairer` is what ``veracity repair``, ``veracity ask --repair`` and the service's
``/v1/repair`` run. The config (:class:`~veracity.config.RepairConfig`) was checked when it was
made; the models come in by the names it gives, made by ``models``
(:class:`veracity.models.Models`, so that a test passes fakes); the evidence is given made or
read from the index or source files the config names.
:func:`~veracity.repair.pipeline.make_repairer` composes them, and the results carry the config.

>>> from veracity.config import RepairConfig
>>> from veracity.models import Models
>>> from veracity.testing import TablePairScorer
>>> from veracity.types import Chunk
>>> passage = "Karl von Frisch won the Nobel Prize in 1973."
>>> source = Chunk("w#0", "w.md", 0, passage, 0, len(passage))
>>> scorer = TablePairScorer({(passage, "Karl von Frisch won the Nobel Prize in 1983."):
...                           (0.05, 0.9, 0.05), (passage, passage): (0.95, 0.0, 0.05)})
>>> repairer = open_repairer(RepairConfig(), Models(verifier=lambda name: scorer),
...                          sources=[source])
>>> result = repairer.run("Karl von Frisch won the Nobel Prize in 1983.")
>>> result.text, result.to_dict()["config"]["policy"]["policy"]
('Karl von Frisch won the Nobel Prize in 1973.', 'revise')
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from veracity.config import RepairConfig
from veracity.errors import OptionError
from veracity.repair.pipeline import Repairer, make_repairer
from veracity.retrieve.base import Retriever
from veracity.types import Chunk

if TYPE_CHECKING:
    from veracity.models import Models

__all__ = ["open_repairer"]


def open_repairer(
    config: RepairConfig,
    models: Models,
    *,
    retriever: Retriever | None = None,
    sources: Sequence[Chunk] = (),
) -> Repairer:
    """A :class:`~veracity.repair.pipeline.Repairer` as ``config`` says, its models made by
    ``models`` from the names in ``config.models``: the verifier checks the answer before and
    after; the chat model (only for a policy that uses one) writes the research questions and
    the edits. The evidence is ``retriever`` or ``sources`` when given, else the index or the
    source files that ``config.evidence`` names."""
    if not isinstance(config, RepairConfig):
        raise OptionError(
            "config", type(config).__name__, "a RepairConfig", "Use RepairConfig(...)."
        )
    scorer = models.verifier(config.models.verifier)
    chat = (
        None if config.models.llm is None else models.chat(config.models.llm, config.models.model)
    )
    evidence = config.evidence
    if retriever is None and not sources:
        if evidence.index is not None:
            from veracity.retrieve.open import open_retriever

            retriever = open_retriever(evidence.index, mode=evidence.mode)
        elif evidence.sources:
            from veracity.verify.gather import source_chunks, source_documents

            sources = source_chunks(source_documents(evidence.sources))
    return make_repairer(scorer, config, retriever=retriever, sources=sources, chat=chat)
