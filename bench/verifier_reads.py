"""Does the verifier read? One table for issue Verifier-reads: each verifier's balanced accuracy
at tau 0.5 on the development sets, its minimal pairs, the issue's probes, three-way accuracy
on held-out VitaminC / MNLI rows, speed at 512 tokens, and its combiner's inputs.

    nice -n 5 .venv/bin/python bench/verifier_reads.py \\
        --verifier 0.4.0=embedded:OLD --verifier 0.4.0+three-way=embedded:OLD3 \\
        --verifier 0.5.0=embedded --data DATA

``--verifier LABEL=NAME`` (repeatable; NAME as in veracity.models.pairs.registry) names each row.
``--data`` is the training data folder (its val.jsonl gives the VitaminC and MNLI rows, which
no network here trained on); the minimal pairs are ``bench/data/minimal_pairs.jsonl``
(``python -m veracity.train.data.pairs``: held-out training text, never evaluation data).

Per verifier:

- **BAcc @0.5**: balanced accuracy with P(supported) >= 0.5 as supported, on WiCE dev, the
  LFQA dev half and CLIMATE-FEVER (bench/verifier_data.py), and the cross-threshold figure of
  bench/verifier.py beside it.
- **Minimal pairs**, per edit: of the originals the verifier calls supported (P(supported) >=
  0.5), the share whose twin it does not call supported (*flip*), and the share it labels
  contradicted (*contradicted*: P(contradicted) is the largest of the three). For the
  meaning-keeping edits (hedged number, antonym negated) the share still supported (*kept*).
- **Rules**: the knowledge layer's polarity and value rules (no network) on the same pairs:
  the share of twins they contradict, and of originals (a false alarm).
- **With rules**: the decision ``check`` and ``verify`` label (a claim the rules contradict is
  contradicted whatever the verifier says): flip and contradicted as above, of the originals
  that decision calls supported. The rules' antonym and quantifier lists are the lexicon the
  suite's twins were made with (``veracity.rules.polarity``), so for those edits this is an
  upper bound: an antonym outside the lexicon is the network's alone.
- **Probes**: the four pairs of the issue, label and P(contradicted).
- **Three-way**: accuracy of the argmax label on validation rows of VitaminC and MNLI.
- **pairs/s @512**: premises of 512 MiniLM tokens, 2 threads, median of 3 runs of 32 pairs.
"""

from __future__ import annotations

import argparse
import json
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
from veracity.evaluate.classification import balanced_accuracy
from veracity.models.pairs.base import PairScorer
from veracity.types import Chunk, Claim, Span
from verifier import make_scorer, measure, score_items
from verifier_data import DATASETS, DEFAULT_DATA, load

BENCH = Path(__file__).resolve().parent
PAIRS = BENCH / "data" / "minimal_pairs.jsonl"
#: The probe pairs of issue Verifier-reads: (premise, claim), none supported.
PROBES = (
    ("The museum does not open on Mondays.", "The museum opens on Mondays."),
    (
        "Aspirin is not recommended for children under 16.",
        "Aspirin is recommended for children under 16.",
    ),
    (
        "The closure API of libffi is not completely thread-safe; a program that uses closures "
        "from several threads must serialise them.",
        "libffi is completely thread-safe.",
    ),
    ("Smoke calms bees for about ten minutes.", "Smoke calms bees for an hour."),
)
#: Edits that keep the meaning (the suite's ``expected`` is "supported"): a flip is an error.
KEEPING = {"hedged_number", "antonym_negated", "negated_both", "verbatim_number"}
SETS = ("wice", "lfqa", "climate_fever")
THREE_WAY_SOURCES = ("vitaminc_bigbench", "nli_misc_felipessalvatore/mnli")
LABELS = ("supported", "contradicted", "neither")


def _score(
    scorer: PairScorer, premises: Sequence[str], claims: Sequence[str], batch: int = 32
) -> np.ndarray:
    """(supported, contradicted, neither) per pair, in batches."""
    rows: list[tuple[float, float, float]] = []
    for first in range(0, len(premises), batch):
        result = scorer.run(
            list(premises[first : first + batch]), list(claims[first : first + batch])
        )
        rows.extend((s.supported, s.contradicted, s.neither) for s in result.scores)
    return np.array(rows, dtype=np.float64).reshape(len(rows), 3)


def dev_sets(scorer: PairScorer, limit: int | None, seed: int) -> dict[str, Any]:
    out = {}
    for name in SETS:
        items = load(name, DEFAULT_DATA, limit)
        scores = score_items(scorer, items, batch=32, advance=lambda _: None)
        if limit is not None:  # too few groups for the cross-threshold split
            ok = ~np.isnan(scores)
            labels = np.array([item.label for item in items])[ok]
            out[name] = {
                "items": int(ok.sum()),
                "failed": int((~ok).sum()),
                "balanced_accuracy_fixed": balanced_accuracy(scores[ok] >= 0.5, labels),
                "balanced_accuracy_cross": None,
                "roc_auc": None,
            }
            continue
        figures = measure(scores, items, threshold=0.5, seed=seed)
        out[name] = {
            key: figures[key]
            for key in (
                "items",
                "failed",
                "balanced_accuracy_fixed",
                "balanced_accuracy_cross",
                "roc_auc",
            )
        }
    return out


def minimal_pairs(
    scorer: PairScorer, pairs: list[dict[str, Any]], rules: tuple[np.ndarray, np.ndarray]
) -> dict[str, Any]:
    """Flip shares per edit kind, the verifier alone and with the rules' contradictions
    (``rules``: per pair, whether the rules contradict the original and the twin)."""
    originals = _score(scorer, [p["premise"] for p in pairs], [p["claim"] for p in pairs])
    twins = _score(
        scorer, [p.get("twin_premise", p["premise"]) for p in pairs], [p["twin"] for p in pairs]
    )
    kinds: dict[str, Any] = {}
    for kind in dict.fromkeys(p["kind"] for p in pairs):
        index = np.array([p["kind"] == kind for p in pairs])
        held = index & (originals[:, 0] >= 0.5)
        twin = twins[held]
        kinds[kind] = {
            "pairs": int(index.sum()),
            "supported_originals": int(held.sum()),
            "flip": float((twin[:, 0] < 0.5).mean()) if held.any() else None,
            "contradicted": float((twin.argmax(1) == 1).mean()) if held.any() else None,
            "kept": float((twin[:, 0] >= 0.5).mean()) if held.any() else None,
        }
        held = held & ~rules[0]
        ruled = rules[1][held]
        twin = twins[held]
        kinds[kind] |= {
            "supported_originals_with_rules": int(held.sum()),
            "flip_with_rules": float(((twin[:, 0] < 0.5) | ruled).mean()) if held.any() else None,
            "contradicted_with_rules": float(((twin.argmax(1) == 1) | ruled).mean())
            if held.any()
            else None,
            "kept_with_rules": float(((twin[:, 0] >= 0.5) & ~ruled).mean()) if held.any() else None,
        }
    return kinds


def rule_flags(pairs: list[dict[str, Any]]) -> tuple[np.ndarray, np.ndarray]:
    """Per pair, whether the knowledge layer (no names, no network) contradicts the original
    and the twin."""
    from veracity.rules.layer import KnowledgeLayer

    layer = KnowledgeLayer(entities=False).load()

    def contradicted(claims: list[str], premises: list[str]) -> np.ndarray:
        found = layer.run(
            [Claim(0, c, Span(0, len(c)), 0) for c in claims],
            [[Chunk("p#0", "p", 0, premise, 0, len(premise))] for premise in premises],
        ).results
        return np.array([r.label == "contradicted" for r in found])

    return (
        contradicted([p["claim"] for p in pairs], [p["premise"] for p in pairs]),
        contradicted(
            [p["twin"] for p in pairs], [p.get("twin_premise", p["premise"]) for p in pairs]
        ),
    )


def rule_pairs(pairs: list[dict[str, Any]], flags: tuple[np.ndarray, np.ndarray]) -> dict[str, Any]:
    """Per edit kind, the share of twins and of originals the rules contradict."""
    originals, twins = flags
    out = {}
    for kind in dict.fromkeys(p["kind"] for p in pairs):
        index = np.array([p["kind"] == kind for p in pairs])
        out[kind] = {
            "twins_contradicted": float(twins[index].mean()),
            "originals_contradicted": float(originals[index].mean()),
        }
    return out


def probes(scorer: PairScorer) -> list[dict[str, Any]]:
    scores = scorer.run([p for p, _ in PROBES], [c for _, c in PROBES]).scores
    return [
        {
            "claim": claim,
            "label": score.label,
            "supported": score.supported,
            "contradicted": score.contradicted,
        }
        for (_, claim), score in zip(PROBES, scores, strict=True)
    ]


def three_way(scorer: PairScorer, data: Path, limit: int) -> dict[str, Any]:
    rows = [json.loads(line) for line in (data / "val.jsonl").read_text().splitlines() if line]
    out = {}
    for source in THREE_WAY_SOURCES:
        chosen = [
            r
            for r in rows
            if r["source"] == source and r["kind"] == "public" and r["label"] in LABELS
        ][:limit]
        if not chosen:
            continue
        scores = _score(scorer, [r["premise"] for r in chosen], [r["hypothesis"] for r in chosen])
        truth = np.array([LABELS.index(r["label"]) for r in chosen])
        out[source] = {
            "rows": len(chosen),
            "accuracy": float((scores.argmax(1) == truth).mean()),
            "balanced_accuracy_supported": balanced_accuracy(
                scores[:, 0] >= 0.5, (truth == 0).astype(int)
            ),
        }
    return out


def speed(scorer: PairScorer, runs: int = 3, count: int = 32) -> float:
    from verifier_speed import _corpus, premises_of_length

    text, claims = _corpus()
    premises = premises_of_length(text, 512, count * runs + 4)
    scorer.run(premises[:4], claims[:4])
    seconds = []
    for run in range(runs):
        chunk = slice(4 + run * count, 4 + (run + 1) * count)
        started = time.perf_counter()
        scorer.run(premises[chunk], claims[:count])
        seconds.append(time.perf_counter() - started)
    return count / statistics.median(seconds)


def combiner_of(name: str) -> dict[str, Any] | None:
    path = name.partition(":")[2]
    from veracity.assets import VERIFIER_DIR

    config = json.loads((Path(path or VERIFIER_DIR) / "config.json").read_text())
    combiner: dict[str, Any] | None = config.get("combiner")
    return combiner


def _pct(value: float | None) -> str:
    return "—" if value is None else f"{100 * value:.1f}"


def table_md(figures: dict[str, Any]) -> str:
    rows = figures["verifiers"]
    labels = list(rows)
    lines = [
        "#### Development sets (balanced accuracy %, P(supported) >= 0.5; cross-threshold "
        "in brackets) and speed",
        "",
        "| verifier | " + " | ".join(DATASETS[s][1] for s in SETS) + " | pairs/s @512 |",
        "| --- |" + " ---: |" * (len(SETS) + 1),
    ]
    for label in labels:
        dev = rows[label]["dev"]
        cells = [
            f"{_pct(dev[s]['balanced_accuracy_fixed'])} ({_pct(dev[s]['balanced_accuracy_cross'])})"
            for s in SETS
        ]
        lines.append(f"| {label} | " + " | ".join(cells) + f" | {rows[label]['speed']:.1f} |")
    kinds = list(next(iter(rows.values()))["pairs"])
    lines += [
        "",
        "#### Minimal pairs (held-out training text; bench/data/minimal_pairs.jsonl)",
        "",
        "Of the originals a verifier calls supported: the share of twins it does not call "
        "supported (flip) / labels contradicted. Meaning-keeping edits (*): the share of "
        "twins still supported. Rules: the knowledge layer's polarity and value rules, "
        "twins contradicted / originals contradicted (false alarms).",
        "",
        "| edit | pairs | " + " | ".join(labels) + " | rules |",
        "| --- | ---: |" + " ---: |" * (len(labels) + 1),
    ]
    for kind in kinds:
        cells = []
        for label in labels:
            k = rows[label]["pairs"][kind]
            if kind in KEEPING:
                cells.append(f"{_pct(k['kept'])} kept (n={k['supported_originals']})")
            else:
                cells.append(
                    f"{_pct(k['flip'])} / {_pct(k['contradicted'])} (n={k['supported_originals']})"
                )
        rule = figures["rules"][kind]
        lines.append(
            f"| {kind}{' *' if kind in KEEPING else ''} | "
            f"{next(iter(rows.values()))['pairs'][kind]['pairs']} | "
            + " | ".join(cells)
            + f" | {_pct(rule['twins_contradicted'])} / "
            f"{_pct(rule['originals_contradicted'])} |"
        )
    lines += [
        "",
        "With the rules, as `check` and `verify` label a claim (contradicted where the "
        "rules contradict it, whatever the verifier says): flip / contradicted of the "
        "originals that decision calls supported. The rules' antonyms and quantifiers come "
        "from the lexicon the suite's twins were made with: for those two edits this is "
        "an upper bound.",
        "",
        "| edit | " + " | ".join(labels) + " |",
        "| --- |" + " ---: |" * len(labels),
    ]
    for kind in kinds:
        cells = []
        for label in labels:
            k = rows[label]["pairs"][kind]
            if kind in KEEPING:
                cells.append(
                    f"{_pct(k['kept_with_rules'])} kept (n={k['supported_originals_with_rules']})"
                )
            else:
                cells.append(
                    f"{_pct(k['flip_with_rules'])} / "
                    f"{_pct(k['contradicted_with_rules'])} "
                    f"(n={k['supported_originals_with_rules']})"
                )
        lines.append(f"| {kind}{' *' if kind in KEEPING else ''} | " + " | ".join(cells) + " |")
    lines += [
        "",
        "#### The issue's probes (label, P(contradicted))",
        "",
        "| claim | " + " | ".join(labels) + " |",
        "| --- |" + " --- |" * len(labels),
    ]
    for i, (_, claim) in enumerate(PROBES):
        cells = [
            f"{rows[label]['probes'][i]['label']} {rows[label]['probes'][i]['contradicted']:.2f}"
            for label in labels
        ]
        lines.append(f"| {claim} | " + " | ".join(cells) + " |")
    lines += [
        "",
        "#### Three-way accuracy on validation rows no network here trained on (%)",
        "",
        "| verifier | " + " | ".join(THREE_WAY_SOURCES) + " |",
        "| --- |" + " ---: |" * len(THREE_WAY_SOURCES),
    ]
    for label in labels:
        cells = [
            f"{_pct(rows[label]['three_way'].get(s, {}).get('accuracy'))} "
            f"(n={rows[label]['three_way'].get(s, {}).get('rows', 0)})"
            for s in THREE_WAY_SOURCES
        ]
        lines.append(f"| {label} | " + " | ".join(cells) + " |")
    lines += [
        "",
        "#### Combiner inputs (weight of each input per label; three-way combiners "
        "also give weight × the input's spread on their fitting rows)",
        "",
    ]
    for label in labels:
        combiner = rows[label]["combiner"]
        if not combiner:
            lines.append(f"- {label}: no combiner (the network alone)")
        elif combiner.get("kind") == "three_way":
            parts = [
                f"{name} {combiner['weights'][0][k]:+.2f}/{combiner['weights'][1][k]:+.2f}"
                f"/{combiner['weights'][2][k]:+.2f}"
                for k, name in enumerate(combiner["features"])
            ]
            lines.append(
                f"- {label} (supported/contradicted/neither weights; gate "
                f"{combiner['gate']:.2f}): " + ", ".join(parts)
            )
            contribution = combiner.get("contributions", {})
            if contribution:
                lines.append(
                    "  contributions to the supported logit: "
                    + ", ".join(
                        f"{name} {value:+.2f}" for name, value in contribution["supported"].items()
                    )
                    + "; to the contradicted logit: "
                    + ", ".join(
                        f"{name} {value:+.2f}"
                        for name, value in contribution["contradicted"].items()
                    )
                )
        else:
            lines.append(
                f"- {label} (P(supported) weights): "
                + ", ".join(
                    f"{name} {w:+.3f}"
                    for name, w in zip(combiner["features"], combiner["weights"], strict=True)
                )
            )
    return "\n".join(lines) + "\n"


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--verifier",
        action="append",
        required=True,
        help="LABEL=NAME, e.g. 0.5.0=embedded (repeatable)",
    )
    parser.add_argument("--data", type=Path, required=True, help="the training data folder")
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--limit", type=int, default=None, help="items per dev set (quick runs)")
    parser.add_argument("--three-way-rows", type=int, default=800)
    parser.add_argument("--seed", type=int, default=13)
    parser.add_argument("--name", default="verifier_reads")
    args = parser.parse_args(argv)
    pairs = [json.loads(line) for line in PAIRS.read_text().splitlines() if line]
    keeping = {p["kind"] for p in pairs if p.get("expected") == "supported"}
    if keeping - KEEPING:
        parser.error(f"edits {sorted(keeping - KEEPING)} keep the meaning: add them to KEEPING")
    flags = rule_flags(pairs)
    figures: dict[str, Any] = {
        "verifiers": {},
        "pairs_file": str(PAIRS.relative_to(BENCH.parent)),
        "rules": rule_pairs(pairs, flags),
    }
    for spec in args.verifier:
        label, _, name = spec.partition("=")
        scorer = make_scorer(name, args.threads)
        print(f"{label}: {name}", file=sys.stderr, flush=True)
        figures["verifiers"][label] = {
            "name": name,
            "model_id": scorer.model_id,
            "pairs": minimal_pairs(scorer, pairs, flags),
            "probes": probes(scorer),
            "three_way": three_way(scorer, args.data, args.three_way_rows),
            "dev": dev_sets(scorer, args.limit, args.seed),
            "speed": speed(scorer),
            "combiner": combiner_of(name),
        }
    command = "python bench/verifier_reads.py " + shlex.join(
        list(sys.argv[1:] if argv is None else argv)
    )
    if args.limit is not None and args.name == "verifier_reads":
        print(table_md(figures))
        return
    write_result(args.name, figures, table_md(figures), command)
    print(table_md(figures))


if __name__ == "__main__":
    main()
