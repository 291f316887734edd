"""The reranker's validation figures: mean reciprocal rank per query, ties against the model."""

import numpy as np
import pytest

from veracity_training.relevance import ranking_figures

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


def test_query_batches_hold_whole_queries_in_a_seeded_order() -> None:
    from veracity_training.relevance import query_batches

    queries = [f"q{i // 5}" for i in range(50)]  # ten queries of five candidates
    batches = query_batches(queries, batch_size=15, steps=8, seed=3)
    # an epoch: three batches of three whole queries, and a short one with the tenth
    assert [len(batch) for batch in batches] == [15, 15, 15, 5] * 2
    for batch in batches:
        for first in range(0, len(batch), 5):
            assert len({queries[i] for i in batch[first : first + 5]}) == 1
    assert sorted(i for batch in batches[:4] for i in batch) == list(range(50))
    assert batches == query_batches(queries, batch_size=15, steps=8, seed=3)
    assert batches != query_batches(queries, batch_size=15, steps=8, seed=4)


def test_listwise_loss_is_low_when_the_relevant_passage_leads_its_query() -> None:
    torch = pytest.importorskip("torch")
    from veracity_training.relevance import listwise_loss

    labels = torch.tensor([1, 0, 0, 1, 0])
    queries = ["a", "a", "a", "b", "b"]
    good = listwise_loss(torch, torch.tensor([[5.0], [0.0], [0.0], [4.0], [-1.0]]), labels, queries)
    bad = listwise_loss(torch, torch.tensor([[0.0], [5.0], [0.0], [-1.0], [4.0]]), labels, queries)
    assert float(good) < 0.05 < 4.0 < float(bad)
    # a query with only relevant (or only irrelevant) candidates adds nothing
    alone = listwise_loss(torch, torch.tensor([[1.0], [2.0]]), torch.tensor([1, 1]), ["c", "c"])
    assert float(alone) == 0.0
