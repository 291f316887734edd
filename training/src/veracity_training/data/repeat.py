"""Repeat some kinds of a built data folder's training rows: the data of a run that continues
another on what it still misses.

``python -m veracity_training.data.repeat --data D --out D2 --times twin_scope=4 --times
public=2 [--seed 13]`` writes ``D2/train.jsonl`` (every row of ``D/train.jsonl``, a row of
kind ``k`` ``times[k]`` times, shuffled with ``seed``), copies ``D/val.jsonl`` unchanged and
writes ``D2/card.json``: ``D``'s card with ``repeated`` (the source folder, the times, the seed,
the rows). Rows without a ``kind`` count as ``public``.

>>> parse_times(["twin_scope=4", "public=2"])
{'twin_scope': 4, 'public': 2}
"""

from __future__ import annotations

import argparse
import json
import random
import shutil
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path

from veracity.errors import InputError, OptionError

__all__ = ["main", "parse_times", "repeat"]


def parse_times(items: Sequence[str]) -> dict[str, int]:
    """``["kind=N", ...]`` as a mapping, each N an integer of 1 or more."""
    times: dict[str, int] = {}
    for item in items:
        kind, _, count = item.partition("=")
        if not kind or not count.isdigit() or int(count) < 1:
            raise OptionError(
                "times", item, "KIND=N with N an integer of 1 or more", "E.g. --times public=2."
            )
        times[kind] = int(count)
    return times


def repeat(data: Path, out: Path, times: Mapping[str, int], *, seed: int = 13) -> int:
    """Write ``out`` from ``data`` as the module docstring says; the training rows written."""
    source = data / "train.jsonl"
    if not source.is_file() or not (data / "val.jsonl").is_file():
        raise InputError(
            f"{data} holds no train.jsonl and val.jsonl: give a folder that "
            "python -m veracity_training.data wrote"
        )
    if out.resolve() == data.resolve():
        raise OptionError("out", str(out), "another folder than --data")
    lines = source.read_text(encoding="utf-8").splitlines()
    rows = [line for line in lines if line.strip()]
    kinds = [json.loads(line).get("kind") or "public" for line in rows]
    written = [
        row for row, kind in zip(rows, kinds, strict=True) for _ in range(times.get(kind, 1))
    ]
    random.Random(seed).shuffle(written)
    out.mkdir(parents=True, exist_ok=True)
    (out / "train.jsonl").write_text("".join(row + "\n" for row in written), encoding="utf-8")
    shutil.copyfile(data / "val.jsonl", out / "val.jsonl")
    card_path = data / "card.json"
    card = json.loads(card_path.read_text(encoding="utf-8")) if card_path.is_file() else {}
    card["repeated"] = {"from": str(data), "times": dict(times), "seed": seed, "rows": len(written)}
    (out / "card.json").write_text(json.dumps(card, indent=2) + "\n", encoding="utf-8")
    return len(written)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m veracity_training.data.repeat",
        description="Repeat some kinds of a data folder's training rows (see the module's doc).",
    )
    parser.add_argument("--data", type=Path, required=True, help="a built data folder")
    parser.add_argument("--out", type=Path, required=True, help="the folder to write")
    parser.add_argument(
        "--times", action="append", default=[], help="KIND=N: rows of KIND N times (repeat)"
    )
    parser.add_argument("--seed", type=int, default=13)
    args = parser.parse_args(argv)
    try:
        written = repeat(args.data, args.out, parse_times(args.times), seed=args.seed)
    except (InputError, OptionError) as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    print(f"{written} training rows in {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
