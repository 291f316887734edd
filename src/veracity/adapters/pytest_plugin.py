"""A pytest plugin: assert that an answer is grounded in its sources, claim by claim.

Installed with veracity (the ``pytest11`` entry point ``veracity``); a test asks for the
``assert_grounded`` fixture::

    def test_the_bot_answers_from_the_handbook(assert_grounded):
        answer = my_rag_app("When does the museum open?")
        assert_grounded(answer, ["The museum opens at nine and is closed on Mondays."])

    def test_no_answer_contradicts_its_sources(assert_grounded):
        assert_grounded(answer, sources, mode="no-contradicted")

A failing check raises :class:`NotGroundedError` (an ``AssertionError``) whose message names each
failing claim, its label and scores, and the evidence span behind it. The verifier is loaded
once per session: the shipped one unless ``--veracity-verifier NAME`` (or the ini option
``veracity_verifier``) names another (``lexical``, ``embedded:PATH``, ``hf:MODEL``...).
Outside the fixture, :func:`assert_grounded` does the same with a verifier it loads once.

This module only adapts: the decision is :class:`veracity.verify.grounding.GroundingCheck`'s.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import pytest

from veracity import defaults
from veracity.adapters.scorers import loaded_scorer

if TYPE_CHECKING:
    from veracity.models.pairs.base import PairScorer
    from veracity.verify.grounding import Grounding, GroundingMode, Source

__all__ = ["GroundedAssertion", "NotGroundedError", "assert_grounded"]

DEFAULT_VERIFIER = "embedded"


class NotGroundedError(AssertionError):
    """An answer failed its grounding check; ``grounding`` holds the decision and the report."""

    def __init__(self, grounding: Grounding) -> None:
        self.grounding = grounding
        super().__init__(grounding.explain())


class GroundedAssertion:
    """``assert_grounded(answer, sources, ...)`` bound to one loaded verifier."""

    def __init__(self, scorer: PairScorer) -> None:
        self.scorer = scorer

    def __call__(
        self,
        answer: str,
        sources: Sequence[Source],
        *,
        mode: GroundingMode = "supported",
        threshold: float = 1.0,
        layers: Sequence[str] = defaults.VERIFY_LAYERS,
        question: str | None = None,
    ) -> Grounding:
        """The grounding of ``answer`` in ``sources``; raises :class:`NotGroundedError` if it fails.

        ``mode="supported"``: at least ``threshold`` of the claims supported (1.0: all);
        ``mode="no-contradicted"``: no claim contradicted. Sources are texts, paths,
        Documents or Chunks (:data:`veracity.verify.grounding.Source`).
        """
        __tracebackhide__ = True
        from veracity.verify.grounding import GroundingCheck

        check = GroundingCheck(self.scorer, mode=mode, threshold=threshold, layers=layers)
        grounding = check.run(answer, sources, question=question)
        if not grounding.passed:
            raise NotGroundedError(grounding)
        return grounding


def assert_grounded(
    answer: str,
    sources: Sequence[Source],
    *,
    mode: GroundingMode = "supported",
    threshold: float = 1.0,
    layers: Sequence[str] = defaults.VERIFY_LAYERS,
    question: str | None = None,
) -> Grounding:
    """:class:`GroundedAssertion` with the shipped verifier, loaded on the first call."""
    __tracebackhide__ = True
    return GroundedAssertion(loaded_scorer(DEFAULT_VERIFIER))(
        answer, sources, mode=mode, threshold=threshold, layers=layers, question=question
    )


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("veracity", "grounding checks (veracity)")
    group.addoption(
        "--veracity-verifier",
        default=None,
        metavar="NAME",
        help="the verifier of the assert_grounded fixture: embedded (default), "
        "lexical, embedded:PATH, hf:MODEL...",
    )
    parser.addini(
        "veracity_verifier",
        default=DEFAULT_VERIFIER,
        help="the verifier of the assert_grounded fixture (default: embedded)",
    )


@pytest.fixture(scope="session")
def veracity_verifier(pytestconfig: pytest.Config) -> PairScorer:
    """The session's loaded pair verifier (``--veracity-verifier``, else the ini option)."""
    name = pytestconfig.getoption("veracity_verifier") or pytestconfig.getini("veracity_verifier")
    return loaded_scorer(str(name))


@pytest.fixture(name="assert_grounded")
def assert_grounded_fixture(veracity_verifier: PairScorer) -> GroundedAssertion:
    """``assert_grounded(answer, sources, mode=..., threshold=...)`` with the session's
    verifier."""
    return GroundedAssertion(veracity_verifier)
