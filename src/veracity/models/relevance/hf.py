"""Any Hugging Face sequence-classification reranker (extra ``[hf]``), by hub id or local folder.

The model must have one output, a relevance logit (as ``cross-encoder/ms-marco-MiniLM-L-6-v2``
and the other MS MARCO cross-encoders do). It is loaded from local files only unless asked
(nothing is downloaded by default), and long passages are scored by their best window on the
model's own tokenizer.

>>> reranker = HFReranker("cross-encoder/ms-marco-MiniLM-L-6-v2").load()  # doctest: +SKIP
>>> reranker.run("bee dance", ["Bees dance to show food."]).logits()        # doctest: +SKIP
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path

import numpy as np

from veracity import defaults
from veracity.errors import ModelError
from veracity.models.pairs.hf import HFModel, HFOptions
from veracity.models.relevance.base import batched_logits, check_passages, score_windows
from veracity.types import RelevanceScores

__all__ = ["HFReranker"]


class HFReranker:
    """A ``RelevanceScorer`` backed by a one-logit Hugging Face cross-encoder.

    ``options`` (:class:`~veracity.models.pairs.hf.HFOptions`) give the revision, device, batch
    size and window (``max_tokens=None``: the model's own maximum length); a passage longer
    than the window is read in sliding windows. ``model_version`` in results is the revision
    when given, else the hub commit the files came from, else ``"local"``.
    """

    def __init__(
        self,
        model: str | Path,
        *,
        options: HFOptions | None = None,
    ) -> None:
        self.hf = HFModel(
            model,
            options,
            purpose="HFReranker (Hugging Face rerankers)",
            batch_size=defaults.HF_RERANK_BATCH,
            check=self._check_outputs,
            strategies=("slide",),  # a passage longer than the window: its best window
        )
        self.model_id = self.hf.model_id

    @property
    def version(self) -> str:
        return self.hf.version

    def load(self) -> HFReranker:
        """Load tokenizer and weights once."""
        self.hf.get()
        return self

    def run(self, query: str, passages: Sequence[str]) -> RelevanceScores:
        """One score per passage, in input order, from its best window."""
        query, texts = check_passages(query, passages)
        scores = score_windows(self.hf.get().selector, query, texts, self._logits)
        return RelevanceScores(query, scores, self.model_id, self.version)

    def _check_outputs(self, id2label: Mapping[int, str]) -> None:
        if len(id2label) != 1:
            raise ModelError(
                f"{self.model_id} has {len(id2label)} outputs ({dict(id2label)!r}); a reranker "
                "has one, a relevance logit. A three-way or two-way checker is a verifier: use "
                "it as --verifier hf:<model> instead"
            )

    def _logits(self, pairs: list[tuple[str, str]]) -> np.ndarray:
        classifier = self.hf.get()
        encodings = classifier.selector.tokenizer.encode_batch(pairs)
        return batched_logits(encodings, self.hf.batch_size, classifier.logits)
