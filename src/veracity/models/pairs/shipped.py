"""veracity's own verifier: a MiniLM cross-encoder as int8 ONNX, shipped inside the package.

Inference needs only onnxruntime and tokenizers. Long premises are never truncated: the
evidence selector fits the claim's best-matching sentences into the window (or slides windows
over the premise), and each result records the premise spans it was taken from.

A verifier exported with an aligner (0.4 and later; see ``veracity_training.aligner``) also
runs all-MiniLM-L6-v2 over the window and the claim in the same ONNX call, and its combiner uses
the claim's token alignment with the window. The aligner reads each distinct window and claim of
a call once, however many pairs share it.

A pair's score never depends on the other pairs of a call. ``activations`` says how:

- ``per_tensor`` (``defaults.EMBEDDED_ACTIVATIONS``): the model as exported, whose int8
  activations are scaled over the whole input tensor, reads one pair per forward pass.
- ``per_row``: the model rewritten at load to quantize each row on its own
  (:mod:`veracity.models.onnx.rowwise`) reads ``defaults.EMBEDDED_ROW_BATCH`` pairs per pass,
  sorted by
  length, each padded to its own 16-token length bucket; a pair's score is the same to the bit
  alone and in any batch. Its scores differ from ``per_tensor``'s (they are closer to the float
  network's); see ``defaults.EMBEDDED_ACTIVATIONS`` for what each costs.

>>> verifier = EmbeddedVerifier().load()
>>> scores = verifier.run(["Paris is the capital of France."], ["France's capital is Paris."])
>>> scores.scores[0].label
'supported'
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, get_args

import numpy as np

from veracity import defaults
from veracity._deps import TRAINING_INSTALL
from veracity.assets import VERIFIER_DIR, load_tokenizer
from veracity.defaults import Activations
from veracity.errors import ModelError, OptionError
from veracity.models.onnx.rowwise import open_row_independent
from veracity.models.onnx.runtime import bucket_width, pad_batch, plan_batches, session
from veracity.models.pairs.base import check_pairs, strip_control_tokens
from veracity.models.pairs.combiner import (
    Combiner,
    ThreeWayCombiner,
    features,
    load_combiner,
    three_way_features,
)
from veracity.models.pairs.features import alignment, word_pieces
from veracity.models.pairs.windowed import score_windows
from veracity.models.pairs.windows import STRATEGIES, EvidenceSelector, Strategy
from veracity.types import PairScore, PairScores

__all__ = [
    "ACTIVATIONS",
    "EmbeddedVerifier",
    "Encoded",
    "PairReading",
    "claim_alignment",
    "read_pairs",
    "run_with_aligner",
]


_LABELS = ("supported", "contradicted", "neither")
ACTIVATIONS: tuple[Activations, ...] = get_args(Activations)
#: [CLS] [SEP]: the row a network input gets in a call where it has no rows of its own left.
_FILLER = (101, 102)


@dataclass(frozen=True)
class Encoded:
    """One text as the aligner read it: its encoding and its last hidden states."""

    encoding: Any
    hidden: np.ndarray


def run_with_aligner(
    session: Any,
    tokenizer: Any,
    feeds: dict[str, np.ndarray],
    windows: Sequence[str],
    claims: Sequence[str],
) -> tuple[np.ndarray, list[Encoded], list[Encoded]]:
    """Run a model exported with the aligner (``veracity_training.aligner``) on one batch: the
    pair ``logits``, and all-MiniLM-L6-v2's reading of each window and each claim."""
    encoded = {
        "window": tokenizer.encode_batch(list(windows)),
        "claim": tokenizer.encode_batch(list(claims)),
    }
    for name, encodings in encoded.items():
        padded = pad_batch([e.ids for e in encodings])
        feeds[f"{name}_ids"] = padded["input_ids"]
        feeds[f"{name}_mask"] = padded["attention_mask"]
    logits, window_hidden, claim_hidden = session.run(
        ["logits", "window_hidden", "claim_hidden"], feeds
    )
    return (
        logits,
        [Encoded(e, h) for e, h in zip(encoded["window"], window_hidden, strict=True)],
        [Encoded(e, h) for e, h in zip(encoded["claim"], claim_hidden, strict=True)],
    )


@dataclass(frozen=True)
class PairReading:
    """What :func:`read_pairs` read: the logits of every pair, and (with an aligner) the
    aligner's reading of every distinct window and claim, by text."""

    logits: np.ndarray
    windows: dict[str, Encoded]
    claims: dict[str, Encoded]


def read_pairs(
    session: Any,
    tokenizer: Any,
    pairs: Sequence[tuple[str, str]],
    *,
    batch_size: int,
    bucket: int | None,
    aligned: bool,
) -> PairReading:
    """Run the model over (window, claim) ``pairs`` in batches of ``batch_size`` rows.

    The pairs, the distinct windows and the distinct claims (the last two for the aligner, only
    when ``aligned``) are three streams of rows, each batched on its own
    (:func:`~veracity.models.onnx.runtime.plan_batches`, with ``bucket`` the length bucket of a
    row-independent model); a call takes the next batch of each, and a stream with none left
    reads a filler row whose outputs are dropped.
    """
    encodings = tokenizer.encode_batch(list(pairs))
    streams: list[tuple[str, list[Any], bool]] = [("", encodings, True)]
    texts: dict[str, list[str]] = {}
    if aligned:
        for position, name in enumerate(("window", "claim")):
            texts[name] = list(dict.fromkeys(pair[position] for pair in pairs))
            streams.append((name, tokenizer.encode_batch(texts[name]), False))
    plans = [
        plan_batches([len(e.ids) for e in stream], batch_size, bucket) for _, stream, _ in streams
    ]
    outputs = ["logits", *(f"{name}_hidden" for name, _, _ in streams[1:])]
    logits: np.ndarray | None = None
    read: dict[str, dict[str, Encoded]] = {name: {} for name in texts}
    for call in range(max(len(plan) for plan in plans)):
        feeds: dict[str, np.ndarray] = {}
        for (name, stream, typed), plan in zip(streams, plans, strict=True):
            batch = plan[call] if call < len(plan) else []
            rows = [stream[i].ids for i in batch] or [_FILLER]
            longest = max(len(row) for row in rows)
            padded = pad_batch(
                rows,
                [stream[i].type_ids for i in batch] if typed and batch else None,
                width=None if bucket is None else bucket_width(longest, bucket),
            )
            if not name:
                feeds.update(padded)
            else:
                feeds[f"{name}_ids"] = padded["input_ids"]
                feeds[f"{name}_mask"] = padded["attention_mask"]
        results = session.run(outputs, feeds)
        if call < len(plans[0]):
            if logits is None:
                logits = np.zeros((len(pairs), results[0].shape[1]), dtype=results[0].dtype)
            logits[plans[0][call]] = results[0]
        for (name, stream, _), plan, hidden in zip(
            streams[1:], plans[1:], results[1:], strict=True
        ):
            for row, i in enumerate(plan[call] if call < len(plan) else []):
                read[name][texts[name][i]] = Encoded(stream[i], hidden[row])
    if logits is None:
        logits = np.zeros((0, len(_LABELS)), dtype=np.float32)
    return PairReading(logits, read.get("window", {}), read.get("claim", {}))


def claim_alignment(claim: str, read: Encoded, window: Encoded) -> float:
    """:func:`~veracity.models.pairs.features.alignment` of a claim with a window, from the
    aligner's hidden states."""
    return alignment(
        claim,
        *word_pieces(read.hidden, read.encoding),
        word_pieces(window.hidden, window.encoding)[0],
    )


class EmbeddedVerifier:
    """The shipped cross-encoder; ``strategy`` overrides how long premises are windowed.

    ``activations``: ``per_tensor`` or ``per_row`` (see the module docstring). ``batch_size``
    (pairs per forward pass; by default 1 for ``per_tensor``, ``defaults.EMBEDDED_ROW_BATCH``
    for ``per_row``) changes speed only with ``per_row``; with ``per_tensor`` above 1, scores
    move with their batch-mates (by up to 0.06 measured).
    """

    def __init__(
        self,
        *,
        model_dir: str | Path = VERIFIER_DIR,
        strategy: Strategy | None = None,
        batch_size: int | None = None,
        threads: int = defaults.ONNX_THREADS,
        combine: bool = True,
        activations: Activations = defaults.EMBEDDED_ACTIVATIONS,
    ) -> None:
        if strategy is not None and strategy not in STRATEGIES:
            raise OptionError("strategy", strategy, f"one of {', '.join(STRATEGIES)}")
        if activations not in ACTIVATIONS:
            raise OptionError("activations", activations, f"one of {', '.join(ACTIVATIONS)}")
        if batch_size is None:
            batch_size = defaults.EMBEDDED_ROW_BATCH if activations == "per_row" else 1
        if isinstance(batch_size, bool) or not isinstance(batch_size, int) or batch_size < 1:
            raise OptionError("batch_size", batch_size, "1 or more")
        self.model_dir = Path(model_dir)
        self.strategy = strategy
        self.batch_size = batch_size
        self.threads = threads
        self.combine = combine
        self.activations: Activations = activations
        self.model_id = "veracity-verifier"
        self.version = "unloaded"
        self._session: Any = None
        self._selector: EvidenceSelector | None = None
        self._combiner: Combiner | ThreeWayCombiner | None = None
        self._aligned = False
        self._bucket: int | None = None

    def load(self) -> EmbeddedVerifier:
        if self._session is not None:
            return self
        config_file = self.model_dir / "config.json"
        if not config_file.is_file():
            raise ModelError(
                f"no verifier at {self.model_dir} (config.json missing). Reinstall veracity, or "
                "train one with `veracity train-verifier` (the training package: "
                f"{TRAINING_INSTALL}) and pass its folder as model_dir"
            )
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
        self._aligned = bool(config.get("aligner"))
        if self.combine and config.get("combiner"):
            self._combiner = load_combiner(config["combiner"])
            if self._combiner.aligned and not self._aligned:
                raise ModelError(
                    f"{config_file}: the combiner needs the aligner, which this "
                    "verifier lacks; re-export it with its aligner"
                )
            self.version += "+combined"
        model_file = self.model_dir / "model.onnx"
        if self.activations == "per_row":
            self._session = open_row_independent(model_file, threads=self.threads)
            self._bucket = defaults.ROW_BUCKET_TOKENS
        else:
            self._session = session(model_file, threads=self.threads)
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
        scores, matrix = self.features(premises, claims)
        if self._combiner is not None and scores:
            combined = self._combiner.outputs(
                matrix, [(s.supported, s.contradicted, s.neither) for s in scores]
            )
            scores = [
                dataclasses.replace(score, supported=s, contradicted=c, neither=n)
                for score, (s, c, n) in zip(scores, combined, strict=True)
            ]
        return PairScores(tuple(scores), self.model_id, self.version)

    def features(
        self, premises: Sequence[str], claims: Sequence[str], *, three_way: bool | None = None
    ) -> tuple[list[PairScore], np.ndarray]:
        """The network's scores per pair (best window, not combined) and a combiner's feature
        matrix: :func:`~veracity.models.pairs.combiner.three_way_features` with ``three_way``
        (by default when the loaded combiner is three-way), else
        :func:`~veracity.models.pairs.combiner.features` (with ``alignment`` when the verifier has
        an aligner)."""
        self._loaded()  # the combiner's kind is known once loaded
        if three_way is None:
            three_way = isinstance(self._combiner, ThreeWayCombiner)
        scores, rows = score_windows(self._loaded(), premises, claims, self._score_batch)
        aligned = None
        if self._aligned:  # no pairs: no fourth column either
            aligned = rows[:, 3].tolist() if len(rows) else []
        probabilities = [(s.supported, s.contradicted, s.neither) for s in scores]
        if three_way:
            return scores, three_way_features(probabilities, premises, claims, aligned)
        return scores, features(probabilities, premises, claims, aligned)

    def _loaded_aligned(self) -> bool:
        self._loaded()
        return self._aligned

    def _score_batch(self, pairs: list[tuple[str, str]]) -> np.ndarray:
        """(supported, contradicted, neither) per pair, and the alignment as a fourth column
        when the verifier has an aligner."""
        tokenizer = self._loaded().tokenizer
        reading = read_pairs(
            self._session,
            tokenizer,
            pairs,
            batch_size=self.batch_size,
            bucket=self._bucket,
            aligned=self._aligned,
        )
        rows = np.zeros((len(pairs), 4 if self._aligned else 3), dtype=np.float64)
        logits = reading.logits
        shifted = np.exp(logits - logits.max(axis=1, keepdims=True))
        rows[:, :3] = shifted / shifted.sum(axis=1, keepdims=True)
        if self._aligned:
            windows = {
                text: word_pieces(read.hidden, read.encoding)[0]
                for text, read in reading.windows.items()
            }
            claims = {
                text: word_pieces(read.hidden, read.encoding)
                for text, read in reading.claims.items()
            }
            for i, (window, claim) in enumerate(pairs):
                rows[i, 3] = alignment(claim, *claims[claim], windows[window])
        return rows

    def _loaded(self) -> EvidenceSelector:
        self.load()
        if self._selector is None:  # pragma: no cover - load() always sets it
            raise ModelError("the verifier failed to load")
        return self._selector
