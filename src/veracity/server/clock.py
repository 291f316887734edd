"""How long model work takes on this machine: the estimate that admits a request or refuses it.

The limits on pairs and claims count work, not time: 500 pairs take 2 s on one machine and 40 s
on a busy laptop. :class:`Clock` turns a request's pairs into seconds by what it measured here:
the seconds per (passage, claim) pair of the loaded verifier (a weighted average over the
slices it scored, the recent ones weighing most), and per kind of request the time spent beyond
its pairs (a chat model's generation, claim extraction, retrieval), averaged the same way.

>>> clock = Clock(0.02)
>>> round(clock.estimate("verify", 500), 1)
10.0
>>> clock.record_pairs(32, 1.28)      # the machine got slower: 40 ms a pair
>>> round(clock.per_pair * 1000)
40
>>> clock.record_job("ask", pairs=0, seconds=2.0)
>>> round(clock.estimate("ask", 10), 1)
2.4
"""

from __future__ import annotations

import threading
import time
from collections.abc import Sequence

from veracity.models.pairs.base import PairScorer

__all__ = ["Clock", "measure_pairs"]

#: The weight the past keeps at each new measure (0.5: the last slice counts as much as all before).
MEMORY = 0.5


class Clock:
    """Seconds per scored pair, and seconds beyond the pairs per kind of request (see the
    module docstring); safe to update from the worker threads."""

    def __init__(self, per_pair: float) -> None:
        if not per_pair > 0:
            raise ValueError(f"per_pair = {per_pair!r}: a number of seconds above 0")
        self._seconds = per_pair
        self._pairs = 1.0
        self._extra: dict[str, float] = {}
        self._lock = threading.Lock()

    @property
    def per_pair(self) -> float:
        """Seconds per (passage, claim) pair, as last measured."""
        with self._lock:
            return self._seconds / self._pairs

    def record_pairs(self, pairs: int, seconds: float) -> None:
        """``pairs`` were scored in ``seconds`` (one batch of the verifier)."""
        if pairs <= 0:
            return
        with self._lock:
            self._seconds = MEMORY * self._seconds + seconds
            self._pairs = MEMORY * self._pairs + pairs

    def record_job(self, kind: str, *, pairs: int, seconds: float) -> None:
        """A request of ``kind`` with ``pairs`` estimated pairs took ``seconds`` in all."""
        beyond = max(0.0, seconds - pairs * self.per_pair)
        with self._lock:
            past = self._extra.get(kind)
            self._extra[kind] = beyond if past is None else MEMORY * past + (1 - MEMORY) * beyond

    def estimate(self, kind: str, pairs: int) -> float:
        """Seconds a request of ``kind`` that scores ``pairs`` pairs is expected to take."""
        per_pair = self.per_pair
        with self._lock:
            return pairs * per_pair + self._extra.get(kind, 0.0)


def measure_pairs(scorer: PairScorer, pairs: int = 32) -> float:
    """Seconds per pair of ``scorer`` on this machine: one pair to warm it, then ``pairs``
    pairs of a typical length in one batch."""
    premise = (
        "Karl von Frisch decoded the waggle dance of honeybees, by which a forager tells its "
        "hive the direction and distance of flowers; he shared the Nobel Prize in 1973."
    )
    claim = "Karl von Frisch shared the Nobel Prize in Physiology or Medicine in 1973."
    scorer.run([premise], [claim])
    premises: Sequence[str] = [premise] * pairs
    started = time.perf_counter()
    scorer.run(premises, [claim] * pairs)
    return max(1e-4, (time.perf_counter() - started) / pairs)
