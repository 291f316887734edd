"""Shared onnxruntime helpers: one session per model file, padded int64 batches."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from veracity.errors import InputError, ModelError


def session(path: Path, *, threads: int = 0, content: bytes | None = None) -> Any:
    """An onnxruntime CPU session for ``path``; ``threads=0`` lets onnxruntime choose.

    ``content``, when given, is the model to run instead of the file's own bytes (the file
    rewritten in memory, see :mod:`veracity.models.onnx.rowwise`); ``path`` then only names it in
    errors.
    """
    import onnxruntime as ort

    if content is None and not path.is_file():
        raise ModelError(f"ONNX model file not found: {path}. Reinstall veracity or pass a path.")
    options = ort.SessionOptions()
    options.intra_op_num_threads = threads
    options.inter_op_num_threads = 1
    options.log_severity_level = 3
    try:
        return ort.InferenceSession(
            str(path) if content is None else content, options, providers=["CPUExecutionProvider"]
        )
    except Exception as exc:  # onnxruntime raises its own untyped errors
        raise ModelError(f"cannot load ONNX model {path}: {exc}") from exc


def bucket_width(length: int, step: int) -> int:
    """The padded width of a row of ``length`` tokens: the next multiple of ``step``.

    >>> bucket_width(17, 16), bucket_width(16, 16)
    (32, 16)
    """
    return -(-length // step) * step


def plan_batches(
    lengths: Sequence[int],
    batch_size: int,
    bucket: int | None = None,
) -> list[list[int]]:
    """Row indexes grouped into batches of at most ``batch_size``, shortest rows first.

    With ``bucket`` every batch holds rows of one length bucket (:func:`bucket_width`), so a
    row's padded width depends on its own length only; without, a batch is a run of rows of
    similar length, padded to its longest.

    >>> plan_batches([30, 5, 20, 33], 2, bucket=16)
    [[1], [2, 0], [3]]
    >>> plan_batches([30, 5, 20, 33], 2)
    [[1, 2], [0, 3]]
    """
    order = sorted(range(len(lengths)), key=lambda i: (lengths[i], i))
    if bucket is None:
        return [order[first : first + batch_size] for first in range(0, len(order), batch_size)]
    groups: dict[int, list[int]] = {}
    for i in order:
        groups.setdefault(bucket_width(lengths[i], bucket), []).append(i)
    return [
        group[first : first + batch_size]
        for _, group in sorted(groups.items())
        for first in range(0, len(group), batch_size)
    ]


def pad_batch(
    rows: Sequence[Sequence[int]],
    type_rows: Sequence[Sequence[int]] | None = None,
    *,
    width: int | None = None,
) -> dict[str, np.ndarray]:
    """``input_ids``, ``attention_mask`` and ``token_type_ids`` padded to ``width`` (by default
    the longest row)."""
    longest = max(len(row) for row in rows)
    if width is None:
        width = longest
    elif width < longest:
        raise InputError(
            f"a padded width of {width} is shorter than the longest row "
            f"({longest} tokens): pad to {longest} or more"
        )
    ids = np.zeros((len(rows), width), dtype=np.int64)
    mask = np.zeros_like(ids)
    types = np.zeros_like(ids)
    for i, row in enumerate(rows):
        ids[i, : len(row)] = row
        mask[i, : len(row)] = 1
        if type_rows is not None:
            types[i, : len(row)] = type_rows[i]
    return {"input_ids": ids, "attention_mask": mask, "token_type_ids": types}
