"""A pair verifier read as a relevance scorer: how well does the passage support the query?

The cheap alternative to a trained reranker: the shipped verifier's P(supported) of the query's
content by the passage (``verifier``), or the embedding cosine of the similarity baseline
(``cosine``, a similarity in [0, 1] rather than a probability). The logit is
``log(p / (1 - p))`` of that value, so it ranks as the value does.

>>> from veracity.testing import TablePairScorer
>>> scorer = SupportRelevance(TablePairScorer({("Bees dance.", "bee dance"): (0.9, 0.0, 0.1)}))
>>> round(scorer.run("bee dance", ["Bees dance.", "Ants march."]).scores[0].relevance, 2)
0.9
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from veracity.errors import ModelError
from veracity.models.pairs.base import PairScorer
from veracity.models.relevance.base import check_passages
from veracity.types import RelevanceScore, RelevanceScores

__all__ = ["SupportRelevance"]

#: P(supported) is clipped to [EPSILON, 1 - EPSILON] so that its logit stays finite.
EPSILON = 1e-6


class SupportRelevance:
    """``scorer``'s P(supported) of (passage, query) as the relevance of the passage."""

    def __init__(self, scorer: PairScorer) -> None:
        self.scorer = scorer
        self.model_id = f"support:{scorer.model_id}"

    def load(self) -> SupportRelevance:
        self.scorer.load()
        self.model_id = f"support:{self.scorer.model_id}"
        return self

    def run(self, query: str, passages: Sequence[str]) -> RelevanceScores:
        query, texts = check_passages(query, passages)
        pairs = self.scorer.run(texts, [query] * len(texts))
        scores = []
        for i, score in enumerate(pairs.scores):
            if score.error is not None:
                raise ModelError(
                    f"{self.scorer.model_id} could not score passage {i} for the "
                    f"query: {score.error}"
                )
            p = min(max(score.supported, EPSILON), 1.0 - EPSILON)
            scores.append(RelevanceScore(math.log(p / (1.0 - p)), score.window, score.windows))
        return RelevanceScores(query, tuple(scores), self.model_id, pairs.model_version)
