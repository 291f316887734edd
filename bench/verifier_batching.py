"""The shipped verifier batched: as exported and one pair per pass (the old path) against per-row
activations and many pairs per pass (the new one), in the same run.

    OMP_NUM_THREADS=1 nice -n 15 .venv/bin/python bench/verifier_batching.py \\
        --data ../shared/data [--limit 200] [--runs 3]

- **old**: ``EmbeddedVerifier(activations="per_tensor")``, the verifier's ``model.onnx`` as
  ``quantize_dynamic`` wrote it (one activation scale per tensor, so a pair is read alone:
  batch 1, padded to its own length).
- **new**: ``activations="per_row"``, the same file rewritten row by row
(``veracity.models.onnx.rowwise``,
  in memory at load), ``defaults.EMBEDDED_ROW_BATCH`` pairs per pass, each row padded to its
  16-token length bucket.

Quality: every item of WiCE dev and LFQA dev (``bench/verifier_data.py``; a ``--limit`` takes
the first N of each) scored by both paths through ``EmbeddedVerifier.run`` (the combined
P(supported)); balanced accuracy at ``defaults.VERIFY_TAU``, cross-threshold balanced accuracy
(two group halves, both ways) and ROC-AUC, and the largest change of a score between the paths.
Invariance: the new path scores the items again in a shuffled order with a random batch size
(1, 8 or 32) and the number of scores that differ from the first reading, to the bit, is
reported (it must be 0). Throughput: pairs/s of the old path and of the new one at batch 1, 8
and 32 over the first ``--speed-items`` items of each set, median of ``--runs`` runs, on
``--threads`` onnxruntime threads; a warm-up call comes first.
"""

from __future__ import annotations

import argparse
import json
import random
import shlex
import statistics
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _report import write_result
from veracity import defaults
from veracity.evaluate.classification import balanced_accuracy, cross_threshold, roc_auc
from veracity.models.pairs.shipped import EmbeddedVerifier
from verifier_data import DEFAULT_DATA, Item, load_lfqa, load_wice

SETS = {"wice": load_wice, "lfqa": load_lfqa}


def score(
    verifier: EmbeddedVerifier, items: Sequence[Item], order: Sequence[int], chunk: int
) -> np.ndarray:
    """P(supported) per item, calling ``run`` on ``chunk`` items at a time in ``order``."""
    values = np.zeros(len(items))
    for first in range(0, len(order), chunk):
        part = list(order[first : first + chunk])
        values[part] = verifier.run(
            [items[i].premise for i in part], [items[i].claim for i in part]
        ).supported()
    return values


def quality(values: np.ndarray, items: Sequence[Item]) -> dict[str, float]:
    labels = np.array([item.label for item in items])
    groups = [item.group for item in items]
    return {
        "balanced_accuracy_tau": balanced_accuracy(values >= defaults.VERIFY_TAU, labels),
        "balanced_accuracy_cross": cross_threshold(values, labels, groups).value,
        "roc_auc": roc_auc(values, labels),
    }


def rate(verifier: EmbeddedVerifier, items: Sequence[Item], runs: int) -> dict[str, Any]:
    """Pairs/s of ``run`` over ``items`` in one call, median of ``runs``."""
    verifier.run([items[0].premise], [items[0].claim])
    seconds = []
    for _ in range(runs):
        start = time.perf_counter()
        verifier.run([item.premise for item in items], [item.claim for item in items])
        seconds.append(time.perf_counter() - start)
    return {
        "pairs": len(items),
        "seconds": seconds,
        "pairs_per_s": len(items) / statistics.median(seconds),
    }


def table_md(figures: dict[str, Any]) -> str:
    skipped = ", ".join(
        f"{name} {entry['claims_too_long']}" for name, entry in figures["sets"].items()
    )
    lines = [
        f"Items whose claim is longer than the window's claim budget, left out: {skipped}.",
        "",
        "Quality (combined P(supported); balanced accuracy at tau "
        f"{figures['tau']}, cross-threshold, ROC-AUC; %):",
        "",
        "| set | items | path | BAcc @tau | BAcc cross | ROC-AUC | largest change | "
        "differing in a shuffled batch |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for name, entry in figures["sets"].items():
        for path in ("old", "new"):
            q = entry[path]
            change = f"{entry['largest_change']:.4f}" if path == "new" else ""
            differing = str(entry["differing_when_shuffled"]) if path == "new" else ""
            lines.append(
                f"| {name} | {entry['items']} | {path} | "
                f"{100 * q['balanced_accuracy_tau']:.1f} | "
                f"{100 * q['balanced_accuracy_cross']:.1f} | "
                f"{100 * q['roc_auc']:.1f} | {change} | {differing} |"
            )
    lines += [
        "",
        f"Throughput (pairs/s, median of {figures['runs']} runs, "
        f"{figures['threads']} onnxruntime thread(s); ratio to old in brackets):",
        "",
        "| set | pairs | old (batch 1) | new batch 1 | new batch 8 | new batch 32 |",
        "|---|---|---|---|---|---|",
    ]
    for name, entry in figures["speed"].items():
        old = entry["old"]["pairs_per_s"]
        rates = [entry[f"new_{batch}"]["pairs_per_s"] for batch in (1, 8, 32)]
        cells = [f"{value:.1f} ({value / old:.2f}×)" for value in rates]
        lines.append(f"| {name} | {entry['old']['pairs']} | {old:.1f} | {' | '.join(cells)} |")
    lines += ["", figures["note"]]
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0] if __doc__ else None)
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA)
    parser.add_argument("--limit", type=int, default=None, help="first N items of each set")
    parser.add_argument("--speed-items", type=int, default=96)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--sets", default=",".join(SETS), help="comma-separated: wice, lfqa")
    parser.add_argument("--note", default="", help="a line under the tables (machine load)")
    parser.add_argument(
        "--name",
        default=None,
        help="result name; a --limit or --sets run writes nothing unless named",
    )
    args = parser.parse_args(argv)
    old = EmbeddedVerifier(activations="per_tensor", batch_size=1, threads=args.threads).load()
    new = EmbeddedVerifier(activations="per_row", threads=args.threads).load()
    rng = random.Random(args.seed)
    figures: dict[str, Any] = {
        "tau": defaults.VERIFY_TAU,
        "runs": args.runs,
        "threads": args.threads,
        "note": args.note,
        "sets": {},
        "speed": {},
    }
    for name in args.sets.split(","):
        loader = SETS[name]
        loaded = loader(args.data)[: args.limit]
        # A claim longer than the window's claim budget cannot be read by either path.
        budget = new.selector.claim_budget()
        items = [
            item
            for item in loaded
            if len(new.selector.tokenizer.encode(item.claim, add_special_tokens=False).ids)
            <= budget
        ]
        order = list(range(len(items)))
        started = time.perf_counter()
        old_scores = score(old, items, order, 64)
        new_scores = score(new, items, order, 64)
        shuffled = order[:]
        rng.shuffle(shuffled)
        new.batch_size = rng.choice([1, 8, 32])
        again = score(new, items, shuffled, rng.choice([5, 64]))
        new.batch_size = defaults.EMBEDDED_ROW_BATCH
        figures["sets"][name] = {
            "items": len(items),
            "claims_too_long": len(loaded) - len(items),
            "old": quality(old_scores, items),
            "new": quality(new_scores, items),
            "largest_change": float(np.abs(new_scores - old_scores).max()),
            "differing_when_shuffled": int((again != new_scores).sum()),
        }
        print(
            name,
            json.dumps(figures["sets"][name]),
            f"({time.perf_counter() - started:.0f} s)",
            flush=True,
        )
        sample = items[: args.speed_items]
        speed: dict[str, Any] = {"old": rate(old, sample, args.runs)}
        for batch in (1, 8, 32):
            new.batch_size = batch
            speed[f"new_{batch}"] = rate(new, sample, args.runs)
        new.batch_size = defaults.EMBEDDED_ROW_BATCH
        figures["speed"][name] = speed
        print(name, {k: round(v["pairs_per_s"], 2) for k, v in speed.items()}, flush=True)
    if (args.limit is None and args.sets == ",".join(SETS)) or args.name:
        command = (
            "OMP_NUM_THREADS=1 nice -n 15 .venv/bin/python bench/verifier_batching.py "
            + shlex.join(sys.argv[1:])
        )
        write_result(args.name or "verifier_batching", figures, table_md(figures), command)


if __name__ == "__main__":
    main()
