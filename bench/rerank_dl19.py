"""TREC DL19 passage: nDCG@10 of BM25's top 100 as given, and reranked six ways.

Command (from the repository root)::

    .venv/bin/python bench/rerank_dl19.py [--checkpoint RUN/checkpoint] [--name NAME]

The rankings: BM25 as given; reranked by the shipped reranker (``--reranker-dir`` for another
export), and by its cross-encoder's logit alone (``network``: without the combiner that adds the
query's alignment and cosine with the passage); by the shipped verifier's P(supported) of the
query by the passage; by dense cosine (the shipped embedder); by hybrid (RRF, k 60, of the BM25
and dense ranks within the top 100); and, with ``--checkpoint``, by a ``train-reranker``
checkpoint in torch.

The data folder is ``$VERACITY_DATA/trec_dl19`` (``VERACITY_DATA`` defaults to ``../shared/data``
beside the repository): 43 judged queries, graded qrels (0-3), and ``runs/bm25_top100.tsv``
(Pyserini BM25 over the full MS MARCO collection) with every candidate's text. Every reranker
reads passages in its own window: a (query, passage) pair longer than the window is cut into
overlapping sentence windows (``veracity.models.relevance.base.score_windows``, the library's code)
and
the passage scores as its best window, so nothing is truncated. Ties keep BM25's order.

Without ``--name`` the figures are printed only (for checking a run's intermediate checkpoints);
with it they go to ``bench/results/<name>.json`` and a section of ``bench/README.md``.
"""

from __future__ import annotations

import argparse
import json
import os
import shlex
import statistics
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

BENCH = Path(__file__).resolve().parent
sys.path.insert(0, str(BENCH))

from _data import data_root  # noqa: E402
from _report import write_result  # noqa: E402
from veracity.evaluate.retrieval import ndcg_at_k  # noqa: E402
from veracity.models.embedding import Embedder, TextEmbedder  # noqa: E402
from veracity.types import RelevanceScores  # noqa: E402

#: ../shared/anchors/NUMBERS.md and trec_dl19/SOURCE.md: the only figures not measured here.
PUBLISHED_BM25 = 50.58
PUBLISHED_MINILM = 74.30
PUBLISHED_SOURCE = (
    "Pyserini BM25 (k1 0.9, b 0.4) top 100; cross-encoder/ms-marco-MiniLM-L-6-v2 "
    "reranking it (shared/anchors/NUMBERS.md)"
)
K = 10


def data_dir() -> Path:
    root = data_root()
    folder = root / "trec_dl19"
    if not (folder / "qrels.tsv").is_file():
        sys.exit(f"TREC DL19 not found at {folder}; set VERACITY_DATA to the shared data folder")
    return folder


def load(
    folder: Path,
) -> tuple[dict[str, str], dict[str, dict[str, int]], dict[str, list[str]], dict[str, str]]:
    """Queries, qrels, BM25's ranked candidates per query, and the candidates' texts."""
    queries = {}
    for line in (folder / "queries.jsonl").read_text(encoding="utf-8").splitlines():
        item = json.loads(line)
        queries[str(item["qid"])] = str(item["text"])
    qrels: dict[str, dict[str, int]] = {}
    for line in (folder / "qrels.tsv").read_text(encoding="utf-8").splitlines():
        qid, docid, grade = line.split("\t")
        qrels.setdefault(qid, {})[docid] = int(grade)
    ranked: dict[str, list[tuple[int, str]]] = {}
    for line in (folder / "runs" / "bm25_top100.tsv").read_text(encoding="utf-8").splitlines():
        qid, docid, rank, _ = line.split("\t")
        ranked.setdefault(qid, []).append((int(rank), docid))
    run = {qid: [docid for _, docid in sorted(hits)] for qid, hits in ranked.items()}
    needed = {docid for docids in run.values() for docid in docids}
    texts = {}
    with (folder / "passages.jsonl").open(encoding="utf-8") as handle:
        for line in handle:
            item = json.loads(line)
            if str(item["docid"]) in needed:
                texts[str(item["docid"])] = str(item["text"])
    missing = needed - texts.keys()
    if missing:
        sys.exit(f"{len(missing)} BM25 candidates have no text in passages.jsonl")
    return queries, qrels, run, texts


def mean_ndcg(
    run: dict[str, list[str]], qrels: dict[str, dict[str, int]], queries: dict[str, str]
) -> float:
    return 100 * statistics.fmean(ndcg_at_k(run[qid], qrels.get(qid, {}), K) for qid in queries)


class CheckpointScorer:
    """A train-reranker checkpoint in torch: a ``RelevanceScorer`` for intermediate runs."""

    def __init__(self, checkpoint: Path, *, threads: int, batch_size: int) -> None:
        state = json.loads((checkpoint / "state.json").read_text(encoding="utf-8"))
        if state["config"].get("task") != "rerank":
            sys.exit(
                f"{checkpoint} is not a reranker checkpoint (task "
                f"{state['config'].get('task', 'verify')}); pass one of train-reranker"
            )
        self.checkpoint = checkpoint
        self.state = state
        self.max_tokens = int(state["config"]["max_tokens"])
        self.threads = threads
        self.batch_size = batch_size
        self.model_id = f"checkpoint step {state['step']}"

    def load(self) -> CheckpointScorer:
        import torch
        import transformers

        from veracity.models.pairs.windows import EvidenceSelector

        torch.set_num_threads(self.threads)
        self.model = transformers.AutoModelForSequenceClassification.from_pretrained(
            str(self.checkpoint), local_files_only=True
        ).eval()
        self.selector = EvidenceSelector(max_tokens=self.max_tokens, strategy="slide")
        return self

    def run(self, query: str, passages: Sequence[str]) -> RelevanceScores:
        from veracity.models.relevance.base import score_windows

        scores = score_windows(self.selector, query, passages, self._logits)
        return RelevanceScores(query, scores, self.model_id, "fp32")

    def _logits(self, pairs: list[tuple[str, str]]) -> np.ndarray:
        from veracity.models.relevance.base import batched_logits

        encodings = self.selector.tokenizer.encode_batch(pairs)
        return batched_logits(encodings, self.batch_size, self._batch)

    def _batch(self, encodings: list[Any]) -> np.ndarray:
        import torch

        from veracity.models.onnx.runtime import pad_batch

        feeds = pad_batch([e.ids for e in encodings], [e.type_ids for e in encodings])
        with torch.no_grad():
            out = self.model(**{k: torch.from_numpy(v) for k, v in feeds.items()}).logits
        logits: np.ndarray = out.double().numpy()
        return logits


def rerank_all(
    scorer: Any, queries: dict[str, str], run: dict[str, list[str]], texts: dict[str, str]
) -> tuple[dict[str, list[str]], dict[str, Any]]:
    """Each query's candidates reordered by ``scorer`` (ties keep BM25's order), and timings."""
    reranked: dict[str, list[str]] = {}
    windowed = pairs = 0
    started = time.perf_counter()
    for qid, query in queries.items():
        docids = run[qid]
        scored = scorer.run(query, [texts[d] for d in docids])
        windowed += scored.windowed
        pairs += len(docids)
        logits = scored.logits()
        order = sorted(range(len(docids)), key=lambda i: (-logits[i], i))
        reranked[qid] = [docids[i] for i in order]
    seconds = time.perf_counter() - started
    return reranked, {
        "model_id": scorer.model_id,
        "passages_scored": pairs,
        "passages_over_one_window": windowed,
        "seconds": round(seconds, 1),
        "passages_per_second": round(pairs / seconds, 1),
    }


def dense_rankings(
    queries: dict[str, str],
    run: dict[str, list[str]],
    texts: dict[str, str],
    embedder: TextEmbedder,
) -> tuple[dict[str, list[str]], dict[str, list[str]], dict[str, Any]]:
    """Dense cosine and hybrid (RRF of BM25 and dense ranks) orders of each query's top 100."""
    from veracity.retrieve.hybrid import reciprocal_rank_fusion

    embedder.load()
    docids = sorted({d for ids in run.values() for d in ids})
    started = time.perf_counter()
    embedded = embedder.run([texts[d] for d in docids])
    vectors = dict(zip(docids, embedded.vectors, strict=True))
    asked = embedder.run(list(queries.values()))
    seconds = time.perf_counter() - started
    dense: dict[str, list[str]] = {}
    hybrid: dict[str, list[str]] = {}
    for (qid, _), query_vector in zip(queries.items(), asked.vectors, strict=True):
        ids = run[qid]
        cosine = [float(np.dot(vectors[d], query_vector)) for d in ids]
        order = sorted(range(len(ids)), key=lambda i: (-cosine[i], i))
        dense[qid] = [ids[i] for i in order]
        fused = reciprocal_rank_fusion([list(range(len(ids))), order], rrf_k=60)
        hybrid[qid] = [ids[i] for i, _ in fused]
    return (
        dense,
        hybrid,
        {
            "model_id": embedder.model_id,
            "passages_embedded": len(docids),
            "passages_truncated": len(embedded.truncated),
            "seconds": round(seconds, 1),
            "passages_per_second": round(len(docids) / seconds, 1),
        },
    )


def per_query(
    run: dict[str, list[str]], base: dict[str, list[str]], qrels: dict[str, dict[str, int]]
) -> dict[str, int]:
    """Queries whose nDCG@10 ``run`` raised, lowered and kept against ``base``."""
    better = worse = 0
    for qid, ranked in run.items():
        delta = ndcg_at_k(ranked, qrels.get(qid, {}), K) - ndcg_at_k(
            base[qid], qrels.get(qid, {}), K
        )
        better += delta > 1e-9
        worse += delta < -1e-9
    return {"better": better, "worse": worse, "same": len(run) - better - worse}


ARMS = ("reranker", "combined", "network", "verifier", "dense", "hybrid")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--checkpoint", type=Path, help="also a RUN/checkpoint of train-reranker")
    parser.add_argument(
        "--reranker-dir",
        type=Path,
        help="an export-reranker folder instead of the shipped reranker",
    )
    parser.add_argument(
        "--arms", default=",".join(ARMS), help=f"comma-separated subset of {','.join(ARMS)}"
    )
    parser.add_argument("--name", help="write bench/results/NAME.json and its README section")
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--batch-size", type=int, default=32, help="of the torch checkpoint")
    args = parser.parse_args()
    arms = [arm for arm in args.arms.split(",") if arm]
    if set(arms) - set(ARMS):
        sys.exit(f"unknown arms {sorted(set(arms) - set(ARMS))}; choose from {ARMS}")
    niceness = os.nice(0)
    command = (
        (f"nice -n {niceness} " if niceness else "")
        + ".venv/bin/python bench/rerank_dl19.py "
        + shlex.join(sys.argv[1:])
    )
    queries, qrels, run, texts = load(data_dir())
    bm25 = round(mean_ndcg(run, qrels, queries), 2)
    figures: dict[str, Any] = {
        "queries": len(queries),
        "depth": max(len(v) for v in run.values()),
        "bm25_ndcg10": bm25,
        "threads": args.threads,
        "published_bm25_ndcg10": PUBLISHED_BM25,
        "published_minilm_ndcg10": PUBLISHED_MINILM,
        "published_source": PUBLISHED_SOURCE,
        "arms": {},
    }
    rows = [f"| BM25 top 100 as given | {bm25:.2f} | — | — | {PUBLISHED_BM25} |"]

    def record(
        arm: str,
        label: str,
        ranked: dict[str, list[str]],
        info: dict[str, Any],
        published: str = "—",
    ) -> None:
        ndcg = round(mean_ndcg(ranked, qrels, queries), 2)
        against = per_query(ranked, run, qrels)
        figures["arms"][arm] = info | {"ndcg10": ndcg, "against_bm25": against}
        rows.append(
            f"| {label} | {ndcg:.2f} | {against['better']} / {against['worse']} | "
            f"{info.get('passages_per_second', '—')} | {published} |"
        )
        print(arm, json.dumps(figures["arms"][arm]), flush=True)

    if "reranker" in arms:
        from veracity.models.relevance.shipped import EmbeddedReranker

        reranker = (
            EmbeddedReranker(threads=args.threads)
            if args.reranker_dir is None
            else EmbeddedReranker(model_dir=args.reranker_dir, threads=args.threads)
        ).load()
        ranked, info = rerank_all(reranker, queries, run, texts)
        info |= {"version": reranker.version, "max_tokens": reranker.max_tokens}
        combiner = json.loads((reranker.model_dir / "config.json").read_text()).get("combiner")
        if reranker.fallback is None and combiner and "source" in combiner:
            info |= {"combiner_source": combiner["source"]}
        if reranker.fallback is not None:
            info |= {"fallback": reranker.fallback.feature, "note": reranker.notes[0]}
        guard = (
            f"; its guard ranks by {reranker.fallback.feature} alone"
            if reranker.fallback is not None
            else ""
        )
        record(
            "reranker",
            f"reranked by veracity's reranker ({reranker.model_id} "
            f"{reranker.version}, int8 ONNX, {reranker.max_tokens}-token window{guard})",
            ranked,
            info,
            f"ms-marco-MiniLM-L-6-v2: {PUBLISHED_MINILM}",
        )
    if "combined" in arms:  # the reranker's combiner whatever its guard says
        from veracity.models.relevance.shipped import EmbeddedReranker

        folder = {} if args.reranker_dir is None else {"model_dir": args.reranker_dir}
        combined = EmbeddedReranker(threads=args.threads, guarded=False, **folder).load()
        ranked, info = rerank_all(combined, queries, run, texts)
        record(
            "combined",
            f"reranked by its combiner with the guard off ({combined.version})",
            ranked,
            info,
        )
    if "network" in arms:  # the shipped reranker's cross-encoder alone, without its combiner
        from veracity.models.relevance.shipped import EmbeddedReranker

        folder = {} if args.reranker_dir is None else {"model_dir": args.reranker_dir}
        network = EmbeddedReranker(threads=args.threads, combine=False, **folder).load()
        ranked, info = rerank_all(network, queries, run, texts)
        record(
            "network",
            "reranked by its cross-encoder's logit alone (no aligner features)",
            ranked,
            info,
        )
    if "verifier" in arms:
        from veracity.models.pairs.shipped import EmbeddedVerifier
        from veracity.models.relevance.support import SupportRelevance

        verifier = SupportRelevance(EmbeddedVerifier(threads=args.threads)).load()
        ranked, info = rerank_all(verifier, queries, run, texts)
        record(
            "verifier", "reranked by the shipped verifier's P(supported) of the query", ranked, info
        )
    if "dense" in arms or "hybrid" in arms:
        dense, hybrid, info = dense_rankings(queries, run, texts, Embedder(threads=args.threads))
        if "dense" in arms:
            record("dense", f"reranked by dense cosine ({info['model_id']})", dense, info)
        if "hybrid" in arms:
            record(
                "hybrid",
                "hybrid: RRF (k 60) of the BM25 and dense ranks",
                hybrid,
                {"model_id": info["model_id"]},
            )
    if args.checkpoint is not None:
        scorer = CheckpointScorer(
            args.checkpoint, threads=args.threads, batch_size=args.batch_size
        ).load()
        ranked, info = rerank_all(scorer, queries, run, texts)
        config = scorer.state["config"]
        info |= {
            "checkpoint": str(args.checkpoint),
            "step": scorer.state["step"],
            "steps": config["examples"] // config["batch_size"],
            "train_config": config,
        }
        record(
            "checkpoint",
            f"reranked by the checkpoint (torch fp32, step {info['step']}/{info['steps']})",
            ranked,
            info,
        )
    if args.name:
        table = "\n".join(
            [
                "| ranking | nDCG@10 (43 queries) | queries better / worse than BM25 | passages/s "
                f"({args.threads} thread(s)) | published |",
                "| --- | ---: | ---: | ---: | ---: |",
                *rows,
            ]
        )
        windows = [
            f"{name}: {arm['passages_over_one_window']} of {arm['passages_scored']}"
            for name, arm in figures["arms"].items()
            if "passages_over_one_window" in arm
        ]
        if windows:
            table += (
                "\n\nPassages longer than the scorer's window (scored by their best "
                "window, never cut): " + "; ".join(windows) + "."
            )
        fitted = figures["arms"].get("reranker", {}).get("combiner_source", "")
        if "dl19" in fitted:
            table += (
                f"\n\nThe reranker's combiner was fit on development sets that include DL19 "
                f"({fitted}), so its figure here is in-sample; bench rerank_fit gives it with "
                "DL19 held out."
            )
        write_result(args.name, figures, table, command)


if __name__ == "__main__":
    main()
