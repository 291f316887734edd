"""The ``PairScorer`` protocol (does this passage support this claim?) and the ``SpanDetector``
protocol (which characters of this claim does the passage not support?)."""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Protocol, runtime_checkable

from veracity.errors import InputError
from veracity.types import ClaimSpans, PairScores

__all__ = ["CONTROL_TOKENS", "PairScorer", "SpanDetector", "check_pairs", "strip_control_tokens"]


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


@runtime_checkable
class SpanDetector(Protocol):
    """Finds the characters of each claim that its premise does not support.

    ``run`` reads whole batches, keeps input order and returns one
    :class:`~veracity.types.ClaimSpans` per (premise, claim) pair, its spans indexing the claim
    (:class:`~veracity.models.pairs.spans.TokenSpanDetector`; ``OverlapSpanDetector`` in
    :mod:`veracity.testing` for tests).
    """

    model_id: str

    def load(self) -> SpanDetector: ...

    def run(self, premises: Sequence[str], claims: Sequence[str]) -> tuple[ClaimSpans, ...]: ...


#: End-of-text and turn markers of chat templates that leak into model answers: markup, never
#: part of a claim ("</s>", "<|im_end|>", "<|eot_id|>", "[/INST]", "<end_of_turn>", "<eos>").
CONTROL_TOKENS = re.compile(
    r"</?s>|<\|[a-z_]{2,24}\|>|\[/?INST\]|<(?:start|end)_of_turn>|</?eos>|"
    r"</?bos>"
)


def strip_control_tokens(text: str) -> str:
    """``text`` without chat-template control tokens; unchanged when nothing else is left.

    The cross-encoders (embedded and Hugging Face) score the stripped claim.

    A verifier reads "...between animals and humans.</s>" as a claim about "</s>": the shipped
    network gave a sentence copied word for word from its premise P(supported) 0.05 with the
    marker and 0.83 without it.

    >>> strip_control_tokens("Water boils at 100 degrees.</s>")
    'Water boils at 100 degrees.'
    """
    stripped = CONTROL_TOKENS.sub("", text).strip()
    return stripped or text


def check_pairs(premises: Sequence[str], hypotheses: Sequence[str]) -> None:
    """Raise :class:`InputError` unless the two sequences pair up one to one."""
    if isinstance(premises, str) or isinstance(hypotheses, str):
        raise InputError(
            "premises and hypotheses must be sequences of strings, not one string: "
            "wrap a single pair as run([premise], [hypothesis])"
        )
    if len(premises) != len(hypotheses):
        raise InputError(
            f"got {len(premises)} premises and {len(hypotheses)} hypotheses; pass one premise "
            "per hypothesis (repeat a premise to check several claims)"
        )
    for i, hypothesis in enumerate(hypotheses):
        if not hypothesis.strip():
            raise InputError(f"hypothesis {i} is empty: give a claim to check")
