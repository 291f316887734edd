"""Latency of ``verify`` on a 5-sentence answer against its retrieved passages, per NLI window.

    OMP_NUM_THREADS=1 nice -n 15 .venv/bin/python bench/verify_latency.py --data ../shared/data \\
        [--answers 8] [--runs 3]

The first ``--answers`` LFQA dev answers (``bench/verify_lfqa.py``'s loader, every annotation
file in order) that have at least 5 sentences, cut to their first 5; the sources are the
question's webgpt documents cut by the index's chunker, k = 5 passages per claim. Each answer is
verified ``--runs`` times with ``make_answer_verifier`` (the default layers, nli and knowledge)
for ``window="passage"`` and ``window="claim"``, the models loaded once beforehand; an answer's
figure is the median of its runs, and the table gives the median and the largest over answers,
with the verifier pairs each window read.
"""

from __future__ import annotations

import argparse
import os
import shlex
import statistics
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _report import write_result
from veracity.config import VerifyConfig
from veracity.models.pairs.shipped import ACTIVATIONS, EmbeddedVerifier
from veracity.rules import KnowledgeLayer
from veracity.verify.gather import source_chunks
from veracity.verify.nli import WINDOWS
from veracity.verify.pipeline import make_answer_verifier
from verifier_data import DEFAULT_DATA
from verify_lfqa import load_answers


def table_md(figures: dict[str, Any]) -> str:
    lines = [
        "| window | answers | claims | verifier pairs | median s | largest s |",
        "|---|---|---|---|---|---|",
    ]
    for window in WINDOWS[::-1]:
        r = figures["windows"][window]
        lines.append(
            f"| {window} | {r['answers']} | {r['claims']} | {r['pairs']} | "
            f"{r['median_s']:.2f} | {r['max_s']:.2f} |"
        )
    lines += [
        "",
        f"Verifier activations {figures['activations']}, "
        f"{figures['threads']} onnxruntime thread(s), median of {figures['runs']} runs "
        "per answer.",
    ]
    if figures["note"]:
        lines += ["", figures["note"]]
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0] if __doc__ else None)
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA)
    parser.add_argument("--answers", type=int, default=8)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--activations", choices=ACTIVATIONS, default="per_tensor")
    parser.add_argument("--note", default="")
    args = parser.parse_args(argv)
    answers, docs = load_answers(args.data)
    chosen = [a for a in answers if len(a.sentences) >= 5][: args.answers]
    scorer = EmbeddedVerifier(threads=args.threads, activations=args.activations).load()
    knowledge = KnowledgeLayer().load()
    figures: dict[str, Any] = {
        "runs": args.runs,
        "threads": args.threads,
        "activations": args.activations,
        "note": args.note,
        "windows": {},
    }
    for window in WINDOWS:
        seconds, claims, pairs = [], 0, 0
        for answer in chosen:
            verifier = make_answer_verifier(
                scorer,
                VerifyConfig().with_options(window=window),
                sources=source_chunks(docs[answer.question_id]),
                knowledge=knowledge,
            )
            text = " ".join(answer.sentences[:5])
            runs = []
            for _ in range(args.runs):
                started = time.perf_counter()
                report = verifier.run(text)
                runs.append(time.perf_counter() - started)
            seconds.append(statistics.median(runs))
            claims += len(report.verdicts)
            pairs += report.calls["verifier_pairs"]
        figures["windows"][window] = {
            "answers": len(chosen),
            "claims": claims,
            "pairs": pairs,
            "seconds": seconds,
            "median_s": statistics.median(seconds),
            "max_s": max(seconds),
        }
        print(window, figures["windows"][window], flush=True)
    # the command as it ran: the thread setting it read from the environment, never a guess
    threads = os.environ.get("OMP_NUM_THREADS")
    command = ("" if threads is None else f"OMP_NUM_THREADS={threads} ") + (
        "python bench/verify_latency.py " + shlex.join(sys.argv[1:])
    )
    write_result("verify_latency", figures, table_md(figures), command)


if __name__ == "__main__":
    main()
