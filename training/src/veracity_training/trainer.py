"""Fine-tune a MiniLM cross-encoder, deterministically and resumably: the claim verifier
(task ``verify``, the default) or the reranker (task ``rerank``, see
:mod:`veracity_training.relevance`).

The run is a pure function of the data, the config and the seed: the example order is a seeded
permutation, dropout is reseeded at every step from (seed, step), and a checkpoint (model and
optimizer as safetensors, state as JSON, written atomically) is taken every
``checkpoint_every`` steps, so a run stopped anywhere continues exactly where it left off.

This module is the loop, its losses and its distillation teachers; the config is
:mod:`~veracity_training.config`, the rows and batches :mod:`~veracity_training.rows`, the
checkpoint :mod:`~veracity_training.checkpoint` and the validation figures
:mod:`~veracity_training.validation`.

>>> config = TrainConfig(data_dir=Path("runs/verifier/data"), out_dir=Path("runs/verifier/r1"))
>>> Trainer(config).run()                                    # doctest: +SKIP
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import asdict
from pathlib import Path
from typing import Any

import numpy as np

from veracity.errors import InputError
from veracity.models.pairs.windows import EvidenceSelector
from veracity_training._deps import require
from veracity_training.checkpoint import Restored, restore, save
from veracity_training.config import (
    LABEL_IDS,
    NOT_SUPPORTED,
    TrainConfig,
    TrainReport,
    base_model_dir,
)
from veracity_training.relevance import (
    RELEVANCE_IDS,
    listwise_loss,
    query_batches,
    relevance_loss,
)
from veracity_training.rows import Row, encode_pairs, fitting_rows, length_grouped, read_rows
from veracity_training.teacher import (
    CALIBRATION_ROWS,
    Calibration,
    CosineTeacher,
    TeacherScorer,
    TeacherScores,
    cosine_calibration,
    teacher_scores,
)
from veracity_training.validation import validation_figures

__all__ = ["Trainer"]


class Trainer:
    """Fine-tunes the cross-encoder from ``config``, resuming from its last checkpoint."""

    def __init__(
        self,
        config: TrainConfig,
        *,
        progress: Callable[[int, int, float], None] | None = None,
        teacher_progress: Callable[[int, int], None] | None = None,
        teacher_scorer: TeacherScorer | None = None,
    ) -> None:
        self.config = config
        self.progress = progress
        self.teacher_progress = teacher_progress
        #: Scores rows for distillation; the align scorer on the shipped embedder by default.
        self.teacher_scorer = teacher_scorer
        self.teacher_calibration: Calibration | None = None
        self.teacher_seconds = 0.0
        self.selector = EvidenceSelector(max_tokens=config.max_tokens)
        self._seconds_before = 0.0
        self._started = time.monotonic()

    @property
    def checkpoint_dir(self) -> Path:
        return self.config.out_dir / "checkpoint"

    def run(self, *, time_limit: float | None = None, stop_after: int | None = None) -> TrainReport:
        """Train until ``config.steps``, or stop early (resumably) after ``time_limit`` seconds
        or ``stop_after`` steps of this call."""
        torch = require("torch", purpose="training the verifier")
        # Seeds and threads are scoped to the run: the caller's settings come back afterwards.
        threads = torch.get_num_threads()
        try:
            with torch.random.fork_rng():
                return self._run(torch, time_limit, stop_after)
        finally:
            torch.set_num_threads(threads)

    def _run(self, torch: Any, time_limit: float | None, stop_after: int | None) -> TrainReport:
        config = self.config
        torch.set_num_threads(config.threads)
        train_rows = fitting_rows(
            self.selector,
            read_rows(
                config.data_dir / "train.jsonl",
                exclude_kinds=config.exclude_kinds,
                task=config.task,
            ),
        )
        if not train_rows:
            raise InputError(
                f"no training rows left in {config.data_dir / 'train.jsonl'} after "
                f"leaving out kinds {list(config.exclude_kinds)}: exclude fewer"
            )
        val_rows = fitting_rows(
            self.selector, read_rows(config.data_dir / "val.jsonl", task=config.task)
        )
        val_rows = val_rows[: config.eval_rows]
        if config.listwise_weight:
            batches = query_batches(
                [row.hypothesis for row in train_rows],
                batch_size=config.batch_size,
                steps=config.steps,
                seed=config.seed,
            )
            order = [i for batch in batches for i in batch]
        else:
            order = self._order(len(train_rows))
            if config.length_groups:
                order = length_grouped(
                    order,
                    train_rows,
                    batch_size=config.batch_size,
                    groups=config.length_groups,
                    seed=config.seed,
                    max_tokens=config.max_tokens,
                )
            size = config.batch_size
            batches = [order[k * size : (k + 1) * size] for k in range(config.steps)]
        distill = bool(config.distill_weight)
        targets = self._teacher(train_rows, order) if distill and config.task == "verify" else None
        cosine = (
            self._cosine_teacher(train_rows, order)
            if (distill or config.residual) and targets is None
            else None
        )
        run = restore(torch, config, self.checkpoint_dir)
        model, optimizer, scheduler, step, evaluations = (
            run.model,
            run.optimizer,
            run.scheduler,
            run.step,
            run.evaluations,
        )
        self._seconds_before = run.seconds_before
        started = self._started = time.monotonic()
        losses: list[float] = []
        model.train()
        first_step = step
        while step < config.steps:
            if time_limit is not None and time.monotonic() - started > time_limit:
                break
            if stop_after is not None and step - first_step >= stop_after:
                break
            torch.manual_seed(config.seed * 1_000_003 + step)
            positions = slice(step * config.batch_size, (step + 1) * config.batch_size)
            batch = [train_rows[i] for i in batches[step]]
            pairs = self._pairs(batch)
            features, labels = self._encode(torch, batch, pairs)
            logits = model(**features).logits
            scores = None
            if cosine is not None:
                teacher, calibration = cosine
                scores = teacher.run(*zip(*pairs, strict=True))
            if config.residual and scores is not None:
                offset = torch.tensor(calibration.logits(scores), dtype=torch.float32)
                logits = logits + offset.unsqueeze(1)
            loss = self._loss(torch, logits, labels)
            if config.listwise_weight:
                loss = loss + config.listwise_weight * listwise_loss(
                    torch, logits, labels, [row.hypothesis for row in batch]
                )
            if targets is not None:
                loss = loss + config.distill_weight * self._distill_loss(
                    torch, logits, torch.tensor(targets[positions], dtype=torch.float32)
                )
            elif scores is not None and config.distill_weight:
                relevant = calibration.probabilities(scores)
                loss = (
                    loss
                    + config.distill_weight
                    * torch.nn.functional.binary_cross_entropy_with_logits(
                        logits[:, 0], torch.tensor(relevant, dtype=torch.float32)
                    )
                )
            loss.backward()
            torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
            optimizer.step()
            scheduler.step()
            optimizer.zero_grad(set_to_none=True)
            step += 1
            run.step = step
            losses.append(float(loss.item()))
            if self.progress is not None:
                self.progress(step, config.steps, float(np.mean(losses[-50:])))
            if step % config.eval_every == 0 or step == config.steps:
                evaluations.append(
                    {
                        "step": step,
                        "train_loss": float(np.mean(losses[-200:])),
                        **self.evaluate(model, val_rows),
                    }
                )
                model.train()
            if step % config.checkpoint_every == 0 or step == config.steps:
                self._save(run)
        self._save(run)
        return TrainReport(
            step,
            config.steps,
            step >= config.steps,
            time.monotonic() - started,
            self.checkpoint_dir,
            tuple(evaluations),
        )

    def _teacher(self, rows: Sequence[Row], order: Sequence[int]) -> np.ndarray:
        """The teacher's calibrated P(supported) per training position (NaN: no target)."""
        config = self.config
        needed = [rows[i] for i in order[: config.steps * config.batch_size]]
        scorer = self.teacher_scorer
        if scorer is None:
            from veracity.models.pairs.similarity import AlignmentScorer

            scorer = AlignmentScorer(threads=config.threads).load()
        config.out_dir.mkdir(parents=True, exist_ok=True)
        scores: TeacherScores = teacher_scores(
            needed,
            scorer,
            config.out_dir / f"teacher-{config.teacher}.npz",
            progress=self.teacher_progress,
        )
        self.teacher_calibration = scores.calibration
        self.teacher_seconds = scores.seconds
        targets = scores.targets()
        if config.distill_skip_contradicted:
            targets[[row.label == LABEL_IDS["contradicted"] for row in needed]] = np.nan
        return targets

    def _cosine_teacher(
        self, rows: Sequence[Row], order: Sequence[int]
    ) -> tuple[CosineTeacher, Calibration]:
        """The reranker's teacher and its calibration on the first training rows."""
        teacher = CosineTeacher(base_model_dir()).load()
        first = [rows[i] for i in order[:CALIBRATION_ROWS]]
        calibration = cosine_calibration(
            teacher,
            self._pairs(first),
            [row.label == RELEVANCE_IDS["relevant"] for row in first],
            self.config.out_dir / "teacher-cosine.json",
        )
        self.teacher_calibration = calibration
        return teacher, calibration

    @staticmethod
    def _distill_loss(torch: Any, logits: Any, targets: Any) -> Any:
        """Binary cross-entropy of P(supported) toward the targets; rows without one add 0."""
        known = ~torch.isnan(targets)
        if not bool(known.any()):
            return logits.sum() * 0.0
        log_probs = torch.log_softmax(logits, dim=-1)
        supported = log_probs[:, 0]
        unsupported = torch.logsumexp(log_probs[:, 1:], dim=-1)
        target = torch.nan_to_num(targets, nan=0.0)
        loss = -(target * supported + (1 - target) * unsupported)
        return (loss * known).sum() / known.sum()

    def _order(self, n: int) -> list[int]:
        """Seeded epochs of permutations, long enough for every step."""
        needed = self.config.steps * self.config.batch_size
        order: list[int] = []
        epoch = 0
        while len(order) < needed:
            rng = np.random.default_rng([self.config.seed, epoch])
            order.extend(int(i) for i in rng.permutation(n))
            epoch += 1
        return order

    def _pairs(self, rows: Sequence[Row]) -> list[tuple[str, str]]:
        """What the network reads of each row: the verifier (evidence window, claim), the
        reranker (query, passage window)."""
        pairs = []
        for row in rows:
            window = self.selector.run(row.premise, row.hypothesis)[0]
            pairs.append(
                (window.text, row.hypothesis)
                if self.config.task == "verify"
                else (row.hypothesis, window.text)
            )
        return pairs

    def _encode(
        self, torch: Any, rows: Sequence[Row], pairs: Sequence[tuple[str, str]] | None = None
    ) -> tuple[dict[str, Any], Any]:
        if pairs is None:
            pairs = self._pairs(rows)
        return encode_pairs(
            torch, self.selector.tokenizer, pairs, self.config.max_tokens
        ), torch.tensor([r.label for r in rows])

    def _loss(self, torch: Any, logits: Any, labels: Any) -> Any:
        if self.config.task == "rerank":
            return relevance_loss(torch, logits, labels)
        log_probs = torch.log_softmax(logits, dim=-1)
        three_way = labels < NOT_SUPPORTED
        picked = log_probs.gather(1, labels.clamp(max=2).unsqueeze(1)).squeeze(1)
        # "not supported" rows: maximise P(contradicted) + P(neither).
        unsupported = torch.logsumexp(log_probs[:, 1:], dim=-1)
        return -torch.where(three_way, picked, unsupported).mean()

    def evaluate(self, model: Any, rows: Sequence[Row]) -> dict[str, float]:
        """Validation figures on training-side held-out rows (never on evaluation data)."""
        return validation_figures(model, rows, self._encode, task=self.config.task)

    def _save(self, run: Restored) -> None:
        teacher = (
            {
                "teacher_calibration": asdict(self.teacher_calibration),
                "teacher_seconds": self.teacher_seconds,
            }
            if self.teacher_calibration is not None
            else {}
        )
        seconds = self._seconds_before + time.monotonic() - self._started
        save(self.checkpoint_dir, self.config, run, train_seconds=seconds, teacher=teacher)
