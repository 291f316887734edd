"""veracity's own verifier: a MiniLM cross-encoder as int8 ONNX, shipped inside the package.

Inference needs only onnxruntime and tokenizers. Long premises are never truncated: the
evidence selector fits the claim's best-matching sentences into the window (or slides windows
over the premise), and each result records the premise spans it was taken from.

>>> verifier = EmbeddedVerifier().load()                                 # doctest: +SKIP
>>> verifier.run(["Paris is the capital of France."], ["France's capital is Paris."])
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from veracity import defaults
from veracity._onnx import pad_batch, session
from veracity.assets import VERIFIER_DIR, load_tokenizer
from veracity.errors import ModelError, OptionError
from veracity.types import PairScore, PairScores
from veracity.verify.base import check_pairs, strip_control_tokens
from veracity.verify.combine import Combiner
from veracity.verify.evidence import STRATEGIES, EvidenceSelector, Strategy
from veracity.verify.windowed import score_pairs

__all__ = ["EmbeddedVerifier"]


def _with_support(score: PairScore, supported: float) -> PairScore:
    """``score`` with P(supported) replaced; the other two keep their ratio."""
    rest = score.contradicted + score.neither
    share = score.contradicted / rest if rest > 0 else 0.5
    return dataclasses.replace(score, supported=supported,
                               contradicted=(1 - supported) * share,
                               neither=(1 - supported) * (1 - share))

_LABELS = ("supported", "contradicted", "neither")


class EmbeddedVerifier:
    """The shipped cross-encoder; ``strategy`` overrides how long premises are windowed."""

    def __init__(
        self,
        *,
        model_dir: str | Path = VERIFIER_DIR,
        strategy: Strategy | None = None,
        batch_size: int = defaults.EMBEDDED_BATCH,
        threads: int = defaults.ONNX_THREADS,
        combine: bool = True,
    ) -> None:
        if strategy is not None and strategy not in STRATEGIES:
            raise OptionError("strategy", strategy, f"one of {', '.join(STRATEGIES)}")
        if batch_size < 1:
            raise OptionError("batch_size", batch_size, "1 or more")
        self.model_dir = Path(model_dir)
        self.strategy = strategy
        self.batch_size = batch_size
        self.threads = threads
        self.combine = combine
        self.model_id = "veracity-verifier"
        self.version = "unloaded"
        self._session: Any = None
        self._selector: EvidenceSelector | None = None
        self._combiner: Combiner | None = None

    def load(self) -> EmbeddedVerifier:
        if self._session is not None:
            return self
        config_file = self.model_dir / "config.json"
        if not config_file.is_file():
            raise ModelError(
                f"no verifier at {self.model_dir} (config.json missing). Reinstall veracity, or "
                "train one with `veracity train-verifier` and pass its folder as model_dir")
        config = json.loads(config_file.read_text())
        if tuple(config["labels"]) != _LABELS:
            raise ModelError(f"{config_file}: labels {config['labels']} are not {list(_LABELS)}")
        self.model_id = str(config["model_id"])
        self.version = str(config["version"])
        self._selector = EvidenceSelector(
            max_tokens=int(config["max_tokens"]),
            strategy=self.strategy or config.get("strategy", "select"),
            tokenizer=load_tokenizer(),
        )
        if self.combine and config.get("combiner"):
            self._combiner = Combiner.from_json(config["combiner"])
            self.version += "+combined"
        self._session = session(self.model_dir / "model.onnx", threads=self.threads)
        return self

    @property
    def max_tokens(self) -> int:
        return self._loaded().max_tokens

    @property
    def selector(self) -> EvidenceSelector:
        """The evidence selector of the loaded model (its window and tokenizer)."""
        return self._loaded()

    def run(self, premises: Sequence[str], hypotheses: Sequence[str]) -> PairScores:
        check_pairs(premises, hypotheses)
        claims = [strip_control_tokens(h) for h in hypotheses]
        scores = score_pairs(self._loaded(), premises, claims, self._score_batch)
        if self._combiner is not None and scores:
            support = self._combiner.support([s.supported for s in scores], premises, claims)
            scores = [_with_support(score, value) for score, value in zip(scores, support,
                                                                           strict=True)]
        return PairScores(tuple(scores), self.model_id, self.version)

    def _score_batch(self, pairs: list[tuple[str, str]]) -> np.ndarray:
        encodings = self._loaded().tokenizer.encode_batch(pairs)
        order = sorted(range(len(pairs)), key=lambda i: len(encodings[i].ids))
        probabilities = np.zeros((len(pairs), 3), dtype=np.float64)
        for first in range(0, len(order), self.batch_size):
            batch = order[first : first + self.batch_size]
            feeds = pad_batch([encodings[i].ids for i in batch],
                              [encodings[i].type_ids for i in batch])
            (logits,) = self._session.run(["logits"], feeds)
            shifted = np.exp(logits - logits.max(axis=1, keepdims=True))
            probabilities[batch] = shifted / shifted.sum(axis=1, keepdims=True)
        return probabilities

    def _loaded(self) -> EvidenceSelector:
        self.load()
        if self._selector is None:  # pragma: no cover - load() always sets it
            raise ModelError("the verifier failed to load")
        return self._selector
