"""ask's marks on the real-document development suite, with and without the knowledge rules.

    nice -n 10 .venv/bin/python bench/ask_realdocs.py

The suite is ``verify_realdocs``'s (``bench/data/realdocs``). The documents are indexed with
``veracity index`` and its defaults; for each answer, ask's search (``open_search`` with the
default ``SearchConfig``, no abstention) gives the ``k`` blocks for its question, and the answer
is checked as ``veracity ask`` checks a model's reply: ``citation_checker`` (the shipped
verifier, the one decision, the knowledge rules unless ``--no-knowledge`` is what is measured).
The suite's answers cite nothing, so each factual sentence is scored against every block and
marked ``citation_attached`` when the decision finds it supported by one, else ``uncited``;
ask shows both, and a reader is warned of the second (and of ``contradicted`` and
``unsupported``, which a cited sentence gets).

A gold sentence is *flagged* when its mark warns the reader (``SentenceCheck.flagged``).
Figures per setting: planted errors flagged by kind, true sentences flagged, precision of the
flags. Development data: nothing may be tuned to it alone.
"""

from __future__ import annotations

import argparse
import shlex
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _report import add_allow_dirty, write_result
from verify_realdocs import DATA, KINDS, Answer, index_docs, load_answers

SETTINGS = {"rules": True, "no rules": False}


def marks(answers: Sequence[Answer], index: Path, k: int, knowledge: bool) -> dict[str, Any]:
    """Each answer checked over its question's ``k`` blocks; the flagged gold sentences."""
    from veracity import defaults
    from veracity.config import SearchConfig
    from veracity.generate.check import citation_checker
    from veracity.models import Models
    from veracity.retrieve import open_search

    models = Models()
    search = open_search(SearchConfig().with_options(index=index, abstain=False), models)
    checker = citation_checker(models.verifier(defaults.VERIFIER), knowledge=knowledge)
    planted: dict[str, Counter[str]] = {kind: Counter() for kind in KINDS}
    true: Counter[str] = Counter()
    began = time.monotonic()
    for n, answer in enumerate(answers, 1):
        hits = search.run(answer.question, k=k).hits
        checked = checker.run(answer.answer, hits)
        for sentence in answer.sentences:
            over = [
                s
                for s in checked.sentences
                if s.span.start < sentence.end and sentence.start < s.span.end
            ]
            flagged = any(s.flagged for s in over)
            if sentence.label == "planted":
                planted[sentence.kind or ""]["flagged" if flagged else "missed"] += 1
            else:
                true["flagged" if flagged else "kept"] += 1
        print(f"{n}/{len(answers)}", file=sys.stderr, end="\r")
    print(file=sys.stderr)
    caught = sum(c["flagged"] for c in planted.values())
    total = sum(sum(c.values()) for c in planted.values())
    return {
        "planted": {kind: dict(c) for kind, c in planted.items()},
        "caught": caught,
        "planted_sentences": total,
        "true_flagged": true["flagged"],
        "true_sentences": sum(true.values()),
        "precision": caught / (caught + true["flagged"]) if caught + true["flagged"] else None,
        "seconds_per_answer": (time.monotonic() - began) / max(len(answers), 1),
    }


def _pct(part: int, whole: int) -> str:
    return f"{part} / {whole} ({100 * part / whole:.0f}%)" if whole else "-"


def table_md(figures: Mapping[str, Any]) -> str:
    lines = [
        "| setting | planted flagged | true flagged | precision of flags | "
        + " | ".join(KINDS)
        + " | s per answer |",
        "| --- | ---: | ---: | ---: | " + " | ".join("---:" for _ in KINDS) + " | ---: |",
    ]
    for name, run in figures["settings"].items():
        kinds = [
            f"{run['planted'][kind].get('flagged', 0)}/{sum(run['planted'][kind].values())}"
            for kind in KINDS
        ]
        precision = "-" if run["precision"] is None else f"{100 * run['precision']:.0f}%"
        lines.append(
            f"| {name} | {_pct(run['caught'], run['planted_sentences'])} "
            f"| {_pct(run['true_flagged'], run['true_sentences'])} | {precision} | "
            + " | ".join(kinds)
            + f" | {run['seconds_per_answer']:.2f} |"
        )
    lines += [
        "",
        f"{figures['answers']} answers of verify_realdocs' suite, each checked as `veracity ask` "
        f"checks a reply over the {figures['k']} blocks its question retrieves (default "
        "search, no abstention): the answers cite nothing, so a sentence is marked "
        "`citation_attached` when the decision finds a block that supports it, else `uncited`; "
        "a gold sentence is flagged when its mark warns the reader. *rules*: the shipped "
        "knowledge rules weigh in (ask's default); *no rules*: `--no-knowledge`. In-sample "
        "for the decision (fit with the suite's claims among its sets).",
    ]
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0] if __doc__ else None)
    parser.add_argument("--data", type=Path, default=DATA, help="the suite's folder")
    parser.add_argument("-k", type=int, default=5, help="blocks per question (ask's default)")
    parser.add_argument("--out", default="ask_realdocs", help="results/NAME.json")
    parser.add_argument(
        "--limit", type=int, default=None, help="the first N answers only; nothing is written"
    )
    add_allow_dirty(parser)
    args = parser.parse_args(argv)
    docs = args.data / "docs"
    answers = load_answers(args.data / "answers.jsonl", docs)[: args.limit]
    figures: dict[str, Any] = {"answers": len(answers), "k": args.k, "settings": {}}
    with tempfile.TemporaryDirectory(prefix="veracity-ask-realdocs-") as scratch:
        index, figures["index_exit"], _, _ = index_docs(docs, Path(scratch))
        for name, knowledge in SETTINGS.items():
            figures["settings"][name] = marks(answers, index, args.k, knowledge)
    markdown = table_md(figures)
    command = "python bench/ask_realdocs.py " + shlex.join(sys.argv[1:] if argv is None else argv)
    if args.limit is None:
        write_result(args.out, figures, markdown, command.strip(), allow_dirty=args.allow_dirty)
    print(markdown)


if __name__ == "__main__":
    main()
