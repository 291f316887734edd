"""The default search, chosen from one table: nDCG@10 of bm25, dense and hybrid search, each
alone and reranked, on every development set, with the query time of each.

Command (from the repository root)::

    .venv/bin/python bench/search_default.py [--name search_default] [--depth 20]

Each development set's passages go through the real pipeline, as ``veracity index`` and
``veracity search`` run them: the corpus ``Indexer`` (160-token chunks, BM25 and the default
dense embedder), ``open_retriever`` in each mode, and ``RerankingRetriever`` with the shipped
reranker at ``--depth`` (as ``--rerank`` runs it, its guard included, so a reranker that falls
back to one of its features is measured as it ranks). A passage ranks by its best chunk.

- **TREC DL19**: 43 queries over the pool of their BM25 top-100 texts (4,300 judged-or-not
  passages, shared by all queries), graded qrels (0-3);
- **NovelEval-2306**: 21 queries over its 420-passage pool, graded qrels (0-2);
- **MS MARCO dev-small**: the first 100 queries over their 105 judged passages (binary qrels):
  nearly every query finds its answer at rank 1 in any mode, so it shows little.

Development data: the figures choose a default; they are reported as development figures.
"""

from __future__ import annotations

import argparse
import json
import os
import shlex
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

BENCH = Path(__file__).resolve().parent
sys.path.insert(0, str(BENCH))

import rerank_dl19  # noqa: E402
import retrieval_noveleval  # noqa: E402
from _data import data_root  # noqa: E402
from _report import write_result  # noqa: E402
from veracity import defaults  # noqa: E402
from veracity.corpus.indexer import Indexer  # noqa: E402
from veracity.evaluate.retrieval import ndcg_at_k  # noqa: E402
from veracity.models.relevance.shipped import EmbeddedReranker  # noqa: E402
from veracity.retrieve import BM25Builder, DenseBuilder, make_embedder, open_retriever  # noqa: E402
from veracity.retrieve.rerank import RerankingRetriever  # noqa: E402

#: A set: its passages, queries and graded qrels.
Pool = tuple[dict[str, str], dict[str, str], dict[str, dict[str, int]]]


def dl19() -> Pool:
    queries, qrels, _, texts = rerank_dl19.load(rerank_dl19.data_dir())
    return texts, queries, qrels


def noveleval() -> Pool:
    corpus, queries, qrels = retrieval_noveleval.load(retrieval_noveleval.data_dir())
    return corpus, queries, qrels


def msmarco() -> Pool:
    folder = data_root() / "msmarco_dev_small" / "first100_fileorder"
    lines = (folder / "queries.jsonl").read_text(encoding="utf-8").splitlines()
    queries = {str(item["qid"]): str(item["text"]).strip() for item in map(json.loads, lines)}
    lines = (folder / "passages.jsonl").read_text(encoding="utf-8").splitlines()
    corpus = {str(item["docid"]): str(item["text"]) for item in map(json.loads, lines)}
    qrels: dict[str, dict[str, int]] = {}
    for line in (folder / "qrels.tsv").read_text(encoding="utf-8").splitlines():
        qid, docid, grade = line.split("\t")
        qrels.setdefault(qid, {})[docid] = int(grade)
    return corpus, queries, qrels


SETS: dict[str, Callable[[], Pool]] = {"dl19": dl19, "noveleval": noveleval, "msmarco": msmarco}


def measure(name: str, pool: Pool, reranker: EmbeddedReranker, depths: list[int]) -> dict[str, Any]:
    """Index ``pool`` and search it in every mode, alone and reranked at each depth."""
    corpus, queries, qrels = pool
    embedder = make_embedder(defaults.EMBED_MODEL_ID).load()
    out: dict[str, Any] = {"queries": len(queries), "passages": len(corpus), "rows": {}}
    with tempfile.TemporaryDirectory() as tmp:
        docs = Path(tmp) / "docs"
        docs.mkdir()
        with open(docs / f"{name}.jsonl", "w", encoding="utf-8") as handle:
            for docid, text in corpus.items():
                handle.write(json.dumps({"id": docid, "text": text}) + "\n")
        started = time.perf_counter()
        report = Indexer(builders=[BM25Builder(), DenseBuilder(embedder)]).run(
            [docs], Path(tmp) / "i"
        )
        out["chunks"] = report.chunks
        out["index_seconds"] = round(time.perf_counter() - started, 1)
        print(f"{name}: {report.chunks} chunks in {out['index_seconds']} s", flush=True)
        for mode in defaults.SEARCH_MODES:
            first = open_retriever(Path(tmp) / "i", mode=mode, embedder=embedder).load()
            arms: dict[str, Any] = {mode: (first, retrieval_noveleval.CHUNKS_PER_QUERY)}
            for depth in depths:
                reranked = RerankingRetriever(first, reranker, depth=depth).load()
                arms[f"{mode} + rerank@{depth}"] = (reranked, depth)
            for label, (retriever, k) in arms.items():
                ndcg, seconds = [], []
                for qid, query in queries.items():
                    began = time.perf_counter()
                    hits = retriever.run(query, k=k).hits
                    seconds.append(time.perf_counter() - began)
                    ranked = retrieval_noveleval.passages(hits)
                    ndcg.append(ndcg_at_k(ranked, qrels.get(qid, {}), 10))
                out["rows"][label] = {
                    "ndcg10": round(100 * statistics.fmean(ndcg), 2),
                    "median_query_ms": round(1000 * statistics.median(seconds), 1),
                }
                print(name, label, out["rows"][label], flush=True)
    return out


def table(figures: dict[str, Any]) -> str:
    sets = figures["sets"]
    labels = list(next(iter(sets.values()))["rows"])
    lines = [
        "| search | "
        + " | ".join(f"{name} nDCG@10 ({s['queries']} q) | ms" for name, s in sets.items())
        + " | mean nDCG@10 |",
        "| --- | " + " | ".join("---: | ---:" for _ in sets) + " | ---: |",
    ]
    for label in labels:
        cells = " | ".join(
            f"{s['rows'][label]['ndcg10']:.2f} | {s['rows'][label]['median_query_ms']:.0f}"
            for s in sets.values()
        )
        mean = statistics.fmean(s["rows"][label]["ndcg10"] for s in sets.values())
        lines.append(f"| {label} | {cells} | {mean:.2f} |")
    reranker = figures["reranker"]
    lines += [
        "",
        "Development sets; each indexed through the corpus Indexer (chunks: "
        + ", ".join(f"{n} {s['chunks']}" for n, s in sets.items())
        + f"); a passage ranks by its best chunk; ms = median per query on this machine. "
        f"Reranker {reranker['model_id']} {reranker['version']}"
        + (f" ({reranker['note']})" if reranker.get("note") else "")
        + ".",
    ]
    if figures.get("note"):
        lines += ["", figures["note"]]
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--name", default=None, help="write bench/results/NAME.json and a section")
    parser.add_argument("--depths", default=str(defaults.RERANK_DEPTH), help="e.g. 20,50")
    parser.add_argument("--sets", default=",".join(SETS))
    parser.add_argument("--note", default="")
    args = parser.parse_args()
    depths = [int(d) for d in args.depths.split(",") if d]
    reranker = EmbeddedReranker().load()
    figures: dict[str, Any] = {
        "reranker": {
            "model_id": reranker.model_id,
            "version": reranker.version,
            "note": reranker.notes[0] if reranker.notes else "",
        },
        "depths": depths,
        "sets": {},
        "note": args.note,
    }
    for name in args.sets.split(","):
        figures["sets"][name] = measure(name, SETS[name](), reranker, depths)
    text = table(figures)
    print(text)
    if args.name:
        line = shlex.join([".venv/bin/python", "bench/search_default.py", *sys.argv[1:]])
        niceness = os.nice(0)
        write_result(args.name, figures, text, f"nice -n {niceness} {line}" if niceness else line)


if __name__ == "__main__":
    main()
