"""One evidence window per claim against one window per passage: quality and pairs read.

    OMP_NUM_THREADS=1 nice -n 15 .venv/bin/python bench/nli_window.py --data ../shared/data \\
        [--limit 60]

The NLI layer (``veracity.verify.nli``) with ``window="passage"`` (each passage read on its
own, best passage's support) and ``window="claim"`` (the claim's best sentences across all its
passages in one window), with the shipped verifier (``--activations``), defaults otherwise:

- **LFQA dev** (sentence level, as ``bench/verify_lfqa.py``): every answer verified whole
  against its question's webgpt documents, cut into passages by the index's chunker, k = 5
  passages per claim; a sentence is flagged when any of its claims is. Balanced accuracy of the
  flags (positive class: not supported), ROC-AUC of the highest risk.
- **WiCE dev** (claim level): each claim against the passages the chunker cuts from its
  evidence lines (one document, the title line first), all of them; the claim is predicted
  supported when the layer says so. Balanced accuracy (positive class: supported, label
  ``supported`` only), ROC-AUC of the layer's support (1 - risk).

Pairs read counts the verifier pairs; seconds are the wall time of each configuration (one run,
no cache shared between configurations), for the ratio only.
"""

from __future__ import annotations

import argparse
import json
import shlex
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _report import write_result
from veracity.evaluate.classification import balanced_accuracy, roc_auc
from veracity.models.pairs.shipped import ACTIVATIONS, EmbeddedVerifier
from veracity.rules import KnowledgeLayer
from veracity.types import Claim, Document, Span
from veracity.verify.gather import ClaimEvidence, EvidenceSet, source_chunks
from veracity.verify.nli import WINDOWS, EvidenceWindow, NLILayer
from verifier_data import DEFAULT_DATA, load_wice
from verify_lfqa import CachedScorer, load_answers, run_config


def lfqa(
    data: Path, window: EvidenceWindow, limit: int | None, verifier: EmbeddedVerifier
) -> dict[str, Any]:
    answers, docs = load_answers(data)
    scorer = CachedScorer(verifier).load()
    started = time.perf_counter()
    figures = run_config(
        f"nli ({window})",
        {"layers": ("nli",), "window": window},
        answers[:limit],
        docs,
        scorer,
        KnowledgeLayer(),
        5,
    )
    return {
        "balanced_accuracy": figures["balanced_accuracy"],
        "roc_auc": figures["roc_auc"],
        "sentences": figures["sentences"],
        "claims": figures["claims"],
        "pairs": scorer.pairs_scored,
        "seconds": time.perf_counter() - started,
    }


def wice(
    data: Path, window: EvidenceWindow, limit: int | None, verifier: EmbeddedVerifier
) -> dict[str, Any]:
    items = load_wice(data)[:limit]
    layer = NLILayer(verifier, window=window).load()
    evidence = []
    for i, item in enumerate(items):
        passages = source_chunks([Document(id=f"wice{i}", title="", text=item.premise)])
        claim = Claim(0, item.claim, Span(0, len(item.claim)), 0)
        evidence.append(ClaimEvidence(claim, passages, (False,) * len(passages)))
    started = time.perf_counter()
    support, predicted, pairs = [], [], 0
    for first in range(0, len(evidence), 32):
        part = tuple(evidence[first : first + 32])
        result = layer.run(EvidenceSet(part, "claim", 0))
        pairs += result.pairs
        support += [1.0 - (r.score if r.score is not None else 1.0) for r in result.results]
        predicted += [int(r.label == "supported") for r in result.results]
    labels = np.array([item.label for item in items])
    return {
        "balanced_accuracy": balanced_accuracy(np.array(predicted), labels),
        "roc_auc": roc_auc(np.array(support), labels),
        "claims": len(items),
        "passages_per_claim": float(np.mean([len(e.passages) for e in evidence])),
        "pairs": pairs,
        "seconds": time.perf_counter() - started,
    }


def table_md(figures: dict[str, Any]) -> str:
    lines = [
        "| set | window | claims | pairs read | BAcc | ROC-AUC | seconds (ratio) |",
        "|---|---|---|---|---|---|---|",
    ]
    for name, entry in figures["sets"].items():
        base = entry["passage"]["seconds"]
        for window in WINDOWS[::-1]:
            r = entry[window]
            lines.append(
                f"| {name} | {window} | {r['claims']} | {r['pairs']} | "
                f"{100 * r['balanced_accuracy']:.1f} | {r['roc_auc']:.3f} | "
                f"{r['seconds']:.0f} ({r['seconds'] / base:.2f}×) |"
            )
    lines += [
        "",
        "LFQA: sentence-level flags (positive: not supported), k 5 passages per claim. "
        "WiCE: claim-level (positive: supported), all passages of the claim's evidence. "
        f"Defaults otherwise (tau, the shipped verifier with {figures['activations']} "
        "activations).",
    ]
    if figures["note"]:
        lines += ["", figures["note"]]
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0] if __doc__ else None)
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA)
    parser.add_argument(
        "--limit",
        type=int,
        default=None,
        help="first N answers / claims (quick runs write nothing unless named)",
    )
    parser.add_argument("--sets", default="wice,lfqa")
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument(
        "--activations",
        choices=ACTIVATIONS,
        default="per_tensor",
        help="the shipped verifier's activation quantization",
    )
    parser.add_argument("--note", default="")
    parser.add_argument("--name", default=None)
    args = parser.parse_args(argv)
    figures: dict[str, Any] = {"sets": {}, "note": args.note, "activations": args.activations}
    runners = {"wice": wice, "lfqa": lfqa}
    for name in args.sets.split(","):
        figures["sets"][name] = {}
        for window in WINDOWS:
            verifier = EmbeddedVerifier(threads=args.threads, activations=args.activations)
            result = runners[name](args.data, window, args.limit, verifier)
            figures["sets"][name][window] = result
            print(name, window, json.dumps(result), flush=True)
    if args.limit is None or args.name:
        command = "OMP_NUM_THREADS=1 nice -n 15 .venv/bin/python bench/nli_window.py " + shlex.join(
            sys.argv[1:]
        )
        write_result(args.name or "nli_window", figures, table_md(figures), command)


if __name__ == "__main__":
    main()
