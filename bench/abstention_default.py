"""The shipped default abstention thresholds: chosen on ClapNQ dev, checked on the sample corpus.

Command (from the repository root)::

    nice -n 5 .venv/bin/python bench/abstention_default.py

An index that was never calibrated (or whose content changed since) abstains with a default
threshold instead of never abstaining. This script chooses it: for each signal that needs no
corpus statistics of its own (``top_cosine``, the best query-passage cosine, for searches with
dense vectors; ``top_support``, the verifier's P(supported) of the question's key content, for
any search), ``veracity.retrieve.calibrate`` picks the threshold of best abstention F1 on all
600 ClapNQ dev questions (300 answerable, 300 unanswerable; their 600 gold passages are the
corpus, as in ``ask_abstention.py``, searched hybrid with k=5) among those that still answer
``defaults.ABSTAIN_DEFAULT_MIN_ANSWERED`` (90%) of the answerable ones: an uncalibrated default
should rather answer than withhold (the unconstrained best-F1 threshold answered 238 of 300 and
abstained on the README's example). The held-out figures come from the same two halves as
``ask_abstention`` (threshold chosen on one half under the same rule, measured on the other).
As a check on another corpus, the thresholds are applied unchanged to the sample corpus and its
dev questions (``examples/sample_corpus``, ``examples/questions.jsonl``), and to the questions
the docs (once the README) and ``make demo`` ask of it (:data:`README_QUESTIONS`); neither is
used to choose.

Writes ``src/veracity/retrieve/abstention_default.json`` (read by
``veracity.retrieve.default_threshold``), ``bench/results/abstention_default.json`` and its
section of ``bench/README.md``.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

BENCH = Path(__file__).resolve().parent
sys.path.insert(0, str(BENCH))

from _report import REPO, add_allow_dirty, git_commit, write_result  # noqa: E402
from ask_abstention import (  # noqa: E402
    CACHE,
    MODE,
    K,
    clapnq_index,
    command,
    cross,
    data_dir,
    load_clapnq,
    measure,
    split_halves,
)
from veracity import defaults  # noqa: E402
from veracity.evaluate.classification import roc_auc  # noqa: E402
from veracity.retrieve import calibrate, make_signal  # noqa: E402

SIGNALS = ("top_cosine", "top_support")
#: Questions the Python example of docs/guide/ask.md (once the README's) and ``make demo`` ask of
#: the sample corpus, answerable.
README_QUESTIONS = (
    "When was the movable-frame hive patented?",
    "How many days does a queen take to develop from egg to adult?",
    "When was the first Asian hornet nest found in Britain?",
)
TARGET = REPO / "src" / "veracity" / "retrieve" / "abstention_default.json"


def sample_index(cache: Path = CACHE) -> Path:
    """The sample corpus indexed with BM25 and dense vectors (cached)."""
    from veracity.corpus.indexer import Indexer
    from veracity.retrieve.bm25 import BM25Builder
    from veracity.retrieve.dense import DenseBuilder

    index = cache / "sample-index"
    Indexer(builders=[BM25Builder(), DenseBuilder()]).run(
        [REPO / "examples" / "sample_corpus"], index
    )
    return index


def sample_questions() -> list[tuple[str, bool]]:
    rows = []
    for line in (REPO / "examples" / "questions.jsonl").read_text(encoding="utf-8").splitlines():
        if line.strip():
            row = json.loads(line)
            rows.append((row["question"], bool(row["answerable"])))
    return rows


def signal_values(name: str, scorer: Any, results: Sequence[Any]) -> list[float]:
    readings = make_signal(name, scorer=scorer if name == "top_support" else None).run(results)
    failed = [r.error for r in readings if r.value is None]
    if failed:
        raise SystemExit(f"{name} failed on {len(failed)} questions, e.g. {failed[0]}")
    return [float(r.value) for r in readings if r.value is not None]


def main(argv: Sequence[str] | None = None) -> None:
    argv = list(sys.argv[1:] if argv is None else argv)
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n")[0])
    add_allow_dirty(parser)
    args = parser.parse_args(argv)
    from veracity.models.pairs.registry import make_verifier
    from veracity.retrieve.open import open_retriever

    questions = load_clapnq()
    should = [not q.answerable for q in questions]
    a, b = split_halves(questions)
    retriever = open_retriever(clapnq_index(questions), mode=MODE).load()
    results = [retriever.run(q.question, k=K) for q in questions]
    sample = sample_questions()
    sample_retriever = open_retriever(sample_index(), mode=MODE).load()
    sample_results = [sample_retriever.run(question, k=K) for question, _ in sample]
    sample_should = [not answerable for _, answerable in sample]
    readme_results = [sample_retriever.run(question, k=K) for question in README_QUESTIONS]
    scorer = make_verifier("embedded").load()
    floor = defaults.ABSTAIN_DEFAULT_MIN_ANSWERED

    rows: dict[str, Any] = {}
    shipped: dict[str, Any] = {}
    for name in SIGNALS:
        values = signal_values(name, scorer, results)
        chosen = calibrate(values, should, signal=name, min_answered=floor)
        best_f1 = calibrate(values, should, signal=name)
        held_out = cross(values, should, a, b, name, floor)
        on_sample = measure(
            chosen.threshold, signal_values(name, scorer, sample_results), sample_should
        )
        readme = signal_values(name, scorer, readme_results)
        rows[name] = {
            "threshold": chosen.threshold,
            "precision": round(chosen.precision, 4),
            "recall": round(chosen.recall, 4),
            "f1": round(chosen.f1, 4),
            "answered": chosen.answered,
            "answerable": chosen.answerable,
            "roc_auc": round(roc_auc([-v for v in values], [int(s) for s in should]), 4),
            "held_out": held_out,
            "sample_corpus": on_sample,
            "best_f1": {
                "threshold": best_f1.threshold,
                "f1": round(best_f1.f1, 4),
                "answered": best_f1.answered,
            },
            "readme": [
                {
                    "question": q,
                    "value": round(v, 4),
                    "answered": v >= chosen.threshold,
                    "answered_at_best_f1": v >= best_f1.threshold,
                }
                for q, v in zip(README_QUESTIONS, readme, strict=True)
            ],
        }
        shipped[name] = {
            "threshold": chosen.threshold,
            "f1": round(chosen.f1, 4),
            "precision": round(chosen.precision, 4),
            "recall": round(chosen.recall, 4),
            "answered": chosen.answered,
            "answerable": chosen.answerable,
        }
        print(name, rows[name], flush=True)
    figures = {
        "data": str(data_dir("clapnq")),
        "questions": len(questions),
        "mode": MODE,
        "min_answered": floor,
        "k": K,
        "verifier": scorer.model_id,
        "verifier_version": str(getattr(scorer, "version", "")),
        "sample_questions": len(sample),
        "signals": rows,
    }
    text = command(argv).replace("ask_abstention.py", "abstention_default.py")
    write_result("abstention_default", figures, table(figures), text, allow_dirty=args.allow_dirty)
    TARGET.write_text(
        json.dumps(
            {  # after write_result, whose commit must not see it changed
                "format_version": 1,
                "data": "ClapNQ dev: 300 answerable and 300 unanswerable questions, their 600 gold "
                "passages as the corpus, hybrid search, k=5",
                "rule": f"best abstention F1 among thresholds answering at least {floor:.0%} "
                "of the answerable questions",
                "command": text,
                "commit": git_commit(),
                "verifier": figures["verifier"],
                "verifier_version": figures["verifier_version"],
                "signals": shipped,
            },
            indent=2,
        )
        + "\n",
        encoding="utf-8",
    )


def table(figures: dict[str, Any]) -> str:
    lines = [
        "| signal | threshold | F1 (all 600) | precision | recall | answerable answered "
        "| ROC-AUC | held-out F1 A->B / B->A | held-out answerable answered A->B / B->A "
        "| sample corpus F1 | sample precision | sample recall | sample answerable answered "
        "| README questions answered | best-F1 threshold (F1, answered) "
        "| README questions answered at best F1 |",
        "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: "
        "| ---: | ---: | ---: | ---: |",
    ]
    for name, row in figures["signals"].items():
        held = row["held_out"]
        s = row["sample_corpus"]
        best = row["best_f1"]
        readme = row["readme"]
        lines.append(
            f"| {name} | {row['threshold']:.4g} | {row['f1']:.3f} | {row['precision']:.3f} "
            f"| {row['recall']:.3f} | {row['answered']} of {row['answerable']} "
            f"| {row['roc_auc']:.3f} | {held['A->B']['f1']:.3f} / {held['B->A']['f1']:.3f} "
            f"| {held['A->B']['answerable_answered']} of {held['A->B']['answerable']} / "
            f"{held['B->A']['answerable_answered']} of {held['B->A']['answerable']} "
            f"| {s['f1']:.3f} | {s['precision']:.3f} | {s['recall']:.3f} "
            f"| {s['answerable_answered']} of {s['answerable']} "
            f"| {sum(r['answered'] for r in readme)} of {len(readme)} "
            f"| {best['threshold']:.4g} ({best['f1']:.3f}, {best['answered']}) "
            f"| {sum(r['answered_at_best_f1'] for r in readme)} of {len(readme)} |"
        )
    lines += [
        "",
        "README questions and their values: "
        + "; ".join(
            f"{r['question']} {name} {r['value']}"
            for name, row in figures["signals"].items()
            for r in row["readme"]
        )
        + ".",
    ]
    lines += [
        "",
        f"Thresholds chosen on all {figures['questions']} ClapNQ dev questions "
        f"({figures['mode']} search, k={figures['k']}, verifier {figures['verifier']} "
        f"{figures['verifier_version']}) as the best abstention F1 among those that "
        f"answer at least {figures['min_answered']:.0%} of the answerable ones, and "
        "shipped in "
        "`src/veracity/retrieve/abstention_default.json`; an index without a calibration "
        "of its own abstains with them and says so. The sample-corpus columns apply the "
        f"same thresholds unchanged to the {figures['sample_questions']} questions of "
        "`examples/questions.jsonl` on the sample corpus: how far a threshold chosen on "
        "one corpus carries to another (`veracity calibrate` fits one to yours).",
    ]
    return "\n".join(lines)


if __name__ == "__main__":
    main()
