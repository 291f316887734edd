"""Relevance scorers (rerankers): the ``RelevanceScorer`` protocol, veracity's own int8 ONNX
cross-encoder, Hugging Face cross-encoders, and pair verifiers read as relevance.

They read long passages in the pair scorers' windows (``veracity.models.pairs``);
``retrieve.rerank.RerankingRetriever`` and answer evolution use them.

>>> from veracity.models.relevance import make_reranker
>>> make_reranker("hf:cross-encoder/ms-marco-MiniLM-L-6-v2").model_id
'cross-encoder/ms-marco-MiniLM-L-6-v2'
"""

from veracity.models.relevance.base import RelevanceScorer
from veracity.models.relevance.registry import RERANKERS, make_reranker

__all__ = ["RERANKERS", "RelevanceScorer", "make_reranker"]
