"""Open an answer verifier: the one place where ``verify``'s config meets its models.

:func:`open_answer_verifier` is what ``veracity verify``, ``verify-batch`` and the service's
``/v1/verify`` run. The config (:class:`~veracity.config.VerifyConfig`) was checked when it was
made, conflicts between options included; the models come in by the names it gives, made by
``models`` (:class:`veracity.models.Models`, so that a test passes fakes). From the config it
makes the evidence (the index's retriever or the source files' passages, unless given made),
the layers (the knowledge layer over a knowledge base, the consistency layer over the chat
model) and the layer rule, and :func:`~veracity.verify.pipeline.make_answer_verifier` composes
them. The verifier's reports carry the config (``Report.config``).

>>> from veracity.config import VerifyConfig
>>> from veracity.models import Models
>>> from veracity.testing import TablePairScorer
>>> from veracity.types import Chunk
>>> source = Chunk("bees.md#0", "bees.md", 0, "Honey bees dance.", 0, 17)
>>> scorer = TablePairScorer({("Honey bees dance.", "Honey bees dance."): (0.9, 0.0, 0.1)})
>>> verifier = open_answer_verifier(VerifyConfig().with_options(layers="nli"),
...                                 Models(verifier=lambda name: scorer), sources=[source])
>>> report = verifier.run("Honey bees dance.")
>>> report.summary["supported"], report.config["decision"]["layers"]
(1, ['nli'])
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from veracity.config import VerifyConfig
from veracity.errors import OptionError
from veracity.models.chat.base import Decoding
from veracity.retrieve.base import Retriever
from veracity.rules import KnowledgeBase, KnowledgeLayer
from veracity.types import Chunk
from veracity.verify.consistency import ConsistencyLayer
from veracity.verify.pipeline import AnswerVerifier, make_answer_verifier

if TYPE_CHECKING:
    from veracity.models import Models

__all__ = ["open_answer_verifier"]


def open_answer_verifier(
    config: VerifyConfig,
    models: Models,
    *,
    retriever: Retriever | None = None,
    sources: Sequence[Chunk] = (),
    knowledge: KnowledgeLayer | None = None,
) -> AnswerVerifier:
    """An :class:`~veracity.verify.pipeline.AnswerVerifier` as ``config`` says, its models made
    by ``models`` from the names in ``config.models``.

    The evidence is ``retriever`` or ``sources`` when given (the service's loaded index, the
    passages of a request), else the index or the source files that ``config.evidence`` names,
    else only what the answer cites. ``knowledge`` is a knowledge layer already loaded (the
    service loads its NER once), in place of the one the config makes. Reads the files the
    config names (the knowledge base, the layer weights, the sources).
    """
    if not isinstance(config, VerifyConfig):
        raise OptionError(
            "config", type(config).__name__, "a VerifyConfig", "Use VerifyConfig(...)."
        )
    scorer = models.verifier(config.models.verifier)
    chat = (
        None if config.models.llm is None else models.chat(config.models.llm, config.models.model)
    )
    decision = config.decision
    if decision.knowledge_base is not None:
        if knowledge is not None:
            raise OptionError(
                "knowledge",
                type(knowledge).__name__,
                "a knowledge layer or a knowledge base in the config, not both",
                "Give the knowledge base to the layer: KnowledgeLayer(knowledge_base=...).",
            )
        knowledge = KnowledgeLayer(knowledge_base=KnowledgeBase.from_file(decision.knowledge_base))
    consistency = None
    if "consistency" in decision.layers and chat is not None:
        consistency = ConsistencyLayer(
            chat, scorer, samples=decision.samples, decoding=Decoding(decision.temperature)
        )
    # The consistency layer holds the chat model it samples; the rest is given it only where
    # it writes the claims or the questions, so that a chat model nothing uses stays an error.
    writes = config.claims.method == "llm" or config.evidence.query == "question"
    return make_answer_verifier(
        scorer,
        config,
        retriever=retriever if retriever is not None or sources else _retriever(config),
        sources=sources or _sources(config),
        chat=chat if consistency is None or writes else None,
        knowledge=knowledge,
        consistency=consistency,
        spans=None if config.models.spans is None else models.spans(config.models.spans),
    )


def _retriever(config: VerifyConfig) -> Retriever | None:
    """The retriever of the index the config names, if any."""
    if config.evidence.index is None:
        return None
    from veracity.retrieve.open import open_retriever

    return open_retriever(config.evidence.index, mode=config.evidence.mode)


def _sources(config: VerifyConfig) -> tuple[Chunk, ...]:
    """The passages of the source files the config names, if any."""
    if not config.evidence.sources:
        return ()
    from veracity.verify.gather import source_chunks, source_documents

    return source_chunks(source_documents(config.evidence.sources))
