"""Open an index to answer from: the one place where ``ask``'s config meets its models.

:func:`open_asker` is what ``veracity ask`` runs:

1. search and abstention: the index opened as :func:`~veracity.retrieve.search.open_search`
   opens it (the retriever in its search mode, reranked when the config names a reranker;
   the threshold given, else the index's calibration, else the shipped default);
2. generation: the chat model writes (or, for ``--llm extractive``, the extractive answerer
   picks the passages' sentences), the verifier and the knowledge rules check each ``[n]``
   (:func:`~veracity.generate.writers.make_generator`).

The service keeps one :class:`~veracity.retrieve.search.IndexSearch` per search mode and wraps a
cheap :class:`~veracity.generate.ask.Asker` around it per request (:func:`search_asker`). The
config (:class:`~veracity.config.AskConfig`) names the index and the models; ``models``
(:class:`veracity.models.Models`) makes them by those names, so that a test passes fakes. Every
answer carries the config.

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
from typing import TYPE_CHECKING

from veracity import defaults
from veracity.config import AskConfig
from veracity.errors import OptionError
from veracity.generate.ask import Asker
from veracity.generate.writers import Writer, make_generator, make_writer
from veracity.retrieve.search import IndexSearch, open_search
from veracity.rules import KnowledgeLayer

if TYPE_CHECKING:
    from veracity.models import Models
    from veracity.models.pairs.base import PairScorer

__all__ = ["open_asker", "search_asker"]


def search_asker(
    search: IndexSearch,
    writer: Writer,
    scorer: PairScorer,
    *,
    k: int = defaults.TOP_K,
    tau: float = defaults.CITATION_TAU,
    rules: KnowledgeLayer | None = None,
) -> Asker:
    """An :class:`~veracity.generate.ask.Asker` over ``search`` (its retriever, abstainer and
    notes): ``k`` passages to ``writer`` (a chat model or the extractive answerer, see
    :func:`~veracity.generate.writers.make_writer`), each ``[n]`` checked by ``scorer`` and the
    knowledge ``rules`` (when given) against P(supported) ``tau``. The service wraps one around
    its search per request."""
    generator = make_generator(writer, scorer, tau=tau, rules=rules)
    return Asker(search.retriever, generator, k=k, abstainer=search.abstainer, notes=search.notes)


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
    asker = search_asker(search, writer, scorer, k=config.evidence.k, tau=config.tau, rules=rules)
    asker.config = config.to_dict()
    return asker
