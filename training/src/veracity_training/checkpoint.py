"""A run's checkpoint: the network, the optimizer and the schedule it starts from or resumes,
and their atomic save.

``RUN/checkpoint`` holds the model (safetensors, as ``save_pretrained`` writes it), the
optimizer's tensors (``optimizer.safetensors``) and ``state.json``: the step, the config
(:meth:`~veracity_training.config.TrainConfig.to_json`), the optimizer's scalars and groups, the
schedule, the evaluations so far, the training seconds and the teacher's calibration. A save
writes ``checkpoint.tmp`` and renames it into place, so a run stopped at any moment leaves the
last whole checkpoint. A run resumes only with the config its checkpoint recorded.
"""

from __future__ import annotations

import json
import math
import shutil
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from veracity.errors import InputError
from veracity_training._deps import require
from veracity_training.config import TrainConfig, base_model_dir

__all__ = ["Restored", "restore", "save"]


@dataclass
class Restored:
    """What a run goes on from: the network, its optimizer and schedule, the step reached, the
    evaluations so far and the training seconds of earlier calls (0 for a new run)."""

    model: Any
    optimizer: Any
    scheduler: Any
    step: int
    evaluations: list[dict[str, float]]
    seconds_before: float


def restore(torch: Any, config: TrainConfig, checkpoint_dir: Path) -> Restored:
    """The run's last checkpoint in ``checkpoint_dir``, or a new run from ``config.init_from``
    (a checkpoint or an exported model, rebuilt by :mod:`veracity_training.reimport`) or
    all-MiniLM-L6-v2."""
    transformers = require("transformers", purpose="training the verifier")
    torch.manual_seed(config.seed)
    state_file = checkpoint_dir / "state.json"
    resume = state_file.is_file()
    source = (
        checkpoint_dir
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
        return Restored(model, optimizer, scheduler, 0, [], 0.0)
    state = json.loads(state_file.read_text())
    if state["config"] != config.to_json():
        raise InputError(
            f"{checkpoint_dir} was written with another config; continue it with the "
            f"same options or pass a new --out folder. Recorded: {state['config']}"
        )
    from safetensors.torch import load_file

    optimizer_tensors = load_file(str(checkpoint_dir / "optimizer.safetensors"))
    optimizer.load_state_dict(_unflatten_optimizer(optimizer_tensors, state))
    scheduler.load_state_dict(state["scheduler"])
    return Restored(
        model,
        optimizer,
        scheduler,
        int(state["step"]),
        list(state["evaluations"]),
        float(state.get("train_seconds", 0.0)),
    )


def save(
    checkpoint_dir: Path,
    config: TrainConfig,
    run: Restored,
    *,
    train_seconds: float,
    teacher: dict[str, Any],
) -> None:
    """Write ``run`` (at ``run.step``) to ``checkpoint_dir`` atomically; ``teacher``: the
    distillation teacher's calibration and seconds, recorded in the state (empty: none)."""
    from safetensors.torch import save_file

    temporary = checkpoint_dir.with_name("checkpoint.tmp")
    shutil.rmtree(temporary, ignore_errors=True)
    temporary.mkdir(parents=True)
    run.model.save_pretrained(str(temporary), safe_serialization=True)
    tensors, meta = _flatten_optimizer(run.optimizer)
    save_file(tensors, str(temporary / "optimizer.safetensors"))
    state = {
        "step": run.step,
        "config": config.to_json(),
        "optimizer": meta,
        "scheduler": run.scheduler.state_dict(),
        "evaluations": run.evaluations,
        "train_seconds": train_seconds,
        **teacher,
        "saved": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
    }
    (temporary / "state.json").write_text(json.dumps(state, indent=1))
    old = checkpoint_dir.with_name("checkpoint.old")
    shutil.rmtree(old, ignore_errors=True)
    if checkpoint_dir.exists():
        checkpoint_dir.rename(old)
    temporary.rename(checkpoint_dir)
    shutil.rmtree(old, ignore_errors=True)


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


def _unflatten_optimizer(tensors: dict[str, Any], state: dict[str, Any]) -> dict[str, Any]:
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
