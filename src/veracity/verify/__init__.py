"""The answer pipeline: check any answer claim by claim (the pair verifiers it stands on are in
:mod:`veracity.models.pairs`; ``PairScorer`` and ``make_verifier`` are re-exported here).

:func:`open_answer_verifier` makes the pipeline as a :class:`~veracity.config.VerifyConfig`
says (see :mod:`veracity.verify.open`); :func:`make_answer_verifier` composes parts you made
yourself.

>>> from veracity.config import VerifyConfig
>>> from veracity.models import Models
>>> from veracity.verify import open_answer_verifier
>>> config = VerifyConfig().with_options(sources=["notes.md"])
>>> report = open_answer_verifier(config, Models()).run(
...     "Honey bees dance to share where food is.")                  # doctest: +SKIP
>>> report.summary                                                    # doctest: +SKIP
{'claims': 1, 'supported': 1, 'contradicted': 0, 'unsupported': 0, 'skipped': 0, ...}
"""

from veracity.models.pairs.base import PairScorer, check_pairs
from veracity.models.pairs.registry import make_verifier
from veracity.rules import KnowledgeBase, KnowledgeLayer, KnowledgeResult
from veracity.verify.claims import ClaimExtractor
from veracity.verify.consistency import ConsistencyLayer, ConsistencyResult, inconsistency
from veracity.verify.gather import (
    ClaimEvidence,
    EvidenceGatherer,
    EvidenceSet,
    source_chunks,
    source_documents,
)
from veracity.verify.nli import AGGREGATIONS, NLILayer, NLIResult, aggregate_support
from veracity.verify.open import open_answer_verifier
from veracity.verify.pipeline import CLAIM_METHODS, LAYERS, AnswerVerifier, make_answer_verifier
from veracity.verify.questions import QUERY_MODES, QueryMaker, rule_question
from veracity.verify.rules import RULES, LayerCombiner, LayerWeights, fit_layer_weights
from veracity.verify.stream import StreamedSentence, StreamVerifier

__all__ = [
    "AGGREGATIONS",
    "CLAIM_METHODS",
    "LAYERS",
    "QUERY_MODES",
    "RULES",
    "AnswerVerifier",
    "ClaimEvidence",
    "ClaimExtractor",
    "ConsistencyLayer",
    "ConsistencyResult",
    "EvidenceGatherer",
    "EvidenceSet",
    "KnowledgeBase",
    "KnowledgeLayer",
    "KnowledgeResult",
    "LayerCombiner",
    "LayerWeights",
    "NLILayer",
    "NLIResult",
    "PairScorer",
    "QueryMaker",
    "StreamVerifier",
    "StreamedSentence",
    "aggregate_support",
    "check_pairs",
    "fit_layer_weights",
    "inconsistency",
    "make_answer_verifier",
    "make_verifier",
    "open_answer_verifier",
    "rule_question",
    "source_chunks",
    "source_documents",
]
