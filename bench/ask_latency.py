"""End-to-end latency of ``Asker`` on the CPU, split by stage, for each chat backend.

Command (from the repository root)::

    nice -n 5 .venv/bin/python bench/ask_latency.py --llm extractive,llamacpp [--runs 3]

The question set is fixed: 10 answerable and 10 unanswerable ClapNQ dev questions drawn with seed
13, asked over the 600-passage index of ``ask_abstention.py`` (hybrid, k=5) the way ``veracity
ask`` asks: the shipped verifier (``embedded``), tau 0.5, and abstention on the shipped default
signal (``top_cosine``) with the threshold ``calibrate`` picks on the other 580 questions. Each
question is asked ``--runs`` times after one untimed warm-up question (models loaded); a
question's time per stage is the median of its runs, and the table gives the median and the
90th percentile of those over the questions. Stages are ``Answer.timings``: retrieve, abstain,
generate, verify. Writes ``bench/results/ask_latency.json`` and its section of
``bench/README.md``; a run with fewer questions or runs writes nothing unless given ``--name``.
"""

from __future__ import annotations

import argparse
import os
import random
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

from _report import write_result  # noqa: E402
from ask_abstention import MODE, K, bench_chat, clapnq_index, load_clapnq  # noqa: E402
from veracity import defaults  # noqa: E402
from veracity.generate import Asker, make_generator  # noqa: E402
from veracity.retrieve import Abstainer, calibrate, make_signal  # noqa: E402

SEED = 13
PER_CLASS = 10
RUNS = 3
STAGES = ("retrieve", "abstain", "generate", "verify", "total")


def command(argv: Sequence[str]) -> str:
    line = shlex.join([".venv/bin/python", "bench/ask_latency.py", *argv])
    niceness = os.nice(0)
    return f"nice -n {niceness} {line}" if niceness else line


def load_average() -> float | None:
    try:
        return round(os.getloadavg()[0], 2)
    except OSError:
        return None


def percentile(values: Sequence[float], q: float) -> float:
    return float(np.percentile(np.asarray(values, dtype=float), q))


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--llm", default="extractive,llamacpp")
    parser.add_argument("--runs", type=int, default=RUNS)
    parser.add_argument(
        "--per-class",
        type=int,
        default=PER_CLASS,
        help="answerable and unanswerable questions each",
    )
    parser.add_argument(
        "--threads",
        type=int,
        default=0,
        help="llama.cpp threads (0: llama.cpp's choice, as veracity ask)",
    )
    parser.add_argument("--name", default="")
    args = parser.parse_args(argv)
    argv = list(sys.argv[1:] if argv is None else argv)

    from veracity.models.pairs.registry import make_verifier
    from veracity.retrieve.open import open_retriever

    questions = load_clapnq()
    rng = random.Random(SEED)
    chosen: list[int] = []
    for answerable in (True, False):
        positions = [i for i, q in enumerate(questions) if q.answerable is answerable]
        chosen += sorted(rng.sample(positions, args.per_class))
    rest = [i for i in range(len(questions)) if i not in set(chosen)]
    retriever = open_retriever(clapnq_index(questions), mode=MODE).load()
    scorer = make_verifier("embedded").load()

    signal = make_signal(defaults.ABSTAIN_SIGNAL, scorer=scorer)
    readings = signal.run([retriever.run(questions[i].question, k=K) for i in rest])
    calibration = calibrate(
        [r.value for r in readings],
        [not questions[i].answerable for i in rest],
        signal=defaults.ABSTAIN_SIGNAL,
    )
    abstainer = Abstainer(signal, calibration.threshold, source="calibrated on the rest")
    print(
        f"{defaults.ABSTAIN_SIGNAL} threshold {calibration.threshold:.4f} "
        f"(F1 {calibration.f1:.3f} on {len(rest)} questions)",
        flush=True,
    )

    rows: dict[str, Any] = {}
    for spec in args.llm.split(","):
        chat = bench_chat(spec, scorer, args.threads)
        asker = Asker(retriever, make_generator(chat, scorer), k=K, abstainer=abstainer).load()
        chat.load()
        asker.run(questions[rest[0]].question)  # warm-up, untimed
        load_before = load_average()
        started = time.perf_counter()
        per_question: list[dict[str, Any]] = []
        outcomes: dict[str, int] = {"answered": 0, "refused": 0, "abstained": 0, "failed": 0}
        for n, i in enumerate(chosen, 1):
            runs: list[dict[str, float]] = []
            for _ in range(args.runs):
                begun = time.perf_counter()
                answer = asker.run(questions[i].question)
                wall = time.perf_counter() - begun
                t = answer.timings
                runs.append(
                    {
                        "retrieve": t.retrieve,
                        "abstain": t.abstain,
                        "generate": t.generate,
                        "verify": t.verify,
                        "total": t.total,
                        "wall": wall,
                    }
                )
            status = (
                "abstained" if answer.abstained else "refused" if answer.refused else "answered"
            )
            outcomes[status] += 1
            per_question.append(
                {stage: statistics.median(r[stage] for r in runs) for stage in (*STAGES, "wall")}
                | {"status": status, "answerable": float(questions[i].answerable)}
            )
            print(
                f"  {spec} {n}/{len(chosen)} {status} {per_question[-1]['total']:.2f} s", flush=True
            )
        asked = [q for q in per_question if q["status"] != "abstained"]
        summary: dict[str, Any] = {"asked": len(asked)}
        for stage in (*STAGES, "wall"):
            summary[stage] = {}
            for group, questions_ in (("all", per_question), ("asked", asked)):
                values = [q[stage] for q in questions_]
                summary[stage][group] = (
                    None
                    if not values
                    else {
                        "median": round(statistics.median(values), 4),
                        "p90": round(percentile(values, 90), 4),
                    }
                )
        rows[spec] = {
            "model": getattr(chat, "model_id", spec),
            "outcomes": outcomes,
            "stages": summary,
            "seconds": round(time.perf_counter() - started, 1),
            "load_average_before": load_before,
            "load_average_after": load_average(),
            "per_question": per_question,
        }
        print(spec, summary, outcomes, flush=True)

    figures = {
        "questions": len(chosen),
        "runs": args.runs,
        "mode": MODE,
        "k": K,
        "signal": defaults.ABSTAIN_SIGNAL,
        "threshold": calibration.threshold,
        "verifier": scorer.model_id,
        "threads": args.threads or None,
        "generators": rows,
    }
    if (args.runs != RUNS or args.per_class != PER_CLASS) and not args.name:
        print("a reduced run records nothing unless --name is given")
        return
    write_result(args.name or "ask_latency", figures, table(figures), command(argv))


def table(figures: dict[str, Any]) -> str:
    def cell(value: dict[str, float] | None) -> str:
        return "— | —" if value is None else f"{value['median']:.3f} | {value['p90']:.3f}"

    lines = [
        "| generator | stage | median s, all questions | p90 s, all | median s, questions "
        "asked | p90 s, asked |",
        "| --- | --- | ---: | ---: | ---: | ---: |",
    ]
    for spec, row in figures["generators"].items():
        for stage in STAGES:
            s = row["stages"][stage]
            lines.append(
                f"| {spec} ({row['model']}) | {stage} | {cell(s['all'])} | {cell(s['asked'])} |"
            )
    notes = [
        f"{spec}: {o['answered']} answered, {o['refused']} refused, {o['abstained']} "
        f"abstained; load average {row['load_average_before']} before, "
        f"{row['load_average_after']} after ({row['seconds']:.0f} s in all)"
        for spec, row in figures["generators"].items()
        for o in [row["outcomes"]]
    ]
    lines += [
        "",
        f"{figures['questions']} ClapNQ dev questions (half answerable, half not; seed {SEED}), "
        f"each asked {figures['runs']} times over the 600-passage index ({figures['mode']}, "
        f"k={figures['k']}) with the shipped verifier and abstention on {figures['signal']} "
        f"below {figures['threshold']:.4f} (calibrated on the other 580 questions). A question's "
        "stage time is the median of its runs; median and p90 are over questions, all of them "
        "or only those asked (not abstained on: abstained questions stop after the abstain "
        "stage). llama.cpp ran with its default thread count, as `veracity ask` runs it (half "
        "the CPUs: 1 here). The load averages below say how busy the 2 shared cores were.",
        "",
        *[f"- {note}" for note in notes],
    ]
    return "\n".join(lines)


if __name__ == "__main__":
    main()
