"""Sequence-to-sequence checkers that read label-token probabilities (extra ``[hf]``).

MiniCheck-Flan-T5-Large (Tang et al. 2024; LLM-AggreFact average 75.0, ../shared/anchors)
is a T5 that reads ``"predict: " + document + </s> + claim`` and answers with one token: the
probabilities of its two label tokens at the first decoding step (vocabulary ids 209 for
"supported" and 3 for "unsupported", softmaxed against each other) are the checker's output.
:class:`Seq2SeqVerifier` runs any such model by hub id or local folder (nothing is downloaded
unless ``local_files_only=False``) through the same windowing as every veracity verifier: a
document longer than the window is reduced to the claim's best evidence sentences, never cut.

``P(supported)`` is the supported token's share; the rest is ``neither`` (the format has no
contradiction label), as the ``binary`` preset of :mod:`veracity.models.pairs.hf` reads MiniCheck's
classifiers.

>>> verifier = Seq2SeqVerifier("lytang/MiniCheck-Flan-T5-Large")       # doctest: +SKIP
>>> verifier.load().run(["Paris is in France."], ["France has Paris."])  # doctest: +SKIP

On the command line: ``--verifier seq2seq:lytang/MiniCheck-Flan-T5-Large`` (from the local Hugging
Face cache) or ``--verifier seq2seq:/path/to/folder``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from veracity import defaults
from veracity.errors import ModelError, OptionError
from veracity.models.pairs.base import check_pairs, strip_control_tokens
from veracity.models.pairs.hf import HFModel, HFOptions, length_batches
from veracity.models.pairs.windowed import score_pairs
from veracity.types import PairScores

__all__ = ["SEQ2SEQ_PRESETS", "Seq2SeqFormat", "Seq2SeqVerifier"]


@dataclass(frozen=True)
class Seq2SeqFormat:
    """How a seq2seq checker reads a pair and which tokens carry its answer.

    The input is ``prefix + premise + separator + claim``; ``separator=None`` is the tokenizer's
    end-of-sequence token. ``supported`` and ``unsupported`` are vocabulary ids.
    """

    prefix: str
    supported: int
    unsupported: int
    separator: str | None = None

    def text(self, premise: str, claim: str, eos: str) -> str:
        """The model's input for one pair.

        >>> SEQ2SEQ_PRESETS["minicheck"].text("Bees dance.", "Bees move.", "</s>")
        'predict: Bees dance.</s>Bees move.'
        """
        separator = eos if self.separator is None else self.separator
        return f"{self.prefix}{premise}{separator}{claim}"


#: MiniCheck-Flan-T5's format (its inference code: token 209 supported, 3 unsupported).
SEQ2SEQ_PRESETS = {"minicheck": Seq2SeqFormat(prefix="predict: ", supported=209, unsupported=3)}


class Seq2SeqVerifier:
    """A ``PairScorer`` backed by a Hugging Face seq2seq checker (see the module docstring)."""

    def __init__(
        self,
        model: str | Path,
        *,
        preset: str | Seq2SeqFormat = "minicheck",
        options: HFOptions | None = None,
    ) -> None:
        self.hf = HFModel(
            model,
            options,
            purpose="Seq2SeqVerifier (seq2seq checkers)",
            batch_size=defaults.VERIFIER_BATCH,
            seq2seq=self._format_tokens,
        )
        if isinstance(preset, str) and preset not in SEQ2SEQ_PRESETS:
            raise OptionError(
                "preset", preset, f"one of {', '.join(SEQ2SEQ_PRESETS)} or a Seq2SeqFormat"
            )
        self.format = SEQ2SEQ_PRESETS[preset] if isinstance(preset, str) else preset
        self.model_id = self.hf.model_id
        self._eos = ""

    @property
    def version(self) -> str:
        return self.hf.version

    def load(self) -> Seq2SeqVerifier:
        """Load tokenizer and weights once (from local files unless ``local_files_only=False``)."""
        self.hf.get()
        return self

    def run(self, premises: Sequence[str], hypotheses: Sequence[str]) -> PairScores:
        """One result per pair, in input order, from each pair's best window."""
        check_pairs(premises, hypotheses)
        claims = [strip_control_tokens(h) for h in hypotheses]
        scores = score_pairs(self.hf.get().selector, premises, claims, self._score_batch)
        return PairScores(tuple(scores), self.model_id, self.version)

    def _format_tokens(self, tokenizer: Any) -> int:
        """Tokens the format adds to a pair: prefix, separator and the tokenizer's own (checked
        at load, with the label tokens, before the weights are read)."""
        vocabulary = len(tokenizer)
        for name in ("supported", "unsupported"):
            token = getattr(self.format, name)
            if not 0 <= token < vocabulary:
                raise ModelError(
                    f"{self.model_id}: the {name} label token {token} is outside "
                    f"its vocabulary of {vocabulary}; give a Seq2SeqFormat with "
                    "this model's label tokens"
                )
        eos = tokenizer.eos_token
        if self.format.separator is None and not eos:
            raise ModelError(
                f"{self.model_id}: the tokenizer has no end-of-sequence token to "
                "separate the document from the claim; give a Seq2SeqFormat with "
                "a separator"
            )
        self._eos = eos or ""
        framing = self.format.text("", "", self._eos)
        joins = 2  # a token may merge differently where the texts meet
        return (
            len(tokenizer(framing, add_special_tokens=False)["input_ids"])
            + int(tokenizer.num_special_tokens_to_add(pair=False))
            + joins
        )

    def _score_batch(self, pairs: list[tuple[str, str]]) -> np.ndarray:
        model = self.hf.get()
        texts = [self.format.text(premise, claim, self._eos) for premise, claim in pairs]
        encodings = model.selector.tokenizer.encode_batch(texts)
        probabilities = np.zeros((len(pairs), 3), dtype=np.float64)
        tokens = [self.format.supported, self.format.unsupported]
        for batch in length_batches(encodings, self.hf.batch_size):
            logits = model.logits([encodings[i] for i in batch])[:, tokens]
            shifted = np.exp(logits - logits.max(axis=1, keepdims=True))
            supported = shifted[:, 0] / shifted.sum(axis=1)
            probabilities[batch] = np.stack(
                [supported, np.zeros_like(supported), 1.0 - supported], axis=1
            )
        return probabilities
