"""Stopping a request's model work between batches, when its client left or its time ran out.

The library runs a request's work as plain synchronous calls in a worker thread (the gate's
turn); a thread cannot be interrupted from outside. The work is instead handed the models
through thin wrappers that look at the request's :class:`Stop` before every batch:
:class:`StoppingScorer` scores the (passage, claim) pairs in slices of :data:`SLICE` pairs and
:class:`StoppingRetriever` searches one claim at a time; once the gate sets the stop, the next
batch raises :class:`StoppedError`, which unwinds the work and frees the models within one batch.
Each slice is timed for the gate's :class:`~veracity.server.clock.Clock` (the seconds per pair
that admit the next requests).

>>> from veracity.testing import TablePairScorer
>>> stop = Stop()
>>> scorer = StoppingScorer(TablePairScorer({}), stop)
>>> len(scorer.run(["Bees dance."] * 70, ["Bees fly."] * 70)), scorer.scorer.calls
(70, [32, 32, 6])
>>> stop.set("the client left")
>>> scorer.run(["Bees dance."], ["Bees fly."])
Traceback (most recent call last):
...
veracity.server.stop.StoppedError: stopped: the client left
"""

from __future__ import annotations

import threading
import time
from collections.abc import Sequence

from veracity import defaults
from veracity.models.pairs.base import PairScorer
from veracity.retrieve.base import Retriever
from veracity.server.clock import Clock
from veracity.types import PairScore, PairScores, SearchResult

__all__ = ["SLICE", "Stop", "StoppedError", "StoppingRetriever", "StoppingScorer"]

#: Pairs scored between two looks at the stop: about half a second of the shipped verifier
#: on two CPU cores, and a multiple of the batch sizes the verifiers use.
SLICE = 32


class StoppedError(Exception):
    """The work of a request was stopped (its client left, or its time ran out); nobody reads
    its result. Not a :class:`~veracity.errors.VeracityError` on purpose: it is a signal, as
    ``asyncio.CancelledError`` is, and library code that keeps going past an error (a verdict
    labelled ``error``) must not keep going past it."""


class Stop:
    """Set once, from any thread, by whoever gives up on a request; read by its work. With
    ``seconds``, it also sets itself that many seconds after it is made (the request's time
    limit), so work stops at its deadline even when nobody watches it."""

    def __init__(self, seconds: float | None = None) -> None:
        self._event = threading.Event()
        self.reason = ""
        self.deadline = None if seconds is None else time.monotonic() + seconds

    def set(self, reason: str) -> None:
        if not self._event.is_set():
            self.reason = reason
            self._event.set()

    def is_set(self) -> bool:
        if self.deadline is not None and time.monotonic() >= self.deadline:
            self.set("the time ran out")
        return self._event.is_set()

    def check(self) -> None:
        """Raise :class:`StoppedError` when the stop is set."""
        if self.is_set():
            raise StoppedError(f"stopped: {self.reason}")


class StoppingScorer:
    """``scorer`` in slices of ``every`` pairs, with a look at ``stop`` before each (a
    ``PairScorer``; scores do not depend on the slicing where the verifier's do not depend on
    its batch); each slice's time goes to ``clock``."""

    def __init__(
        self, scorer: PairScorer, stop: Stop, *, every: int = SLICE, clock: Clock | None = None
    ) -> None:
        self.scorer = scorer
        self.stop = stop
        self.every = every
        self.clock = clock
        self.model_id = scorer.model_id

    @property
    def version(self) -> str:
        return str(getattr(self.scorer, "version", ""))

    @property
    def scores_are_probabilities(self) -> bool:
        return bool(getattr(self.scorer, "scores_are_probabilities", True))

    def load(self) -> StoppingScorer:
        self.scorer.load()
        return self

    def run(self, premises: Sequence[str], hypotheses: Sequence[str]) -> PairScores:
        self.stop.check()
        if len(premises) <= self.every:
            return self._timed(premises, hypotheses)
        scores: list[PairScore] = []
        model_id, version = self.model_id, self.version
        for first in range(0, len(premises), self.every):
            self.stop.check()
            part = self._timed(
                premises[first : first + self.every], hypotheses[first : first + self.every]
            )
            scores.extend(part.scores)
            model_id, version = part.model_id, part.model_version
        return PairScores(tuple(scores), model_id, version)

    def _timed(self, premises: Sequence[str], hypotheses: Sequence[str]) -> PairScores:
        started = time.perf_counter()
        scores = self.scorer.run(premises, hypotheses)
        if self.clock is not None:
            self.clock.record_pairs(len(premises), time.perf_counter() - started)
        return scores


class StoppingRetriever:
    """``retriever`` with a look at ``stop`` before each search (a ``Retriever``)."""

    def __init__(self, retriever: Retriever, stop: Stop) -> None:
        self.retriever = retriever
        self.stop = stop
        self.name = retriever.name

    def load(self) -> StoppingRetriever:
        self.retriever.load()
        return self

    def run(self, query: str, *, k: int = defaults.TOP_K) -> SearchResult:
        self.stop.check()
        return self.retriever.run(query, k=k)
