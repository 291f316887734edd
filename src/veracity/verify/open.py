"""Open an answer verifier: the one place where ``verify``'s settings meet its parts.

:func:`open_answer_verifier` is what ``veracity verify`` and the service's ``/v1/verify`` run.
The settings (:class:`AnswerVerifierSettings`) are checked when they are made, conflicts
between them included; the parts come in made: the verifier, the evidence (an index's
retriever or source passages), the chat model, if any, and the span detector, if any
(:class:`veracity.models.Models` makes them by the names users give). From the settings it
makes the layers (the knowledge layer over a knowledge base, the consistency layer over the
chat model) and the layer rule, and :func:`~veracity.verify.pipeline.make_answer_verifier`
composes them.

>>> from veracity.testing import TablePairScorer
>>> from veracity.types import Chunk
>>> source = Chunk("bees.md#0", "bees.md", 0, "Honey bees dance.", 0, 17)
>>> scorer = TablePairScorer({("Honey bees dance.", "Honey bees dance."): (0.9, 0.0, 0.1)})
>>> verifier = open_answer_verifier(scorer, sources=[source],
...                                 settings=AnswerVerifierSettings(layers=("nli",)))
>>> verifier.run("Honey bees dance.").summary["supported"]
1
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from veracity import defaults
from veracity.defaults import Aggregation, EvidenceWindow
from veracity.errors import InputError, OptionError, check_choice
from veracity.models.chat.base import ChatModel
from veracity.models.pairs.base import PairScorer, SpanDetector
from veracity.retrieve.base import Retriever
from veracity.rules import KnowledgeBase, KnowledgeLayer
from veracity.types import Chunk
from veracity.verify.consistency import ConsistencyLayer
from veracity.verify.nli import WINDOWS
from veracity.verify.pipeline import (
    CLAIM_METHODS,
    AnswerVerifier,
    ClaimMethod,
    check_layers,
    make_answer_verifier,
)
from veracity.verify.questions import QUERY_MODES, QueryMode
from veracity.verify.rules import RULES, LayerCombiner, LayerWeights

__all__ = ["AnswerVerifierSettings", "open_answer_verifier"]


@dataclass(frozen=True)
class AnswerVerifierSettings:
    """How an answer is verified (the options of ``veracity verify``).

    ``layers``: the detection layers that decide (``nli``, ``knowledge``, ``consistency``; a
    string is split at commas), in the order a ``cascade`` reads them; ``rule``: how their
    findings combine (``any``, ``all``, ``cascade``, ``logistic``), ``weights`` the fitted
    :class:`~veracity.verify.rules.LayerWeights` (or their file) that ``logistic`` needs;
    ``knowledge_base``: facts the knowledge layer cross-checks, a
    :class:`~veracity.rules.KnowledgeBase` or its CSV or JSON file (only with that
    layer); ``claims``: claims made by ``rules`` or by the chat model (``llm``), split into
    parts (``decompose``) and made to stand alone (``decontextualize``); ``query``: each
    claim's retrieval query is the claim or a question made from it; ``k`` passages per
    claim; ``tau``: the P(supported) a claim must reach; ``window``: what the verifier reads
    per claim (see :mod:`veracity.verify.nli`) and ``aggregation`` how its readings of several
    passages combine; ``samples`` answers at ``temperature`` for the consistency layer.

    >>> AnswerVerifierSettings(layers="nli, knowledge").layers
    ('nli', 'knowledge')
    >>> AnswerVerifierSettings(layers=("nli",), knowledge_base="facts.csv")
    Traceback (most recent call last):
    ...
    veracity.errors.InputError: --kb facts.csv is read by the knowledge layer: add knowledge to \
--layers (now nli)
    """

    layers: Sequence[str] = defaults.VERIFY_LAYERS
    rule: str = defaults.VERIFY_RULE
    weights: LayerWeights | str | Path | None = None
    knowledge_base: KnowledgeBase | str | Path | None = None
    claims: ClaimMethod = "rules"
    decompose: bool = True
    decontextualize: bool = True
    query: QueryMode = "claim"
    k: int = defaults.VERIFY_TOP_K
    tau: float = defaults.VERIFY_TAU
    window: EvidenceWindow | None = None
    aggregation: Aggregation = defaults.VERIFY_AGGREGATION
    samples: int = defaults.CONSISTENCY_SAMPLES
    temperature: float = defaults.CONSISTENCY_TEMPERATURE

    def __post_init__(self) -> None:
        given = self.layers if isinstance(self.layers, str) else ",".join(self.layers)
        object.__setattr__(self, "layers", check_layers(self.layers))
        check_choice("rule", self.rule, RULES)
        check_choice("claims", self.claims, CLAIM_METHODS)
        check_choice("query", self.query, QUERY_MODES)
        if self.window is not None:
            check_choice("window", self.window, WINDOWS)
        if self.knowledge_base is not None and "knowledge" not in self.layers:
            raise InputError(
                f"--kb {self.knowledge_base} is read by the knowledge layer: add "
                f"knowledge to --layers (now {given})"
            )


def open_answer_verifier(
    scorer: PairScorer,
    *,
    retriever: Retriever | None = None,
    sources: Sequence[Chunk] = (),
    chat: ChatModel | None = None,
    knowledge: KnowledgeLayer | None = None,
    spans: SpanDetector | None = None,
    settings: AnswerVerifierSettings = AnswerVerifierSettings(),
) -> AnswerVerifier:
    """An :class:`~veracity.verify.pipeline.AnswerVerifier` as ``settings`` say.

    ``scorer`` judges every (passage, claim) pair; the evidence comes from ``retriever``, from
    ``sources`` (passages, see :func:`~veracity.verify.gather.source_chunks`), or only from
    what the answer cites. ``chat`` writes the claims (``claims="llm"``), the retrieval
    questions (``query="question"``) and the consistency layer's samples; asking for any of
    these without one, or giving one that nothing uses, is an error. ``knowledge`` is a
    knowledge layer already loaded (the service loads its NER once), in place of the one the
    settings make; ``spans`` adds each claim's ``unsupported_spans``. Reads the files the
    settings name (the knowledge base, the layer weights).
    """
    layers = tuple(settings.layers)
    if settings.knowledge_base is not None:
        if knowledge is not None:
            raise OptionError(
                "knowledge",
                type(knowledge).__name__,
                "a knowledge layer or a knowledge base in the settings, not both",
                "Give the knowledge base to the layer: KnowledgeLayer(knowledge_base=...).",
            )
        base = settings.knowledge_base
        if not isinstance(base, KnowledgeBase):
            base = KnowledgeBase.from_file(base)
        knowledge = KnowledgeLayer(knowledge_base=base)
    consistency = None
    if "consistency" in layers and chat is not None:
        consistency = ConsistencyLayer(
            chat, scorer, samples=settings.samples, temperature=settings.temperature
        )
    # The consistency layer holds the chat model it samples; the rest is given it only where
    # it writes the claims or the questions, so that a chat model nothing uses stays an error.
    writes = settings.claims == "llm" or settings.query == "question"
    weights = settings.weights
    combiner = LayerCombiner(
        settings.rule,
        order=layers,
        tau=settings.tau,
        weights=LayerWeights.load(weights) if isinstance(weights, str | Path) else weights,
    )
    return make_answer_verifier(
        scorer,
        retriever=retriever,
        sources=sources,
        layers=layers,
        rule=combiner,
        chat=chat if consistency is None or writes else None,
        claims=settings.claims,
        query=settings.query,
        knowledge=knowledge,
        consistency=consistency,
        k=settings.k,
        aggregation=settings.aggregation,
        tau=settings.tau,
        decompose=settings.decompose,
        decontextualize=settings.decontextualize,
        window=settings.window,
        spans=spans,
    )
