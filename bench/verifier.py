"""Claim verifiers on the three development sets, beside the LLM-AggreFact leaderboard.

    nice -n 10 .venv/bin/python bench/verifier.py --scorers lexical,cosine [--limit 200]

For each scorer and set: balanced accuracy at a threshold fixed in advance (``--threshold``,
only for scorers whose output is a probability; "—" for the similarity baselines), balanced
accuracy with the threshold chosen on the other half of the groups (both directions averaged,
``evaluate.classification.cross_threshold``), the same averaged over ``--splits`` random group
splits, ROC-AUC and PR-AUC (supported = positive class); then every other scorer against the
baselines (lexical, cosine) split by split, and each scorer's ROC-AUC within buckets of the
claim's word coverage (the lexical baseline's own score), which shows whether a scorer knows
more than which words the premise contains.

Scorers: ``lexical`` and ``cosine`` (the baselines), ``align`` (token alignment; all three in
veracity.models.pairs.similarity, similarities rather than probabilities), ``embedded`` (veracity's
shipped verifier, skipped with a note until it is importable and its model is present), and
``hf:<model id or path>[@preset]`` (``veracity.models.pairs.registry.make_verifier``).
Aggregate figures go to bench/results/verifier.json and the ``verifier`` section of
bench/README.md; per-item scores are not kept. A ``--limit`` run writes nothing unless given a
``--name``, so that a quick check never replaces the full-run figures.
"""

from __future__ import annotations

import argparse
import csv
import functools
import shlex
import sys
import time
from collections.abc import Callable, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _report import write_result
from veracity.errors import VeracityError
from veracity.evaluate.classification import (
    average_precision,
    balanced_accuracy,
    cross_threshold,
    roc_auc,
)
from veracity.models.pairs.base import PairScorer
from veracity.models.pairs.features import lexical_coverage
from verifier_data import DATASETS, DEFAULT_DATA, Item, load

BENCH = Path(__file__).resolve().parent
ANCHORS = DEFAULT_DATA.parent / "anchors"
SCORER_NAMES = ("lexical", "cosine", "align", "embedded", "hf:<model>[@nli|binary|score]")
DASH = "—"


class UnavailableError(Exception):
    """A scorer that cannot run here; the message says why and what would make it run."""


# --- scorers ----------------------------------------------------------------------------------


def make_scorer(name: str, threads: int) -> PairScorer:
    """A loaded scorer for ``name`` (see veracity.models.pairs.registry), or UnavailableError."""
    from veracity.models.pairs.registry import make_verifier

    if name.startswith("hf:"):
        try:
            import torch

            torch.set_num_threads(threads)
        except ImportError as exc:
            raise UnavailableError(f"hf scorers need the [hf] extra ({exc})") from exc
    try:
        return make_verifier(name, threads=threads).load()
    except ImportError as exc:
        raise UnavailableError(f"{name} cannot be imported: {exc}") from exc
    except VeracityError as exc:
        raise UnavailableError(f"{name} cannot load: {exc}") from exc


def _score_one_by_one(scorer: PairScorer, premises: list[str], claims: list[str]) -> list[float]:
    values = []
    for premise, claim in zip(premises, claims, strict=True):
        try:
            values.append(scorer.run([premise], [claim]).scores[0].supported)
        except VeracityError:
            values.append(float("nan"))
    return values


def score_items(
    scorer: PairScorer, items: Sequence[Item], *, batch: int, advance: Callable[[int], None]
) -> np.ndarray:
    """P(supported) (or the similarity) per item, in input order; NaN where scoring failed.

    Items are scored in group order so that a batch shares premises; a batch that raises is
    retried pair by pair so that one bad pair fails alone.
    """
    order = sorted(range(len(items)), key=lambda i: items[i].group)
    scores = np.full(len(items), np.nan)
    for first in range(0, len(order), batch):
        chunk = order[first : first + batch]
        premises = [items[i].premise for i in chunk]
        claims = [items[i].claim for i in chunk]
        try:
            values = scorer.run(premises, claims).supported()
        except VeracityError:
            values = _score_one_by_one(scorer, premises, claims)
        scores[chunk] = values
        advance(len(chunk))
    return scores


# --- metrics ----------------------------------------------------------------------------------

#: Upper bounds of the word-coverage buckets (the last one takes everything up to 1.0).
COVERAGE_EDGES = (0.5, 0.8)
COVERAGE_NAMES = ("coverage < 0.5", "0.5 to 0.8", "0.8 or more")


def coverage_buckets(items: Sequence[Item]) -> np.ndarray:
    """Each item's bucket (0, 1, 2) by the share of the claim's content words in the premise."""
    coverage = [lexical_coverage(item.premise, item.claim) for item in items]
    return np.digitize(coverage, COVERAGE_EDGES)


def by_bucket(values: np.ndarray, labels: np.ndarray, buckets: np.ndarray) -> list[dict[str, Any]]:
    """ROC-AUC within each coverage bucket (None where a bucket holds one class only)."""
    out = []
    for index, name in enumerate(COVERAGE_NAMES):
        inside = buckets == index
        both = 0 < labels[inside].sum() < inside.sum()
        out.append(
            {
                "bucket": name,
                "items": int(inside.sum()),
                "supported_share": float(labels[inside].mean()) if inside.any() else None,
                "roc_auc": roc_auc(values[inside], labels[inside]) if both else None,
            }
        )
    return out


def measure(
    scores: np.ndarray,
    items: Sequence[Item],
    *,
    threshold: float | None,
    seed: int,
    splits: int = 1,
    buckets: np.ndarray | None = None,
) -> dict[str, Any]:
    """Aggregate figures of one scorer on one set (failed items left out and counted);
    ``buckets`` (from :func:`coverage_buckets`) adds the ROC-AUC within each."""
    ok = ~np.isnan(scores)
    labels = np.array([item.label for item in items])[ok]
    groups = [item.group for item, good in zip(items, ok, strict=True) if good]
    values = scores[ok]
    # The first split is the reported one; the others only add its mean and spread.
    crosses = [
        cross_threshold(values, labels, groups, folds=2, seed=seed + i)
        for i in range(max(splits, 1))
    ]
    cross = crosses[0]
    return {
        "items": int(ok.sum()),
        "failed": int((~ok).sum()),
        "balanced_accuracy_fixed": (
            None if threshold is None else balanced_accuracy(values >= threshold, labels)
        ),
        "fixed_threshold": threshold,
        "balanced_accuracy_cross": cross.value,
        "cross_fold_values": list(cross.fold_values),
        "cross_thresholds": list(cross.thresholds),
        "cross_fold_sizes": list(cross.fold_sizes),
        "balanced_accuracy_cross_splits": [c.value for c in crosses],
        "roc_auc": roc_auc(values, labels),
        "pr_auc": average_precision(values, labels),
        "supported_share": float(labels.mean()),
        "by_coverage": None if buckets is None else by_bucket(values, labels, buckets[ok]),
    }


# --- anchors ----------------------------------------------------------------------------------


def leaderboard(path: Path) -> list[dict[str, str]]:
    with path.open(encoding="utf-8") as handle:
        return list(csv.DictReader(handle))


def headline_checkers(path: Path) -> list[dict[str, str]]:
    """Rows of the claim-verification table of NUMBERS.md (checker, size, WiCE, LFQA, ...)."""
    lines = path.read_text(encoding="utf-8").splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("## Claim verification"))
    table = []
    for line in lines[start + 1 :]:
        if line.startswith("## "):
            break
        if line.startswith("|"):
            table.append([cell.strip() for cell in line.strip("|").split("|")])
    header, rows = table[0], [row for row in table[2:] if len(row) == len(table[0])]
    return [dict(zip(header, row, strict=True)) for row in rows]


# --- report -----------------------------------------------------------------------------------


def _pct(value: float | None) -> str:
    return DASH if value is None else f"{100 * value:.1f}"


def _spread(values: Sequence[float]) -> str:
    if len(values) < 2:
        return _pct(values[0]) if values else DASH
    return f"{100 * np.mean(values):.1f} ± {100 * np.std(values, ddof=1):.1f}"


def split_gaps(result: dict[str, Any], baseline: dict[str, Any]) -> np.ndarray:
    """Points by which ``result`` beats ``baseline`` in cross-threshold BAcc, split by split
    (both measured on the same group splits of one run)."""
    gaps: np.ndarray = 100 * (
        np.array(result["balanced_accuracy_cross_splits"])
        - np.array(baseline["balanced_accuracy_cross_splits"])
    )
    return gaps


def against_baselines(figures: dict[str, Any]) -> list[str]:
    """Each other scorer against each baseline of the run, split by split (the same group
    splits for both): mean difference in cross-threshold BAcc and the splits it wins."""
    scorers = figures["scorers"]
    baselines = [name for name in BASELINES if name in scorers]
    others = [name for name in scorers if name not in BASELINES]
    if not baselines or not others:
        return []
    splits = figures["protocol"]["splits"]
    lines = [
        "",
        f"#### Against the baselines, split by split ({splits} group splits)",
        "",
        "Difference in cross-threshold balanced accuracy (points) to each baseline on the "
        "same splits, mean ± standard deviation, and the splits on which the scorer is "
        "higher. The spread shows how far the choice of threshold split moves the gap; it "
        "does not cover the sampling of the items themselves.",
        "",
        "| scorer | set | " + " | ".join(f"vs {name}" for name in baselines) + " |",
        "| --- | --- | " + " | ".join("---:" for _ in baselines) + " |",
    ]
    for name in others:
        for key, result in scorers[name]["results"].items():
            cells = []
            for baseline in baselines:
                other = scorers[baseline]["results"].get(key)
                if other is None:
                    cells.append(DASH)
                    continue
                gaps = split_gaps(result, other)
                spread = f" ± {np.std(gaps, ddof=1):.1f}" if len(gaps) > 1 else ""
                cells.append(
                    f"{np.mean(gaps):+.1f}{spread} ({int((gaps > 0).sum())} of {len(gaps)})"
                )
            lines.append(f"| {name} | {DATASETS[key][1]} | " + " | ".join(cells) + " |")
    return lines


def coverage_table(figures: dict[str, Any]) -> list[str]:
    """ROC-AUC of every scorer within the word-coverage buckets of each set."""
    rows = [
        (name, key, result["by_coverage"])
        for name, entry in figures["scorers"].items()
        for key, result in entry["results"].items()
        if result.get("by_coverage")
    ]
    if not rows:
        return []
    lines = [
        "",
        "#### Within buckets of word coverage",
        "",
        "ROC-AUC inside each bucket of the claim's word coverage (the share of its content "
        "words found in the premise: the lexical baseline's score), with the bucket's "
        "items and supported share. Word overlap varies less inside a bucket: a scorer that "
        "does no better there than lexical itself knows little beyond which words the "
        "premise contains.",
        "",
        "| scorer | set | " + " | ".join(COVERAGE_NAMES) + " |",
        "| --- | --- | " + " | ".join("---:" for _ in COVERAGE_NAMES) + " |",
    ]
    for name, key, buckets in rows:
        cells = [
            f"{DASH if b['roc_auc'] is None else format(b['roc_auc'], '.3f')} "
            f"({b['items']}, {_pct(b['supported_share'])}%)"
            for b in buckets
        ]
        lines.append(f"| {name} | {DATASETS[key][1]} | " + " | ".join(cells) + " |")
    return lines


def _column_sets() -> list[tuple[str, str]]:
    """(our dataset key, leaderboard column) in table order."""
    return [(key, DATASETS[key][2]) for key in ("wice", "lfqa", "climate_fever")]


def table_md(
    figures: dict[str, Any], headline: list[dict[str, str]], board: list[dict[str, str]]
) -> str:
    lines = [
        "#### Our scorers on the development sets",
        "",
        "Balanced accuracy (%) with supported as the positive class. *Fixed*: at the "
        f"threshold given in advance ({figures['protocol']['threshold']}; only for "
        "probabilities). *Cross*: threshold chosen on one half of the groups, measured on "
        "the other, both directions averaged (per-fold thresholds shown). *Cross, "
        f"{figures['protocol']['splits']} splits*: the same on that many random group "
        "splits (seeds from the one above), mean ± standard deviation.",
        "",
        "| scorer | set | items | supported % | BAcc fixed | BAcc cross | thresholds | "
        f"cross, {figures['protocol']['splits']} splits | ROC-AUC | PR-AUC | pairs/s |",
        "| --- | --- | ---: | ---: | ---: | ---: | --- | ---: | ---: | ---: | ---: |",
    ]
    for name, entry in figures["scorers"].items():
        for key, result in entry["results"].items():
            thresholds = " / ".join(f"{t:.3f}" for t in result["cross_thresholds"])
            failed = f" ({result['failed']} failed)" if result["failed"] else ""
            lines.append(
                f"| {name} | {DATASETS[key][1]} | {result['items']}{failed} | "
                f"{_pct(result['supported_share'])} | {_pct(result['balanced_accuracy_fixed'])} "
                f"| {_pct(result['balanced_accuracy_cross'])} | {thresholds} | "
                f"{_spread(result['balanced_accuracy_cross_splits'])} | "
                f"{result['roc_auc']:.3f} | {result['pr_auc']:.3f} | "
                f"{result['pairs_per_s']:.1f} |"
            )
    for name, note in figures["skipped"].items():
        lines += ["", f"Skipped `{name}`: {' '.join(note.split())}"]
    lines += against_baselines(figures)
    lines += coverage_table(figures)

    lines += [
        "",
        "#### Beside the LLM-AggreFact leaderboard (balanced accuracy %)",
        "",
        "Our rows: cross-threshold balanced accuracy on our dev data (WiCE dev, our LFQA "
        "dev half, CLIMATE-FEVER in the FactCheck column). Leaderboard rows: each "
        "checker's fixed threshold on the LLM-AggreFact test sets (WiCE test, LFQA test, "
        "FactCheck-GPT). CLIMATE-FEVER is not FactCheck and our LFQA half is not the "
        "leaderboard's test set: the comparison is approximate.",
        "",
        "| checker | size | WiCE | LFQA | FactCheck (ours: CLIMATE-FEVER) | 11-set avg |",
        "| --- | --- | ---: | ---: | ---: | ---: |",
    ]
    for name, entry in figures["scorers"].items():
        cells = [
            _pct(entry["results"][key]["balanced_accuracy_cross"])
            if key in entry["results"]
            else DASH
            for key, _ in _column_sets()
        ]
        lines.append(
            f"| **{name}** (ours, cross-threshold) | {entry['size']} | "
            + " | ".join(cells)
            + f" | {DASH} |"
        )
    for row in headline:
        lines.append(
            f"| {row['checker']} | {row['size']} | {row['WiCE']} | {row['LFQA']} | "
            f"{row['FactCheck']} | {row['11-set avg']} |"
        )
    lines += [
        "",
        f"<details><summary>Every checker of the leaderboard file ({len(board)})</summary>",
        "",
        "| checker | size | WiCE | LFQA | FactCheck | avg |",
        "| --- | --- | ---: | ---: | ---: | ---: |",
    ]
    for row in board:
        lines.append(
            f"| {row['model']} | {row['size']} | {row['WiCE']} | {row['LFQA']} | "
            f"{row['FactCheck']} | {row['avg_computed']} |"
        )
    lines += ["", "</details>"]
    return "\n".join(lines)


# --- main -------------------------------------------------------------------------------------

SIZES = {"lexical": "0", "cosine": "22M", "align": "22M", "embedded": "22M"}
#: The issue's two baselines, compared split by split with every other scorer.
BASELINES = ("lexical", "cosine")


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0] if __doc__ else None)
    parser.add_argument(
        "--scorers", default="lexical,cosine", help=f"comma-separated: {', '.join(SCORER_NAMES)}"
    )
    parser.add_argument(
        "--datasets", default=",".join(DATASETS), help=f"comma-separated: {', '.join(DATASETS)}"
    )
    parser.add_argument(
        "--threshold",
        type=float,
        default=0.5,
        help="fixed threshold for probability outputs (default 0.5)",
    )
    parser.add_argument(
        "--limit",
        type=int,
        default=None,
        help="about N items per set (whole groups), for quick runs",
    )
    parser.add_argument("--batch", type=int, default=64, help="pairs per run() call")
    parser.add_argument("--threads", type=int, default=2, help="onnxruntime threads")
    parser.add_argument("--seed", type=int, default=0, help="seed of the group split")
    parser.add_argument(
        "--splits",
        type=int,
        default=10,
        help="random group splits for the "
        "mean cross-threshold figure (seeds --seed, --seed + 1, ...)",
    )
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA)
    parser.add_argument(
        "--name",
        default=None,
        help="result name (json + README section); default 'verifier' for full "
        "runs, and nothing is written for --limit runs unless a name is given",
    )
    args = parser.parse_args(argv)

    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TimeElapsedColumn

    console = Console(stderr=True)
    datasets = [name.strip() for name in args.datasets.split(",") if name.strip()]
    data = {name: load(name, args.data, args.limit) for name in datasets}
    buckets = {name: coverage_buckets(items) for name, items in data.items()}
    figures: dict[str, Any] = {
        "protocol": {
            "threshold": args.threshold,
            "folds": 2,
            "seed": args.seed,
            "splits": args.splits,
            "batch": args.batch,
            "threads": args.threads,
            "limit": args.limit,
            "positive_class": "supported",
            "date": datetime.now(UTC).strftime("%Y-%m-%d"),
        },
        "datasets": {
            name: {
                "items": len(items),
                "groups": len({i.group for i in items}),
                "supported": sum(i.label for i in items),
            }
            for name, items in data.items()
        },
        "scorers": {},
        "skipped": {},
    }
    for name in [part.strip() for part in args.scorers.split(",") if part.strip()]:
        try:
            scorer = make_scorer(name, args.threads)
        except UnavailableError as exc:
            console.print(f"[yellow]skipping {name}: {exc}[/yellow]")
            figures["skipped"][name] = str(exc)
            continue
        probabilistic = bool(getattr(scorer, "scores_are_probabilities", True))
        entry: dict[str, Any] = {
            "model_id": scorer.model_id,
            "scores_are_probabilities": probabilistic,
            "size": SIZES.get(name, DASH),
            "results": {},
        }
        for key, items in data.items():
            with Progress(
                "{task.description}",
                BarColumn(),
                MofNCompleteColumn(),
                TimeElapsedColumn(),
                console=console,
                transient=True,
            ) as progress:
                task = progress.add_task(f"{name} on {DATASETS[key][1]}", total=len(items))
                started = time.perf_counter()
                scores = score_items(
                    scorer,
                    items,
                    batch=args.batch,
                    advance=functools.partial(progress.advance, task),
                )
                seconds = time.perf_counter() - started
            result = measure(
                scores,
                items,
                threshold=args.threshold if probabilistic else None,
                seed=args.seed,
                splits=args.splits,
                buckets=buckets[key],
            )
            result.update(seconds=round(seconds, 2), pairs_per_s=len(items) / seconds)
            entry["results"][key] = result
            console.print(
                f"{name:>10} {DATASETS[key][1]:<15} BAcc fixed "
                f"{_pct(result['balanced_accuracy_fixed']):>5}  cross "
                f"{_pct(result['balanced_accuracy_cross'])}  ROC-AUC "
                f"{result['roc_auc']:.3f}  ({seconds:.0f} s)"
            )
        figures["scorers"][name] = entry

    board = leaderboard(ANCHORS / "llm_aggrefact_leaderboard.csv")
    headline = headline_checkers(ANCHORS / "NUMBERS.md")
    markdown = table_md(figures, headline, board)
    command = "python bench/verifier.py " + shlex.join(sys.argv[1:] if argv is None else argv)
    name = args.name or (None if args.limit is not None else "verifier")
    if name is None:  # a quick run must not replace the recorded full-run figures
        console.print("--limit run: nothing written (pass --name NAME to record it)")
    else:
        path = write_result(name, figures, markdown, command)
        console.print(f"wrote {path} and the {name!r} section of bench/README.md")
    print(markdown)


if __name__ == "__main__":
    main()
