"""Retrieval metrics on one ranked list: nDCG@k with graded gains, and recall@k.

Both follow trec_eval's definitions: the gain of a document is its relevance grade (linear gain,
trec_eval's default for ``ndcg_cut``), discounted by ``log2(rank + 1)``, and the ideal ranking
orders every judged document by grade. Unjudged documents and grades of 0 or less gain nothing.
The ranking is taken in the order given (trec_eval would re-sort by score and break ties by
document id), and a query without a relevant document scores 0.0, as trec_eval does with ``-c``.

>>> ndcg_at_k(["d1", "d2"], {"d1": 2, "d2": 0, "d3": 1}, 10)
0.7601875334318685
>>> recall_at_k(["d1", "d2"], {"d1": 2, "d2": 0, "d3": 1}, 10)
0.5
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

from veracity.errors import InputError, OptionError

__all__ = ["dcg", "ndcg_at_k", "recall_at_k"]


def _check(ranked_ids: Sequence[str], k: int) -> None:
    if isinstance(k, bool) or not isinstance(k, int) or k < 1:
        raise OptionError("k", k, "an integer of 1 or more (the rank cut-off)")
    if isinstance(ranked_ids, str):
        raise InputError("ranked_ids must be a sequence of document ids, not one string")
    seen: set[str] = set()
    for doc in ranked_ids:
        if doc in seen:
            raise InputError(f"document {doc!r} appears twice in the ranking; rank each once")
        seen.add(doc)


def dcg(gains: Sequence[float]) -> float:
    """Discounted cumulative gain of ``gains`` in rank order: sum of gain / log2(rank + 1).

    >>> dcg([3, 2])
    4.2618595071429155
    """
    return sum(gain / math.log2(rank + 1) for rank, gain in enumerate(gains, start=1) if gain > 0)


def ndcg_at_k(ranked_ids: Sequence[str], qrels: Mapping[str, int], k: int) -> float:
    """nDCG@k of ``ranked_ids`` (best first) against graded ``qrels`` (document id -> grade).

    >>> ndcg_at_k(["a", "b"], {"a": 1, "b": 2}, 2)
    0.8597186998521972
    """
    _check(ranked_ids, k)
    ideal = dcg(sorted((max(grade, 0) for grade in qrels.values()), reverse=True)[:k])
    if ideal == 0:
        return 0.0
    return dcg([max(qrels.get(doc, 0), 0) for doc in ranked_ids[:k]]) / ideal


def recall_at_k(
    ranked_ids: Sequence[str], qrels: Mapping[str, int], k: int, *, min_grade: int = 1
) -> float:
    """Share of the relevant documents (grade >= ``min_grade``) found in the first ``k``.

    >>> recall_at_k(["a", "x"], {"a": 1, "b": 2, "c": 0}, 2)
    0.5
    """
    _check(ranked_ids, k)
    if isinstance(min_grade, bool) or not isinstance(min_grade, int) or min_grade < 1:
        raise OptionError("min_grade", min_grade, "an integer of 1 or more")
    relevant = {doc for doc, grade in qrels.items() if grade >= min_grade}
    if not relevant:
        return 0.0
    return len(relevant.intersection(ranked_ids[:k])) / len(relevant)
