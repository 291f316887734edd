"""Abstain before asking the model when retrieval found nothing convincing.

A confidence signal reads a number from each :class:`~veracity.types.SearchResult`; the
:class:`Abstainer` says "I don't know" without calling the model when that number is below a
threshold (choose it with :func:`veracity.retrieve.calibration.calibrate`). Signals, by name
(:data:`SIGNALS`):

- ``top_bm25``: the best raw BM25 score over the index (modes ``bm25`` and ``hybrid``);
- ``top_cosine``: the best raw cosine between the query and a chunk (modes ``dense`` and
  ``hybrid``);
- ``top_support``: the verifier's P(supported) of the question's key content against the best
  of the first ``hits`` passages (default 3), all questions and passages in one batched call.
  A question is not a claim, so the key content is the question without its question mark and
  its opening question words (see :func:`question_content`): "How many days does a worker take
  to develop?" is checked as "days does a worker take to develop". Passages that state those
  words as fact score high, passages about something else low.

Rank-only scores are refused (:data:`RANK_ONLY`): reciprocal-rank fusion gives the first hit
``1/(k+1)`` per ranking whatever it holds, so its value is the same for a perfect and a useless
top hit and no threshold on it can separate them.

>>> from veracity.types import Confidence, SearchResult
>>> result = SearchResult("q", "bm25", (), Confidence(top_bm25=1.5))
>>> Abstainer(make_signal("top_bm25"), 2.0).run(result).abstain
True
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Protocol, runtime_checkable

from veracity import defaults
from veracity.defaults import Signal
from veracity.errors import InputError, OptionError, check_choice
from veracity.models.pairs.base import PairScorer
from veracity.models.pairs.scoring import score_groups
from veracity.text.sentences import question_focus
from veracity.types import AbstentionCheck, SearchResult

__all__ = [
    "RANK_ONLY",
    "SIGNALS",
    "Abstainer",
    "ConfidenceSignal",
    "SignalReading",
    "TopBM25",
    "TopCosine",
    "TopSupport",
    "make_signal",
    "question_content",
]

_OPENER = re.compile(
    r"^\s*(?:(?:in|at|on|for|from|by|with|to|of|during|since|until|about)\s+)?"
    r"(?:what|which|who|whom|whose|when|where|why|how)"
    r"(?:\s+(?:many|much|long|often|far|old|large|big|high|soon|fast|tall|deep|wide))?"
    r"(?:\s+(?:is|are|was|were|do|does|did|can|could|should|would|will|has|have|had|must))?\b"
    r"|^\s*(?:is|are|was|were|do|does|did|can|could|should|would|will|has|have|had|must)\b",
    re.IGNORECASE,
)


def question_content(question: str) -> str:
    """The question's key content: no question mark, no opening question words.

    >>> question_content("In what year was the association founded?")
    'year was the association founded'
    >>> question_content("Does varroa spread viruses?")
    'varroa spread viruses'
    """
    content = _OPENER.sub("", question.strip()).strip()
    content = content.rstrip("?？؟ ").strip()
    return content or question.strip()


@dataclass(frozen=True, slots=True)
class SignalReading:
    """A signal's value for one result, or the ``error`` that kept it from being computed."""

    value: float | None
    error: str | None = None


@runtime_checkable
class ConfidenceSignal(Protocol):
    """Reads one confidence value per search result (higher means more confident)."""

    name: str

    def run(self, results: Sequence[SearchResult]) -> list[SignalReading]: ...


class TopBM25:
    """The best raw BM25 score of each result (``Confidence.top_bm25``)."""

    name = "top_bm25"

    def run(self, results: Sequence[SearchResult]) -> list[SignalReading]:
        return [SignalReading(_needed(r, r.confidence.top_bm25, self.name)) for r in results]


class TopCosine:
    """The best raw query-chunk cosine of each result (``Confidence.top_cosine``)."""

    name = "top_cosine"

    def run(self, results: Sequence[SearchResult]) -> list[SignalReading]:
        return [SignalReading(_needed(r, r.confidence.top_cosine, self.name)) for r in results]


class TopSupport:
    """The verifier's best P(supported) of each question's key content over its top hits."""

    name = "top_support"

    def __init__(self, scorer: PairScorer, *, hits: int = defaults.SUPPORT_SIGNAL_HITS) -> None:
        if not isinstance(scorer, PairScorer):
            raise InputError(f"top_support needs a PairScorer, got {type(scorer).__name__}")
        if isinstance(hits, bool) or not isinstance(hits, int) or hits < 1:
            raise OptionError("hits", hits, "an integer of 1 or more (passages to read)")
        self.scorer = scorer
        self.hits = hits

    def run(self, results: Sequence[SearchResult]) -> list[SignalReading]:
        groups = [
            [
                (hit.chunk.text, question_content(question_focus(result.query)))
                for hit in result.hits[: self.hits]
            ]
            for result in results
        ]
        scored = score_groups(self.scorer, groups)
        readings = []
        for scores in scored.groups:
            good = [score.supported for score in scores if score.error is None]
            if good:
                readings.append(SignalReading(max(good)))
            elif scores:
                readings.append(SignalReading(None, scores[0].error))
            else:
                readings.append(SignalReading(0.0))  # nothing retrieved: no support at all
        return readings


def _needed(result: SearchResult, value: float | None, name: str) -> float:
    if value is None:
        usable = [n for n, s in SIGNAL_MODES.items() if result.mode in s]
        raise OptionError(
            "signal",
            name,
            f"a signal that {result.mode} search computes ({', '.join(usable)})",
            f"Search in a mode that computes {name} ({', '.join(SIGNAL_MODES[name])})"
            " or choose another signal.",
        )
    return float(value)


#: Every signal by name; ``top_support`` needs the verifier (``scorer=``).
SIGNALS: dict[Signal, Callable[..., ConfidenceSignal]] = {
    "top_bm25": lambda **_: TopBM25(),
    "top_cosine": lambda **_: TopCosine(),
    "top_support": lambda *, scorer=None, hits=defaults.SUPPORT_SIGNAL_HITS: TopSupport(
        _scorer_for_support(scorer), hits=hits
    ),
}
#: Search modes that compute each signal.
SIGNAL_MODES: dict[str, tuple[str, ...]] = {
    "top_bm25": ("bm25", "hybrid"),
    "top_cosine": ("dense", "hybrid"),
    "top_support": ("bm25", "dense", "hybrid"),
}
#: Scores that cannot be thresholded, with why.
RANK_ONLY: dict[str, str] = {
    "rrf": "RRF depends only on ranks (1/(k + rank) summed over rankings), so its value is the "
    "same for a perfect and a useless top hit",
    "rank": "a rank says where a hit stands, not how well it matches, so the first hit of every "
    "query has rank 1",
}


def _scorer_for_support(scorer: PairScorer | None) -> PairScorer:
    if scorer is None:
        raise OptionError(
            "scorer",
            None,
            "a PairScorer for the top_support signal",
            "Pass make_signal('top_support', scorer=verifier).",
        )
    return scorer


def make_signal(
    name: str, *, scorer: PairScorer | None = None, hits: int = defaults.SUPPORT_SIGNAL_HITS
) -> ConfidenceSignal:
    """The signal ``name`` (see :data:`SIGNALS`); rank-only scores are refused with the reason."""
    choices = ", ".join(SIGNALS)
    if name in RANK_ONLY:
        raise OptionError(
            "signal",
            name,
            f"a signal whose value measures the match ({choices})",
            f"{RANK_ONLY[name]}; no threshold on it can tell them apart.",
        )
    return SIGNALS[check_choice("signal", name, tuple(SIGNALS))](scorer=scorer, hits=hits)


class Abstainer:
    """Skips the model when ``signal`` is below ``threshold`` for a search result.

    ``source`` records where the threshold came from (``"given"``, or a calibration file).
    """

    def __init__(
        self, signal: ConfidenceSignal, threshold: float, *, source: str = "given"
    ) -> None:
        if not isinstance(signal, ConfidenceSignal):
            raise InputError(
                f"signal must be a ConfidenceSignal (see make_signal), got {type(signal).__name__}"
            )
        if (
            isinstance(threshold, bool)
            or not isinstance(threshold, int | float)
            or not math.isfinite(threshold)
        ):
            raise OptionError(
                "threshold",
                threshold,
                "a finite number",
                "Choose one with `veracity calibrate` or calibrate().",
            )
        self.signal = signal
        self.threshold = float(threshold)
        self.source = source

    def run(self, result: SearchResult) -> AbstentionCheck:
        """Whether to abstain on ``result``; a signal that failed never causes an abstention."""
        (reading,) = self.signal.run([result])
        if reading.value is None:
            return AbstentionCheck(
                self.signal.name,
                None,
                self.threshold,
                False,
                self.source,
                reading.error or "no value",
            )
        return AbstentionCheck(
            self.signal.name,
            reading.value,
            self.threshold,
            reading.value < self.threshold,
            self.source,
        )
