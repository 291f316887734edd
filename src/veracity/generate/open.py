"""Open an index to answer from: the one place where ``ask``'s config meets its models.

:func:`open_asker` is what ``veracity ask`` runs:

1. search: the index's retriever in a search mode (a hybrid search of an index without dense
   vectors falls back to BM25 and says so), reranked when the config names a reranker;
2. abstention: a threshold given in the config, else the index's calibration, else the
   shipped default, which the answer names (:func:`~veracity.generate.calibration.index_abstainer`);
3. generation: the chat model writes (or, for ``--llm extractive``, the extractive answerer
   picks the passages' sentences), the verifier and the knowledge rules check each ``[n]``
   (:func:`~veracity.generate.writers.make_generator`).

:func:`open_search` does steps 1 and 2 alone: the service keeps one :class:`IndexSearch` per
search mode and wraps a cheap :class:`~veracity.generate.ask.Asker` around it per request
(:meth:`IndexSearch.asker`), and ``veracity search`` runs its retriever. The config
(:class:`~veracity.config.AskConfig`, :class:`~veracity.config.SearchConfig`) names the index and
the models; ``models`` (:class:`veracity.models.Models`) makes them by those names, so that a
test passes fakes. Every answer carries the config.

>>> from veracity.config import AskConfig                            # doctest: +SKIP
>>> from veracity.models import Models
>>> config = AskConfig().with_options(index="my-index", mode="bm25", k=3)
>>> asker = open_asker(config, Models())                             # doctest: +SKIP
>>> answer = asker.run("When was the hive patented?")               # doctest: +SKIP
>>> asker.notes, answer.status, answer.config["evidence"]["k"]      # doctest: +SKIP
((), 'answered', 3)
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from veracity import defaults
from veracity.config import AskConfig, SearchConfig
from veracity.errors import OptionError
from veracity.generate.abstain import Abstainer
from veracity.generate.ask import Asker
from veracity.generate.writers import Writer, make_generator, make_writer
from veracity.retrieve.base import Retriever
from veracity.rules import KnowledgeLayer
from veracity.types import SearchResult

if TYPE_CHECKING:
    from veracity.models import Models
    from veracity.models.pairs.base import PairScorer

__all__ = ["IndexSearch", "open_asker", "open_search"]


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

    def asker(
        self,
        writer: Writer,
        scorer: PairScorer,
        *,
        k: int = defaults.TOP_K,
        tau: float = defaults.CITATION_TAU,
        rules: KnowledgeLayer | None = None,
    ) -> Asker:
        """An :class:`~veracity.generate.ask.Asker` over this search: ``k`` passages to
        ``writer`` (a chat model or the extractive answerer, see
        :func:`~veracity.generate.writers.make_writer`), each ``[n]`` checked by ``scorer``
        and the knowledge ``rules`` (when given) against P(supported) ``tau``."""
        generator = make_generator(writer, scorer, tau=tau, rules=rules)
        return Asker(self.retriever, generator, k=k, abstainer=self.abstainer, notes=self.notes)


def open_search(config: SearchConfig, models: Models) -> IndexSearch:
    """The index ``config.evidence.index`` opened for search as ``config`` says (steps 1 and
    2 of the module docstring): ``models`` makes the verifier that reads the abstention's
    ``top_support`` signal (when the config abstains) and the reranker the config names.

    Nothing heavy is read until the first search (or ``retriever.load()``).
    """
    from veracity.generate.calibration import index_abstainer
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


def open_asker(config: AskConfig, models: Models) -> Asker:
    """An :class:`~veracity.generate.ask.Asker` on the index ``config`` names (see the module
    docstring): searched as it says, ``evidence.k`` passages given to the writer
    ``models.llm`` names (a chat model made by ``models.chat``, or the extractive answerer, see
    :func:`~veracity.generate.writers.make_writer`), each ``[n]`` checked by the verifier and
    (with ``knowledge``) the knowledge rules against P(supported) ``tau``; its ``notes`` say
    what opening the index had to say, and its answers carry the config."""
    if not isinstance(config, AskConfig):
        raise OptionError("config", type(config).__name__, "an AskConfig", "Use AskConfig(...).")
    scorer = models.verifier(config.models.verifier)
    llm = config.models.llm or defaults.CHAT_BACKEND  # an AskConfig always names one
    writer = make_writer(llm, model=config.models.model, scorer=scorer, chat=models.chat)
    # one verifier for the abstention and the citations
    search = open_search(config, dataclasses.replace(models, verifier=lambda _name: scorer))
    rules = KnowledgeLayer() if config.knowledge else None
    asker = search.asker(writer, scorer, k=config.evidence.k, tau=config.tau, rules=rules)
    asker.config = config.to_dict()
    return asker
