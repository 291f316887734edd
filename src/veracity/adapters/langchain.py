"""LangChain: a retriever over a veracity index, and a runnable that verifies (or repairs) an
answer against the documents a chain retrieved (extra ``veracity[langchain]``).

>>> from veracity.adapters.langchain import VeracityRetriever, VerifyAnswer   # doctest: +SKIP
>>> retriever = VeracityRetriever(index="my-index", k=4)                     # doctest: +SKIP
>>> docs = retriever.invoke("when was the hive invented?")                     # doctest: +SKIP
>>> checked = VerifyAnswer().invoke({"answer": answer, "context": docs})       # doctest: +SKIP
>>> checked["grounded"], checked["verification"]["summary"]                    # doctest: +SKIP

``VerifyAnswer`` reads the keys a retrieval chain leaves (``answer`` and ``context``, or
``documents``; ``input`` or ``question`` for the question) and returns them with
``grounded`` (the :class:`~veracity.verify.grounding.GroundingCheck` decision), ``explanation``
and ``verification`` (the report). With ``repair="revise"`` (or another policy) ``answer`` is
the repaired answer, the original is kept as ``original_answer`` and the repair as ``repair``.
Documents this module's retriever returned keep their exact spans (:mod:`.passages`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from langchain_core.callbacks import CallbackManagerForRetrieverRun
from langchain_core.documents import Document as LangChainDocument
from langchain_core.retrievers import BaseRetriever
from langchain_core.runnables import Runnable, RunnableConfig
from pydantic import PrivateAttr

from veracity import defaults
from veracity.adapters.passages import Foreign, passage_metadata, passages
from veracity.adapters.scorers import scorer_of
from veracity.config import RepairConfig
from veracity.errors import InputError
from veracity.models.pairs.base import PairScorer
from veracity.repair.pipeline import check_policy, make_repairer
from veracity.retrieve.base import Retriever
from veracity.retrieve.open import open_retriever
from veracity.types import Hit
from veracity.verify.grounding import GroundingCheck, GroundingMode, check_options

__all__ = ["VeracityRetriever", "VerifyAnswer", "to_langchain"]


def to_langchain(hits: Sequence[Hit]) -> list[LangChainDocument]:
    """LangChain documents of a veracity search's hits, best first, score in the metadata."""
    return [
        LangChainDocument(
            page_content=hit.chunk.text,
            metadata=passage_metadata(hit.chunk) | {"score": hit.score, "rank": hit.rank},
            id=hit.chunk.id,
        )
        for hit in hits
    ]


class VeracityRetriever(BaseRetriever):
    """The passages of a veracity index (``veracity index ... --index DIR``) for a query."""

    index: str
    mode: str = defaults.SEARCH_MODE
    k: int = defaults.TOP_K
    _retriever: Retriever | None = PrivateAttr(default=None)

    def _get_relevant_documents(
        self, query: str, *, run_manager: CallbackManagerForRetrieverRun
    ) -> list[LangChainDocument]:
        if self._retriever is None:
            self._retriever = open_retriever(self.index, mode=self.mode)
        return to_langchain(self._retriever.run(query, k=self.k).hits)


class VerifyAnswer(Runnable[Mapping[str, Any], dict[str, Any]]):
    """Verifies ``answer`` against the chain's documents; see the module docstring."""

    def __init__(
        self,
        *,
        verifier: str | PairScorer = defaults.VERIFIER,
        mode: GroundingMode = "supported",
        threshold: float = 1.0,
        repair: str | None = None,
    ) -> None:
        self.verifier = verifier
        self.mode, self.threshold = check_options(mode, threshold)
        self.repair = None if repair is None else check_policy(repair)

    def invoke(
        self, input: Mapping[str, Any], config: RunnableConfig | None = None, **kwargs: Any
    ) -> dict[str, Any]:
        answer, documents = _answer_and_documents(input)
        question = input.get("question") or input.get("input")
        sources = passages([Foreign(doc.page_content, doc.metadata, doc.id) for doc in documents])
        scorer = scorer_of(self.verifier)
        out = dict(input)
        if self.repair is not None:
            chosen = RepairConfig().with_options(policy=self.repair)
            result = make_repairer(scorer, chosen, sources=sources).run(answer, question=question)
            out |= {"original_answer": answer, "answer": result.text, "repair": result.to_dict()}
            answer = result.text
        grounding = GroundingCheck(scorer, mode=self.mode, threshold=self.threshold).run(
            answer, sources, question=question
        )
        return out | {
            "grounded": grounding.passed,
            "explanation": grounding.explain(),
            "verification": grounding.report.to_dict(),
        }


def _answer_and_documents(given: Mapping[str, Any]) -> tuple[str, list[LangChainDocument]]:
    if not isinstance(given, Mapping):
        raise InputError(
            f"VerifyAnswer takes a dict with 'answer' and 'context' (or "
            f"'documents'), got {type(given).__name__}"
        )
    answer = given.get("answer")
    if not isinstance(answer, str):
        raise InputError("VerifyAnswer needs the answer text under 'answer'")
    documents = given.get("context", given.get("documents"))
    if not isinstance(documents, list) or not all(
        isinstance(doc, LangChainDocument) for doc in documents
    ):
        raise InputError(
            "VerifyAnswer needs the retrieved LangChain Documents under "
            "'context' (as create_retrieval_chain leaves them) or 'documents'"
        )
    return answer, documents
