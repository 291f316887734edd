"""Verifiers by name, for the CLI, the benchmarks and configuration files.

Names: ``embedded`` (the shipped verifier), ``lexical`` and ``cosine`` (baselines), and
``hf:<model id or path>[@preset]`` for any Hugging Face checker (preset ``nli``, ``binary`` or
``score``; default ``nli``).

>>> make_verifier("lexical").model_id                                  # doctest: +SKIP
'lexical-coverage'
"""

from __future__ import annotations

from collections.abc import Callable

from veracity.errors import OptionError
from veracity.verify.base import PairScorer

__all__ = ["VERIFIERS", "make_verifier"]


def _embedded() -> PairScorer:
    from veracity.verify.embedded import EmbeddedVerifier

    return EmbeddedVerifier()


def _lexical() -> PairScorer:
    from veracity.verify.baselines import LexicalCoverageScorer

    return LexicalCoverageScorer()


def _cosine() -> PairScorer:
    from veracity.verify.baselines import CosineScorer

    return CosineScorer()


VERIFIERS: dict[str, Callable[[], PairScorer]] = {
    "embedded": _embedded,
    "lexical": _lexical,
    "cosine": _cosine,
}


def make_verifier(name: str) -> PairScorer:
    """A verifier from its name (see the module docstring); raises OptionError if unknown."""
    if name.startswith("hf:"):
        from veracity.verify.hf import HFVerifier

        model, _, preset = name[3:].partition("@")
        return HFVerifier(model, labels=preset or "nli")
    if name not in VERIFIERS:
        choices = ", ".join(VERIFIERS)
        raise OptionError("verifier", name, f"one of {choices}, or hf:<model>[@preset]")
    return VERIFIERS[name]()
