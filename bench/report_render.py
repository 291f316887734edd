"""Render time of the batch overview page (``veracity report``) at 1,000 and 10,000 records.

    PYTHONPATH=src nice -n 15 .venv/bin/python bench/report_render.py [--sizes 1000 10000]

Input: synthetic verify-batch records made here (no model runs): 4 claims per answer, each
with an NLI layer, one cited passage of about 300 characters and one more passage read, labels
and supports drawn from a fixed seed (about 60% supported), a ``model`` field of 5 values and
1 record in 50 an error record. The records are written as a JSONL file; each run times
``overview_of(file, by=["model"])``: reading and parsing the file, counting, the plots
(matplotlib SVG) and the page, in a fresh process so that matplotlib's import is counted once
per run as a user's ``veracity report`` pays it. The figure is the median of ``--runs`` runs.
"""

from __future__ import annotations

import argparse
import json
import random
import shlex
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _report import REPO, write_result

LABELS = ("supported", "supported", "supported", "contradicted", "unsupported")
WORDS = (
    "bees",
    "hive",
    "queen",
    "nectar",
    "pollen",
    "wing",
    "dance",
    "colony",
    "worker",
    "honey",
    "comb",
    "flower",
    "summer",
    "forage",
    "drone",
    "larva",
)


def passage(rng: random.Random, doc: str, supported: float) -> dict[str, Any]:
    text = " ".join(rng.choice(WORDS) for _ in range(50))
    return {
        "chunk_id": f"{doc}#0",
        "doc_id": doc,
        "title": doc,
        "section": [],
        "page": None,
        "page_end": None,
        "start": 0,
        "end": len(text),
        "supported": supported,
        "contradicted": round(1 - supported, 3) / 2,
        "neither": round(1 - supported, 3) / 2,
        "evidence": [[0, 80]],
        "cited": False,
        "query": "q",
        "error": None,
        "cannot_state": None,
        "text": text,
    }


def synthetic(n: int, seed: int = 0) -> list[dict[str, Any]]:
    rng = random.Random(seed)
    records: list[dict[str, Any]] = []
    for i in range(n):
        if i % 50 == 49:
            records.append(
                {
                    "id": f"q{i}",
                    "line": i + 1,
                    "error": {"reason": "no_answer", "message": f"line {i + 1} has no answer text"},
                }
            )
            continue
        sentences = [
            " ".join(rng.choice(WORDS) for _ in range(12)).capitalize() + "." for _ in range(4)
        ]
        answer = " ".join(sentences)
        claims, start = [], 0
        for j, sentence in enumerate(sentences):
            label = rng.choice(LABELS)
            support = rng.uniform(0.6, 1.0) if label == "supported" else rng.uniform(0, 0.5)
            doc = f"guide/{rng.randrange(40)}.md"
            cited = passage(rng, doc, round(support, 3))
            claims.append(
                {
                    "index": j,
                    "text": sentence,
                    "span": [start, start + len(sentence)],
                    "sentence": j,
                    "markers": [],
                    "edits": [],
                    "label": label,
                    "contested": False,
                    "layers": [
                        {
                            "layer": "nli",
                            "label": label,
                            "flagged": label != "supported",
                            "score": round(1 - support, 4),
                            "detail": f"support {support:.2f}",
                            "error": None,
                        }
                    ],
                    "citations": [cited] if label == "supported" else [],
                    "anti_citations": [cited] if label == "contradicted" else [],
                    "values": [],
                    "evidence": [cited, passage(rng, f"guide/{rng.randrange(40)}.md", 0.2)],
                }
            )
            start += len(sentence) + 1
        counts = {
            name: sum(c["label"] == name for c in claims)
            for name in ("supported", "contradicted", "unsupported", "unchecked")
        }
        records.append(
            {
                "id": f"q{i}",
                "line": i + 1,
                "summary": {"claims": 4, **counts, "skipped": 0, "failed": 0, "contested": 0},
                "answer": answer,
                "question": "What do bees do?",
                "layers": ["nli"],
                "rule": "any",
                "query_mode": "claim",
                "claims_method": "rules",
                "verifier": "bench",
                "verifier_version": "0",
                "claims": claims,
                "skipped": [],
                "timings": {},
                "calls": {},
                "warnings": [],
                "model": f"model-{i % 5}",
            }
        )
    return records


ONE_RUN = """
import json, sys, time
start = time.perf_counter()
from veracity.batch.overview import overview_of
overview = overview_of(sys.argv[1], by=["model"])
seconds = time.perf_counter() - start
overview.save(sys.argv[2])
print(json.dumps({"seconds": seconds, "page_bytes": len(overview.html.encode()),
                  "records": overview.counts["records"], "claims": overview.counts["claims"],
                  "render_seconds": overview.seconds}))
"""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[1000, 10000])
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    figures: dict[str, Any] = {"runs": args.runs, "sizes": {}}
    rows = [
        "| records | JSONL size | page size | median total (s) | median of overview_of "
        "alone (s) | runs, total (s) |",
        "|---|---|---|---|---|---|",
    ]
    with tempfile.TemporaryDirectory() as folder:
        for size in args.sizes:
            path = Path(folder) / f"records_{size}.jsonl"
            with path.open("w", encoding="utf-8") as handle:
                for rec in synthetic(size):
                    handle.write(json.dumps(rec) + "\n")
            runs = []
            for _ in range(args.runs):
                done = subprocess.run(
                    [sys.executable, "-c", ONE_RUN, str(path), str(Path(folder) / "page.html")],
                    check=True,
                    capture_output=True,
                    text=True,
                    cwd=REPO,
                )
                runs.append(json.loads(done.stdout))
                time.sleep(0.1)
            total = statistics.median(r["seconds"] for r in runs)
            inner = statistics.median(r["render_seconds"] for r in runs)
            figures["sizes"][str(size)] = {
                "jsonl_bytes": path.stat().st_size,
                "page_bytes": runs[0]["page_bytes"],
                "claims": runs[0]["claims"],
                "median_seconds": round(total, 3),
                "median_overview_run_seconds": round(inner, 3),
                "seconds": [round(r["seconds"], 3) for r in runs],
            }
            rows.append(
                f"| {size:,} | {path.stat().st_size / 1e6:.1f} MB | "
                f"{runs[0]['page_bytes'] / 1e3:.0f} kB | {total:.2f} | {inner:.2f} | "
                + ", ".join(f"{r['seconds']:.2f}" for r in runs)
                + " |"
            )
            print(rows[-1], flush=True)
    table = "\n".join(rows) + (
        "\n\nTotal: a fresh process, from the import of veracity.batch.overview to the "
        "finished page in memory; the next column leaves veracity's own import out (it is "
        "`Overview.seconds`: reading and parsing the JSONL, counting, matplotlib's import, the "
        "plots and the page). Synthetic records (4 claims, 2 passages of about 300 characters "
        "each, 1 in 50 failed); medians of the runs listed."
    )
    command = "PYTHONPATH=src nice -n 15 .venv/bin/python bench/report_render.py " + shlex.join(
        ["--sizes", *map(str, args.sizes), "--runs", str(args.runs)]
    )
    write_result("report_render", figures, table, command)


if __name__ == "__main__":
    main()
