"""Batch throughput: verify-batch on one process, the local pool and Ray; dense indexing the
same three ways; and a projection to 10^6 and 10^8 answers from those measurements.

    nice -n 5 .venv/bin/python bench/verify_batch.py [--answers 24] [--repeat 2] [--workers N]

Input: LFQA-Verification dev answers (each annotation file's answer, its sentences joined by a
space) with the documents of ``docs/docs-webgpt.json`` for its question as the line's sources
(each a title, a newline and its text), the first ``--answers`` of them repeated ``--repeat``
times under new ids. Every engine verifies the same file with the shipped verifier and the
default layers (nli, knowledge) into a fresh output; the wall time includes starting the
workers and loading their models (and, for Ray, starting Ray). The records of the three runs
are compared field by field, timings left out. The same pipeline runs three more times in one
process: with ``--verifier lexical`` (what the shipped verifier costs over word overlap), with
``--window claim`` (one verifier pair per claim), and as the old path (the verifier shipped at
``--old-commit``, extracted with ``git archive``, read with ``--old-window``). The old code
(the whole package at ``--old-code-commit``, extracted the same way) runs its own
``verify-batch --workers 1`` on the same input in a subprocess. Dense indexing embeds the
passages of the same documents, all of the dev half's (the chunker's default 160-token
passages), with the shipped MiniLM.
"""

from __future__ import annotations

import argparse
import io
import json
import math
import os
import shlex
import subprocess
import sys
import tarfile
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _data import data_root
from _report import write_result
from veracity import defaults
from veracity.batch import LocalPool, ParallelEmbedder, RayData, VerifyBatch
from veracity.batch.engines import Engine, default_workers
from veracity.batch.log import ResultLog
from veracity.config import BatchConfig
from veracity.corpus.index_dir import IndexDir
from veracity.corpus.indexer import Indexer
from veracity.defaults import EvidenceWindow
from veracity.models import Models
from veracity.retrieve.bm25 import BM25Builder
from veracity.retrieve.dense import DENSE_VECTORS, DenseBuilder
from veracity.retrieve.open import open_retriever
from veracity.types import Document

ROOT = Path(__file__).resolve().parent.parent
DATA = data_root() / "lfqa_verification_dev"
STAGES = ("claims", "evidence", "nli", "knowledge")


def lfqa_lines(answers: int, repeat: int) -> tuple[list[str], list[Document]]:
    """The input lines, and every dev document (the corpus of the indexing bench)."""
    docs: dict[str, list[Document]] = {}
    for entry in json.loads((DATA / "docs" / "docs-webgpt.json").read_text(encoding="utf-8")):
        docs[str(entry["question_id"])] = [
            Document(
                id=f"{entry['question_id']}/{doc['doc_id']}",
                title=str(doc["title"]),
                text=f"{doc['title']}\n{doc['text']}",
            )
            for doc in entry["docs"]
        ]
    rows = []
    for path in sorted((DATA / "annotations").glob("annotations-*.json")):
        system = path.stem.removeprefix("annotations-")
        for question in json.loads(path.read_text(encoding="utf-8")):
            qid = str(question["question_id"])
            sentences = [str(a["answer"]).strip() for a in question["annotations"]]
            if qid in docs and sentences:
                rows.append(
                    {
                        "id": f"{system}/{qid}",
                        "question": question["question"],
                        "answer": " ".join(sentences),
                        "sources": [d.text for d in docs[qid]],
                    }
                )
    rows = rows[:answers]
    lines = [
        json.dumps(row | {"id": f"{row['id']}#{copy}"}) for copy in range(repeat) for row in rows
    ]
    return lines, [doc for qid in sorted(docs) for doc in docs[qid]]


def _records(path: Path) -> dict[str, Any]:
    found = {}
    for text in path.read_text(encoding="utf-8").splitlines():
        record = json.loads(text)
        record.pop("timings", None)
        found[str(record["id"])] = record
    return found


def _stage_seconds(path: Path) -> dict[str, float]:
    totals = dict.fromkeys(STAGES, 0.0)
    for text in path.read_text(encoding="utf-8").splitlines():
        for stage, seconds in json.loads(text).get("timings", {}).items():
            if stage in totals:
                totals[stage] += seconds
    return totals


def run_verify(
    name: str,
    engine: Engine,
    source: Path,
    folder: Path,
    verifier: str = defaults.VERIFIER,
    window: EvidenceWindow = defaults.NLI_WINDOW,
) -> dict[str, Any]:
    config = BatchConfig().with_options(verifier=verifier, window=window)
    out = folder / f"{name}.jsonl"
    start = time.perf_counter()
    summary = VerifyBatch(config, Models(), engine).run(source, out)
    wall = time.perf_counter() - start
    claims = summary.counts["claims"]
    print(f"{name}: {summary.written} answers, {claims} claims in {wall:.1f} s", flush=True)
    return {
        "engine": summary.engine,
        "workers": summary.workers,
        "answers": summary.written,
        "claims": claims,
        "errors": summary.counts["errors"],
        "wall_s": round(wall, 2),
        "answers_per_s": round(summary.written / wall, 3),
        "claims_per_s": round(claims / wall, 3),
        "stages_s": _stage_seconds(out),
        "output_bytes": out.stat().st_size,
        "out": str(out),
    }


def extract(commit: str, tree: str, folder: Path) -> Path:
    """``tree`` (a path in the repository) as it was at ``commit``, extracted into ``folder``."""
    archive = subprocess.run(
        ["git", "-C", str(ROOT), "archive", commit, tree], check=True, capture_output=True
    ).stdout
    with tarfile.open(fileobj=io.BytesIO(archive)) as tar:
        tar.extractall(folder, filter="data")
    return folder / tree


def old_verifier(commit: str, folder: Path) -> str:
    """The verifier that shipped at ``commit``, extracted from git into ``folder``: the
    ``embedded:DIR`` name that loads it."""
    return f"embedded:{extract(commit, 'src/veracity/assets/verifier', folder)}"


def run_old_code(commit: str, source: Path, folder: Path) -> dict[str, Any]:
    """The whole package as it was at ``commit`` (its code and shipped models), running its
    own ``verify-batch`` on one worker over the same input, in a subprocess: wall time from
    start to exit, model loading included as for the other runs."""
    src = extract(commit, "src", folder)
    out = folder / "old-code.jsonl"
    command = [
        sys.executable,
        "-m",
        "veracity.cli",
        "verify-batch",
        str(source),
        "--out",
        str(out),
        "--sources-field",
        "sources",
        "--workers",
        "1",
    ]
    env = dict(os.environ, PYTHONPATH=str(src))
    start = time.perf_counter()
    subprocess.run(command, check=True, env=env, capture_output=True, cwd=folder)
    wall = time.perf_counter() - start
    records = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    claims = sum(len(record.get("claims", [])) for record in records)
    print(f"old code: {len(records)} answers, {claims} claims in {wall:.1f} s", flush=True)
    return {
        "commit": commit,
        "answers": len(records),
        "claims": claims,
        "wall_s": round(wall, 2),
        "claims_per_s": round(claims / wall, 3),
    }


def write_ceiling(path: Path, folder: Path) -> dict[str, float]:
    """How fast one driver commits these records to a ResultLog (the writer's ceiling)."""
    lines = path.read_text(encoding="utf-8").splitlines()
    log = ResultLog(folder / "write.jsonl")
    log.open()
    rounds = max(1, 20_000 // max(len(lines), 1))
    start = time.perf_counter()
    for _ in range(rounds):
        for line in lines:  # one append per record, as a run of one-answer tasks commits them
            log.append([json.dumps(json.loads(line), ensure_ascii=False)])
    log.close()
    seconds = time.perf_counter() - start
    return {
        "records_per_s": round(rounds * len(lines) / seconds, 1),
        "bytes_per_record": round(path.stat().st_size / len(lines), 1),
    }


class TimedBuilder:
    """An index builder that records how long the builder it wraps took."""

    def __init__(self, builder: DenseBuilder) -> None:
        self.builder = builder
        self.name = builder.name
        self.seconds = 0.0
        self.count = 0

    def build(self, chunks: Any, directory: Path, previous: Path | None) -> Any:
        start = time.perf_counter()
        result = self.builder.build(chunks, directory, previous)
        self.seconds = time.perf_counter() - start
        self.count = len(chunks)
        return result


def run_embed(name: str, engine: Engine | None, corpus: Path, folder: Path) -> dict[str, Any]:
    """Index ``corpus`` (BM25 and dense); time the dense builder (start-up included)."""
    embedder = None if engine is None else ParallelEmbedder(engine)
    dense = TimedBuilder(
        DenseBuilder()
        if embedder is None
        else DenseBuilder(embedder, block=defaults.BATCH_EMBED_BLOCK)
    )
    try:
        Indexer(builders=[BM25Builder(), dense]).run([corpus], folder / name)
    finally:
        if embedder is not None:
            embedder.close()
    print(f"index {name}: {dense.count} passages in {dense.seconds:.1f} s", flush=True)
    return {
        "passages": dense.count,
        "wall_s": round(dense.seconds, 2),
        "passages_per_s": round(dense.count / dense.seconds, 2),
        "index": str(folder / name),
    }


def search_cost(index: Path, out: Path) -> dict[str, float]:
    """Seconds per hybrid search (k passages) for the claims of a run, on the bench index."""
    claims = [
        claim["text"]
        for text in out.read_text(encoding="utf-8").splitlines()
        for claim in json.loads(text).get("claims", [])
    ]
    retriever = open_retriever(index, mode="hybrid")
    retriever.load()
    retriever.run(claims[0], k=defaults.VERIFY_TOP_K)  # warm-up
    start = time.perf_counter()
    for claim in claims:
        retriever.run(claim, k=defaults.VERIFY_TOP_K)
    seconds = time.perf_counter() - start
    return {"searches": len(claims), "seconds_per_search": round(seconds / len(claims), 5)}


def projection(
    runs: dict[str, dict[str, Any]], write: dict[str, float], search: dict[str, float]
) -> dict[str, Any]:
    """Workers and hours for 10^6 and 10^8 answers, from the measured rates."""
    single, pool = runs["1 process"], runs["local pool"]
    per_worker = pool["answers_per_s"] / pool["workers"]
    efficiency = per_worker / single["answers_per_s"]
    stages = pool["stages_s"]
    busy = sum(stages.values()) or 1.0
    shares = {stage: seconds / busy for stage, seconds in stages.items()}
    claims_per_answer = pool["claims"] / max(pool["answers"], 1)
    out: dict[str, Any] = {
        "per_worker_answers_per_s": round(per_worker, 4),
        "pool_efficiency": round(efficiency, 3),
        "claims_per_answer": round(claims_per_answer, 2),
        "stage_shares": {k: round(v, 3) for k, v in shares.items()},
        "writer_records_per_s": write["records_per_s"],
    }
    # a GPU worker: the verifier's share (nli) shrinks; bound by the rest of the worker's time
    gpu_bound = 1.0 / max(1.0 - shares["nli"], 1e-9)
    out["gpu_worker_speedup_bound"] = round(gpu_bound, 2)
    # against an index, each claim also costs a search (measured on the bench index)
    claim_s = busy / max(pool["claims"], 1)
    search_s = search["seconds_per_search"]
    out["verifier_s_per_claim"] = round(stages["nli"] / max(pool["claims"], 1), 4)
    out["search_s_per_claim"] = search_s
    out["index_search_share"] = round(search_s / (claim_s + search_s), 3)
    out["gpu_worker_speedup_bound_with_index"] = round(
        (claim_s + search_s)
        / max(claim_s + search_s - stages["nli"] / max(pool["claims"], 1), 1e-9),
        2,
    )
    for answers in (10**6, 10**8):
        hours_one = answers / per_worker / 3600
        workers_day = math.ceil(answers / (per_worker * 86400))
        writer_workers = write["records_per_s"] / per_worker  # workers one writer keeps up with
        out[f"{answers:.0e}"] = {
            "worker_hours": round(hours_one, 1),
            "workers_for_24h": workers_day,
            "hours_on_100_workers": round(hours_one / 100, 2),
            "writer_saturates_at_workers": round(writer_workers),
            "output_gib": round(answers * write["bytes_per_record"] / 2**30, 1),
        }
    return out


def table(
    runs: dict[str, dict[str, Any]],
    index: dict[str, dict[str, Any]],
    plan: dict[str, Any],
    meta: dict[str, Any],
    lexical: dict[str, Any],
    claim: dict[str, Any],
    focused: dict[str, Any],
    old: dict[str, Any],
    old_code: dict[str, Any],
) -> str:
    rows = [
        "| engine | workers | answers | claims | wall s | answers/s | claims/s |",
        "| --- | ---: | ---: | ---: | ---: | ---: | ---: |",
    ]
    for name, run in runs.items():
        rows.append(
            f"| {name} | {run['workers']} | {run['answers']} | {run['claims']} | "
            f"{run['wall_s']:.1f} | {run['answers_per_s']:.3f} | "
            f"{run['claims_per_s']:.2f} |"
        )
    one = runs["1 process"]
    rows += [
        "",
        f"The same pipeline in 1 process with `--verifier lexical` (word overlap): "
        f"{lexical['claims_per_s']:.2f} claims/s in {lexical['wall_s']:.1f} s; the shipped "
        f"verifier runs at {one['claims_per_s'] / lexical['claims_per_s']:.2f} of its rate.",
        "",
        f"The same pipeline in 1 process with `--window claim` (one verifier pair per claim): "
        f"{claim['claims_per_s']:.2f} claims/s in {claim['wall_s']:.1f} s, "
        f"{claim['claims_per_s'] / one['claims_per_s']:.1f}x the default's rate and "
        f"{claim['claims_per_s'] / lexical['claims_per_s']:.2f} of the lexical one's. "
        f"With `--window focused` (on its own each passage whose chosen sentences say the "
        f"claim's words): {focused['claims_per_s']:.2f} claims/s in {focused['wall_s']:.1f} s, "
        f"{focused['claims_per_s'] / one['claims_per_s']:.1f}x the default's rate and "
        f"{focused['claims_per_s'] / lexical['claims_per_s']:.2f} of the lexical one's; "
        f"against the old code, {focused['claims_per_s'] / old_code['claims_per_s']:.1f}x.",
        "",
        f"The old path in 1 process (the verifier shipped at commit {old['commit']}, "
        f"{old['window']} window, on today's code): {old['claims_per_s']:.2f} claims/s in "
        f"{old['wall_s']:.1f} s; today's path runs at "
        f"{one['claims_per_s'] / old['claims_per_s']:.1f}x its rate.",
        "",
        f"The old code in 1 process (the whole package at commit {old_code['commit']}, its "
        f"code and its shipped models, running its own `verify-batch --workers 1` on the same "
        f"input): {old_code['claims_per_s']:.2f} claims/s ({old_code['claims']} claims in "
        f"{old_code['wall_s']:.1f} s); today's path runs at "
        f"{one['claims_per_s'] / old_code['claims_per_s']:.1f}x its rate, the local pool at "
        f"{runs['local pool']['claims_per_s'] / old_code['claims_per_s']:.1f}x.",
    ]
    pool, ray = runs["local pool"], runs["Ray Data"]
    overhead = ray["wall_s"] / pool["wall_s"] - 1
    rows += [
        "",
        "| dense indexing | passages | wall s | passages/s |",
        "| --- | ---: | ---: | ---: |",
    ]
    for name, run in index.items():
        rows.append(
            f"| {name} | {run['passages']} | {run['wall_s']:.1f} | {run['passages_per_s']:.1f} |"
        )
    shares = plan["stage_shares"]
    a6, a8 = plan["1e+06"], plan["1e+08"]
    per_worker = plan["per_worker_answers_per_s"]
    text = "\n".join(rows)
    text += (
        f"\n\nInput: {meta['distinct']} LFQA-Verification dev answers with their webgpt "
        f"documents, repeated {meta['repeat']}x: {meta['lines']} lines, "
        f"{pool['claims']} claims ({plan['claims_per_answer']} per answer). Shipped verifier, "
        f"layers nli+knowledge, k {defaults.VERIFY_TOP_K}. Load average at the start: "
        f"{meta['load']:.2f} (this machine's 2 cores are shared with other work, so every "
        f"figure is a lower bound). Wall time includes starting the workers and loading their "
        f"models. Records identical across the three engines (timings aside): "
        f"{'yes' if meta['identical'] else 'NO'}. Dense indexing: every passage of the dev "
        f"half's webgpt documents, time of the dense builder (workers' start-up included); "
        f"vectors identical across the three: {'yes' if meta['identical_vectors'] else 'NO'}. "
        f"The whole bench took {meta['minutes']} minutes.\n\n"
        f"Ray overhead over the local pool on this run: {overhead:+.0%} of wall time "
        f"(starting Ray and its actors, moving tasks through the object store); the pool "
        f"runs at {plan['pool_efficiency']:.0%} of one process's rate per worker.\n\n"
        f"Projection (from the pool's rate, {per_worker:.3f} answers/s per worker on this "
        f"CPU): 10^6 answers take {a6['worker_hours']:,} worker-hours, "
        f"{a6['workers_for_24h']:,} such workers for a day, {a6['hours_on_100_workers']:,} h "
        f"on 100; 10^8 take {a8['worker_hours']:,} worker-hours, {a8['workers_for_24h']:,} "
        f"workers for a day, {a8['hours_on_100_workers']:,} h on 100. Where the time goes "
        f"inside a worker: verifier (nli) {shares['nli']:.0%}, retrieval over the line's "
        f"sources (evidence) {shares['evidence']:.0%}, claims {shares['claims']:.0%}, "
        f"knowledge {shares['knowledge']:.0%}; the verifier takes "
        f"{plan['verifier_s_per_claim']:.3f} s per claim (time inside the worker, shared "
        f"cores). Verifying against an index instead of each line's sources adds one hybrid "
        f"search per claim: {plan['search_s_per_claim'] * 1000:.1f} ms on the bench index "
        f"({plan['index_search_share']:.1%} of a claim's time). Output writing is not the "
        f"bottleneck: one "
        f"driver commits {plan['writer_records_per_s']:,.0f} records/s, so it keeps up with "
        f"about {a6['writer_saturates_at_workers']:,} workers at this rate before a run "
        f"needs sharded outputs; the output is {a6['output_gib']:,} GiB per 10^6 answers "
        f"({a8['output_gib']:,} GiB per 10^8). With the verifier on a GPU the nli share "
        f"shrinks towards zero, so a GPU worker is at most {plan['gpu_worker_speedup_bound']}x "
        f"a CPU worker on per-line sources ({plan['gpu_worker_speedup_bound_with_index']}x "
        f"against an index), and the CPU stages left (claims, knowledge, retrieval) become "
        f"the bottleneck: a GPU then needs several CPU workers feeding it, and past the "
        f"writer's ceiling the output must be sharded."
    )
    return text


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--answers", type=int, default=24, help="distinct LFQA answers")
    parser.add_argument("--repeat", type=int, default=2, help="copies of each answer")
    parser.add_argument("--workers", type=int, default=default_workers())
    parser.add_argument(
        "--old-commit",
        default="9cf5f9b",
        help="commit whose shipped verifier is the old path's (9cf5f9b: 0.4.0, with its "
        "aligner, shipped when the Speed issue measured 0.75 claims/s)",
    )
    parser.add_argument(
        "--old-window", default="passage", choices=["passage", "claim"], help="its NLI window"
    )
    parser.add_argument(
        "--old-code-commit",
        default="88658a4",
        help="commit whose whole package is the old code's (88658a4: verify_batch's first "
        "run, verifier 0.4.0)",
    )
    args = parser.parse_args()
    load = os.getloadavg()[0]
    began = time.time()
    lines, documents = lfqa_lines(args.answers, args.repeat)
    with tempfile.TemporaryDirectory() as name:
        folder = Path(name)
        source = folder / "answers.jsonl"
        source.write_text("".join(line + "\n" for line in lines), encoding="utf-8")
        runs = {
            "1 process": run_verify("one", LocalPool(workers=1), source, folder),
            "local pool": run_verify("pool", LocalPool(workers=args.workers), source, folder),
            "Ray Data": run_verify("ray", RayData(workers=args.workers), source, folder),
        }
        # the same pipeline with word overlap for a verifier: what the shipped one costs
        lexical = run_verify("lexical", LocalPool(workers=1), source, folder, "lexical")
        # the same pipeline reading one window per claim (--window claim, the fast option)
        claim = run_verify(
            "claim", LocalPool(workers=1), source, folder, defaults.VERIFIER, "claim"
        )
        # and reading on its own each passage whose chosen sentences say the claim's words
        focused = run_verify(
            "focused", LocalPool(workers=1), source, folder, defaults.VERIFIER, "focused"
        )
        # the old path: the verifier of --old-commit, read --old-window by --old-window
        old = run_verify(
            "old",
            LocalPool(workers=1),
            source,
            folder,
            old_verifier(args.old_commit, folder / "old"),
            args.old_window,
        )
        old_code = run_old_code(args.old_code_commit, source, folder / "old-code")
        records = [_records(Path(run["out"])) for run in runs.values()]
        identical = all(other == records[0] for other in records[1:])
        write = write_ceiling(Path(runs["local pool"]["out"]), folder)
        corpus = folder / "corpus.jsonl"
        corpus.write_text(
            "".join(
                json.dumps({"id": d.id, "title": d.title, "text": d.text}) + "\n" for d in documents
            ),
            encoding="utf-8",
        )
        index = {
            "1 process": run_embed("one", None, corpus, folder),
            "local pool": run_embed("pool", LocalPool(workers=args.workers), corpus, folder),
            "Ray Data": run_embed("ray", RayData(workers=args.workers), corpus, folder),
        }
        vectors = [
            np.load(IndexDir(run["index"]).current() / DENSE_VECTORS) for run in index.values()
        ]
        meta_vectors = all(np.array_equal(vectors[0], other) for other in vectors[1:])
        search = search_cost(Path(index["1 process"]["index"]), Path(runs["local pool"]["out"]))
    for run in [*runs.values(), *index.values(), lexical, claim, focused, old]:
        run.pop("out", None)
        run.pop("index", None)
    plan = projection(runs, write, search)
    meta = {
        "distinct": len(lines) // args.repeat,
        "repeat": args.repeat,
        "lines": len(lines),
        "load": load,
        "identical": identical,
        "identical_vectors": meta_vectors,
        "minutes": round((time.time() - began) / 60, 1),
    }
    figures = {
        "input": meta,
        "verify": runs,
        "lexical": lexical,
        "claim_window": claim,
        "focused_window": focused,
        "old": old | {"commit": args.old_commit, "window": args.old_window},
        "old_code": old_code,
        "index": index,
        "writer": write,
        "search": search,
        "projection": plan,
    }
    command = "python bench/verify_batch.py " + shlex.join(sys.argv[1:])
    write_result(
        "verify_batch",
        figures,
        table(runs, index, plan, meta, lexical, claim, focused, figures["old"], old_code),
        command.strip(),
    )


if __name__ == "__main__":
    main()
