"""Shared retrieval helpers: top-k selection, query and k checks."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from veracity.errors import InputError, OptionError
from veracity.retrieve.base import check_k, check_query, top_k

pytestmark = pytest.mark.unit


def test_top_k_orders_best_first():
    scores = np.array([0.1, 0.9, 0.5, 0.7], dtype=np.float32)
    assert top_k(scores, 3).tolist() == [1, 3, 2]


def test_top_k_breaks_ties_by_ordinal_even_at_the_cut():
    scores = np.array([1.0, 2.0, 1.0, 2.0, 1.0])
    assert top_k(scores, 3).tolist() == [1, 3, 0]
    assert top_k(scores, 4).tolist() == [1, 3, 0, 2]


def test_top_k_clamps_and_filters():
    scores = np.array([0.0, 3.0, 0.0, 1.0])
    assert top_k(scores, 10).tolist() == [1, 3, 0, 2]
    assert top_k(scores, 10, above=0.0).tolist() == [1, 3]
    assert top_k(scores, 1, above=0.0).tolist() == [1]
    assert top_k(scores, 3, above=0.0).tolist() == [1, 3]
    assert top_k(np.zeros(0), 5).tolist() == []


@given(st.lists(st.integers(-3, 3), max_size=40), st.integers(1, 50))
def test_top_k_equals_a_full_stable_sort(values, k):
    scores = np.array(values, dtype=np.float64)
    expected = sorted(range(len(values)), key=lambda i: (-values[i], i))[:k]
    assert top_k(scores, k).tolist() == expected


@given(st.lists(st.integers(-3, 3), max_size=40), st.integers(1, 50))
def test_top_k_above_keeps_the_best_positive(values, k):
    scores = np.array(values, dtype=np.float64)
    positive = sorted(
        (i for i in range(len(values)) if values[i] > 0), key=lambda i: (-values[i], i)
    )
    assert top_k(scores, k, above=0.0).tolist() == positive[:k]


def test_check_query():
    assert check_query(" hi ") == " hi "
    with pytest.raises(InputError, match="empty"):
        check_query(" ")
    with pytest.raises(InputError, match="string"):
        check_query(None)


def test_check_k():
    assert check_k(np.int64(3)) == 3
    for bad in (0, -2, 1.0, False):
        with pytest.raises(OptionError, match="k="):
            check_k(bad)
    with pytest.raises(OptionError, match=r"^k is needed: an integer of 1 or more"):
        check_k(None)


def test_public_api_is_pinned():
    import veracity.retrieve as retrieve

    assert sorted(retrieve.__all__) == [
        "Abstainer",
        "BM25Builder",
        "BM25Retriever",
        "Calibration",
        "ConfidenceSignal",
        "DefaultThreshold",
        "DenseBuilder",
        "DenseRetriever",
        "EMBEDDER_NAMES",
        "Embedder",
        "Embeddings",
        "FallbackRetriever",
        "HybridRetriever",
        "IndexSearch",
        "RANK_ONLY",
        "RerankingRetriever",
        "Retriever",
        "SIGNALS",
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
    assert all(hasattr(retrieve, name) for name in retrieve.__all__)
