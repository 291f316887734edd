"""Sequence classifiers that bring their own Python code, such as HHEM-2.1-open (extra ``[hf]``).

Some checkers on the Hugging Face hub load only with ``trust_remote_code=True``: their
config.json has an ``auto_map`` naming classes in Python files shipped with the weights, and
loading the model runs those files. veracity never does that unless asked: ``hf:MODEL`` refuses
such a model with an error naming the opt-in, and :class:`RemoteCodeVerifier` (``--verifier
hf-code:MODEL``) requires ``trust_remote_code=True``.

The model's own ``predict(pairs)`` method is the entry point, as Vectara documents it for
HHEM-2.1-open: given ``(premise, hypothesis)`` pairs it returns one factual-consistency
probability per pair. That probability is read as P(supported), and ``1 - P`` as neither:
HHEM does not tell a contradiction from a claim its premise is silent on, so contradicted is
always 0. The model tokenizes the pair itself, so the premise goes in whole (HHEM-2.1-open has
no fixed window); the results' ``window`` is the whole premise.

>>> verifier = RemoteCodeVerifier(
...     "vectara/hallucination_evaluation_model", trust_remote_code=True
... )  # doctest: +SKIP
>>> verifier.load().run(["Paris is in France."], ["France has Paris."])  # doctest: +SKIP
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from veracity import defaults
from veracity._deps import require
from veracity.errors import ModelError, OptionError
from veracity.models.pairs.base import check_pairs, strip_control_tokens
from veracity.models.pairs.hf import (
    HFOptions,
    check_model_folder,
    load_failure,
    on_device,
    own_code,
)
from veracity.types import PairScore, PairScores, Span

__all__ = ["RemoteCodeVerifier"]

_PURPOSE = "RemoteCodeVerifier (checkers with their own code)"


class RemoteCodeVerifier:
    """A ``PairScorer`` backed by a sequence classifier whose own code defines ``predict(pairs)``.

    ``trust_remote_code=True`` is required: loading runs the Python files that come with the
    model. ``options`` (:class:`~veracity.models.pairs.hf.HFOptions`) give the revision, device
    and batch size; nothing is downloaded unless ``local_files_only=False``. ``model_version``
    in results is the revision when given, else the hub commit the files came from, else
    ``"local"``.
    """

    def __init__(
        self,
        model: str | Path,
        *,
        trust_remote_code: bool,
        options: HFOptions | None = None,
    ) -> None:
        options = HFOptions() if options is None else options
        if not str(model).strip():
            raise OptionError("model", model, "a hub model id or a local folder")
        for name in ("max_tokens", "strategy"):
            if getattr(options, name) is not None:
                raise OptionError(
                    name,
                    getattr(options, name),
                    "left out: the model's own predict() reads whole pairs",
                    "Give revision, device and batch_size only.",
                )
        if trust_remote_code is not True:
            raise OptionError(
                "trust_remote_code",
                trust_remote_code,
                "True",
                "RemoteCodeVerifier loads a model by running its own Python code; pass "
                "trust_remote_code=True only for a model whose authors you trust.",
            )
        self.model_id = str(model)
        self.revision = options.revision
        self.local_files_only = options.local_files_only
        self.device = options.device
        self.batch_size = options.batch_size or defaults.VERIFIER_BATCH
        self._model: Any = None
        self._version: str | None = None

    @property
    def version(self) -> str:
        return self._version or self.revision or "unloaded"

    def load(self) -> RemoteCodeVerifier:
        """Load the model and run its code once (from local files unless
        ``local_files_only=False``)."""
        if self._model is not None:
            return self
        model_id = self.model_id
        check_model_folder(model_id)
        require("torch", extra="hf", purpose=_PURPOSE)
        transformers = require("transformers", extra="hf", purpose=_PURPOSE)
        options: dict[str, Any] = {
            "revision": self.revision,
            "local_files_only": self.local_files_only,
        }
        try:
            if not own_code(
                transformers,
                model_id,
                revision=self.revision,
                local_files_only=self.local_files_only,
            ):
                raise ModelError(
                    f"{model_id} has no code of its own (no auto_map in its config.json): "
                    f"load it without running any code, with --verifier hf:{model_id}@score "
                    "(or the label preset that fits its outputs)"
                )
            model = transformers.AutoModelForSequenceClassification.from_pretrained(
                model_id, trust_remote_code=True, **options
            )
        except (OSError, ValueError, ImportError) as exc:
            raise load_failure(
                model_id,
                self.revision,
                "with its own code",
                exc,
                local_files_only=self.local_files_only,
                scheme="hf-code",
                note="A model's code may itself fetch files (HHEM-2.1-open reads "
                "google/flan-t5-base's tokenizer): have them in the cache too.",
            ) from exc
        if not callable(getattr(model, "predict", None)):
            raise ModelError(
                f"{model_id}: its code defines no predict(pairs) method, which "
                "RemoteCodeVerifier calls; for a model that only returns logits, use "
                f"hf:{model_id} with a label preset"
            )
        self._model = on_device(model, model_id, self.device)
        self._version = self.revision or getattr(model.config, "_commit_hash", None) or "local"
        return self

    def run(self, premises: Sequence[str], hypotheses: Sequence[str]) -> PairScores:
        """One result per pair, in input order: P(supported) from the model's ``predict``,
        neither = 1 - P, contradicted = 0."""
        check_pairs(premises, hypotheses)
        self.load()
        pairs = [(p, strip_control_tokens(h)) for p, h in zip(premises, hypotheses, strict=True)]
        supported = np.zeros(len(pairs), dtype=np.float64)
        # Batches of similar length: less padding for the model's own tokenizer.
        order = sorted(range(len(pairs)), key=lambda i: len(pairs[i][0]) + len(pairs[i][1]))
        for first in range(0, len(order), self.batch_size):
            batch = order[first : first + self.batch_size]
            supported[batch] = self._predict([pairs[i] for i in batch])
        scores = tuple(
            PairScore(
                supported=float(p),
                contradicted=0.0,
                neither=float(1.0 - p),
                window=Span(0, len(premise)),
                evidence=(Span(0, len(premise)),),
            )
            for p, premise in zip(supported, premises, strict=True)
        )
        return PairScores(scores, self.model_id, self.version)

    def _predict(self, pairs: list[tuple[str, str]]) -> np.ndarray:
        torch = require("torch", extra="hf", purpose=_PURPOSE)
        with torch.no_grad():
            out = self._model.predict(pairs)
        values = np.asarray(torch.as_tensor(out).detach().float().cpu().numpy(), np.float64)
        values = values.reshape(-1) if values.size == len(pairs) else values
        if values.shape != (len(pairs),) or not np.all((values >= 0.0) & (values <= 1.0)):
            raise ModelError(
                f"{self.model_id}: predict() on {len(pairs)} pairs returned "
                f"{values.shape} values {values.ravel()[:4].tolist()}..., not one probability "
                "in [0, 1] per pair"
            )
        return values
