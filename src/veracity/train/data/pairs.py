"""The minimal-pair suite: (supported claim, altered twin) pairs from held-out training text.

``python -m veracity.train.data.pairs --data DATA --out bench/data/minimal_pairs.jsonl``

Every supported one-sentence claim of the training data's validation split whose premise is in
the suite's half (:func:`~veracity.train.data.contrast.suite_half`: the verifier's combiner is
fit on the other half, and the network never trains on validation rows) is given every twin
that :func:`~veracity.train.data.contrast.twin_edits` can make of it, at most ``per_kind`` pairs
per edit, chosen at random (seeded). Nothing comes from evaluation data. VitaminC rows are left
out: its copy asks not to be published, and the suite is committed.

Each line: ``premise``, ``claim`` (the original), ``twin``, ``kind`` (the edit), ``expected``
(the twin's label: ``contradicted`` for most edits, ``neither`` for a strengthened modal,
``supported`` for the meaning-keeping ones), ``source`` and ``id`` (the original row's).
"""

from __future__ import annotations

import argparse
import json
import random
import sys
from collections import Counter
from pathlib import Path
from typing import Any

from veracity.train.data.contrast import suite_half, twin_edits
from veracity.train.data.text import sentences, word_count

__all__ = ["suite_pairs"]

#: Sources whose text is not published in the suite.
_UNPUBLISHED = ("vitaminc_bigbench",)
_MAX_WORDS = 45


def suite_pairs(rows: list[dict[str, Any]], *, per_kind: int, seed: int) -> list[dict[str, Any]]:
    """The suite's pairs from validation ``rows`` (as read from val.jsonl), kinds in
    :func:`twin_edits` order, at most ``per_kind`` of each."""
    rng = random.Random(f"{seed}:suite")
    originals = [
        row
        for row in rows
        if row["label"] == "supported"
        and row["source"] not in _UNPUBLISHED
        and suite_half(row["premise"])
        and not str(row.get("kind", "")).startswith("twin_")
        and len(sentences(row["hypothesis"])) == 1
        and word_count(row["hypothesis"]) <= _MAX_WORDS
    ]
    originals.sort(key=lambda row: row["id"])
    rng.shuffle(originals)
    pairs: list[dict[str, Any]] = []
    counts: Counter[str] = Counter()
    for name, (label, edit) in twin_edits().items():
        for row in originals:
            if counts[name] >= per_kind:
                break
            twin = edit(row["hypothesis"], random.Random(f"{seed}:{row['id']}:{name}"))
            if not twin or twin == row["hypothesis"]:
                continue
            counts[name] += 1
            pairs.append(
                {
                    "id": row["id"],
                    "kind": name,
                    "expected": label,
                    "source": row["source"],
                    "premise": row["premise"],
                    "claim": row["hypothesis"],
                    "twin": twin,
                }
            )
    return pairs


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m veracity.train.data.pairs",
        description="Write the minimal-pair suite (JSONL).",
    )
    parser.add_argument(
        "--data", type=Path, required=True, help="the training data folder (its val.jsonl is read)"
    )
    parser.add_argument("--out", type=Path, required=True, help="the JSONL file to write")
    parser.add_argument("--per-kind", type=int, default=60, help="pairs per edit at most")
    parser.add_argument("--seed", type=int, default=13)
    args = parser.parse_args(argv)
    val = args.data / "val.jsonl"
    if not val.is_file():
        print(
            f"error: {val} not found: build the data first with "
            "`python -m veracity.train.data --out DATA`",
            file=sys.stderr,
        )
        return 2
    rows = [json.loads(line) for line in val.read_text(encoding="utf-8").splitlines() if line]
    pairs = suite_pairs(rows, per_kind=args.per_kind, seed=args.seed)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(
        "".join(json.dumps(pair, ensure_ascii=False) + "\n" for pair in pairs), encoding="utf-8"
    )
    kinds = Counter(pair["kind"] for pair in pairs)
    print(
        f"wrote {len(pairs)} pairs to {args.out}: "
        + ", ".join(f"{kind} {n}" for kind, n in kinds.items())
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
