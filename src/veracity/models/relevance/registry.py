"""Rerankers by name, as ``--reranker`` spells them.

- ``embedded``: veracity's own cross-encoder (shipped, int8 ONNX);
- ``hf:<model>``: a Hugging Face one-logit cross-encoder by hub id or local folder (extra
  ``[hf]``; local files only), e.g. ``hf:cross-encoder/ms-marco-MiniLM-L-6-v2``;
- ``verifier``: the shipped verifier's P(supported) of the query by the passage;
- ``cosine``: the embedding cosine of query and passage windows (a similarity, not a probability).

>>> make_reranker("embedded").model_id
'veracity-reranker'
"""

from __future__ import annotations

from veracity import defaults
from veracity.errors import OptionError
from veracity.models.relevance.base import RelevanceScorer

__all__ = ["RERANKERS", "make_reranker"]

RERANKERS = ("embedded", "verifier", "cosine")


def make_reranker(name: str, *, threads: int = defaults.ONNX_THREADS) -> RelevanceScorer:
    """A reranker from its name (see the module docstring); raises OptionError if unknown."""
    if name.startswith("hf:") and name[3:].strip():
        from veracity.models.relevance.hf import HFReranker

        return HFReranker(name[3:])
    if name == "embedded":
        from veracity.models.relevance.shipped import EmbeddedReranker

        return EmbeddedReranker(threads=threads)
    if name in ("verifier", "cosine"):
        from veracity.models.pairs.registry import make_verifier
        from veracity.models.relevance.support import SupportRelevance

        return SupportRelevance(
            make_verifier("embedded" if name == "verifier" else "cosine", threads=threads)
        )
    raise OptionError("reranker", name, f"one of {', '.join(RERANKERS)}, or hf:<model>")
