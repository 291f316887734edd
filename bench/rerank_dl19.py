"""TREC DL19 passage: nDCG@10 of BM25's top 100 as given, and reranked by a reranker checkpoint.

Command (from the repository root)::

    .venv/bin/python bench/rerank_dl19.py --checkpoint runs/reranker/r1/checkpoint [--name NAME]

The data folder is ``$VERACITY_DATA/trec_dl19`` (``VERACITY_DATA`` defaults to ``../shared/data``
beside the repository): 43 judged queries, graded qrels (0-3), and ``runs/bm25_top100.tsv``
(Pyserini BM25 over the full MS MARCO collection) with every candidate's text. The checkpoint
is a ``RUN/checkpoint`` folder of ``veracity train-reranker`` (torch, fp32), read in its own
window: a (query, passage) pair longer than the window is cut into overlapping sentence windows
(``EvidenceSelector(strategy="slide")``, the same code as training) and the passage scores as
its best window, so nothing is truncated. Ties keep BM25's order.

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
from pathlib import Path
from typing import Any

BENCH = Path(__file__).resolve().parent
sys.path.insert(0, str(BENCH))

from _report import REPO, write_result  # noqa: E402
from veracity.evaluate.retrieval import ndcg_at_k  # noqa: E402

#: ../shared/anchors/NUMBERS.md and trec_dl19/SOURCE.md: the only figures not measured here.
PUBLISHED_BM25 = 50.58
PUBLISHED_MINILM = 74.30
PUBLISHED_SOURCE = ("Pyserini BM25 (k1 0.9, b 0.4) top 100; cross-encoder/ms-marco-MiniLM-L-6-v2 "
                    "reranking it (shared/anchors/NUMBERS.md)")
K = 10


def data_dir() -> Path:
    root = Path(os.environ.get("VERACITY_DATA", REPO.parent / "shared" / "data"))
    folder = root / "trec_dl19"
    if not (folder / "qrels.tsv").is_file():
        sys.exit(f"TREC DL19 not found at {folder}; set VERACITY_DATA to the shared data folder")
    return folder


def load(folder: Path) -> tuple[dict[str, str], dict[str, dict[str, int]],
                                dict[str, list[str]], dict[str, str]]:
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


def mean_ndcg(run: dict[str, list[str]], qrels: dict[str, dict[str, int]],
              queries: dict[str, str]) -> float:
    return 100 * statistics.fmean(ndcg_at_k(run[qid], qrels.get(qid, {}), K) for qid in queries)


class CheckpointScorer:
    """A train-reranker checkpoint in torch: (query, passage) -> best-window relevance logit."""

    def __init__(self, checkpoint: Path, *, threads: int, batch_size: int) -> None:
        state = json.loads((checkpoint / "state.json").read_text(encoding="utf-8"))
        if state["config"].get("task") != "rerank":
            sys.exit(f"{checkpoint} is not a reranker checkpoint (task "
                     f"{state['config'].get('task', 'verify')}); pass one of train-reranker")
        self.checkpoint = checkpoint
        self.state = state
        self.max_tokens = int(state["config"]["max_tokens"])
        self.threads = threads
        self.batch_size = batch_size

    def run(self, query: str, passages: list[str]) -> tuple[list[float], int]:
        """Scores of ``passages`` and how many of them needed more than one window."""
        import torch

        from veracity.train.trainer import encode_pairs

        pairs: list[tuple[str, str]] = []
        owner: list[int] = []
        windowed = 0
        for i, passage in enumerate(passages):
            windows = self.selector.run(passage, query)
            windowed += len(windows) > 1
            for window in windows:
                pairs.append((query, window.text))
                owner.append(i)
        # batch pairs of similar length: less padding, same scores
        lengths = [len(e.ids) for e in self.selector.tokenizer.encode_batch(pairs)]
        order = sorted(range(len(pairs)), key=lambda j: lengths[j])
        logits = [0.0] * len(pairs)
        with torch.no_grad():
            for first in range(0, len(order), self.batch_size):
                batch = order[first:first + self.batch_size]
                features = encode_pairs(torch, self.selector.tokenizer,
                                        [pairs[j] for j in batch], self.max_tokens)
                out = self.model(**features).logits[:, 0].tolist()
                for j, value in zip(batch, out, strict=True):
                    logits[j] = float(value)
        scores = [float("-inf")] * len(passages)
        for j, value in enumerate(logits):
            scores[owner[j]] = max(scores[owner[j]], value)
        return scores, windowed

    def load(self) -> CheckpointScorer:
        import torch
        import transformers

        from veracity.verifiers.windows import EvidenceSelector

        torch.set_num_threads(self.threads)
        self.model = transformers.AutoModelForSequenceClassification.from_pretrained(
            str(self.checkpoint), local_files_only=True).eval()
        self.selector = EvidenceSelector(max_tokens=self.max_tokens, strategy="slide")
        return self


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--checkpoint", type=Path, help="RUN/checkpoint of train-reranker")
    parser.add_argument("--name", help="write bench/results/NAME.json and its README section")
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--batch-size", type=int, default=32)
    args = parser.parse_args()
    niceness = os.nice(0)
    command = (f"nice -n {niceness} " if niceness else "") + \
        ".venv/bin/python bench/rerank_dl19.py " + shlex.join(sys.argv[1:])
    queries, qrels, run, texts = load(data_dir())
    figures: dict[str, Any] = {
        "queries": len(queries), "depth": max(len(v) for v in run.values()),
        "bm25_ndcg10": round(mean_ndcg(run, qrels, queries), 2),
        "published_bm25_ndcg10": PUBLISHED_BM25, "published_minilm_ndcg10": PUBLISHED_MINILM,
        "published_source": PUBLISHED_SOURCE,
    }
    rows = [f"| BM25 top 100 as given | {figures['bm25_ndcg10']:.2f} | {PUBLISHED_BM25} |"]
    if args.checkpoint is not None:
        scorer = CheckpointScorer(args.checkpoint, threads=args.threads,
                                  batch_size=args.batch_size).load()
        started = time.perf_counter()
        reranked: dict[str, list[str]] = {}
        windowed = 0
        for qid in queries:
            docids = run[qid]
            scores, extra = scorer.run(queries[qid], [texts[d] for d in docids])
            windowed += extra
            order = sorted(range(len(docids)), key=lambda i: (-scores[i], i))
            reranked[qid] = [docids[i] for i in order]
        seconds = time.perf_counter() - started
        config = scorer.state["config"]
        pairs = sum(len(run[qid]) for qid in queries)
        figures |= {
            "reranked_ndcg10": round(mean_ndcg(reranked, qrels, queries), 2),
            "checkpoint": str(args.checkpoint), "step": scorer.state["step"],
            "steps": config["examples"] // config["batch_size"],
            "train_config": config, "max_tokens": scorer.max_tokens,
            "passages_scored": pairs, "passages_over_one_window": windowed,
            "seconds": round(seconds, 1), "passages_per_second": round(pairs / seconds, 1),
            "threads": args.threads,
        }
        rows.append(f"| BM25 top 100 reranked by the checkpoint (step {figures['step']}/"
                    f"{figures['steps']}, {scorer.max_tokens}-token window) | "
                    f"{figures['reranked_ndcg10']:.2f} | ms-marco-MiniLM-L-6-v2: "
                    f"{PUBLISHED_MINILM} |")
    print(json.dumps({k: v for k, v in figures.items() if k != "train_config"}, indent=1))
    if args.name:
        table = "\n".join(["| ranking | nDCG@10 (43 queries) | published |",
                           "| --- | ---: | ---: |", *rows])
        if args.checkpoint is not None:
            table += (f"\n\n{figures['passages_over_one_window']} of {figures['passages_scored']}"
                      " passages needed more than one window (scored by the best); "
                      f"{figures['passages_per_second']} passages/s on {args.threads} thread(s).")
        write_result(args.name, figures, table, command)


if __name__ == "__main__":
    main()
