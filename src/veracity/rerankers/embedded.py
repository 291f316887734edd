"""veracity's own reranker: a MiniLM cross-encoder as int8 ONNX, shipped inside the package.

Trained by ``veracity train-reranker`` and exported by ``veracity export-reranker`` (see the
card in ``veracity/assets/reranker/CARD.md``); inference needs only onnxruntime and tokenizers.

>>> reranker = EmbeddedReranker().load()                              # doctest: +SKIP
>>> scores = reranker.run("bee dance", ["Bees dance.", "Ants march."])  # doctest: +SKIP
>>> scores.scores[0].logit > scores.scores[1].logit                     # doctest: +SKIP
True
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from veracity import defaults
from veracity._onnx import pad_batch, session
from veracity.assets import RERANKER_DIR, load_tokenizer
from veracity.errors import ModelError, OptionError
from veracity.rerankers.base import batched_logits, check_passages, score_windows
from veracity.types import RelevanceScores
from veracity.verifiers.windows import EvidenceSelector

__all__ = ["EmbeddedReranker"]


class EmbeddedReranker:
    """The shipped cross-encoder reranker (or one exported to ``model_dir``)."""

    def __init__(self, *, model_dir: str | Path = RERANKER_DIR,
                 batch_size: int = defaults.RERANK_BATCH,
                 threads: int = defaults.ONNX_THREADS) -> None:
        if isinstance(batch_size, bool) or not isinstance(batch_size, int) or batch_size < 1:
            raise OptionError("batch_size", batch_size, "1 or more")
        self.model_dir = Path(model_dir)
        self.batch_size = batch_size
        self.threads = threads
        self.model_id = "veracity-reranker"
        self.version = "unloaded"
        self._session: Any = None
        self._selector: EvidenceSelector | None = None

    def load(self) -> EmbeddedReranker:
        if self._session is not None:
            return self
        config_file = self.model_dir / "config.json"
        if not config_file.is_file():
            raise ModelError(
                f"no reranker at {self.model_dir} (config.json missing). Reinstall veracity, or "
                "train one with `veracity train-reranker`, export it with `veracity "
                "export-reranker` and pass its folder")
        config = json.loads(config_file.read_text(encoding="utf-8"))
        if list(config.get("labels", [])) != ["relevant"]:
            raise ModelError(f"{config_file}: labels {config.get('labels')} are not "
                             "['relevant']: this folder holds no reranker (a verifier?)")
        self.model_id = str(config["model_id"])
        self.version = str(config["version"])
        self._selector = EvidenceSelector(max_tokens=int(config["max_tokens"]), strategy="slide",
                                          tokenizer=load_tokenizer())
        self._session = session(self.model_dir / "model.onnx", threads=self.threads)
        return self

    @property
    def max_tokens(self) -> int:
        return self._loaded().max_tokens

    def run(self, query: str, passages: Sequence[str]) -> RelevanceScores:
        """One score per passage, in input order, from its best window."""
        query, texts = check_passages(query, passages)
        scores = score_windows(self._loaded(), query, texts, self._logits)
        return RelevanceScores(query, scores, self.model_id, self.version)

    def _logits(self, pairs: list[tuple[str, str]]) -> np.ndarray:
        encodings = self._loaded().tokenizer.encode_batch(pairs)
        return batched_logits(encodings, self.batch_size, self._run_batch)

    def _run_batch(self, encodings: list[Any]) -> np.ndarray:
        feeds = pad_batch([e.ids for e in encodings], [e.type_ids for e in encodings])
        (logits,) = self._session.run(["logits"], feeds)
        result: np.ndarray = np.asarray(logits, dtype=np.float64)
        return result

    def _loaded(self) -> EvidenceSelector:
        self.load()
        if self._selector is None:  # pragma: no cover - load() always sets it
            raise ModelError("the reranker failed to load")
        return self._selector
