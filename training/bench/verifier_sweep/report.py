"""Step 3 of the verifier sweep (on this machine): figures from the device's scores.

    .venv/bin/python training/bench/verifier_sweep/report.py --scores bench/results/verifier_sweep \
        --prep .devsweep

Reads the device outputs (``results.json``, ``scores.npz``) and the labels, groups and exact
signals that prep.py wrote, and measures each setting with veracity's own evaluation code: ROC-AUC
on the held-out validation rows; on WiCE dev and LFQA dev the balanced accuracy with the
threshold chosen on the other half of the groups (``cross_threshold``, as bench/verifier.py) for
the raw P(supported) and for the combined score (``fit_combiner`` on the validation rows, as
``veracity export-verifier`` fits the shipped combiner), and the combined score when the combiner is
fit on the validation rows of the RAG-like kinds only (no public NLI rows, no perturbation that
makes a contradiction). The lexical-coverage baseline is measured on the same pairs.
Writes bench/results/verifier_sweep.json and the ``verifier_sweep`` section, now in
bench/HISTORY.md (a section another ``--name`` starts goes to bench/README.md).
"""

from __future__ import annotations

import argparse
import json
import shlex
import sys
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[3] / "bench"))

from _report import write_result
from veracity.evaluate.classification import cross_threshold, roc_auc
from veracity.models.pairs.combiner import fit_combiner

#: The kinds verifier 0.1.1-0.4.0's combiner was not fit on (public NLI rows and contradiction
#: perturbations), as veracity_training.release defined them when this sweep ran.
COMBINER_SKIPS = (
    "public",
    "entity_swap",
    "number_change",
    "negation",
    "qa_answer_swap",
    "qa_real_world_answer",
    "qa_counterfactual",
)


def logit_features(supported: np.ndarray, signals: np.ndarray) -> np.ndarray:
    p = np.clip(supported, 1e-4, 1 - 1e-4)
    matrix = np.array(signals, dtype=np.float64)
    matrix[:, 0] = np.log(p / (1 - p))
    return matrix


def combined(
    fit_scores: np.ndarray,
    fit_signals: np.ndarray,
    labels: np.ndarray,
    scores: np.ndarray,
    signals: np.ndarray,
) -> np.ndarray:
    combiner = fit_combiner(logit_features(fit_scores, fit_signals), labels.tolist())
    z = logit_features(scores, signals) @ np.asarray(combiner.weights) + combiner.bias
    return np.asarray(1 / (1 + np.exp(-z)))


def load_gpu_module() -> Any:
    """gpu.py as a module (its batching and prediction), loaded from beside this file."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("sweep_gpu", Path(__file__).with_name("gpu.py"))
    if spec is None or spec.loader is None:
        raise RuntimeError(f"cannot load gpu.py beside {__file__}")
    gpu = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(gpu)
    return gpu


def load_checkpoint(checkpoint: Path) -> Any:
    """A trainer checkpoint (RUN/checkpoint) as a torch model for inference on 2 threads."""
    import torch
    from transformers import BertForSequenceClassification

    torch.set_num_threads(2)
    return BertForSequenceClassification.from_pretrained(str(checkpoint)).eval()


def unpack(pack: Any) -> dict[str, np.ndarray]:
    """A prep.py pack as the arrays gpu.py batches from (with each pair's start offset)."""
    arrays = {key: pack[key] for key in pack.files}
    arrays["starts"] = np.concatenate([[0], np.cumsum(arrays["lens"])[:-1]])
    return arrays


def reference_scores(checkpoint: Path, packs: dict[str, Any], name: str) -> dict[str, np.ndarray]:
    """P(supported) of a trainer checkpoint on the packed pairs, computed here on the CPU with
    gpu.py's own batching and prediction."""
    gpu = load_gpu_module()
    model = load_checkpoint(checkpoint).to(gpu.DEVICE)
    return {f"{name}|{part}": gpu.predict(model, unpack(pack)) for part, pack in packs.items()}


def describe(cfg: dict[str, Any]) -> str:
    if "reference" in cfg:
        return f"trained on this machine's CPU: {cfg['reference']}"
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
    parser.add_argument(
        "--name",
        default="verifier_sweep",
        help="result name (bench/results/NAME.json, README section)",
    )
    parser.add_argument(
        "--pool",
        default="a 56,000-row seeded sample of the training data "
        "(`python -m veracity_training.data`, seed 13)",
        help="how the training pool was made, for the table's text",
    )
    parser.add_argument(
        "--prep-command",
        default="python training/bench/verifier_sweep/prep.py --window 192 --pool 56000 "
        "--out .devsweep",
        help="the prep.py command, for the recorded command",
    )
    parser.add_argument(
        "--device-command",
        default="cd .devsweep && python3 gpu.py 420",
        help="the command run on the device, for the recorded command",
    )
    parser.add_argument("--note", default="", help="a sentence added to the table's text")
    parser.add_argument(
        "--reference",
        type=Path,
        action="append",
        default=[],
        help="a trainer checkpoint folder to score on the same pairs here (CPU), "
        "as a row of its own; repeatable",
    )
    args = parser.parse_args()
    scores = np.load(args.scores / "scores.npz")
    runs = json.loads((args.scores / "results.json").read_text())
    packs = {n: np.load(args.prep / f"{n}_{args.window}.npz") for n in ("val", "wice", "lfqa")}
    kinds = json.loads((args.prep / f"vocab_{args.window}.json").read_text())["kinds"]
    val = packs["val"]
    val_y = (val["label"] == 0).astype(int)
    val_kinds = np.array([kinds[k] if k >= 0 else "" for k in val["kind"]])
    #: the validation rows each combined column is fit on
    fits = {
        "combined_cross": np.ones(len(val_kinds), dtype=bool),
        "combined_rag_val_cross": ~np.isin(val_kinds, list(COMBINER_SKIPS)),
        "combined_public_val_cross": val_kinds == "public",
    }
    rows: list[dict[str, Any]] = []
    baseline: dict[str, float] = {}
    for name in ("wice", "lfqa"):
        pack = packs[name]
        baseline[name] = cross_threshold(pack["feat"][:, 1], pack["label"], pack["group"]).value
    for name in ("wice", "lfqa"):
        baseline[f"{name}_auc"] = roc_auc(packs[name]["feat"][:, 1], packs[name]["label"])
    scores = {key: scores[key] for key in scores.files}
    for checkpoint in args.reference:
        runs.append(
            {
                "cfg": {"name": checkpoint.parent.name, "reference": str(checkpoint)},
                "train_seconds": None,
            }
        )
        scores.update(reference_scores(checkpoint, packs, checkpoint.parent.name))
    for run in runs:
        cfg = run["cfg"]
        val_p = scores[f"{cfg['name']}|val"]
        seconds = run["train_seconds"]
        row: dict[str, Any] = {
            "name": cfg["name"],
            "setting": describe(cfg),
            "h200_train_seconds": None if seconds is None else round(seconds, 1),
            "val_auc": roc_auc(val_p, val_y),
        }
        for name in ("wice", "lfqa"):
            pack = packs[name]
            p = scores[f"{cfg['name']}|{name}"]
            row[name] = {
                "raw_cross": cross_threshold(p, pack["label"], pack["group"]).value,
                "raw_auc": roc_auc(p, pack["label"]),
            }
            for key, fit in fits.items():
                value = combined(val_p[fit], val["feat"][fit], val_y[fit], p, pack["feat"])
                row[name][key] = cross_threshold(value, pack["label"], pack["group"]).value
        rows.append(row)
    lines = [
        "A search on the device machine (one NVIDIA H200, lent for this session): each setting "
        "fine-tunes all-MiniLM-L6-v2 from the base weights with the 0.1.0 recipe except where "
        f"named, at a {args.window}-token window, on {args.pool}, and is scored on the "
        "pre-selected evidence "
        "of WiCE dev and LFQA dev. Balanced accuracy (%) with the threshold chosen on the other "
        "half of the groups; *comb*: the combiner over the model's logit and exact signals fit on "
        "all the validation rows (as 0.1.0 shipped); *comb RAG-val*: fit on the validation rows "
        "without public NLI rows and without contradiction perturbations; *comb pub-val*: fit on "
        "the public validation rows only (as 0.2.0 ships, whose network never saw public rows). "
        "Models trained on the GPU are "
        "not shipped; one seed per setting unless named." + (f" {args.note}" if args.note else ""),
        "",
        f"Lexical coverage on the same pairs: WiCE {baseline['wice'] * 100:.1f} (ROC-AUC "
        f"{baseline['wice_auc']:.3f}), LFQA {baseline['lfqa'] * 100:.1f} (ROC-AUC "
        f"{baseline['lfqa_auc']:.3f}).",
        "",
        "| setting | H200 s | val AUC | WiCE raw | AUC | comb | comb RAG-val | comb pub-val "
        "| LFQA raw | AUC | comb | comb RAG-val | comb pub-val |",
        "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: "
        "| ---: |",
    ]
    for row in rows:
        seconds = row["h200_train_seconds"]
        cells = [
            f"{row['name']} ({row['setting']})",
            "—" if seconds is None else f"{seconds:.0f}",
            f"{row['val_auc']:.3f}",
        ]
        for name in ("wice", "lfqa"):
            f = row[name]
            cells += [f"{f['raw_cross'] * 100:.1f}", f"{f['raw_auc']:.3f}"]
            cells += [f"{f[key] * 100:.1f}" for key in fits]
        lines.append("| " + " | ".join(cells) + " |")
    markdown = "\n".join(lines)
    command = f"{args.prep_command}; (device) {args.device_command}; python " + " ".join(
        shlex.quote(a) for a in ["training/bench/verifier_sweep/report.py", *sys.argv[1:]]
    )
    write_result(args.name, {"baseline_lexical_cross": baseline, "runs": rows}, markdown, command)
    print(markdown)


if __name__ == "__main__":
    main()
