"""nDCG@k and recall@k on hand-computed cases (trec_eval definitions, linear gain)."""

from __future__ import annotations

import math

import pytest

from veracity.errors import InputError, OptionError
from veracity.evaluate.retrieval import dcg, ndcg_at_k, recall_at_k

pytestmark = pytest.mark.unit

L3 = math.log2(3)  # discount at rank 2
L4 = 2.0  # discount at rank 3


def test_perfect_ranking_scores_one():
    assert ndcg_at_k(["a", "b", "c"], {"a": 2, "b": 1, "c": 0}, 10) == pytest.approx(1.0)


def test_graded_gains_by_hand():
    qrels = {"a": 2, "b": 1, "c": 2, "z": 0}
    # ranking b, x (unjudged), a  ->  DCG = 1/1 + 0 + 2/log2(4)
    # ideal a|c, a|c, b           ->  IDCG = 2/1 + 2/log2(3) + 1/log2(4)
    expected = (1 + 2 / L4) / (2 + 2 / L3 + 1 / L4)
    assert ndcg_at_k(["b", "x", "a"], qrels, 10) == pytest.approx(expected)


def test_cut_off_applies_to_the_ranking_and_the_ideal():
    qrels = {"a": 1, "b": 1, "c": 1}
    # @2: ranking x, a -> DCG = 1/log2(3); ideal has two relevant docs -> 1 + 1/log2(3)
    assert ndcg_at_k(["x", "a", "b"], qrels, 2) == pytest.approx((1 / L3) / (1 + 1 / L3))


def test_nothing_relevant_scores_zero():
    assert ndcg_at_k(["a"], {"a": 0, "b": -1}, 10) == 0.0
    assert ndcg_at_k(["a"], {}, 10) == 0.0
    assert ndcg_at_k([], {"a": 1}, 10) == 0.0
    assert recall_at_k(["a"], {"a": 0}, 10) == 0.0


def test_negative_grades_gain_nothing():
    assert ndcg_at_k(["n", "a"], {"n": -2, "a": 1}, 10) == pytest.approx(1 / L3)


def test_dcg_by_hand():
    assert dcg([3, 2, 0, 1]) == pytest.approx(3 + 2 / L3 + 1 / math.log2(5))
    assert dcg([]) == 0.0


def test_recall_by_hand():
    qrels = {"a": 2, "b": 1, "c": 1, "d": 0}
    assert recall_at_k(["a", "x", "c", "b"], qrels, 3) == pytest.approx(2 / 3)
    assert recall_at_k(["a", "x", "c", "b"], qrels, 10) == pytest.approx(1.0)
    assert recall_at_k(["a", "x", "c", "b"], qrels, 3, min_grade=2) == pytest.approx(1.0)
    assert recall_at_k(["d"], qrels, 1) == 0.0


@pytest.mark.parametrize("k", [0, -1, 1.5, True])
def test_bad_k(k):
    with pytest.raises(OptionError, match="k="):
        ndcg_at_k(["a"], {"a": 1}, k)
    with pytest.raises(OptionError, match="k="):
        recall_at_k(["a"], {"a": 1}, k)


def test_bad_rankings():
    with pytest.raises(InputError, match="twice"):
        ndcg_at_k(["a", "b", "a"], {"a": 1}, 10)
    with pytest.raises(InputError, match="one string"):
        ndcg_at_k("abc", {"a": 1}, 10)
    with pytest.raises(OptionError, match="min_grade="):
        recall_at_k(["a"], {"a": 1}, 5, min_grade=0)
