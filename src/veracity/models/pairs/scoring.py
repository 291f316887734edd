"""Score groups of (premise, claim) pairs in one batched verifier call, failures kept as data.

A verifier raises :class:`~veracity.errors.ClaimTooLongError` for a whole batch when one claim
does not fit its window. Rather than lose every score for one long sentence, the groups are then
scored one call per group, and the pairs of a group that still raises become
``PairScore.failure`` results naming the problem (never a score).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from veracity.errors import ClaimTooLongError, ModelError
from veracity.models.pairs.base import PairScorer
from veracity.types import PairScore, Span

__all__ = ["GroupScores", "score_groups"]

Pair = tuple[str, str]


@dataclass(frozen=True)
class GroupScores:
    """One ``PairScore`` per pair of each group, in input order, and the verifier's provenance.

    ``calls`` is how many verifier calls were made (1, or one per group after a long claim).
    """

    groups: tuple[tuple[PairScore, ...], ...]
    model_id: str
    model_version: str
    calls: int

    @property
    def failures(self) -> int:
        return sum(score.error is not None for group in self.groups for score in group)


def score_groups(scorer: PairScorer, groups: Sequence[Sequence[Pair]]) -> GroupScores:
    """Scores of every pair of ``groups`` (premise, claim), from one call when possible."""
    pairs = [pair for group in groups for pair in group]
    model_id, version = scorer.model_id, str(getattr(scorer, "version", ""))
    if not pairs:
        return GroupScores(tuple(() for _ in groups), model_id, version, 0)
    try:
        flat = _run(scorer, pairs)
    except ClaimTooLongError:
        return _one_call_per_group(scorer, groups)
    position = 0
    split: list[tuple[PairScore, ...]] = []
    for group in groups:
        split.append(flat[0][position : position + len(group)])
        position += len(group)
    return GroupScores(tuple(split), flat[1], flat[2], 1)


def _run(scorer: PairScorer, pairs: Sequence[Pair]) -> tuple[tuple[PairScore, ...], str, str]:
    result = scorer.run([premise for premise, _ in pairs], [claim for _, claim in pairs])
    if len(result.scores) != len(pairs):
        raise ModelError(
            f"the verifier {scorer.model_id!r} returned {len(result.scores)} scores "
            f"for {len(pairs)} pairs; it must return one score per pair"
        )
    return result.scores, result.model_id, result.model_version


def _one_call_per_group(scorer: PairScorer, groups: Sequence[Sequence[Pair]]) -> GroupScores:
    split: list[tuple[PairScore, ...]] = []
    model_id, version = scorer.model_id, str(getattr(scorer, "version", ""))
    calls = 1
    for group in groups:
        if not group:
            split.append(())
            continue
        calls += 1
        try:
            scores, model_id, version = _run(scorer, group)
        except ClaimTooLongError as exc:
            scores = tuple(
                PairScore.failure(str(exc), window=Span(0, len(premise))) for premise, _ in group
            )
        split.append(scores)
    return GroupScores(tuple(split), model_id, version, calls)
