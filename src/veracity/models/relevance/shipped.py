"""veracity's own reranker: a MiniLM cross-encoder as int8 ONNX, shipped inside the package.

Trained by ``veracity train-reranker`` and exported by ``veracity export-reranker`` (see the
card in ``veracity/assets/reranker/CARD.md``); inference needs only onnxruntime and tokenizers.

An export with an aligner also runs all-MiniLM-L6-v2 over the passage window and the query in
the same ONNX call, and its combiner (a logistic layer fit on held-out training pairs) scores
the pair from three features: the cross-encoder's logit, the query's token alignment with the
window (:func:`~veracity.models.pairs.features.alignment`) and the cosine of their mean-pooled
embeddings. The result's logit is the combiner's, unless the folder's guard
(:mod:`veracity.models.relevance.guard`) records that the combination ranks worse than one of its
features alone on a development set: then it ranks by the best feature, calibrated, and every
result says so in its ``notes`` (``guarded=False`` keeps the combiner).

>>> reranker = EmbeddedReranker().load()
>>> scores = reranker.run("why do bees dance", ["Bees dance to show food.", "Ants march."])
>>> scores.scores[0].logit > scores.scores[1].logit
True
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from veracity import defaults
from veracity._deps import TRAINING_INSTALL
from veracity.assets import RERANKER_DIR, load_tokenizer
from veracity.errors import ModelError, OptionError
from veracity.models.onnx.runtime import pad_batch, session
from veracity.models.pairs.features import mean_pooled
from veracity.models.pairs.shipped import Encoded, claim_alignment, run_with_aligner
from veracity.models.pairs.windows import EvidenceSelector
from veracity.models.relevance.base import check_passages, score_windows
from veracity.models.relevance.guard import Fallback, RerankGuard
from veracity.types import RelevanceScores

#: The combiner's features, in the order of its weights.
RERANK_FEATURES = ("logit", "alignment", "cosine")

__all__ = ["RERANK_FEATURES", "EmbeddedReranker", "pair_features"]


class EmbeddedReranker:
    """The shipped cross-encoder reranker (or one exported to ``model_dir``)."""

    def __init__(
        self,
        *,
        model_dir: str | Path = RERANKER_DIR,
        batch_size: int = defaults.RERANK_BATCH,
        threads: int = defaults.ONNX_THREADS,
        combine: bool = True,
        guarded: bool = True,
    ) -> None:
        if isinstance(batch_size, bool) or not isinstance(batch_size, int) or batch_size < 1:
            raise OptionError("batch_size", batch_size, "1 or more")
        self.model_dir = Path(model_dir)
        self.batch_size = batch_size
        self.threads = threads
        self.combine = combine
        self.guarded = guarded
        #: Why it ranks by one feature alone (empty while it uses its combiner).
        self.notes: tuple[str, ...] = ()
        self.fallback: Fallback | None = None
        self.model_id = "veracity-reranker"
        self.version = "unloaded"
        self._session: Any = None
        self._selector: EvidenceSelector | None = None
        self._aligned = False
        self._weights: np.ndarray | None = None
        self._bias = 0.0

    def load(self) -> EmbeddedReranker:
        if self._session is not None:
            return self
        config_file = self.model_dir / "config.json"
        if not config_file.is_file():
            raise ModelError(
                f"no reranker at {self.model_dir} (config.json missing). Reinstall veracity, or "
                "train one with `veracity train-reranker`, export it with `veracity "
                f"export-reranker` (the training package: {TRAINING_INSTALL}) and pass its folder"
            )
        config = json.loads(config_file.read_text(encoding="utf-8"))
        if list(config.get("labels", [])) != ["relevant"]:
            raise ModelError(
                f"{config_file}: labels {config.get('labels')} are not "
                "['relevant']: this folder holds no reranker (a verifier?)"
            )
        self.model_id = str(config["model_id"])
        self.version = str(config["version"])
        self._selector = EvidenceSelector(
            max_tokens=int(config["max_tokens"]), strategy="slide", tokenizer=load_tokenizer()
        )
        self._aligned = bool(config.get("aligner"))
        combiner = config.get("combiner")
        if self.combine and combiner:
            if tuple(combiner["features"]) != RERANK_FEATURES or not self._aligned:
                raise ModelError(
                    f"{config_file}: the combiner needs the features "
                    f"{list(RERANK_FEATURES)} and the aligner; re-export it"
                )
            self._weights = np.asarray(combiner["weights"], dtype=np.float64)
            self._bias = float(combiner["bias"])
            self.version += "+combined"
            if self.guarded and config.get("guard"):
                self._guard(RerankGuard.from_config(config["guard"], where=str(config_file)))
        self._session = session(self.model_dir / "model.onnx", threads=self.threads)
        return self

    def _guard(self, guard: RerankGuard) -> None:
        fallback = guard.fallback()
        if fallback is None:
            return
        if fallback.feature not in RERANK_FEATURES:
            raise ModelError(
                f"{self.model_dir / 'config.json'}: the guard falls back to {fallback.feature!r}, "
                f"not one of {list(RERANK_FEATURES)}; write it again"
            )
        weights = np.zeros(len(RERANK_FEATURES))
        weights[RERANK_FEATURES.index(fallback.feature)] = fallback.slope
        self._weights, self._bias = weights, fallback.bias
        self.fallback = fallback
        self.version = self.version.replace("+combined", f"+{fallback.feature}")
        self.notes = (
            f"the reranker {self.model_id} ranks by its {fallback.feature} feature alone, its "
            f"best over the development sets: "
            f"{fallback.reason}; `--reranker` names another",
        )

    @property
    def max_tokens(self) -> int:
        return self._loaded().max_tokens

    @property
    def selector(self) -> EvidenceSelector:
        """The window builder of the loaded model (its window and tokenizer)."""
        return self._loaded()

    def run(self, query: str, passages: Sequence[str]) -> RelevanceScores:
        """One score per passage, in input order, from its best window."""
        query, texts = check_passages(query, passages)
        scores = score_windows(self._loaded(), query, texts, self._logits)
        return RelevanceScores(query, scores, self.model_id, self.version, self.notes)

    def features(self, pairs: list[tuple[str, str]]) -> np.ndarray:
        """Per (query, window text) pair: the network's logit, and with an aligner the query's
        alignment with the window and their embeddings' cosine (columns of
        :data:`RERANK_FEATURES`)."""
        tokenizer = self._loaded().tokenizer
        encodings = tokenizer.encode_batch(pairs)
        width = 3 if self._aligned else 1
        order = sorted(range(len(pairs)), key=lambda i: len(encodings[i].ids))
        rows = np.zeros((len(pairs), width), dtype=np.float64)
        for first in range(0, len(order), self.batch_size):
            batch = order[first : first + self.batch_size]
            feeds = pad_batch(
                [encodings[i].ids for i in batch], [encodings[i].type_ids for i in batch]
            )
            if not self._aligned:
                (logits,) = self._session.run(["logits"], feeds)
                rows[batch, 0] = np.asarray(logits, dtype=np.float64)[:, 0]
                continue
            logits, windows, queries = run_with_aligner(
                self._session,
                tokenizer,
                feeds,
                [pairs[i][1] for i in batch],
                [pairs[i][0] for i in batch],
            )
            for row, i in enumerate(batch):
                rows[i] = pair_features(
                    pairs[i][0], float(logits[row, 0]), queries[row], windows[row]
                )
        return rows

    def _logits(self, pairs: list[tuple[str, str]]) -> np.ndarray:
        rows = self.features(pairs)
        if self._weights is None:
            return rows[:, 0]
        result: np.ndarray = rows @ self._weights + self._bias
        return result

    def _loaded(self) -> EvidenceSelector:
        self.load()
        if self._selector is None:  # pragma: no cover - load() always sets it
            raise ModelError("the reranker failed to load")
        return self._selector


def pair_features(query_text: str, logit: float, query: Encoded, window: Encoded) -> np.ndarray:
    """The combiner's features of one (query, window) pair from the aligner's hidden states."""
    cosine = float(
        np.dot(
            mean_pooled(query.hidden, len(query.encoding.ids)),
            mean_pooled(window.hidden, len(window.encoding.ids)),
        )
    )
    return np.array([logit, claim_alignment(query_text, query, window), cosine])
