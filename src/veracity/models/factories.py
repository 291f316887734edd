"""How the commands and the service make their models, by the names users give them.

:class:`Models` holds four factories: ``verifier(name)`` (``--verifier``, see
:func:`veracity.models.pairs.registry.make_verifier`), ``chat(spec, model)`` (``--llm`` and
``--model`` when they name a chat model, see :func:`veracity.models.chat.registry.make_chat`;
``--llm extractive`` is no model, see :func:`veracity.generate.writers.make_writer`),
``reranker(name)`` (``--reranker``, see
:func:`veracity.models.relevance.registry.make_reranker`) and ``spans(name)`` (``--spans``, see
:func:`veracity.models.pairs.registry.make_span_detector`). The CLI (``build_app``) and the
service (``ServerSettings.models``) take one, so tests pass fakes to both.

>>> from veracity.testing import TablePairScorer
>>> Models(verifier=lambda name: TablePairScorer({})).verifier("embedded").model_id
'table'
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

# The registry of verifier names, for --verifier's help (a light import: the factories load
# their models lazily).
from veracity.models.pairs.registry import VERIFIERS

if TYPE_CHECKING:
    from veracity.models.chat.base import ChatModel
    from veracity.models.pairs.base import PairScorer, SpanDetector
    from veracity.models.relevance.base import RelevanceScorer

__all__ = ["VERIFIERS", "Models"]


def _make_chat(spec: str, model: str | None) -> ChatModel:
    """The chat model of ``--llm``/``--model``."""
    from veracity.models.chat.registry import make_chat

    return make_chat(spec, model=model)


def _make_verifier(name: str) -> PairScorer:
    """The verifier of ``--verifier``."""
    from veracity.models.pairs.registry import make_verifier

    return make_verifier(name)


def _make_reranker(name: str) -> RelevanceScorer:
    """The reranker of ``--reranker``."""
    from veracity.models.relevance.registry import make_reranker

    return make_reranker(name)


def _make_span_detector(name: str) -> SpanDetector:
    """The span detector of ``--spans``."""
    from veracity.models.pairs.registry import make_span_detector

    return make_span_detector(name)


@dataclass(frozen=True)
class Models:
    """The factories of the verifier, the chat model, the reranker and the span detector (see
    the module notes)."""

    verifier: Callable[[str], PairScorer] = _make_verifier
    chat: Callable[[str, str | None], ChatModel] = _make_chat
    reranker: Callable[[str], RelevanceScorer] = _make_reranker
    spans: Callable[[str], SpanDetector] = _make_span_detector
