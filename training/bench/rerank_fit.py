"""The reranker's combiner fit on development data of the kind it serves, each set held out in
turn: nDCG@10 of each of its features alone, of the shipped combiner, and of the refit one.

    nice -n 5 .venv/bin/python training/bench/rerank_fit.py [--name rerank_fit]
        [--out COMBINER.json] [--model-dir DIR] [--guard-into DIR | --ship-into DIR --version V]

Development sets (``VERACITY_DATA``; they are development data, and reported as such):

- **TREC DL19**: 43 queries, BM25's top 100 as given, graded qrels (0-3);
- **MS MARCO dev-small**: the first 100 queries; their 105 judged passages are the pool, and each
  query's candidates are its BM25 top 30 of that pool (bm25s); binary qrels;
- **NovelEval-2306**: 21 queries, 20 candidates each, graded qrels (0-2).

Every (query, candidate) is cut into the reranker's windows as the library does
(``EvidenceSelector``); a candidate scores as its best window under each scoring. The features
are the shipped reranker's (the cross-encoder's logit, the query's alignment with the window and
their cosine, :data:`veracity.models.relevance.shipped.RERANK_FEATURES`).

The refit combiner is pairwise logistic (RankNet-style): for each query, every pair of
candidates with different grades gives the feature difference, the better one first; no
intercept. Its scale is then set by a pointwise logistic fit of the combined score against
relevance (grade >= 1 on MS MARCO and NovelEval, >= 2 on DL19, TREC's binary cut), so the score
stays a log-odds that ``rerank_abstention`` can threshold. *Held out*: fit on the other two
sets, measured on the third. *All*: fit on all three (the combiner ``--out`` writes).

``--ship-into DIR`` makes the all-sets refit the combiner of the reranker in DIR and writes its
guard from the held-out figures (each set's reranker figure is the refit on the other two: what
it reaches on a set it was not fit on). *Standardized* weights are each weight times its
feature's standard deviation over the candidates' best windows: a feature's share of the
decision, whatever its scale.
"""

from __future__ import annotations

import argparse
import json
import shlex
import statistics
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date
from pathlib import Path
from typing import Any

import numpy as np

#: bench/: the report writer and the development sets' loaders (figures go to bench/results/)
BENCH = Path(__file__).resolve().parents[2] / "bench"
sys.path.insert(0, str(BENCH))

import rerank_dl19  # noqa: E402
import retrieval_noveleval  # noqa: E402
from _report import git_commit, write_result  # noqa: E402
from veracity.evaluate.retrieval import ndcg_at_k  # noqa: E402
from veracity.models.relevance.guard import RerankGuard  # noqa: E402
from veracity.models.relevance.shipped import RERANK_FEATURES, EmbeddedReranker  # noqa: E402
from veracity_training.data.locations import data_root  # noqa: E402

K = 10
MSMARCO_DEPTH = 30
#: the grade from which a candidate counts as relevant in the pointwise scale fit
RELEVANT_FROM = {"dl19": 2, "msmarco": 1, "noveleval": 1}


@dataclass
class Query:
    """One query's candidates: their window features and grades."""

    set: str
    qid: str
    docids: list[str]
    windows: list[np.ndarray]  # per candidate: (windows, features)
    grades: dict[str, int]

    def ranking(self, weights: np.ndarray, bias: float = 0.0) -> list[str]:
        scores = [float(np.max(rows @ weights)) + bias for rows in self.windows]
        order = sorted(range(len(self.docids)), key=lambda i: (-scores[i], i))  # ties: as given
        return [self.docids[i] for i in order]

    def ndcg(self, weights: np.ndarray) -> float:
        return ndcg_at_k(self.ranking(weights), self.grades, K)

    def best_rows(self, weights: np.ndarray) -> np.ndarray:
        """Each candidate's features at its best window under ``weights``."""
        return np.stack([rows[int(np.argmax(rows @ weights))] for rows in self.windows])


def dl19() -> list[tuple[str, str, list[tuple[str, str]], dict[str, int]]]:
    queries, qrels, run, texts = rerank_dl19.load(rerank_dl19.data_dir())
    return [
        (qid, query, [(d, texts[d]) for d in run[qid]], qrels.get(qid, {}))
        for qid, query in queries.items()
    ]


def noveleval() -> list[tuple[str, str, list[tuple[str, str]], dict[str, int]]]:
    corpus, queries, qrels = retrieval_noveleval.load(retrieval_noveleval.data_dir())
    return [
        (qid, query, [(d, t) for d, t in corpus.items() if d.startswith(f"{qid}-")], qrels[qid])
        for qid, query in queries.items()
    ]


def msmarco() -> list[tuple[str, str, list[tuple[str, str]], dict[str, int]]]:
    import bm25s
    import Stemmer

    folder = data_root() / "msmarco_dev_small" / "first100_fileorder"
    read = [json.loads(line) for line in (folder / "queries.jsonl").read_text().splitlines()]
    passages = [json.loads(line) for line in (folder / "passages.jsonl").read_text().splitlines()]
    qrels: dict[str, dict[str, int]] = {}
    for line in (folder / "qrels.tsv").read_text().splitlines():
        qid, docid, grade = line.split("\t")
        qrels.setdefault(qid, {})[docid] = int(grade)
    stemmer = Stemmer.Stemmer("english")
    model = bm25s.BM25()
    model.index(bm25s.tokenize([p["text"] for p in passages], stemmer=stemmer, show_progress=False))
    out = []
    for item in read:
        tokens = bm25s.tokenize([item["text"]], stemmer=stemmer, show_progress=False)
        hits, _ = model.retrieve(tokens, k=MSMARCO_DEPTH, show_progress=False)
        chosen = [passages[int(i)] for i in hits[0]]
        out.append(
            (
                str(item["qid"]),
                str(item["text"]).strip(),
                [(str(p["docid"]), str(p["text"])) for p in chosen],
                qrels.get(str(item["qid"]), {}),
            )
        )
    return out


def featurize(
    reranker: EmbeddedReranker,
    name: str,
    items: Sequence[tuple[str, str, list[tuple[str, str]], dict[str, int]]],
) -> list[Query]:
    selector = reranker.selector
    found = []
    for number, (qid, query, candidates, grades) in enumerate(items, 1):
        owners, pairs = [], []
        for index, (_, text) in enumerate(candidates):
            for window in selector.run(text, query):
                owners.append(index)
                pairs.append((query, window.text))
        rows = reranker.features(pairs)
        windows = [
            rows[[i for i, o in enumerate(owners) if o == c]] for c in range(len(candidates))
        ]
        found.append(Query(name, qid, [d for d, _ in candidates], windows, grades))
        if number % 10 == 0:
            print(f"{name}: {number} of {len(items)} queries", file=sys.stderr, flush=True)
    return found


def pairwise_fit(queries: Sequence[Query], start: np.ndarray, rounds: int = 3) -> np.ndarray:
    """RankNet-style weights over the best windows (re-chosen under the last weights)."""
    from sklearn.linear_model import LogisticRegression

    weights = start
    for _ in range(rounds):
        differences = []
        for query in queries:
            rows = query.best_rows(weights)
            grades = [query.grades.get(d, 0) for d in query.docids]
            for i, gi in enumerate(grades):
                for j, gj in enumerate(grades):
                    if gi > gj:
                        differences.append(rows[i] - rows[j])
        x = np.asarray(differences)
        x = np.concatenate([x, -x])
        y = np.concatenate([np.ones(len(differences)), np.zeros(len(differences))])
        model = LogisticRegression(fit_intercept=False, C=1.0, max_iter=1000).fit(x, y)
        weights = model.coef_[0].astype(np.float64)
    return weights


def scale_fit(queries: Sequence[Query], weights: np.ndarray) -> tuple[np.ndarray, float]:
    """``weights`` scaled, and a bias, so the combined score is a relevance log-odds."""
    from sklearn.linear_model import LogisticRegression

    scores, labels = [], []
    for query in queries:
        rows = query.best_rows(weights)
        for doc, row in zip(query.docids, rows, strict=True):
            scores.append(float(row @ weights))
            labels.append(int(query.grades.get(doc, 0) >= RELEVANT_FROM[query.set]))
    model = LogisticRegression(C=1.0, max_iter=1000).fit(np.asarray(scores)[:, None], labels)
    return weights * float(model.coef_[0][0]), float(model.intercept_[0])


def mean_ndcg(queries: Sequence[Query], weights: np.ndarray) -> float:
    return 100 * statistics.fmean(query.ndcg(weights) for query in queries)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--name", default=None, help="write bench/results/NAME.json and a section")
    parser.add_argument("--out", type=Path, default=None, help="write the all-sets combiner here")
    parser.add_argument(
        "--guard-into",
        type=Path,
        default=None,
        help="write the shipped reranker's guard into this reranker folder's config.json",
    )
    parser.add_argument(
        "--ship-into",
        type=Path,
        default=None,
        help="make the all-sets refit this reranker folder's combiner, guarded by its held-out "
        "figures (needs --version)",
    )
    parser.add_argument("--version", default=None, help="the version --ship-into records")
    parser.add_argument(
        "--model-dir", type=Path, default=None, help="the reranker to measure (default: shipped)"
    )
    parser.add_argument("--threads", type=int, default=2)
    args = parser.parse_args()
    if args.ship_into is not None and (args.version is None or args.guard_into is not None):
        parser.error("--ship-into needs --version and replaces --guard-into")
    folder = {} if args.model_dir is None else {"model_dir": args.model_dir}
    reranker = EmbeddedReranker(threads=args.threads, guarded=False, **folder).load()
    config = json.loads((reranker.model_dir / "config.json").read_text(encoding="utf-8"))
    shipped = np.asarray(config["combiner"]["weights"], dtype=np.float64)
    loaders = {"dl19": dl19, "msmarco": msmarco, "noveleval": noveleval}
    sets = {name: featurize(reranker, name, load()) for name, load in loaders.items()}
    alone = {
        feature: np.eye(len(RERANK_FEATURES))[index]
        for index, feature in enumerate(RERANK_FEATURES)
    }
    rows: dict[str, dict[str, float]] = {}
    fits: dict[str, list[float]] = {}
    for held, queries in sets.items():
        rest = [q for name, others in sets.items() if name != held for q in others]
        refit = pairwise_fit(rest, shipped)
        fits[held] = refit.tolist()
        rows[held] = {
            **{f"{feature} alone": mean_ndcg(queries, w) for feature, w in alone.items()},
            "shipped combiner": mean_ndcg(queries, shipped),
            "refit, this set held out": mean_ndcg(queries, refit),
        }
    everything = [q for queries in sets.values() for q in queries]
    final, bias = scale_fit(everything, pairwise_fit(everything, shipped))
    for held, queries in sets.items():
        rows[held]["refit on all three (in-sample)"] = mean_ndcg(queries, final)
    spread = np.std(np.concatenate([q.best_rows(final) for q in everything]), axis=0)
    figures: dict[str, Any] = {
        "reranker": {"model_id": reranker.model_id, "version": reranker.version},
        "queries": {name: len(queries) for name, queries in sets.items()},
        "ndcg_at_10": rows,
        "held_out_weights": fits,
        "all_sets_combiner": {
            "features": list(RERANK_FEATURES),
            "weights": final.tolist(),
            "bias": bias,
            "standardized_weights": (final * spread).tolist(),
        },
        "shipped_combiner": config["combiner"],
    }
    names = list(next(iter(rows.values())))
    lines = [
        "| ranking | " + " | ".join(f"{s} ({len(sets[s])} q)" for s in sets) + " |",
        "| --- | " + " | ".join("---:" for _ in sets) + " |",
    ]
    for name in names:
        lines.append(f"| {name} | " + " | ".join(f"{rows[s][name]:.2f}" for s in sets) + " |")
    # The held-out refit beside each feature alone, judged as the guard judges (a tie at a
    # perfect ranking is no loss); --ship-into writes these figures as the guard's.
    held = {
        s: {"reranker": rows[s]["refit, this set held out"]}
        | {f: rows[s][f"{f} alone"] for f in alone}
        for s in sets
    }
    lost = {s for s, _ in RerankGuard(held, {f: (1.0, 0.0) for f in alone}, "").losses()}
    guard = {s: s not in lost for s in sets}
    figures["held_out_beats_every_feature"] = guard
    # The shipped reranker's guard (veracity.models.relevance.guard): its figures beside each
    # feature's, and each feature alone calibrated on all three sets, for the fallback.
    figures["guard"] = {
        "figures": {
            s: {
                "reranker": rows[s]["shipped combiner"],
                **{f: rows[s][f"{f} alone"] for f in alone},
            }
            for s in sets
        },
        "calibration": {
            f: [float(w[RERANK_FEATURES.index(f)]), b]
            for f in alone
            for w, b in [scale_fit(everything, alone[f])]
        },
    }
    text = "\n".join(lines) + (
        "\n\nnDCG@10 (development sets). Features: "
        + ", ".join(RERANK_FEATURES)
        + f". Shipped combiner weights {np.round(shipped, 3).tolist()}; refit on all three: "
        f"{np.round(final, 3).tolist()}, bias {bias:.3f} (standardized: "
        f"{np.round(final * spread, 3).tolist()}). Reranker {reranker.model_id} "
        f"{reranker.version}. The refit held out beats every "
        "feature alone (a tie at 100 counts as no loss) on: "
        + ", ".join(f"{s} {'yes' if ok else 'NO'}" for s, ok in guard.items())
        + "."
    )
    print(text)
    if args.out is not None:
        args.out.write_text(json.dumps(figures["all_sets_combiner"], indent=1) + "\n")
    command = "python training/bench/rerank_fit.py " + shlex.join(sys.argv[1:])
    if args.name:
        write_result(args.name, figures, text, command.strip())
    source = (
        f"bench rerank_fit at {git_commit()}, development sets {', '.join(sets)}, {date.today()}"
    )
    if args.guard_into is not None:
        from veracity_training.rerank_guard import write_guard

        write_guard(args.guard_into, figures["guard"], source)
    if args.ship_into is not None:
        from veracity_training.rerank_guard import write_combiner, write_guard

        write_combiner(
            args.ship_into,
            {
                **figures["all_sets_combiner"],
                "fit_rows": "pairwise (RankNet-style) on the graded candidates of the "
                "development sets " + ", ".join(sets) + ", scaled to a relevance log-odds",
            },
            version=args.version,
            source=source,
        )
        write_guard(
            args.ship_into,
            {**figures["guard"], "figures": held},
            f"{source}; on each set, the combiner refit on the other two",
        )


if __name__ == "__main__":
    main()
