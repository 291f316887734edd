"""LlamaIndex: a node postprocessor that reranks with a veracity reranker, and an evaluator that
judges a response claim by claim against its contexts (extra ``veracity[llamaindex]``).

>>> from veracity.adapters.llamaindex import VeracityEvaluator, VeracityReranker  # doctest: +SKIP
>>> engine = index.as_query_engine(                                           # doctest: +SKIP
...     node_postprocessors=[VeracityReranker(top_n=3)])
>>> result = VeracityEvaluator().evaluate_response(                           # doctest: +SKIP
...     query=q, response=engine.query(q))
>>> result.passing, result.score, print(result.feedback)                      # doctest: +SKIP

The evaluator's ``score`` is the share of supported claims, ``passing`` the
:class:`~veracity.verify.grounding.GroundingCheck` decision, and ``feedback`` one line per claim
(label, scores, the evidence span).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from llama_index.core.evaluation import BaseEvaluator, EvaluationResult
from llama_index.core.postprocessor.types import BaseNodePostprocessor
from llama_index.core.prompts.mixin import PromptDictType, PromptMixinType
from llama_index.core.schema import NodeWithScore, QueryBundle

from veracity import defaults
from veracity.adapters.passages import Foreign, passages
from veracity.adapters.scorers import reranker_of, scorer_of
from veracity.errors import InputError
from veracity.models.pairs.base import PairScorer
from veracity.verify.grounding import GroundingCheck, GroundingMode, check_options

__all__ = ["VeracityEvaluator", "VeracityReranker"]


class VeracityReranker(BaseNodePostprocessor):
    """Orders nodes by a veracity reranker's logit (the node's new score); keeps ``top_n``."""

    top_n: int = 5
    #: a reranker's name (``embedded``, ``cosine``, ``hf:MODEL``) or any ``RelevanceScorer``
    reranker: Any = defaults.RERANKER

    @classmethod
    def class_name(cls) -> str:
        return "VeracityReranker"

    def _postprocess_nodes(
        self, nodes: list[NodeWithScore], query_bundle: QueryBundle | None = None
    ) -> list[NodeWithScore]:
        if query_bundle is None:
            raise InputError(
                "VeracityReranker needs the query: call it with query_bundle=... "
                "(a query engine passes it)"
            )
        if not nodes:
            return []
        texts = [node.node.get_content() for node in nodes]
        scores = reranker_of(self.reranker).run(query_bundle.query_str, texts)
        ranked = sorted(
            zip(scores.logits(), range(len(nodes)), strict=True),
            key=lambda pair: (-pair[0], pair[1]),
        )
        return [NodeWithScore(node=nodes[i].node, score=logit) for logit, i in ranked[: self.top_n]]


class VeracityEvaluator(BaseEvaluator):
    """Judges a response against its contexts claim by claim (see the module docstring)."""

    def __init__(
        self,
        *,
        verifier: str | PairScorer = defaults.VERIFIER,
        mode: GroundingMode = "supported",
        threshold: float = 1.0,
    ) -> None:
        self.verifier = verifier
        self.mode, self.threshold = check_options(mode, threshold)

    def _get_prompts(self) -> PromptDictType:
        return {}

    def _get_prompt_modules(self) -> PromptMixinType:
        return {}

    def _update_prompts(self, prompts: PromptDictType) -> None:
        """The evaluator has no prompts to update."""

    async def aevaluate(
        self,
        query: str | None = None,
        response: str | None = None,
        contexts: Sequence[str] | None = None,
        **kwargs: Any,
    ) -> EvaluationResult:
        if not isinstance(response, str) or not contexts:
            raise InputError(
                "VeracityEvaluator needs the response text and its contexts "
                "(evaluate_response passes both)"
            )
        sources = passages(
            [
                Foreign(text, {}, f"context-{number}")
                for number, text in enumerate(contexts, start=1)
            ]
        )
        grounding = GroundingCheck(
            scorer_of(self.verifier), mode=self.mode, threshold=self.threshold
        ).run(response, sources, question=query)
        return EvaluationResult(
            query=query,
            response=response,
            contexts=list(contexts),
            passing=grounding.passed,
            score=grounding.supported_share,
            feedback=grounding.explain(every_claim=True),
        )
