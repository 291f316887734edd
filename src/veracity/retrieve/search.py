"""Open an index for search: the one place where a search config meets its models.

:func:`open_search` is what ``veracity search`` runs, and the first two steps of ``veracity
ask`` (:func:`~veracity.generate.open.open_asker`):

1. search: the index's retriever in a search mode (a hybrid search of an index without dense
   vectors falls back to BM25 and says so), reranked when the config names a reranker;
2. abstention: a threshold given in the config, else the index's calibration, else the
   shipped default, which the answer names (:func:`~veracity.retrieve.calibration.index_abstainer`).

The service keeps one :class:`IndexSearch` per search mode. The config
(:class:`~veracity.config.SearchConfig`) names the index and the models; ``models``
(:class:`veracity.models.Models`) makes them by those names, so that a test passes fakes. Every
result carries the config.

>>> from veracity.config import SearchConfig                        # doctest: +SKIP
>>> from veracity.models import Models
>>> search = open_search(SearchConfig().with_options(index="my-index"), Models())  # doctest: +SKIP
>>> search.run("When was the hive patented?", k=3).config["evidence"]["k"]  # doctest: +SKIP
3
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from veracity.config import SearchConfig
from veracity.errors import OptionError
from veracity.retrieve.abstain import Abstainer
from veracity.retrieve.base import Retriever
from veracity.types import SearchResult

if TYPE_CHECKING:
    from veracity.models import Models

__all__ = ["IndexSearch", "open_search"]


@dataclass(frozen=True)
class IndexSearch:
    """An index opened in one search mode: its ``retriever`` (reranked, with a reranker), the
    ``abstainer`` that goes with it (``None`` when the settings do not abstain), the ``notes``
    the opening had to say and the saved ``config`` it was opened with."""

    retriever: Retriever
    abstainer: Abstainer | None = None
    notes: tuple[str, ...] = ()
    config: Mapping[str, Any] | None = None

    def run(self, query: str, k: int) -> SearchResult:
        """The ``k`` best passages for ``query``, carrying this search's config (its ``k``
        the one asked for)."""
        result = self.retriever.run(query, k=k)
        if self.config is None:
            return result
        config = dict(self.config) | {"evidence": dict(self.config["evidence"]) | {"k": k}}
        return dataclasses.replace(result, config=config)


def open_search(config: SearchConfig, models: Models) -> IndexSearch:
    """The index ``config.evidence.index`` opened for search as ``config`` says (steps 1 and
    2 of the module docstring): ``models`` makes the verifier that reads the abstention's
    ``top_support`` signal (when the config abstains) and the reranker the config names.

    Nothing heavy is read until the first search (or ``retriever.load()``).
    """
    from veracity.retrieve.calibration import index_abstainer
    from veracity.retrieve.open import FallbackRetriever, open_retriever
    from veracity.retrieve.rerank import RerankingRetriever

    if not isinstance(config, SearchConfig):
        raise OptionError(
            "config", type(config).__name__, "a SearchConfig", "Use SearchConfig(...)."
        )
    index, mode = config.evidence.index, config.evidence.mode
    if index is None:
        raise OptionError("index", None, "an index folder", "Give one: --index DIR.")
    notes: list[str] = []
    first = open_retriever(index, mode=mode)
    if isinstance(first, FallbackRetriever):
        notes.append(first.note)
    abstainer = None
    if config.abstain.abstain:
        abstainer = index_abstainer(
            Path(index),
            # the threshold that goes with the search that runs, not the one asked for
            mode=first.name if isinstance(first, FallbackRetriever) else mode,
            signal=config.abstain.signal,
            threshold=config.abstain.threshold,
            scorer=models.verifier(config.models.verifier),
            notes=notes,
        )
    retriever: Retriever = first
    if config.models.reranker is not None:
        reranker = models.reranker(config.models.reranker)
        retriever = RerankingRetriever(first, reranker, depth=config.rerank_depth)
    return IndexSearch(retriever, abstainer, tuple(notes), config.to_dict())
