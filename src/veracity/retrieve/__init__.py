"""Retrieval: BM25 (bm25s), dense (shipped MiniLM ONNX, or its static distillation), hybrid RRF
fusion, their builders, reranking of any of them by a cross-encoder, abstention on weak
retrieval with its per-index calibration, and :func:`open_search`, which opens an index as a
search config says.

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
from veracity.retrieve.abstain import (
    RANK_ONLY,
    SIGNALS,
    Abstainer,
    ConfidenceSignal,
    SignalReading,
    make_signal,
    question_content,
)
from veracity.retrieve.base import Retriever
from veracity.retrieve.bm25 import BM25Builder, BM25Retriever
from veracity.retrieve.calibration import (
    Calibration,
    DefaultThreshold,
    StaleCalibrationError,
    StoredCalibration,
    ThresholdPoint,
    calibrate,
    default_threshold,
    load_calibration,
    read_calibration,
    save_calibration,
)
from veracity.retrieve.dense import DenseBuilder, DenseRetriever
from veracity.retrieve.hybrid import HybridRetriever, reciprocal_rank_fusion
from veracity.retrieve.open import FallbackRetriever, open_retriever
from veracity.retrieve.rerank import RerankingRetriever
from veracity.retrieve.search import IndexSearch, open_search

__all__ = [
    "EMBEDDER_NAMES",
    "RANK_ONLY",
    "SIGNALS",
    "Abstainer",
    "BM25Builder",
    "BM25Retriever",
    "Calibration",
    "ConfidenceSignal",
    "DefaultThreshold",
    "DenseBuilder",
    "DenseRetriever",
    "Embedder",
    "Embeddings",
    "FallbackRetriever",
    "HybridRetriever",
    "IndexSearch",
    "RerankingRetriever",
    "Retriever",
    "SignalReading",
    "StaleCalibrationError",
    "StaticEmbedder",
    "StoredCalibration",
    "ThresholdPoint",
    "calibrate",
    "default_threshold",
    "load_calibration",
    "make_embedder",
    "make_signal",
    "open_retriever",
    "open_search",
    "question_content",
    "read_calibration",
    "reciprocal_rank_fusion",
    "save_calibration",
]
