"""Retrieval speed on 100,000+ passages: indexing docs/s, queries/s and peak memory per stage.

Command (from the repository root)::

    .venv/bin/python bench/retrieval_speed.py

Options: ``--runs`` (timed runs of the BM25 query sets, default 5), ``--dense-runs`` (default 3),
``--queries`` (default 300), ``--rank-bm25-queries`` (default 10), ``--dense-sample`` (default
5000), ``--limit`` (cap the passages, for a smoke run). The whole run takes a few minutes on 2
cores.

The corpus is built from the shared data (``$VERACITY_DATA``'s sibling ``nlidata``, default
``../shared/nlidata``): SQuAD and SQuADShifts contexts, raw Wikipedia paragraphs, QED (Natural
Questions) paragraphs, VitaminC evidence grouped by page, and FEVER / TenP premises. Texts are cut
into passages of at most 100 words (longer texts into 100-word windows with a 50-word stride)
and exact duplicates are dropped. Queries are a fixed, evenly spaced set of SQuAD and QED
questions.

Stages: the corpus ``Indexer`` (JSONL -> chunks -> SQLite store -> BM25), the BM25 builder alone,
bare bm25s (tokenize + index, the reference), rank_bm25 (the baseline), and the dense builder on a
sample (embedding 100,000 passages with MiniLM takes far too long on 2 cores; its rate is
measured on the sample). Queries (k=10): bare bm25s (its ``retrieve``, the reference, and its
low-level ``get_scores`` + ``topk``), our ``BM25Retriever`` over the SQLite chunk store and over
an in-memory list, rank_bm25, dense and hybrid. The dense index used for query
speed has one row per passage, but only the sample's rows were embedded from their text; the
other rows repeat sample vectors (query speed does not depend on the values; no quality figure
is drawn from it). Each query set is timed in several runs, the systems interleaved within each
run; figures are medians, and ratios are taken within a run. Peak memory is the process's peak
resident set during the stage (reset before each stage through ``/proc/self/clear_refs``).
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import re
import shlex
import statistics
import sys
import tempfile
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np

BENCH = Path(__file__).resolve().parent
sys.path.insert(0, str(BENCH))

from _data import nli_root  # noqa: E402
from _report import write_result  # noqa: E402
from veracity.corpus.base import InMemoryChunks  # noqa: E402
from veracity.corpus.index_dir import STORE, IndexDir  # noqa: E402
from veracity.corpus.indexer import Indexer  # noqa: E402
from veracity.corpus.store import ChunkStore  # noqa: E402
from veracity.retrieve import (  # noqa: E402
    BM25Builder,
    BM25Retriever,
    DenseBuilder,
    Embedder,
    Embeddings,
    open_retriever,
)
from veracity.retrieve.bm25 import Analyzer  # noqa: E402

K = 10
MAX_WORDS, STRIDE = 100, 50


# --- memory -----------------------------------------------------------------------------------
def _status(field: str) -> float:
    text = Path("/proc/self/status").read_text(encoding="utf-8")
    match = re.search(rf"^{field}:\s+(\d+) kB", text, re.MULTILINE)
    return int(match.group(1)) / 1024 if match else float("nan")


class Stage:
    """Wall time and peak resident memory of a block (peak reset at the start)."""

    def __init__(self, name: str) -> None:
        self.name = name
        self.seconds = 0.0
        self.peak_mib = 0.0
        self.start_mib = 0.0

    def __enter__(self) -> Stage:
        with contextlib.suppress(OSError):
            Path("/proc/self/clear_refs").write_text("5", encoding="utf-8")  # reset VmHWM
        self.start_mib = _status("VmRSS")
        self._started = time.perf_counter()
        return self

    def __exit__(self, *exc: object) -> None:
        self.seconds = time.perf_counter() - self._started
        self.peak_mib = _status("VmHWM")
        print(
            f"  {self.name}: {self.seconds:.1f} s, peak RSS {self.peak_mib:.0f} MiB "
            f"(+{self.peak_mib - self.start_mib:.0f})",
            flush=True,
        )

    def memory(self) -> dict[str, float]:
        return {
            "peak_rss_mib": round(self.peak_mib),
            "increase_mib": round(self.peak_mib - self.start_mib),
        }


# --- corpus and queries -----------------------------------------------------------------------
def nli_dir() -> Path:
    folder = nli_root()
    if not folder.is_dir():
        sys.exit(f"shared nlidata not found at {folder}; set VERACITY_DATA to ../shared/data")
    return folder


def _jsonl(path: Path) -> Iterator[dict[str, Any]]:
    with open(path, encoding="utf-8") as handle:
        for line in handle:
            if line.strip():
                yield json.loads(line)


def source_texts(folder: Path) -> Iterator[str]:
    for path in sorted((folder / "squad_bigbench" / "original").glob("*_v1.?.json")):
        for article in json.loads(path.read_text(encoding="utf-8"))["data"]:
            for paragraph in article["paragraphs"]:
                yield paragraph["context"]
    for row in _jsonl(folder / "raw_wikipedia_bigbench" / "wikipedia_docs.jsonl"):
        yield "\n".join(row["paragraphs"])
    for row in _jsonl(folder / "qed_nq" / "qed_all.jsonl"):
        yield row["paragraph"]
    pages: dict[str, list[str]] = {}
    for row in _jsonl(folder / "vitaminc_bigbench" / "vitaminc_bigbench.jsonl"):
        title, _, sentence = row["premise"].partition(": ")
        sentences = pages.setdefault(title, [])
        if sentence not in sentences:
            sentences.append(sentence)
    for title, sentences in pages.items():
        yield f"{title}: " + " ".join(sentences)
    for name in ("fever_rte_dev/fever_rte_dev.jsonl", "tenp_wiki_nli/tenp_all.jsonl"):
        for row in _jsonl(folder / name):
            yield row["premise"]


def passages(texts: Iterator[str]) -> list[str]:
    seen: set[str] = set()
    out = []
    for text in texts:
        words = text.split()
        if len(words) < 8:
            continue
        starts = (
            [0]
            if len(words) <= MAX_WORDS
            else list(range(0, len(words) - MAX_WORDS + STRIDE, STRIDE))
        )
        for start in starts:
            passage = " ".join(words[start : start + MAX_WORDS])
            if passage not in seen:
                seen.add(passage)
                out.append(passage)
    return out


def questions(folder: Path, count: int) -> list[str]:
    squad: list[str] = []
    path = folder / "squad_bigbench" / "original" / "squaddev_v1.1.json"
    for article in json.loads(path.read_text(encoding="utf-8"))["data"]:
        for paragraph in article["paragraphs"]:
            squad.extend(qa["question"].strip() for qa in paragraph["qas"])
    qed = [row["question"].strip() for row in _jsonl(folder / "qed_nq" / "qed_all.jsonl")]
    half = count // 2
    picked = [squad[i * len(squad) // half] for i in range(half)]
    picked += [qed[i * len(qed) // (count - half)] for i in range(count - half)]
    return list(dict.fromkeys(q for q in picked if q))


# --- timing -----------------------------------------------------------------------------------
def timed_runs(
    systems: Mapping[str, tuple[Callable[[str], object], Sequence[str]]], runs: int
) -> dict[str, list[float]]:
    """Seconds per query of each system in each run; systems interleaved within a run."""
    for fn, queries in systems.values():  # warm-up: loads, page cache
        for query in queries[:3]:
            fn(query)
    seconds: dict[str, list[float]] = {name: [] for name in systems}
    for run in range(runs):
        for name, (fn, queries) in systems.items():
            started = time.perf_counter()
            for query in queries:
                fn(query)
            seconds[name].append((time.perf_counter() - started) / len(queries))
        print(
            f"  run {run + 1}: "
            + ", ".join(f"{n} {1 / s[-1]:.1f} q/s" for n, s in seconds.items()),
            flush=True,
        )
    return seconds


class SampleVectors:
    """Gives each passage the stored vector of a sample passage (for query-speed runs only)."""

    def __init__(self, vectors: np.ndarray, model: Embedder) -> None:
        self.vectors = vectors
        self.model_id = model.model_id
        self.max_tokens = model.max_tokens
        self.dimension = model.dimension
        self._next = 0

    def load(self) -> SampleVectors:
        return self

    def run(self, texts: Sequence[str]) -> Embeddings:
        rows = (np.arange(len(texts)) + self._next) % len(self.vectors)
        self._next += len(texts)
        return Embeddings(self.vectors[rows], self.model_id)


def command() -> str:
    line = ".venv/bin/python bench/retrieval_speed.py" + "".join(
        f" {shlex.quote(arg)}" for arg in sys.argv[1:]
    )
    niceness = os.nice(0)
    return f"nice -n {niceness} {line}" if niceness else line


# --- main -------------------------------------------------------------------------------------
def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--dense-runs", type=int, default=3)
    parser.add_argument("--queries", type=int, default=300)
    parser.add_argument("--rank-bm25-queries", type=int, default=10)
    parser.add_argument("--dense-sample", type=int, default=5000)
    parser.add_argument("--limit", type=int, default=None, help="cap passages (smoke runs)")
    args = parser.parse_args()
    import bm25s
    import rank_bm25
    import Stemmer
    from bm25s.selection import topk

    folder = nli_dir()
    load_before = os.getloadavg()
    print("building the corpus ...", flush=True)
    texts = passages(source_texts(folder))[: args.limit]
    queries = questions(folder, args.queries)
    print(f"{len(texts)} passages, {len(queries)} queries", flush=True)
    figures: dict[str, Any] = {
        "passages": len(texts),
        "queries": len(queries),
        "k": K,
        "load_average_at_start": [round(x, 2) for x in load_before],
        "indexing": {},
        "querying": {},
    }
    stages: dict[str, Stage] = {}
    with tempfile.TemporaryDirectory() as tmp:
        docs = Path(tmp) / "docs"
        docs.mkdir()
        with open(docs / "passages.jsonl", "w", encoding="utf-8") as out:
            for i, text in enumerate(texts):
                out.write(json.dumps({"id": f"p{i}", "text": text}) + "\n")
        index = Path(tmp) / "index"

        print("indexing ...", flush=True)
        with Stage("Indexer (JSONL -> chunks -> SQLite -> BM25)") as stage:
            report = Indexer(builders=[BM25Builder()]).run([docs], index)
        stages["indexer"] = stage
        generation = IndexDir(index).current()
        store = ChunkStore.open(generation / STORE)
        chunk_count = len(store)
        with Stage("BM25Builder alone, from the SQLite store") as stage:
            BM25Builder().build(store, Path(tmp) / "bm25-only", None)
        stages["bm25_builder"] = stage
        stemmer = Stemmer.Stemmer("english")
        with Stage("bare bm25s tokenize + index") as stage:
            bare = bm25s.BM25()
            bare.index(
                bm25s.tokenize(texts, stopwords="en", stemmer=stemmer, show_progress=False),
                show_progress=False,
            )
        stages["bm25s"] = stage
        analyzer = Analyzer()
        with Stage("rank_bm25 BM25Okapi init") as stage:
            okapi = rank_bm25.BM25Okapi([analyzer.terms(text) for text in texts])
        stages["rank_bm25"] = stage

        embedder = Embedder().load()
        every = store.chunks(list(range(chunk_count)))
        step = max(chunk_count // args.dense_sample, 1)
        sample = InMemoryChunks(every[::step][: args.dense_sample])
        with Stage(f"DenseBuilder, {len(sample)}-passage sample") as stage:
            dense_summary = DenseBuilder(embedder).build(sample, Path(tmp) / "dense-sample", None)
        stages["dense"] = stage
        vectors = np.load(Path(tmp) / "dense-sample" / "dense.npy")
        DenseBuilder(SampleVectors(vectors, embedder)).build(store, generation, None)

        counts = {
            "indexer": report.documents,
            "bm25_builder": chunk_count,
            "bm25s": len(texts),
            "rank_bm25": len(texts),
            "dense": len(sample),
        }
        for key, stage in stages.items():
            figures["indexing"][key] = {
                "items": counts[key],
                "seconds": round(stage.seconds, 2),
                "docs_per_s": round(counts[key] / stage.seconds, 1),
                **stage.memory(),
            }
        figures["chunks"] = chunk_count
        figures["dense_truncated_in_sample"] = dense_summary["truncated"]

        print("querying ...", flush=True)
        loads: dict[str, Stage] = {}
        with Stage("load BM25Retriever (SQLite store)") as stage:
            ours_sqlite = open_retriever(index, mode="bm25").load()
        loads["bm25"] = stage
        ours_memory = BM25Retriever(InMemoryChunks(every), generation).load()
        with Stage("load DenseRetriever") as stage:
            dense = open_retriever(index, mode="dense", embedder=embedder).load()
        loads["dense"] = stage
        hybrid = open_retriever(index, mode="hybrid", embedder=embedder).load()

        def bare_bm25s(query: str) -> object:
            tokens = bm25s.tokenize(query, stopwords="en", stemmer=stemmer, show_progress=False)
            return bare.retrieve(tokens, k=K, show_progress=False)

        def bare_scores(query: str) -> object:
            terms = bm25s.tokenize(
                query, stopwords="en", stemmer=stemmer, return_ids=False, show_progress=False
            )[0]
            return topk(bare.get_scores(terms) if terms else np.zeros(1), K)

        def okapi_top(query: str) -> object:
            scores = okapi.get_scores(analyzer.terms(query))
            return np.argsort(-scores)[:K]

        bm25_systems = {
            "bm25s": (bare_bm25s, queries),
            "bm25s_scores": (bare_scores, queries),
            "ours_sqlite": (lambda q: ours_sqlite.run(q, k=K), queries),
            "ours_memory": (lambda q: ours_memory.run(q, k=K), queries),
        }
        with Stage("BM25 query runs") as stage:
            bm25_seconds = timed_runs(bm25_systems, args.runs)
        with Stage("rank_bm25 query runs") as okapi_stage:
            okapi_seconds = timed_runs(
                {"rank_bm25": (okapi_top, queries[: args.rank_bm25_queries])}, 3
            )
        with Stage("dense and hybrid query runs") as dense_stage:
            dense_seconds = timed_runs(
                {
                    "dense": (lambda q: dense.run(q, k=K), queries),
                    "hybrid": (lambda q: hybrid.run(q, k=K), queries),
                },
                args.dense_runs,
            )
        store.close()

    seconds = {**bm25_seconds, **okapi_seconds, **dense_seconds}
    bare_runs = bm25_seconds["bm25s"]
    for name, runs in seconds.items():
        entry: dict[str, Any] = {
            "queries": len(queries) if name != "rank_bm25" else args.rank_bm25_queries,
            "runs": len(runs),
            "median_queries_per_s": round(1 / statistics.median(runs), 2),
            "seconds_per_query_runs": [round(s, 6) for s in runs],
        }
        if name.startswith("ours") or name == "bm25s_scores":
            entry["time_ratio_to_bm25s"] = round(
                statistics.median(o / b for o, b in zip(runs, bare_runs, strict=True)), 3
            )
        else:
            entry["time_ratio_to_bm25s"] = round(
                statistics.median(runs) / statistics.median(bare_runs), 3
            )
        figures["querying"][name] = entry
    figures["querying_memory"] = {
        "bm25_runs": stage.memory(),
        "rank_bm25_runs": okapi_stage.memory(),
        "dense_hybrid_runs": dense_stage.memory(),
        "load_bm25": loads["bm25"].memory(),
        "load_dense": loads["dense"].memory(),
    }
    figures["load_average_at_end"] = [round(x, 2) for x in os.getloadavg()]
    write_result("retrieval_speed", figures, table(figures, args), command())


def table(figures: dict[str, Any], args: argparse.Namespace) -> str:
    idx, q, mem = figures["indexing"], figures["querying"], figures["querying_memory"]
    names = {
        "indexer": "veracity `Indexer`: JSONL → chunks → SQLite store → BM25",
        "bm25_builder": "veracity `BM25Builder` alone (reads the SQLite store)",
        "bm25s": "bare bm25s: `bm25s.tokenize` + `BM25.index` (reference)",
        "rank_bm25": "rank_bm25 `BM25Okapi(...)` (baseline; tokenized by our Analyzer)",
        "dense": f"veracity `DenseBuilder`, MiniLM int8 ONNX, {idx['dense']['items']:,}-passage "
        "sample (not the full corpus)",
    }
    lines = [
        f"Corpus: {figures['passages']:,} passages ({figures['chunks']:,} chunks) of at most "
        f"{MAX_WORDS} words from the shared data; {figures['queries']} SQuAD / QED questions, "
        f"k={K}. Load average at start {figures['load_average_at_start'][0]} (the 2 cores were "
        "shared with another job: compare ratios within this run, not absolute rates across runs).",
        "",
        "| indexing | items | seconds | docs/s | peak RSS MiB (+ during stage) |",
        "| --- | ---: | ---: | ---: | ---: |",
    ]
    for key, name in names.items():
        row = idx[key]
        lines.append(
            f"| {name} | {row['items']:,} | {row['seconds']:.1f} | "
            f"{row['docs_per_s']:,.0f} | {row['peak_rss_mib']:,} "
            f"(+{row['increase_mib']:,}) |"
        )
    query_names = {
        "bm25s": "bare bm25s: `tokenize` + `retrieve` (reference)",
        "bm25s_scores": "bare bm25s, low level: `tokenize` + `get_scores` + `selection.topk`",
        "ours_sqlite": "veracity `BM25Retriever.run`, chunks from SQLite (`open_retriever`)",
        "ours_memory": "veracity `BM25Retriever.run`, chunks in memory",
        "rank_bm25": "rank_bm25 `get_scores` + sort (baseline)",
        "dense": f"veracity `DenseRetriever.run` (query embedding + {figures['passages']:,}-row "
        "dot product)",
        "hybrid": "veracity `HybridRetriever.run` (BM25 + dense + RRF)",
    }
    lines += [
        "",
        "| querying (one query at a time, k=10) | queries × runs | median queries/s "
        "| time per query ÷ bare bm25s `retrieve` |",
        "| --- | ---: | ---: | ---: |",
    ]
    for key, name in query_names.items():
        row = q[key]
        lines.append(
            f"| {name} | {row['queries']} × {row['runs']} | "
            f"{row['median_queries_per_s']:,.1f} | {row['time_ratio_to_bm25s']:.2f}× |"
        )
    lines += [
        "",
        "Memory while querying: +"
        f"{mem['load_bm25']['increase_mib']} MiB to load our BM25 retriever, +"
        f"{mem['bm25_runs']['increase_mib']} MiB during the BM25 runs, +"
        f"{mem['load_dense']['increase_mib']} MiB to load the dense retriever (memory-mapped), +"
        f"{mem['dense_hybrid_runs']['increase_mib']} MiB during the dense and hybrid runs (the "
        f"process then held every index above: {mem['dense_hybrid_runs']['peak_rss_mib']:,} MiB "
        "resident). Overhead target for our BM25 over bare bm25s: "
        "≤ 1.5×. The dense index for query speed has every passage's row, but only the "
        f"sample's {idx['dense']['items']:,} rows were embedded from their text (the rest repeat "
        "them); embedding all passages at the sample's rate would take "
        f"{figures['passages'] / idx['dense']['docs_per_s'] / 60:.0f} minutes.",
    ]
    del args
    return "\n".join(lines)


if __name__ == "__main__":
    main()
