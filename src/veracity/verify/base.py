"""The ``PairScorer`` protocol: does this passage support this claim?"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol, runtime_checkable

from veracity.errors import InputError
from veracity.types import PairScores

__all__ = ["PairScorer", "check_pairs"]


@runtime_checkable
class PairScorer(Protocol):
    """Scores (premise, hypothesis) pairs: P(supported), P(contradicted), P(neither) each.

    ``run`` scores whole batches (never one pair per forward pass), keeps input order, and never
    truncates silently: premises longer than the window are windowed, and a hypothesis that does
    not fit raises :class:`~veracity.errors.ClaimTooLongError`.
    """

    model_id: str

    def load(self) -> PairScorer: ...

    def run(self, premises: Sequence[str], hypotheses: Sequence[str]) -> PairScores: ...


def check_pairs(premises: Sequence[str], hypotheses: Sequence[str]) -> None:
    """Raise :class:`InputError` unless the two sequences pair up one to one."""
    if isinstance(premises, str) or isinstance(hypotheses, str):
        raise InputError("premises and hypotheses must be sequences of strings, not one string: "
                         "wrap a single pair as run([premise], [hypothesis])")
    if len(premises) != len(hypotheses):
        raise InputError(
            f"got {len(premises)} premises and {len(hypotheses)} hypotheses; pass one premise "
            "per hypothesis (repeat a premise to check several claims)")
    for i, hypothesis in enumerate(hypotheses):
        if not hypothesis.strip():
            raise InputError(f"hypothesis {i} is empty: give a claim to check")
