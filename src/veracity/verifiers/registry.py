"""Verifiers by name, for the CLI, the benchmarks and configuration files.

Names: ``embedded`` (the shipped verifier; ``embedded-raw`` without its combiner; either with
``:PATH`` for another exported verifier folder), ``lexical`` and ``cosine`` (baselines), ``align``
(token alignment, a similarity like the baselines), and
``hf:<model id or path>[@preset]`` for any Hugging Face checker (preset ``nli``, ``binary`` or
``score``; default ``nli``), and ``seq2seq:<model id or path>[@preset]`` for a seq2seq checker
that answers with label tokens (preset ``minicheck``, MiniCheck-Flan-T5's format).

>>> make_verifier("lexical").model_id                                  # doctest: +SKIP
'lexical-coverage'
"""

from __future__ import annotations

from collections.abc import Callable

from veracity import defaults
from veracity.errors import OptionError
from veracity.verifiers.base import PairScorer

__all__ = ["VERIFIERS", "make_verifier"]


def _embedded(path: str, threads: int, combine: bool = True) -> PairScorer:
    from veracity.verifiers.embedded import EmbeddedVerifier

    if path:
        return EmbeddedVerifier(model_dir=path, threads=threads, combine=combine)
    return EmbeddedVerifier(threads=threads, combine=combine)


def _embedded_raw(path: str, threads: int) -> PairScorer:
    return _embedded(path, threads, combine=False)


def _lexical(path: str, threads: int) -> PairScorer:
    from veracity.verifiers.similarity import LexicalCoverageScorer

    return LexicalCoverageScorer()


def _cosine(path: str, threads: int) -> PairScorer:
    from veracity.verifiers.similarity import CosineScorer

    return CosineScorer(threads=threads)


def _align(path: str, threads: int) -> PairScorer:
    from veracity.verifiers.similarity import AlignmentScorer

    return AlignmentScorer(threads=threads)


#: name -> factory(path after ":", onnxruntime threads)
VERIFIERS: dict[str, Callable[[str, int], PairScorer]] = {
    "embedded": _embedded,
    "embedded-raw": _embedded_raw,
    "lexical": _lexical,
    "cosine": _cosine,
    "align": _align,
}


def make_verifier(name: str, *, threads: int = defaults.ONNX_THREADS) -> PairScorer:
    """A verifier from its name (see the module docstring); raises OptionError if unknown."""
    if name.startswith("hf:"):
        from veracity.verifiers.hf import HFVerifier

        model, _, preset = name[3:].partition("@")
        return HFVerifier(model, labels=preset or "nli")
    if name.startswith("seq2seq:"):
        from veracity.verifiers.seq2seq import Seq2SeqVerifier

        model, _, preset = name[len("seq2seq:"):].partition("@")
        return Seq2SeqVerifier(model, preset=preset or "minicheck")
    name, _, path = name.partition(":")
    if name not in VERIFIERS:
        choices = ", ".join(VERIFIERS)
        raise OptionError("verifier", name, f"one of {choices}, hf:<model>[@preset] or "
                          "seq2seq:<model>[@preset]")
    return VERIFIERS[name](path, threads)
