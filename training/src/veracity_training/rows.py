"""The rows a run trains on and how they become batches: reading a data file, leaving out the
rows whose claim cannot fit the window, grouping by length, and encoding (premise, claim) pairs
as padded tensors.

>>> rows = [Row("a" * n, "b", 0) for n in (9, 1, 8, 2)]  # premises of 9, 1, 8 and 2 characters
>>> length_grouped([0, 1, 2, 3], rows, batch_size=2, groups=2, seed=13, max_tokens=128)
[1, 3, 2, 0]
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from veracity.errors import InputError
from veracity.models.onnx.runtime import pad_batch
from veracity.models.pairs.windows import EvidenceSelector
from veracity_training.config import LABEL_IDS
from veracity_training.relevance import RELEVANCE_IDS

__all__ = ["Row", "encode_pairs", "fitting_rows", "length_grouped", "read_rows"]


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
    label_ids = LABEL_IDS if verify else RELEVANCE_IDS
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
