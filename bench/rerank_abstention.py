"""Is the reranker's top P(relevant) (``top_rerank``) a better abstention signal than
``top_cosine``? Measured on ClapNQ dev.

Command (from the repository root)::

    nice -n 5 .venv/bin/python bench/rerank_abstention.py [--reranker NAME] [--depth 20]

The setting of ``bench/abstention_default.py`` (whose loading this reuses): the 600 ClapNQ dev
questions (300 answerable, 300 unanswerable), their 600 gold passages as the corpus, hybrid
search with k=5; the same search reranked at ``--depth`` gives ``top_rerank``. Reported per
signal: ROC-AUC for telling unanswerable from answerable, the best abstention F1 on all 600, and
held-out F1 (threshold chosen on one half, measured on the other).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

BENCH = Path(__file__).resolve().parent
sys.path.insert(0, str(BENCH))

from _report import write_result  # noqa: E402
from ask_abstention import (  # noqa: E402
    MODE,
    K,
    clapnq_index,
    command,
    cross,
    load_clapnq,
    split_halves,
)
from veracity.evaluate.classification import roc_auc  # noqa: E402
from veracity.retrieve import calibrate  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--reranker", default="embedded")
    parser.add_argument("--depth", type=int, default=20)
    parser.add_argument("--name", help="write bench/results/NAME.json and its README section")
    args = parser.parse_args()
    from veracity.models.relevance import make_reranker
    from veracity.retrieve.open import open_retriever
    from veracity.retrieve.rerank import RerankingRetriever

    questions = load_clapnq()
    should = [not q.answerable for q in questions]
    a, b = split_halves(questions)
    retriever = open_retriever(clapnq_index(questions), mode=MODE).load()
    reranker = make_reranker(args.reranker).load()
    reranked = RerankingRetriever(retriever, reranker, depth=args.depth).load()
    results = [reranked.run(q.question, k=K) for q in questions]
    values = {
        "top_cosine": [r.confidence.top_cosine for r in results],
        "top_rerank": [r.confidence.top_rerank for r in results],
    }
    rows: dict[str, Any] = {}
    for name, column in values.items():
        if any(v is None for v in column):
            raise SystemExit(f"{name} is missing for some questions")
        numbers = [float(v) for v in column if v is not None]
        chosen = calibrate(numbers, should, signal=name)
        rows[name] = {
            "roc_auc": round(roc_auc([-v for v in numbers], [int(s) for s in should]), 4),
            "threshold": chosen.threshold,
            "f1": round(chosen.f1, 4),
            "held_out": cross(numbers, should, a, b, name),
        }
        print(name, rows[name], flush=True)
    figures = {
        "questions": len(questions),
        "mode": MODE,
        "k": K,
        "depth": args.depth,
        "reranker": reranker.model_id,
        "reranker_version": getattr(reranker, "version", None),
        "signals": rows,
    }
    lines = [
        "| signal | ROC-AUC | best F1 (all 600) | threshold | held-out F1 A->B / B->A |",
        "| --- | ---: | ---: | ---: | ---: |",
    ]
    for name, row in rows.items():
        held = row["held_out"]
        lines.append(
            f"| {name} | {row['roc_auc']:.3f} | {row['f1']:.3f} | "
            f"{row['threshold']:.4f} | {held['A->B']['f1']:.3f} / "
            f"{held['B->A']['f1']:.3f} |"
        )
    lines += [
        "",
        f"ClapNQ dev, {len(questions)} questions, hybrid search reranked at depth "
        f"{args.depth} by {reranker.model_id}, k={K}. top_cosine is the same search's "
        "best cosine over the whole index.",
    ]
    if args.name:
        text = command(sys.argv[1:]).replace("ask_abstention.py", "rerank_abstention.py")
        write_result(args.name, figures, "\n".join(lines), text)


if __name__ == "__main__":
    main()
