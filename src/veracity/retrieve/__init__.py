"""Retrieval: BM25 (bm25s), dense (shipped MiniLM ONNX, or its static distillation), hybrid RRF
fusion, their builders, and reranking of any of them by a cross-encoder.

>>> from veracity.retrieve import open_retriever       # doctest: +SKIP
>>> open_retriever("my-index", mode="bm25").run("eclipse", k=3).hits  # doctest: +SKIP
"""

from veracity.models.embedding import (
    EMBEDDER_NAMES,
    Embedder,
    Embeddings,
    StaticEmbedder,
    make_embedder,
)
from veracity.retrieve.base import Retriever
from veracity.retrieve.bm25 import BM25Builder, BM25Retriever
from veracity.retrieve.dense import DenseBuilder, DenseRetriever
from veracity.retrieve.hybrid import HybridRetriever, reciprocal_rank_fusion
from veracity.retrieve.open import FallbackRetriever, open_retriever
from veracity.retrieve.rerank import RerankingRetriever

__all__ = [
    "EMBEDDER_NAMES",
    "BM25Builder",
    "BM25Retriever",
    "DenseBuilder",
    "DenseRetriever",
    "Embedder",
    "Embeddings",
    "FallbackRetriever",
    "HybridRetriever",
    "RerankingRetriever",
    "Retriever",
    "StaticEmbedder",
    "make_embedder",
    "open_retriever",
    "reciprocal_rank_fusion",
]
