"""Step 3 of the verifier sweep (on this machine): figures from the device's scores.

    .venv/bin/python bench/verifier_sweep/report.py --scores bench/results/verifier_sweep \
        --prep .devsweep

Reads the device outputs (``results.json``, ``scores.npz``) and the labels, groups and exact
signals that prep.py wrote, and measures each setting with veracity's own evaluation code: ROC-AUC
on the held-out validation rows; on WiCE dev and LFQA dev the balanced accuracy with the
threshold chosen on the other half of the groups (``cross_threshold``, as bench/verifier.py) for
the raw P(supported) and for the combined score (``fit_combiner`` on the validation rows, as
``veracity export-verifier`` fits the shipped combiner), and the combined score when the combiner is
fit on the validation rows of the RAG-like kinds only (no public NLI rows, no perturbation that
makes a contradiction). The lexical-coverage baseline is measured on the same pairs.
Writes bench/results/verifier_sweep.json and the ``verifier_sweep`` section of bench/README.md.
"""

from __future__ import annotations

import argparse
import json
import shlex
import sys
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from _report import write_result
from veracity.evaluate.classification import cross_threshold, roc_auc
from veracity.train.release import COMBINER_SKIPS
from veracity.verify.combine import fit_combiner


def logit_features(supported: np.ndarray, signals: np.ndarray) -> np.ndarray:
    p = np.clip(supported, 1e-4, 1 - 1e-4)
    matrix = np.array(signals, dtype=np.float64)
    matrix[:, 0] = np.log(p / (1 - p))
    return matrix


def combined(fit_scores: np.ndarray, fit_signals: np.ndarray, labels: np.ndarray,
             scores: np.ndarray, signals: np.ndarray) -> np.ndarray:
    combiner = fit_combiner(logit_features(fit_scores, fit_signals), labels.tolist())
    z = logit_features(scores, signals) @ np.asarray(combiner.weights) + combiner.bias
    return np.asarray(1 / (1 + np.exp(-z)))


def describe(cfg: dict[str, Any]) -> str:
    parts = [f"{cfg['examples'] // 1000}k ex"]
    for key, text in (("drop", "without {}"), ("dup", "doubled: {}")):
        if cfg.get(key):
            parts.append(text.format(", ".join(cfg[key])))
    for key, text in (("binary", "binary loss"), ("unfreeze", "embeddings trained")):
        if cfg.get(key):
            parts.append(text)
    if "lr" in cfg:
        parts.append(f"lr {cfg['lr']:g}")
    if "seed" in cfg:
        parts.append(f"seed {cfg['seed']}")
    return "; ".join(parts)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scores", type=Path, default=Path("bench/results/verifier_sweep"))
    parser.add_argument("--prep", type=Path, default=Path(".devsweep"))
    parser.add_argument("--window", type=int, default=192)
    args = parser.parse_args()
    scores = np.load(args.scores / "scores.npz")
    runs = json.loads((args.scores / "results.json").read_text())
    packs = {n: np.load(args.prep / f"{n}_{args.window}.npz") for n in ("val", "wice", "lfqa")}
    kinds = json.loads((args.prep / f"vocab_{args.window}.json").read_text())["kinds"]
    val = packs["val"]
    val_y = (val["label"] == 0).astype(int)
    val_kinds = np.array([kinds[k] if k >= 0 else "" for k in val["kind"]])
    rag_like = ~np.isin(val_kinds, list(COMBINER_SKIPS))
    rows: list[dict[str, Any]] = []
    baseline: dict[str, float] = {}
    for name in ("wice", "lfqa"):
        pack = packs[name]
        baseline[name] = cross_threshold(pack["feat"][:, 1], pack["label"], pack["group"]).value
    for run in runs:
        cfg = run["cfg"]
        val_p = scores[f"{cfg['name']}|val"]
        row: dict[str, Any] = {"name": cfg["name"], "setting": describe(cfg),
                               "h200_train_seconds": round(run["train_seconds"], 1),
                               "val_auc": roc_auc(val_p, val_y)}
        for name in ("wice", "lfqa"):
            pack = packs[name]
            p = scores[f"{cfg['name']}|{name}"]
            both = combined(val_p, val["feat"], val_y, p, pack["feat"])
            rag = combined(val_p[rag_like], val["feat"][rag_like], val_y[rag_like], p,
                           pack["feat"])
            row[name] = {
                "raw_cross": cross_threshold(p, pack["label"], pack["group"]).value,
                "raw_auc": roc_auc(p, pack["label"]),
                "combined_cross": cross_threshold(both, pack["label"], pack["group"]).value,
                "combined_rag_val_cross": cross_threshold(rag, pack["label"],
                                                          pack["group"]).value,
            }
        rows.append(row)
    lines = [
        "A search on the device machine (one NVIDIA H200, lent for this session): each setting "
        "fine-tunes all-MiniLM-L6-v2 from the base weights with the 0.1.0 recipe except where "
        "named, at a 192-token window, on a 56,000-row seeded sample of the training data "
        "(`python -m veracity.train.data`, seed 13), and is scored on the pre-selected evidence "
        "of WiCE dev and LFQA dev. Balanced accuracy (%) with the threshold chosen on the other "
        "half of the groups; *comb*: the combiner over the model's logit and exact signals fit on "
        "the validation rows (as shipped); *comb RAG-val*: fit on the validation rows without "
        "public NLI rows and without contradiction perturbations. Models trained on the GPU are "
        "not shipped; one seed per setting unless named.",
        "",
        f"Lexical coverage on the same pairs: WiCE {baseline['wice'] * 100:.1f}, LFQA "
        f"{baseline['lfqa'] * 100:.1f}.",
        "",
        "| setting | H200 s | val AUC | WiCE raw | AUC | comb | comb RAG-val | LFQA raw | AUC "
        "| comb | comb RAG-val |",
        "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
    ]
    for row in rows:
        cells = [f"{row['name']} ({row['setting']})", f"{row['h200_train_seconds']:.0f}",
                 f"{row['val_auc']:.3f}"]
        for name in ("wice", "lfqa"):
            f = row[name]
            cells += [f"{f['raw_cross'] * 100:.1f}", f"{f['raw_auc']:.3f}",
                      f"{f['combined_cross'] * 100:.1f}",
                      f"{f['combined_rag_val_cross'] * 100:.1f}"]
        lines.append("| " + " | ".join(cells) + " |")
    markdown = "\n".join(lines)
    command = ("python bench/verifier_sweep/prep.py --window 192 --pool 56000 --out .devsweep; "
               "(device) cd .devsweep && python3 gpu.py 420; "
               "python " + " ".join(shlex.quote(a) for a in ["bench/verifier_sweep/report.py",
                                                             *sys.argv[1:]]))
    write_result("verifier_sweep", {"baseline_lexical_cross": baseline, "runs": rows},
                 markdown, command)
    print(markdown)


if __name__ == "__main__":
    main()
