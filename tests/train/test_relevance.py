"""The reranker's validation figures: mean reciprocal rank per query, ties against the model."""

import numpy as np
import pytest

from veracity.train.relevance import ranking_figures

pytestmark = pytest.mark.unit


def test_mrr_is_the_rank_of_the_relevant_passage_per_query() -> None:
    scores = np.array([0.1, 0.9, 0.5, 3.0, -2.0])
    labels = np.array([1, 0, 0, 1, 0])
    figures = ranking_figures(scores, labels, ["a", "a", "a", "b", "b"])
    assert figures["val_mrr"] == pytest.approx((1 / 3 + 1) / 2)
    assert figures["val_ranked_queries"] == 2
    assert figures["val_accuracy"] == pytest.approx(3 / 5)


def test_a_constant_scorer_is_not_perfect() -> None:
    figures = ranking_figures(np.zeros(4), np.array([1, 0, 1, 0]), ["a", "a", "b", "b"])
    assert figures["val_mrr"] == pytest.approx(0.5)
    assert figures["val_auc"] == pytest.approx(0.5)


def test_queries_without_a_negative_are_not_ranked() -> None:
    figures = ranking_figures(np.array([1.0, 0.0, 2.0]), np.array([1, 0, 1]), ["a", "a", "b"])
    assert figures["val_ranked_queries"] == 1
