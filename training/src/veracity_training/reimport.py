"""Turn an exported verifier back into a training checkpoint, so that training can go on from it.

A training run's checkpoints live outside the package and do not outlive the machine that wrote
them; the exported verifier does (``model.onnx`` in the package). Its weights are the network's
own, quantized per output channel to 7-bit integers (:mod:`veracity_training.export`): dequantizing
them gives back a network within that rounding of the one trained, which ``train-verifier
--init-from`` can start from. The aligner merged into the file (:mod:`veracity_training.aligner`)
is not part of the network and is left out.

The folder also gets a ``state.json`` with the exported model's training record (step, config,
evaluations, and ``reimported_from``), so that a release's card can trace the chain of runs.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from veracity.errors import InputError
from veracity_training._deps import require

__all__ = ["ReimportReport", "exported_training", "network_weights", "reimport_verifier"]

#: Weights of the network (the aligner's carry another prefix in a merged file).
_PREFIXES = ("bert.", "classifier.")


@dataclass(frozen=True)
class ReimportReport:
    directory: Path
    tensors: int
    #: Largest difference in probability between the ONNX file and the rebuilt network on a
    #: fixed pair.
    max_abs_difference: float


def network_weights(model_path: Path) -> dict[str, np.ndarray]:
    """The network's float weights in an exported ``model.onnx``, by their PyTorch names:
    float initializers as they are, and each quantized linear layer's weight dequantized and
    transposed back to ``(out, in)``, named after the bias that its output is added to."""
    onnx = require("onnx", purpose="reading an exported verifier")
    numpy_helper = require("onnx.numpy_helper", purpose="reading an exported verifier")
    graph = onnx.load(str(model_path)).graph
    values = {i.name: numpy_helper.to_array(i) for i in graph.initializer}
    for node in graph.node:  # small constants are folded into Constant nodes
        if node.op_type == "Constant" and node.output:
            values.setdefault(node.output[0], numpy_helper.to_array(node.attribute[0].t))
    producer = {out: node for node in graph.node for out in node.output}
    weights = {
        name: np.asarray(value, dtype=np.float32)
        for name, value in values.items()
        if name.startswith(_PREFIXES) and value.dtype == np.float32
    }
    for node in graph.node:
        if node.op_type != "Add":
            continue
        bias = next(
            (
                i
                for i in node.input
                if i.endswith(".bias") and i.startswith(_PREFIXES) and i in values
            ),
            None,
        )
        if bias is None:
            continue
        other = next(i for i in node.input if i != bias)
        weight = _linear_weight(other, producer, values)
        if weight is not None:
            weights[bias[: -len("bias")] + "weight"] = weight
    return weights


def _linear_weight(
    output: str, producer: dict[str, Any], values: dict[str, np.ndarray]
) -> np.ndarray | None:
    """The ``(out, in)`` float weight of the matrix product whose result is ``output``: a float
    MatMul with a constant weight, or MatMulInteger's result cast and scaled."""
    node = producer.get(output)
    if node is None:
        return None
    if node.op_type == "MatMul" and node.input[1] in values:
        return np.asarray(values[node.input[1]], dtype=np.float32).T
    if node.op_type != "Mul":
        return None
    sources = [producer.get(i) for i in node.input]
    cast = next((n for n in sources if n is not None and n.op_type == "Cast"), None)
    scale_node = next((n for n in sources if n is not None and n.op_type == "Mul"), None)
    if cast is None or scale_node is None:
        return None
    product = producer.get(cast.input[0])
    if product is None or product.op_type != "MatMulInteger":
        return None
    quantized = values.get(product.input[1])
    scale = next((values[i] for i in scale_node.input if i in values), None)
    if quantized is None or scale is None:
        return None
    zero = values.get(product.input[3]) if len(product.input) > 3 else None
    offset = np.zeros_like(scale) if zero is None else np.asarray(zero, dtype=np.float32)
    weight: np.ndarray = ((quantized.astype(np.float32) - offset) * scale).T
    return weight.astype(np.float32)


def reimport_verifier(model_dir: Path, out_dir: Path) -> ReimportReport:
    """Write ``out_dir`` as a Hugging Face folder (config, weights, tokenizer) holding the
    network of the exported verifier ``model_dir``, ready for ``train-verifier --init-from``."""
    torch = require("torch", purpose="rebuilding the verifier's network")
    transformers = require("transformers", purpose="rebuilding the verifier's network")
    from veracity_training.config import base_model_dir

    config_file = model_dir / "config.json"
    if not (model_dir / "model.onnx").is_file() or not config_file.is_file():
        raise InputError(
            f"{model_dir} is not an exported verifier (it needs model.onnx and "
            "config.json); pass the folder that export-verifier wrote"
        )
    exported = json.loads(config_file.read_text())
    labels = exported["labels"]
    base = base_model_dir()
    model = transformers.AutoModelForSequenceClassification.from_pretrained(
        str(base), num_labels=len(labels), local_files_only=True, attn_implementation="eager"
    )
    model.config.id2label = dict(enumerate(labels))
    model.config.label2id = {label: i for i, label in enumerate(labels)}
    weights = network_weights(model_dir / "model.onnx")
    state = model.state_dict()
    missing = sorted(
        name
        for name in state
        if name not in weights
        and not name.startswith("bert.embeddings.")
        and not name.endswith("position_ids")
    )
    if missing:
        raise InputError(
            f"{model_dir}/model.onnx lacks {len(missing)} of the network's weights "
            f"(first: {missing[0]}); it was not written by export-verifier"
        )
    loaded = {
        name: torch.from_numpy(value.copy()) for name, value in weights.items() if name in state
    }
    for name, value in loaded.items():
        if tuple(value.shape) != tuple(state[name].shape):
            raise InputError(
                f"{model_dir}/model.onnx: {name} has shape {tuple(value.shape)}, "
                f"the network needs {tuple(state[name].shape)}"
            )
    model.load_state_dict(loaded, strict=False)
    model.eval()
    out_dir.mkdir(parents=True, exist_ok=True)
    model.save_pretrained(str(out_dir), safe_serialization=True)
    for name in ("vocab.txt", "tokenizer.json", "tokenizer_config.json", "special_tokens_map.json"):
        if (base / name).is_file():
            (out_dir / name).write_bytes((base / name).read_bytes())
    record = exported_training(exported, model_dir)
    (out_dir / "state.json").write_text(json.dumps(record, indent=1))
    return ReimportReport(
        out_dir, len(loaded), _difference(torch, model, model_dir, sigmoid=len(labels) == 1)
    )


def exported_training(exported: dict[str, Any], model_dir: Path) -> dict[str, Any]:
    """The training record of an exported model, as a run's state.json holds it, and where it
    came from. Older exports kept their training time only in the card's text."""
    training = dict(exported.get("training") or {})
    if not training.get("config"):
        raise InputError(
            f"{model_dir}/config.json records no training run; a model exported "
            "by export-verifier carries one"
        )
    card = model_dir / "CARD.md"
    text = card.read_text() if card.is_file() else ""
    total = re.search(r"([0-9.]+) CPU-hours of training in all", text)
    if total:  # the export of a chain of runs: its card sums them all, its config the last one
        training["train_seconds"] = float(total.group(1)) * 3600
    elif not training.get("train_seconds"):
        hours = re.search(r"([0-9.]+) CPU-hours", text)
        training["train_seconds"] = float(hours.group(1)) * 3600 if hours else 0.0
    return training | {
        "reimported_from": {
            "model_id": exported.get("model_id"),
            "version": exported.get("version"),
            "directory": str(model_dir),
        }
    }


def _difference(torch: Any, model: Any, model_dir: Path, *, sigmoid: bool) -> float:
    """Largest probability difference between the rebuilt network and the ONNX file on the
    fixed pair that :mod:`veracity_training.export` checks (softmax probabilities; with
    ``sigmoid``, P(relevant) of a one-logit reranker)."""
    from veracity.models.onnx.runtime import session

    ids = torch.tensor([[101, 2023, 2003, 1037, 3231, 1012, 102, 2023, 2003, 1037, 3231, 102]])
    feeds = {
        "input_ids": ids,
        "attention_mask": torch.ones_like(ids),
        "token_type_ids": torch.tensor([[0] * 7 + [1] * 5]),
    }
    with torch.no_grad():
        out = model(**feeds).logits
        reference = (torch.sigmoid(out) if sigmoid else torch.softmax(out, -1)).numpy()
    onnx_session = session(model_dir / "model.onnx")
    wanted = {i.name for i in onnx_session.get_inputs()}
    arrays = {k: v.numpy() for k, v in feeds.items()}
    if "window_ids" in wanted:  # a merged aligner reads the window and the claim on its own
        arrays |= {
            "window_ids": ids[:, :7].numpy(),
            "window_mask": np.ones((1, 7), np.int64),
            "claim_ids": ids[:, 7:].numpy(),
            "claim_mask": np.ones((1, 5), np.int64),
        }
    (logits,) = onnx_session.run(["logits"], {k: v for k, v in arrays.items() if k in wanted})
    exported = (
        1 / (1 + np.exp(-logits))
        if sigmoid
        else np.exp(logits) / np.exp(logits).sum(-1, keepdims=True)
    )
    return float(np.abs(reference - exported).max())
