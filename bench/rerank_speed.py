"""Reranker speed: (query, passage) pairs per second at 128 and 256 tokens, and the latency that
``--rerank`` adds to a search of the sample corpus at depth 20 and 50.

Command (from the repository root)::

    .venv/bin/python bench/rerank_speed.py [--threads 2] [--runs 5] [--name NAME]

Pairs are built from the sample corpus's own sentences (a question-like query of 12 tokens and a
passage filling the rest of the pair's length); each length is scored ``--runs`` times and the
median is reported. Latency: the same hybrid search of the sample corpus's dev questions with
and without ``RerankingRetriever`` in the same run, interleaved; the added milliseconds per
query are the median over runs of the per-run mean difference. ``ask --rerank`` adds the same
stage before the model is asked, so this is what it adds to an answer.
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

BENCH = Path(__file__).resolve().parent
sys.path.insert(0, str(BENCH))

from _report import REPO, write_result  # noqa: E402
from abstention_default import sample_index, sample_questions  # noqa: E402


def command() -> str:
    line = shlex.join([".venv/bin/python", "bench/rerank_speed.py", *sys.argv[1:]])
    niceness = os.nice(0)
    return f"nice -n {niceness} {line}" if niceness else line


def pairs_of_length(tokens: int, count: int) -> tuple[str, list[str]]:
    """A query and ``count`` passages whose (query, passage) pairs take about ``tokens``."""
    from veracity.assets import load_tokenizer

    tokenizer = load_tokenizer()
    words = " ".join(
        p.read_text(encoding="utf-8")
        for p in sorted((REPO / "examples" / "sample_corpus").rglob("*.md"))
    ).split()
    query = " ".join(words[:12])
    passages = []
    start = 12
    for _ in range(count):
        size = tokens
        while True:
            text = " ".join(words[start : start + size])
            n = len(tokenizer.encode(query, text).ids)
            if n <= tokens:
                break
            size -= max(1, (n - tokens) // 2)
        passages.append(text)
        start = (start + size) % max(1, len(words) - 2 * tokens)
    return query, passages


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--name", help="write bench/results/NAME.json and its README section")
    args = parser.parse_args()
    from veracity.models.relevance.shipped import EmbeddedReranker
    from veracity.retrieve.open import open_retriever
    from veracity.retrieve.rerank import RerankingRetriever

    reranker = EmbeddedReranker(threads=args.threads).load()
    figures: dict[str, object] = {
        "reranker": reranker.model_id,
        "version": reranker.version,
        "threads": args.threads,
        "runs": args.runs,
        "load_average": round(os.getloadavg()[0], 2),
    }
    throughput: dict[str, float] = {}
    for tokens in (128, 256):  # a pair over the window is scored as its windows (and says so)
        query, passages = pairs_of_length(tokens, 32)
        seconds = []
        for _ in range(args.runs):
            started = time.perf_counter()
            reranker.run(query, passages)
            seconds.append(time.perf_counter() - started)
        throughput[str(tokens)] = round(len(passages) / statistics.median(seconds), 1)
    figures["pairs_per_second"] = throughput
    questions = [question for question, _ in sample_questions()]
    plain = open_retriever(sample_index(), mode="hybrid").load()
    added: dict[str, float] = {}
    for depth in (20, 50):
        reranked = RerankingRetriever(plain, reranker, depth=depth).load()
        differences = []
        for _ in range(args.runs):
            started = time.perf_counter()
            for question in questions:
                plain.run(question, k=5)
            base = time.perf_counter() - started
            started = time.perf_counter()
            for question in questions:
                reranked.run(question, k=5)
            differences.append((time.perf_counter() - started - base) / len(questions))
        added[str(depth)] = round(1000 * statistics.median(differences), 1)
    figures["added_ms_per_query"] = added
    figures["questions"] = len(questions)
    print(json.dumps(figures, indent=1))
    if args.name:
        rows = ["| measure | value |", "| --- | ---: |"]
        for length, pairs_per_s in throughput.items():
            over = (
                f", over the {reranker.max_tokens}-token window: scored as its windows"
                if int(length) > reranker.max_tokens
                else ""
            )
            rows.append(
                f"| pairs/s at {length} tokens ({args.threads} threads, median of "
                f"{args.runs}{over}) | {pairs_per_s} |"
            )
        for at_depth, added_ms in added.items():
            rows.append(
                f"| added ms per search at depth {at_depth} (sample corpus, hybrid, k 5, "
                f"{len(questions)} questions) | {added_ms} |"
            )
        rows += [
            "",
            f"{reranker.model_id} {reranker.version}, int8 ONNX, one pair per forward "
            "pass (a score never depends on its batch). Load average at the start "
            f"{figures['load_average']}.",
        ]
        write_result(args.name, figures, "\n".join(rows), command())


if __name__ == "__main__":
    main()
