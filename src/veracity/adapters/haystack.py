"""Haystack: ``Verifier`` and ``Repairer`` components with typed ``run()`` (extra
``veracity[haystack]``).

>>> from veracity.adapters.haystack import Repairer, Verifier       # doctest: +SKIP
>>> pipeline.add_component("verifier", Verifier())                   # doctest: +SKIP
>>> pipeline.connect("retriever.documents", "verifier.documents")    # doctest: +SKIP

``Verifier.run(answer, documents)`` returns ``grounded`` (the
:class:`~veracity.verify.grounding.GroundingCheck` decision), ``explanation`` (one line per
failing claim with its evidence span) and ``report`` (the whole report as a dict);
``Repairer.run(answer, documents)`` returns the repaired ``answer`` and the ``repair`` as a dict.
"""

from __future__ import annotations

from typing import Any

from haystack import Document, component

from veracity import defaults
from veracity.adapters.passages import Foreign, passages
from veracity.adapters.scorers import scorer_of
from veracity.config import RepairConfig
from veracity.models.pairs.base import PairScorer
from veracity.repair.pipeline import check_policy, make_repairer
from veracity.types import Chunk
from veracity.verify.grounding import GroundingCheck, GroundingMode, check_options

__all__ = ["Repairer", "Verifier"]


def _passages(documents: list[Document]) -> tuple[Chunk, ...]:
    return passages([Foreign(doc.content or "", doc.meta, doc.id) for doc in documents])


@component
class Verifier:
    """Checks an answer claim by claim against the documents a pipeline retrieved."""

    def __init__(
        self,
        verifier: str | PairScorer = defaults.VERIFIER,
        mode: GroundingMode = "supported",
        threshold: float = 1.0,
    ) -> None:
        self.verifier = verifier
        self.mode, self.threshold = check_options(mode, threshold)

    def warm_up(self) -> None:
        """Load the verifier before the first run."""
        scorer_of(self.verifier)

    @component.output_types(grounded=bool, explanation=str, report=dict[str, Any])
    def run(self, answer: str, documents: list[Document]) -> dict[str, Any]:
        grounding = GroundingCheck(
            scorer_of(self.verifier), mode=self.mode, threshold=self.threshold
        ).run(answer, _passages(documents))
        return {
            "grounded": grounding.passed,
            "explanation": grounding.explain(),
            "report": grounding.report.to_dict(),
        }


@component
class Repairer:
    """Repairs an answer against the documents (policy ``revise``, ``delete``, ``flag`` or
    ``refuse``; without a chat model ``revise`` substitutes values only)."""

    def __init__(
        self, verifier: str | PairScorer = defaults.VERIFIER, policy: str = defaults.REPAIR_POLICY
    ) -> None:
        self.verifier = verifier
        self.policy = check_policy(policy)

    def warm_up(self) -> None:
        """Load the verifier before the first run."""
        scorer_of(self.verifier)

    @component.output_types(answer=str, repair=dict[str, Any])
    def run(self, answer: str, documents: list[Document]) -> dict[str, Any]:
        config = RepairConfig().with_options(policy=self.policy)
        result = make_repairer(scorer_of(self.verifier), config, sources=_passages(documents)).run(
            answer
        )
        return {"answer": result.text, "repair": result.to_dict()}
