"""NovelEval: nDCG@10 of hybrid search with and without veracity's reranker, and of each
query's 20 candidates reranked (the setting of the published rerankers).

Command (from the repository root)::

    .venv/bin/python bench/rerank_noveleval.py [--reranker NAME] [--depth 50] [--name NAME]

The 420 passages go through the real pipeline, as in ``bench/retrieval_noveleval.py`` (whose
loading this reuses): the corpus ``Indexer`` into 160-token chunks, ``open_retriever`` in hybrid
mode, and ``RerankingRetriever`` over it at ``--depth`` chunks (a passage ranks by its best
chunk). In the published setting each query's own 20 candidates are reranked as whole passages
(a passage longer than the reranker's window scores as its best window). ``--reranker`` takes
the names of ``veracity search --reranker`` (``embedded``, ``verifier``, ``cosine``,
``hf:<model>``).
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
from pathlib import Path

BENCH = Path(__file__).resolve().parent
sys.path.insert(0, str(BENCH))

from _report import write_result  # noqa: E402
from retrieval_noveleval import data_dir, load, passages  # noqa: E402
from veracity.corpus.indexer import Indexer  # noqa: E402
from veracity.evaluate.retrieval import ndcg_at_k  # noqa: E402
from veracity.models.relevance import make_reranker  # noqa: E402
from veracity.retrieve import BM25Builder, DenseBuilder, Embedder, open_retriever  # noqa: E402
from veracity.retrieve.rerank import RerankingRetriever  # noqa: E402

#: shared/anchors/NUMBERS.md (RankGPT, NovelEval table): the only figures not measured here.
PUBLISHED = {"BM25": 55.77, "monoBERT (340M)": 77.27}


def command() -> str:
    line = shlex.join([".venv/bin/python", "bench/rerank_noveleval.py", *sys.argv[1:]])
    niceness = os.nice(0)
    return f"nice -n {niceness} {line}" if niceness else line


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--reranker", default="embedded")
    parser.add_argument("--depth", type=int, default=50, help="hybrid chunks reranked")
    parser.add_argument("--threads", type=int, default=0)
    parser.add_argument("--name", help="write bench/results/NAME.json and its README section")
    args = parser.parse_args()
    corpus, queries, qrels = load(data_dir())
    reranker = make_reranker(args.reranker, threads=args.threads).load()
    embedder = Embedder(threads=args.threads).load()
    figures: dict[str, object] = {
        "reranker": reranker.model_id,
        "reranker_version": getattr(reranker, "version", None),
        "depth": args.depth,
        "queries": len(queries),
        "passages": len(corpus),
        "published": PUBLISHED,
    }
    with tempfile.TemporaryDirectory() as tmp:
        docs = Path(tmp) / "docs"
        docs.mkdir()
        with open(docs / "noveleval.jsonl", "w", encoding="utf-8") as out:
            for docid, text in corpus.items():
                out.write(json.dumps({"id": docid, "text": text}) + "\n")
        report = Indexer(builders=[BM25Builder(), DenseBuilder(embedder)]).run(
            [docs], Path(tmp) / "i"
        )
        hybrid = open_retriever(Path(tmp) / "i", mode="hybrid", embedder=embedder).load()
        reranked = RerankingRetriever(hybrid, reranker, depth=args.depth).load()
        plain, after, seconds = [], [], []
        windowed = 0
        for qid, query in queries.items():
            plain.append(ndcg_at_k(passages(hybrid.run(query, k=args.depth).hits), qrels[qid], 10))
            started = time.perf_counter()
            result = reranked.run(query, k=args.depth)
            seconds.append(time.perf_counter() - started)
            windowed += bool(result.notes)
            after.append(ndcg_at_k(passages(result.hits), qrels[qid], 10))
        own = []
        over = 0
        for qid, query in queries.items():
            ids = [docid for docid in corpus if docid.startswith(f"{qid}-")]
            scored = reranker.run(query, [corpus[d] for d in ids])
            over += scored.windowed
            logits = scored.logits()
            order = sorted(range(len(ids)), key=lambda i: (-logits[i], i))
            own.append(ndcg_at_k([ids[i] for i in order], qrels[qid], 10))
    figures |= {
        "chunks": report.chunks,
        "hybrid_ndcg10_pool": round(100 * statistics.fmean(plain), 2),
        "hybrid_rerank_ndcg10_pool": round(100 * statistics.fmean(after), 2),
        "rerank_own_candidates_ndcg10": round(100 * statistics.fmean(own), 2),
        "own_candidates_over_one_window": over,
        "median_rerank_query_ms": round(1000 * statistics.median(seconds), 1),
    }
    print(json.dumps(figures, indent=1))
    if args.name:
        table = "\n".join(
            [
                "| ranking | nDCG@10 (21 queries) | published |",
                "| --- | ---: | ---: |",
                f"| hybrid, 420-passage pool | {figures['hybrid_ndcg10_pool']:.2f} | — |",
                f"| hybrid top {args.depth} chunks reranked by {reranker.model_id}, pool | "
                f"{figures['hybrid_rerank_ndcg10_pool']:.2f} | — |",
                f"| each query's 20 candidates reranked by {reranker.model_id} | "
                f"{figures['rerank_own_candidates_ndcg10']:.2f} | monoBERT (340M) "
                f"{PUBLISHED['monoBERT (340M)']}; BM25 {PUBLISHED['BM25']} |",
                "",
                f"{report.chunks} chunks; a passage ranks by its best chunk. Reranking "
                f"{args.depth} "
                f"chunks took {figures['median_rerank_query_ms']} ms per query (median, "
                f"{args.threads or 'onnxruntime-chosen'} threads). Of the 420 candidates reranked "
                f"whole, {over} were longer than the window (scored by their best window). 21 "
                "queries: differences of a few points are noise.",
            ]
        )
        write_result(args.name, figures, table, command())


if __name__ == "__main__":
    main()
