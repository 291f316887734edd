"""Open an index to answer from: the one place where ``ask``'s settings meet its parts.

:func:`open_asker` is what ``veracity ask`` and the service's ``/v1/ask`` run:

1. search: the index's retriever in a search mode (a hybrid search of an index without dense
   vectors falls back to BM25 and says so), reranked when a reranker is given;
2. abstention: a threshold given in the settings, else the index's calibration, else the
   shipped default, which the answer names (:func:`~veracity.generate.calibration.index_abstainer`);
3. generation: the chat model writes (or, for ``--llm extractive``, the extractive answerer
   picks the passages' sentences), the verifier checks each ``[n]``
   (:func:`~veracity.generate.writers.make_generator`).

:func:`open_search` does steps 1 and 2 alone: the service keeps one :class:`IndexSearch` per
search mode and wraps a cheap :class:`~veracity.generate.ask.Asker` around it per request
(:meth:`IndexSearch.asker`), and ``veracity search`` runs its retriever. The models come in
made (:class:`veracity.models.Models` makes them by the names users give), so that a test
passes fakes.

>>> from veracity.generate.writers import make_writer
>>> from veracity.models.pairs.registry import make_verifier
>>> verifier = make_verifier("embedded")                           # doctest: +SKIP
>>> asker = open_asker("my-index", make_writer("extractive", scorer=verifier), verifier,
...                    search=SearchSettings(mode="bm25"), k=3)    # doctest: +SKIP
>>> answer = asker.run("When was the hive patented?")               # doctest: +SKIP
>>> asker.notes, answer.status                                      # doctest: +SKIP
((), 'answered')
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from veracity import defaults
from veracity.errors import OptionError
from veracity.generate.abstain import Abstainer
from veracity.generate.ask import Asker
from veracity.generate.writers import Writer, make_generator
from veracity.retrieve.base import Retriever

if TYPE_CHECKING:
    from veracity.models.pairs.base import PairScorer
    from veracity.models.relevance.base import RelevanceScorer

__all__ = ["IndexSearch", "SearchSettings", "open_asker", "open_search"]


@dataclass(frozen=True)
class SearchSettings:
    """How an index is searched for an answer, and when the answer is withheld.

    ``mode``: ``bm25``, ``dense`` or ``hybrid``; ``rerank_depth``: the first-stage candidates
    the reranker reads (only with a reranker; default ``defaults.RERANK_DEPTH``, or ``k`` if
    more). ``abstain``: say "I don't know" without asking the model when the passages are weak:
    below ``threshold`` on ``signal`` (default ``defaults.ABSTAIN_SIGNAL``) when a threshold is
    given, else below the index's calibration, else below the shipped default; a ``signal``
    needs its ``threshold``.

    >>> SearchSettings(mode="bm25").abstain
    True
    >>> SearchSettings(mode="fuzzy")
    Traceback (most recent call last):
    ...
    veracity.errors.OptionError: mode='fuzzy' is not allowed: one of bm25, dense, hybrid.
    """

    mode: str = defaults.SEARCH_MODE
    rerank_depth: int | None = None
    abstain: bool = True
    signal: str | None = None
    threshold: float | None = None

    def __post_init__(self) -> None:
        if self.mode not in defaults.SEARCH_MODES:
            raise OptionError("mode", self.mode, f"one of {', '.join(defaults.SEARCH_MODES)}")


@dataclass(frozen=True)
class IndexSearch:
    """An index opened in one search mode: its ``retriever`` (reranked, with a reranker), the
    ``abstainer`` that goes with it (``None`` when the settings do not abstain) and the
    ``notes`` the opening had to say."""

    retriever: Retriever
    abstainer: Abstainer | None = None
    notes: tuple[str, ...] = ()

    def asker(
        self,
        writer: Writer,
        scorer: PairScorer,
        *,
        k: int = defaults.TOP_K,
        tau: float = defaults.CITATION_TAU,
    ) -> Asker:
        """An :class:`~veracity.generate.ask.Asker` over this search: ``k`` passages to
        ``writer`` (a chat model or the extractive answerer, see
        :func:`~veracity.generate.writers.make_writer`), each ``[n]`` checked by ``scorer``
        against P(supported) ``tau``."""
        generator = make_generator(writer, scorer, tau=tau)
        return Asker(self.retriever, generator, k=k, abstainer=self.abstainer, notes=self.notes)


def open_search(
    index: str | Path,
    *,
    settings: SearchSettings = SearchSettings(),
    scorer: PairScorer | None = None,
    reranker: RelevanceScorer | None = None,
) -> IndexSearch:
    """The index at ``index`` opened for search as ``settings`` say (steps 1 and 2 of the
    module docstring). ``scorer`` reads the ``top_support`` signal of the abstention, so it is
    needed when the settings abstain; ``reranker`` reranks the first stage's candidates.

    Nothing heavy is read until the first search (or ``retriever.load()``).
    """
    from veracity.generate.calibration import index_abstainer
    from veracity.retrieve.open import FallbackRetriever, open_retriever
    from veracity.retrieve.rerank import RerankingRetriever

    if settings.rerank_depth is not None and reranker is None:
        raise OptionError(
            "rerank_depth",
            settings.rerank_depth,
            "given with a reranker",
            "Pass reranker=make_reranker(...) as well, or leave rerank_depth out.",
        )
    notes: list[str] = []
    first = open_retriever(index, mode=settings.mode)
    if isinstance(first, FallbackRetriever):
        notes.append(first.note)
    abstainer = None
    if settings.abstain:
        if scorer is None:
            raise OptionError(
                "scorer",
                None,
                "a verifier for the abstention's signal",
                "Pass scorer=make_verifier(...), or abstain=False in the settings.",
            )
        abstainer = index_abstainer(
            Path(index),
            # the threshold that goes with the search that runs, not the one asked for
            mode=first.name if isinstance(first, FallbackRetriever) else settings.mode,
            signal=settings.signal,
            threshold=settings.threshold,
            scorer=scorer,
            notes=notes,
        )
    retriever: Retriever = first
    if reranker is not None:
        retriever = RerankingRetriever(first, reranker, depth=settings.rerank_depth)
    return IndexSearch(retriever, abstainer, tuple(notes))


def open_asker(
    index: str | Path,
    writer: Writer,
    scorer: PairScorer,
    *,
    search: SearchSettings = SearchSettings(),
    k: int = defaults.TOP_K,
    tau: float = defaults.CITATION_TAU,
    reranker: RelevanceScorer | None = None,
) -> Asker:
    """An :class:`~veracity.generate.ask.Asker` on the index at ``index`` (see the module
    docstring): searched as ``search`` says (reranked by ``reranker``), ``k`` passages given to
    ``writer`` (a chat model or the extractive answerer), each ``[n]`` checked by ``scorer``
    against P(supported) ``tau``. Its ``notes`` say what opening the index had to say."""
    opened = open_search(index, settings=search, scorer=scorer, reranker=reranker)
    return opened.asker(writer, scorer, k=k, tau=tau)
