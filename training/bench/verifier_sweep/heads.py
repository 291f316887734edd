"""How each of a checkpoint's three outputs ranks the development sets (on this machine's CPU).

    .venv/bin/python training/bench/verifier_sweep/heads.py --prep .devsweep2 \
        --checkpoint ~/.cache/veracity/verifier/r4/checkpoint

The verifier's P(supported) is one of three probabilities. This asks which of them separates
supported from unsupported claims on the pairs prep.py packed (validation rows, WiCE dev, LFQA
dev): the ROC-AUC of P(supported), of 1 - P(contradicted) and of 1 - P(neither), beside lexical
coverage on the same pairs. An AUC under 0.5 for 1 - P(contradicted) means the network calls
*supported* claims contradicted more often than unsupported ones.
Writes bench/results/NAME.json and the NAME section (``--name``, default ``verifier_heads``)
of bench/HISTORY.md where that file holds it, as it does the default's, else of bench/README.md.
"""

from __future__ import annotations

import argparse
import shlex
import sys
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[3] / "bench"))

from report import load_checkpoint, load_gpu_module, unpack

from _report import write_result
from veracity.evaluate.classification import roc_auc

SETS = ("val", "wice", "lfqa")
HEADS = ("P(supported)", "1 - P(contradicted)", "1 - P(neither)")


def probabilities(model: Any, gpu: Any, pack: Any) -> np.ndarray:
    """The three probabilities of every packed pair, batched as gpu.py batches."""
    import torch

    arrays = unpack(pack)
    order = np.argsort(arrays["lens"])
    result = np.zeros((len(order), 3))
    with torch.no_grad():
        for first in range(0, len(order), 64):
            rows = order[first : first + 64]
            logits = model(**gpu.batch_tensors(arrays, rows)).logits
            result[rows] = torch.softmax(logits, -1).numpy()
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--prep", type=Path, default=Path(".devsweep2"))
    parser.add_argument("--window", type=int, default=192)
    parser.add_argument(
        "--checkpoint",
        type=Path,
        action="append",
        required=True,
        help="a trainer checkpoint folder (RUN/checkpoint); repeatable",
    )
    parser.add_argument(
        "--name",
        default="verifier_heads",
        help="result name (bench/results/NAME.json, README section)",
    )
    args = parser.parse_args()
    packs = {name: np.load(args.prep / f"{name}_{args.window}.npz") for name in SETS}
    labels = {
        name: (packs[name]["label"] == 0).astype(int) if name == "val" else packs[name]["label"]
        for name in SETS
    }
    rows: list[dict[str, Any]] = [
        {
            "name": "lexical coverage",
            **{
                name: {"coverage": roc_auc(packs[name]["feat"][:, 1], labels[name])}
                for name in SETS
            },
        }
    ]
    gpu = load_gpu_module()
    for checkpoint in args.checkpoint:
        row: dict[str, Any] = {"name": checkpoint.parent.name, "checkpoint": str(checkpoint)}
        model = load_checkpoint(checkpoint)
        for name in SETS:
            p = probabilities(model, gpu, packs[name])
            row[name] = {
                head: roc_auc(value, labels[name])
                for head, value in zip(HEADS, (p[:, 0], 1 - p[:, 1], 1 - p[:, 2]), strict=True)
            }
        rows.append(row)
    lines = [
        "ROC-AUC of each output of a checkpoint for *supported* against the rest, on the pairs "
        f"that prep.py packed in `{args.prep}` (the evidence window of {args.window} tokens "
        "veracity selects): the held-out validation rows of the training data, WiCE dev and "
        "LFQA dev. Lexical coverage reads the whole premise.",
        "",
        "| checkpoint | output | validation | WiCE dev | LFQA dev |",
        "| --- | --- | ---: | ---: | ---: |",
    ]
    for row in rows:
        for head in row["val"]:
            cells = [row["name"], head] + [f"{row[name][head]:.3f}" for name in SETS]
            lines.append("| " + " | ".join(cells) + " |")
    markdown = "\n".join(lines)
    command = "python " + " ".join(
        shlex.quote(a) for a in ["training/bench/verifier_sweep/heads.py", *sys.argv[1:]]
    )
    write_result(args.name, {"rows": rows}, markdown, command)
    print(markdown)


if __name__ == "__main__":
    main()
