"""Soft targets for distilling a slower scorer into the cross-encoder.

Token alignment on the selected evidence
(:class:`~veracity.models.pairs.similarity.AlignmentScorer`)
ranks long-form answer sentences better than the cross-encoder does, but it is too slow to run
beside it. Distillation moves what it knows into the network at no cost at inference: the
trainer adds a term that pulls the network's P(supported) toward the teacher's calibrated
probability for the same row.

The teacher's scores are computed once per run, in training order, and kept in
``RUN/teacher-align.npz`` (written atomically every chunk), so a stopped run resumes without
recomputing them. The calibration (a logistic fit of the supported label on the score) uses the
training rows themselves: no validation or evaluation data is read.

The reranker's teacher is the embedder inside it: all-MiniLM-L6-v2's cosine of the query and the
passage window (:class:`CosineTeacher`), which ranks web queries better than the cross-encoder
trained on question-answering pairs (bench/README.md, rerank_dl19). It is cheap next to a
training step, so it scores each batch as it comes; its calibration is fit once on the first
rows of the training order and kept in ``RUN/teacher-cosine.json``.
"""

from __future__ import annotations

import contextlib
import json
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

import numpy as np

from veracity.errors import InputError, VeracityError
from veracity.models.pairs.combiner import fit_logistic

__all__ = [
    "TEACHERS",
    "Calibration",
    "CosineTeacher",
    "TeacherScorer",
    "TeacherScores",
    "cosine_calibration",
    "teacher_scores",
]

#: Teachers the trainer can distil, by task (the name is recorded in the run's config).
TEACHERS = {"verify": ("align",), "rerank": ("cosine",)}
#: Training rows the cosine teacher's calibration is fit on (the first of the training order).
CALIBRATION_ROWS = 2_048
#: The supported label's id in training rows (``veracity_training.config.LABELS`` order).
SUPPORTED = 0


class _Result(Protocol):
    def supported(self) -> Sequence[float]: ...


class TeacherScorer(Protocol):
    """What the teacher must do: score (premise, claim) pairs, ``supported()`` per pair."""

    def run(self, premises: Sequence[str], claims: Sequence[str]) -> _Result: ...


class _HasPremiseClaim(Protocol):
    @property
    def premise(self) -> str: ...

    @property
    def hypothesis(self) -> str: ...

    @property
    def label(self) -> int: ...


@dataclass(frozen=True)
class Calibration:
    """``sigmoid(slope * score + bias)``: the teacher's probability that a row is supported."""

    slope: float
    bias: float

    def logits(self, scores: np.ndarray) -> np.ndarray:
        """The teacher's log-odds, ``slope * score + bias``."""
        return np.asarray(self.slope * scores + self.bias, dtype=np.float64)

    def probabilities(self, scores: np.ndarray) -> np.ndarray:
        return np.asarray(1.0 / (1.0 + np.exp(-self.logits(scores))), dtype=np.float64)


@dataclass(frozen=True)
class TeacherScores:
    """One score per training position (NaN where the teacher could not score the row)."""

    scores: np.ndarray
    calibration: Calibration
    #: Time spent scoring, summed over resumed calls (0 for caches written before it was kept).
    seconds: float = 0.0

    def targets(self) -> np.ndarray:
        """Calibrated P(supported); NaN rows stay NaN (the trainer skips their term)."""
        return self.calibration.probabilities(self.scores)


def _supported(scorer: TeacherScorer, premises: Sequence[str], claims: Sequence[str]) -> np.ndarray:
    return np.asarray(scorer.run(premises, claims).supported(), dtype=np.float64)


def _score_chunk(scorer: TeacherScorer, rows: Sequence[_HasPremiseClaim]) -> np.ndarray:
    premises = [r.premise for r in rows]
    claims = [r.hypothesis for r in rows]
    try:
        return _supported(scorer, premises, claims)
    except VeracityError:  # one row the teacher cannot read must not cost the chunk
        out = np.full(len(rows), np.nan)
        for i, (premise, claim) in enumerate(zip(premises, claims, strict=True)):
            with contextlib.suppress(VeracityError):
                out[i] = _supported(scorer, [premise], [claim])[0]
        return out


def teacher_scores(
    rows: Sequence[_HasPremiseClaim],
    scorer: TeacherScorer,
    cache: Path,
    *,
    chunk: int = 256,
    progress: Callable[[int, int], None] | None = None,
) -> TeacherScores:
    """The teacher's scores for ``rows`` (in training order), resuming from ``cache``."""
    scores = np.full(len(rows), np.nan)
    done = 0
    seconds = 0.0
    if cache.is_file():
        saved = np.load(cache)
        if int(saved["rows"]) != len(rows):
            raise InputError(
                f"{cache} holds teacher scores for {int(saved['rows'])} rows, this "
                f"run needs {len(rows)}: delete it or use a new --out folder"
            )
        done = int(saved["done"])
        scores[:done] = saved["scores"][:done]
        seconds = float(saved["seconds"]) if "seconds" in saved else 0.0
    while done < len(rows):
        end = min(done + chunk, len(rows))
        started = time.monotonic()
        scores[done:end] = _score_chunk(scorer, rows[done:end])
        seconds += time.monotonic() - started
        done = end
        temporary = cache.with_name(cache.name + ".tmp.npz")
        np.savez(temporary, scores=scores, done=done, rows=len(rows), seconds=seconds)
        temporary.replace(cache)
        if progress is not None:
            progress(done, len(rows))
    known = ~np.isnan(scores)
    labels = np.array([int(r.label == SUPPORTED) for r in rows])
    if known.sum() < 2 or labels[known].min() == labels[known].max():
        raise InputError(
            f"the teacher scored too few rows of both classes ({int(known.sum())} "
            f"of {len(rows)}) to calibrate it: check the training data"
        )
    weights, bias = fit_logistic(scores[known][:, None], labels[known])
    return TeacherScores(scores, Calibration(float(weights[0]), float(bias)), seconds)


class CosineTeacher:
    """all-MiniLM-L6-v2 as a sentence embedder (mean-pooled, L2-normalised) in torch, frozen:
    the cosine of each (query, passage) pair. ``model_dir`` holds its weights and tokenizer."""

    def __init__(self, model_dir: Path, *, max_tokens: int = 256) -> None:
        self.model_dir = model_dir
        self.max_tokens = max_tokens
        self._model: Any = None
        self._tokenizer: Any = None

    def load(self) -> CosineTeacher:
        if self._model is None:
            from veracity_training._deps import require

            transformers = require("transformers", purpose="the cosine teacher")
            path = str(self.model_dir)
            self._tokenizer = transformers.AutoTokenizer.from_pretrained(
                path, local_files_only=True
            )
            self._model = transformers.AutoModel.from_pretrained(path, local_files_only=True)
            self._model.eval()
            for parameter in self._model.parameters():
                parameter.requires_grad = False
        return self

    def _embed(self, torch: Any, texts: Sequence[str]) -> Any:
        features = self._tokenizer(
            list(texts),
            padding=True,
            truncation=True,
            max_length=self.max_tokens,
            return_tensors="pt",
        )
        hidden = self._model(**features).last_hidden_state
        mask = features["attention_mask"].unsqueeze(-1).to(hidden.dtype)
        pooled = (hidden * mask).sum(1) / mask.sum(1).clamp(min=1e-9)
        return torch.nn.functional.normalize(pooled, dim=-1)

    def run(self, queries: Sequence[str], passages: Sequence[str]) -> np.ndarray:
        """One cosine per pair, in [-1, 1]."""
        import torch

        self.load()
        with torch.no_grad():
            similarity = (self._embed(torch, queries) * self._embed(torch, passages)).sum(-1)
        return np.asarray(similarity.numpy(), dtype=np.float64)


def cosine_calibration(
    teacher: CosineTeacher,
    pairs: Sequence[tuple[str, str]],
    relevant: Sequence[bool],
    cache: Path,
) -> Calibration:
    """P(relevant) from the cosine, fit on ``pairs`` (query, passage) and their labels; read
    from ``cache`` when a run resumes, written there the first time."""
    if cache.is_file():
        saved = json.loads(cache.read_text(encoding="utf-8"))
        return Calibration(float(saved["slope"]), float(saved["bias"]))
    labels = np.asarray(relevant, dtype=int)
    if len(labels) < 2 or labels.min() == labels.max():
        raise InputError(
            f"the cosine teacher needs relevant and not relevant rows to calibrate; the first "
            f"{len(labels)} training rows hold one class: check the training data"
        )
    scores = np.concatenate(
        [
            teacher.run([q for q, _ in pairs[i : i + 64]], [p for _, p in pairs[i : i + 64]])
            for i in range(0, len(pairs), 64)
        ]
    )
    weights, bias = fit_logistic(scores[:, None], labels.tolist())
    calibration = Calibration(float(weights[0]), float(bias))
    cache.parent.mkdir(parents=True, exist_ok=True)
    cache.write_text(
        json.dumps({"slope": calibration.slope, "bias": calibration.bias, "rows": len(labels)}),
        encoding="utf-8",
    )
    return calibration
