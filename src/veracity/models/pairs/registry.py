"""Verifiers by name, for the CLI, the benchmarks and configuration files.

Names: ``embedded`` (the shipped verifier; ``embedded-raw`` without its combiner; either with
``:PATH`` for another exported verifier folder), ``lexical`` and ``cosine`` (baselines), ``align``
(token alignment, a similarity like the baselines), and
``hf:<model id or path>[@preset]`` for any Hugging Face checker (preset ``nli``, ``binary`` or
``score``; default ``nli``), and ``seq2seq:<model id or path>[@preset]`` for a seq2seq checker
that answers with label tokens (preset ``minicheck``, MiniCheck-Flan-T5's format), and
``hf-code:<model id or path>`` for a checker that needs its own Python code (HHEM-2.1-open):
the name is the opt-in to run that code, which ``hf:`` refuses.

Span detectors (``--spans``) are named the same way: ``hf:<model id or path>[@label]``, a
LettuceDetect-style token classifier, ``label`` the name of its "unsupported" label (default:
class 1).

>>> make_verifier("lexical").model_id                                  # doctest: +SKIP
'lexical-coverage'
"""

from __future__ import annotations

from collections.abc import Callable

from veracity import defaults
from veracity.errors import OptionError
from veracity.models.pairs.base import PairScorer, SpanDetector

__all__ = ["VERIFIERS", "make_span_detector", "make_verifier"]


def _embedded(path: str, threads: int, combine: bool = True) -> PairScorer:
    from veracity.models.pairs.shipped import EmbeddedVerifier

    if path:
        return EmbeddedVerifier(model_dir=path, threads=threads, combine=combine)
    return EmbeddedVerifier(threads=threads, combine=combine)


def _embedded_raw(path: str, threads: int) -> PairScorer:
    return _embedded(path, threads, combine=False)


def _lexical(path: str, threads: int) -> PairScorer:
    from veracity.models.pairs.similarity import LexicalCoverageScorer

    return LexicalCoverageScorer()


def _cosine(path: str, threads: int) -> PairScorer:
    from veracity.models.pairs.similarity import CosineScorer

    return CosineScorer(threads=threads)


def _align(path: str, threads: int) -> PairScorer:
    from veracity.models.pairs.similarity import AlignmentScorer

    return AlignmentScorer(threads=threads)


#: name -> factory(path after ":", onnxruntime threads)
VERIFIERS: dict[str, Callable[[str, int], PairScorer]] = {
    "embedded": _embedded,
    "embedded-raw": _embedded_raw,
    "lexical": _lexical,
    "cosine": _cosine,
    "align": _align,
}


def _model_name(name: str, kind: str) -> tuple[str, str] | None:
    """``(model, preset)`` of a name ``<kind>:<model>[@preset]``, or ``None`` for another name.

    >>> _model_name("hf:org/model@binary", "hf"), _model_name("lexical", "hf")
    (('org/model', 'binary'), None)
    """
    if not name.startswith(f"{kind}:"):
        return None
    model, _, preset = name[len(kind) + 1 :].partition("@")
    return model, preset


def make_verifier(name: str, *, threads: int = defaults.ONNX_THREADS) -> PairScorer:
    """A verifier from its name (see the module docstring); raises OptionError if unknown."""
    if (hf := _model_name(name, "hf")) is not None:
        from veracity.models.pairs.hf import HFVerifier

        return HFVerifier(hf[0], labels=hf[1] or "nli")
    if (code := _model_name(name, "hf-code")) is not None:
        from veracity.models.pairs.remote_code import RemoteCodeVerifier

        if code[1]:
            raise OptionError(
                "verifier",
                name,
                "hf-code:<model id or folder>, without a preset",
                "The model's own predict() gives P(supported); it takes no label mapping.",
            )
        return RemoteCodeVerifier(code[0], trust_remote_code=True)
    if (seq2seq := _model_name(name, "seq2seq")) is not None:
        from veracity.models.pairs.seq2seq import Seq2SeqVerifier

        return Seq2SeqVerifier(seq2seq[0], preset=seq2seq[1] or "minicheck")
    name, _, path = name.partition(":")
    if name not in VERIFIERS:
        choices = ", ".join(VERIFIERS)
        raise OptionError(
            "verifier",
            name,
            f"one of {choices}, hf:<model>[@preset], seq2seq:<model>[@preset] or "
            "hf-code:<model> (runs the model's own code)",
        )
    return VERIFIERS[name](path, threads)


def make_span_detector(name: str) -> SpanDetector:
    """A span detector from its name, ``hf:<model id or path>[@label]`` (see the module
    docstring); raises OptionError for any other name. Nothing is loaded or downloaded here.

    >>> make_span_detector("hf:KRLabsOrg/lettucedect-base-modernbert-en-v1").model_id
    'KRLabsOrg/lettucedect-base-modernbert-en-v1'
    """
    hf = _model_name(name, "hf")
    if hf is None or not hf[0].strip():
        raise OptionError(
            "spans",
            name,
            "hf:<model id or folder>[@label], a token classifier such as LettuceDetect's",
            "For example hf:KRLabsOrg/lettucedect-base-modernbert-en-v1 once its "
            "weights are in the local Hugging Face cache, or hf:/path/to/model.",
        )
    from veracity.models.pairs.spans import TokenSpanDetector

    return TokenSpanDetector(hf[0], hallucinated=hf[1] or 1)
