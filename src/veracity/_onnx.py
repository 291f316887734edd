"""Shared onnxruntime helpers: one session per model file, padded int64 batches."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from veracity.errors import ModelError


def session(path: Path, *, threads: int = 0) -> Any:
    """An onnxruntime CPU session for ``path``; ``threads=0`` lets onnxruntime choose."""
    import onnxruntime as ort

    if not path.is_file():
        raise ModelError(f"ONNX model file not found: {path}. Reinstall veracity or pass a path.")
    options = ort.SessionOptions()
    options.intra_op_num_threads = threads
    options.inter_op_num_threads = 1
    options.log_severity_level = 3
    try:
        return ort.InferenceSession(str(path), options, providers=["CPUExecutionProvider"])
    except Exception as exc:  # onnxruntime raises its own untyped errors
        raise ModelError(f"cannot load ONNX model {path}: {exc}") from exc


def pad_batch(rows: Sequence[Sequence[int]], type_rows: Sequence[Sequence[int]] | None = None,
              ) -> dict[str, np.ndarray]:
    """``input_ids``, ``attention_mask`` and ``token_type_ids`` padded to the longest row."""
    width = max(len(row) for row in rows)
    ids = np.zeros((len(rows), width), dtype=np.int64)
    mask = np.zeros_like(ids)
    types = np.zeros_like(ids)
    for i, row in enumerate(rows):
        ids[i, : len(row)] = row
        mask[i, : len(row)] = 1
        if type_rows is not None:
            types[i, : len(row)] = type_rows[i]
    return {"input_ids": ids, "attention_mask": mask, "token_type_ids": types}
