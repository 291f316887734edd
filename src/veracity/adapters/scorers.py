"""The verifiers and rerankers the adapters use: by name, loaded once per process and name, or
given as objects (any ``PairScorer`` or ``RelevanceScorer``, a test's fake included)."""

from __future__ import annotations

from functools import cache
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # imported lazily: the pytest plugin loads this module in every session
    from veracity.models.pairs.base import PairScorer
    from veracity.models.relevance.base import RelevanceScorer

__all__ = ["loaded_reranker", "loaded_scorer", "reranker_of", "scorer_of"]


@cache
def loaded_scorer(name: str) -> PairScorer:
    """The pair verifier ``name`` (``embedded``, ``lexical``, ``hf:MODEL``...), loaded."""
    from veracity.models.pairs.registry import make_verifier

    return make_verifier(name).load()


@cache
def loaded_reranker(name: str) -> RelevanceScorer:
    """The reranker ``name`` (``embedded``, ``cosine``, ``hf:MODEL``...), loaded."""
    from veracity.models.relevance.registry import make_reranker

    return make_reranker(name).load()


def scorer_of(verifier: str | PairScorer) -> PairScorer:
    """``verifier`` loaded: by name through :func:`loaded_scorer`, or the object itself."""
    return loaded_scorer(verifier) if isinstance(verifier, str) else verifier.load()


def reranker_of(reranker: str | RelevanceScorer) -> RelevanceScorer:
    """``reranker`` loaded: by name through :func:`loaded_reranker`, or the object itself."""
    return loaded_reranker(reranker) if isinstance(reranker, str) else reranker.load()
