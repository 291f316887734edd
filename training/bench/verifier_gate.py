"""How the three-way combiner's fitting rows and gate trade negations against partial support.

    nice -n 5 .venv/bin/python training/bench/verifier_gate.py --verifier DIR --data DATA

The network of the exported verifier ``DIR`` (its combiner is ignored) scores, once: the
training data's validation rows outside the minimal-pair suite's half (the combiner's fitting
rows, ``veracity_training.release.combiner_fit_mask``), the three development sets and the
minimal pairs. Then, for each choice of fitting rows, class shares and gate, a combiner is fit
on those rows (``fit_three_way``) and measured: balanced accuracy at P(supported) >= 0.5 on WiCE
dev, the LFQA dev half and CLIMATE-FEVER, and the negation, antonym and number pairs' flip shares
(of the originals the combined verifier calls supported, the twins it does not).

Fitting rows: ``all`` (every three-way validation row of the fitting half); ``no-twins``
(without the contrastive twins, whose claims copy the premise but for one word). The choice
for the shipped verifier is read off this table on the development sets: say so where it is
used.
"""

from __future__ import annotations

import argparse
import itertools
import json
import shlex
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

# the benchmarks' shared report writer lives in bench/ (figures go to bench/results/)
sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench"))

from _report import write_result
from veracity.evaluate.classification import balanced_accuracy
from veracity.models.pairs.combiner import SUPPORT_BALANCED, THREE_WAY_FEATURES, fit_three_way
from veracity.models.pairs.shipped import EmbeddedVerifier
from veracity_training.release import combiner_fit_mask
from veracity_training.rows import fitting_rows, read_rows
from verifier_data import DATASETS, DEFAULT_DATA, load

BENCH = Path(__file__).resolve().parents[2] / "bench"
PAIRS = BENCH / "data" / "minimal_pairs.jsonl"
SETS = ("wice", "lfqa", "climate_fever")
GATES = (0.5, 1.0)
#: Class shares of the fitting weight: equal thirds, or supported against the other two.
BALANCES = {"thirds": None, "supported-half": SUPPORT_BALANCED}
#: Inputs: every three-way feature, or none of the aligner's (its columns zeroed, so that their
#: weights fit to 0): what the combination loses without the aligner's second reading.
ALIGNER_COLUMNS = [THREE_WAY_FEATURES.index(n) for n in ("alignment", "contradiction_on_topic")]
INPUTS = ("all", "no aligner")


def _inputs(matrix: np.ndarray, inputs: str) -> np.ndarray:
    if inputs == "all":
        return matrix
    out = matrix.copy()
    out[:, ALIGNER_COLUMNS] = 0.0
    return out


KINDS = ("negation", "antonym", "number")


def _features(
    verifier: EmbeddedVerifier, premises: Sequence[str], claims: Sequence[str]
) -> tuple[np.ndarray, np.ndarray]:
    """The network's (supported, contradicted, neither) and the three-way feature matrix."""
    scores, matrix = verifier.features(list(premises), list(claims), three_way=True)
    return np.array([(s.supported, s.contradicted, s.neither) for s in scores]), matrix


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--verifier", type=Path, required=True, help="an exported verifier")
    parser.add_argument("--data", type=Path, required=True, help="the training data folder")
    parser.add_argument("--name", default="verifier_gate")
    parser.add_argument("--threads", type=int, default=2)
    args = parser.parse_args(argv)
    verifier = EmbeddedVerifier(model_dir=args.verifier, combine=False, threads=args.threads).load()
    rows = fitting_rows(verifier.selector, read_rows(args.data / "val.jsonl"))
    labels = np.array([r.label for r in rows])
    usable = combiner_fit_mask([r.premise for r in rows], labels)
    rows = [r for r, ok in zip(rows, usable, strict=True) if ok]
    labels = labels[usable]
    twins = np.array([r.kind.startswith("twin_") for r in rows])
    _, fit_matrix = _features(verifier, [r.premise for r in rows], [r.hypothesis for r in rows])
    dev = {}
    for name in SETS:
        items = load(name, DEFAULT_DATA)
        # A claim longer than the window cannot be scored at all (ClaimTooLongError): left out.
        budget = verifier.selector.claim_budget()
        lengths = verifier.selector.tokenizer.encode_batch(
            [i.claim for i in items], add_special_tokens=False
        )
        items = [i for i, e in zip(items, lengths, strict=True) if len(e.ids) <= budget]
        network, matrix = _features(verifier, [i.premise for i in items], [i.claim for i in items])
        dev[name] = (network, matrix, np.array([i.label for i in items]))
    pairs = [json.loads(line) for line in PAIRS.read_text().splitlines() if line]
    pairs = [p for p in pairs if p["kind"] in KINDS]
    pair_orig = _features(verifier, [p["premise"] for p in pairs], [p["claim"] for p in pairs])
    pair_twin = _features(verifier, [p["premise"] for p in pairs], [p["twin"] for p in pairs])
    kinds = np.array([p["kind"] for p in pairs])

    results: list[dict[str, Any]] = []
    for choice, mask in (("all", np.ones(len(rows), dtype=bool)), ("no-twins", ~twins)):
        for inputs, (balance, shares), gate in itertools.product(INPUTS, BALANCES.items(), GATES):
            if choice != "all" and inputs != "all":
                continue
            combiner = fit_three_way(
                _inputs(fit_matrix[mask], inputs), labels[mask].tolist(), gate=gate, shares=shares
            )
            row: dict[str, Any] = {
                "rows": choice,
                "fit_rows": int(mask.sum()),
                "inputs": inputs,
                "balance": balance,
                "gate": gate,
            }
            for name, (network, matrix, truth) in dev.items():
                out = np.array(combiner.outputs(_inputs(matrix, inputs), network))
                row[name] = balanced_accuracy(out[:, 0] >= 0.5, truth)
            originals = (
                np.array(combiner.outputs(_inputs(pair_orig[1], inputs), pair_orig[0]))[:, 0] >= 0.5
            )
            twinned = (
                np.array(combiner.outputs(_inputs(pair_twin[1], inputs), pair_twin[0]))[:, 0] >= 0.5
            )
            for kind in KINDS:
                held = originals & (kinds == kind)
                row[f"flip_{kind}"] = float((~twinned[held]).mean()) if held.any() else None
            results.append(row)
    lines = [
        "| fitting rows | inputs | class shares | gate | "
        + " | ".join(DATASETS[s][1] for s in SETS)
        + " | "
        + " | ".join(f"{k} flip" for k in KINDS)
        + " |",
        "| --- | --- | --- | ---: |" + " ---: |" * (len(SETS) + len(KINDS)),
    ]
    for row in results:
        cells = [f"{100 * row[s]:.1f}" for s in SETS] + [
            "—" if row[f"flip_{k}"] is None else f"{100 * row[f'flip_{k}']:.1f}" for k in KINDS
        ]
        lines.append(
            f"| {row['rows']} ({row['fit_rows']}) | {row['inputs']} | "
            f"{row['balance']} | {row['gate']:.1f} | " + " | ".join(cells) + " |"
        )
    table = (
        "Balanced accuracy (%) at P(supported) >= 0.5 and minimal-pair flip shares (%) of "
        f"combiners fit on the network of `{args.verifier.name}`, by fitting rows (their "
        "count), inputs (no aligner: without the aligner's alignment and on-topic "
        "contradiction features), class shares of the fitting weight (thirds: each label "
        "a third; "
        "supported-half: supported half, contradicted and neither a quarter each) and gate "
        "(1.0: no gate).\n\n" + "\n".join(lines) + "\n"
    )
    command = "python training/bench/verifier_gate.py " + shlex.join(
        list(sys.argv[1:] if argv is None else argv)
    )
    write_result(args.name, {"verifier": str(args.verifier), "results": results}, table, command)
    print(table)


if __name__ == "__main__":
    main()
