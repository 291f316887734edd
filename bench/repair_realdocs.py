"""Repair on the real-document development suite: planted errors fixed or removed, true
sentences harmed.

    nice -n 10 .venv/bin/python bench/repair_realdocs.py [--policy revise,delete]

The suite is ``verify_realdocs``'s (``bench/data/realdocs``: third-party documents, answers
written by hand, one planted error in about two thirds of them). The documents are indexed with
``veracity index`` and its defaults; each answer is then repaired against that index as
``veracity repair --index IDX --question Q --policy P`` repairs it (``open_repairer`` with the
default ``RepairConfig`` and that policy, in this process so the models load once), without a
chat model: ``revise`` substitutes values the evidence states, ``delete`` removes claims the
evidence does not support.

Each gold sentence is read through the claims whose spans overlap it and their actions
(``deleted`` before ``revised`` before ``flagged`` before ``kept``; ``rejected``, ``failed``,
``refused`` are reported as they are):

- a planted sentence is *restored* when its revision makes it the true sentence it was made
  from (whitespace aside), *revised otherwise* when revised to something else (a revision is
  kept only when the verifier finds the new text supported), *removed* when deleted, *flagged*
  when only flagged, *missed* when kept; *fixed or removed* counts the first three;
- a true sentence is *harmed* when it was revised or deleted (the goal: none), *flagged* when
  only flagged.

Development data: nothing may be tuned to it alone.
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
from verify_realdocs import DATA, KINDS, Answer, Sentence, index_docs, load_answers

POLICIES = ("revise", "delete")
#: How a sentence's claims' actions are read, the strongest first.
ORDER = ("deleted", "revised", "rejected", "failed", "refused", "flagged", "kept")


def _squeeze(text: str) -> str:
    return " ".join(text.split())


def sentence_action(sentence: Sentence, claims: Sequence[Mapping[str, Any]]) -> str:
    """The strongest action on the claims that overlap ``sentence`` ("none" without one)."""
    actions = {
        c["action"]
        for c in claims
        if c["claim"]["span"][0] < sentence.end and sentence.start < c["claim"]["span"][1]
    }
    return next((a for a in ORDER if a in actions), "none")


def revised_text(sentence: Sentence, edits: Sequence[Mapping[str, Any]]) -> str:
    """The sentence with the edits inside it applied (spans in the original answer)."""
    text = sentence.text
    inside = [
        e for e in edits if sentence.start <= e["original"][0] and e["original"][1] <= sentence.end
    ]
    for edit in sorted(inside, key=lambda e: e["original"][0], reverse=True):
        start, end = edit["original"][0] - sentence.start, edit["original"][1] - sentence.start
        text = text[:start] + edit["after"] + text[end:]
    return text


def outcome(sentence: Sentence, result: Mapping[str, Any]) -> str:
    """What the repair did to one gold sentence (see the module docstring)."""
    action = sentence_action(sentence, result["claims"])
    if sentence.label == "true":
        return {"revised": "harmed", "deleted": "harmed"}.get(action, action)
    if action == "revised":
        fixed = sentence.original is not None and _squeeze(
            revised_text(sentence, result["edits"])
        ) == _squeeze(sentence.original)
        return "restored" if fixed else "revised otherwise"
    return {"deleted": "removed", "kept": "missed", "none": "missed"}.get(action, action)


def score(answers: Sequence[Answer], results: Mapping[str, Mapping[str, Any]]) -> dict[str, Any]:
    planted: Counter[str] = Counter()
    by_kind: dict[str, Counter[str]] = {kind: Counter() for kind in KINDS}
    true: Counter[str] = Counter()
    rows = []
    for answer in answers:
        result = results[answer.id]
        for i, sentence in enumerate(answer.sentences):
            found = outcome(sentence, result)
            rows.append({"id": answer.id, "sentence": i, "label": sentence.label, "outcome": found})
            if sentence.label == "planted":
                planted[found] += 1
                by_kind[sentence.kind or ""][found] += 1
            else:
                true[found] += 1
    planted_n, true_n = sum(planted.values()), sum(true.values())
    fixed_or_removed = planted["restored"] + planted["revised otherwise"] + planted["removed"]
    return {
        "planted": {
            "sentences": planted_n,
            "outcomes": dict(planted),
            "fixed_or_removed": fixed_or_removed,
            "rate": fixed_or_removed / planted_n if planted_n else None,
            "by_kind": {kind: dict(counts) for kind, counts in by_kind.items()},
        },
        "true": {
            "sentences": true_n,
            "outcomes": dict(true),
            "harmed": true["harmed"],
            "flagged": true["flagged"],
        },
        "answers_refused": sum(bool(results[a.id].get("refused")) for a in answers),
        "sentences": rows,
    }


def repair_all(answers: Sequence[Answer], index: Path, policy: str) -> tuple[dict[str, Any], float]:
    """Each answer repaired against ``index`` with ``policy``; the results by answer id and
    the seconds taken."""
    from veracity.config import RepairConfig
    from veracity.models import Models
    from veracity.repair import open_repairer

    config = RepairConfig().with_options(index=index, policy=policy)
    repairer = open_repairer(config, Models())
    began = time.monotonic()
    results = {}
    for n, answer in enumerate(answers, 1):
        results[answer.id] = repairer.run(answer.answer, question=answer.question).to_dict()
        print(f"{policy}: {n}/{len(answers)}", file=sys.stderr, end="\r")
    print(file=sys.stderr)
    return results, time.monotonic() - began


def _pct(part: int, whole: int) -> str:
    return f"{part} / {whole} ({100 * part / whole:.0f}%)" if whole else "-"


def table_md(figures: Mapping[str, Any]) -> str:
    lines = [
        "| policy | planted restored | revised otherwise | removed | flagged | edit rejected "
        "| missed | fixed or removed | true harmed | true flagged | s per answer |",
        "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
    ]
    for policy, run in figures["policies"].items():
        planted, true = run["scores"]["planted"], run["scores"]["true"]
        out = planted["outcomes"]
        lines.append(
            f"| {policy} | {out.get('restored', 0)} | {out.get('revised otherwise', 0)} "
            f"| {out.get('removed', 0)} | {out.get('flagged', 0)} | {out.get('rejected', 0)} "
            f"| {out.get('missed', 0)} "
            f"| {_pct(planted['fixed_or_removed'], planted['sentences'])} "
            f"| {_pct(true['harmed'], true['sentences'])} "
            f"| {_pct(true['flagged'], true['sentences'])} | {run['seconds_per_answer']:.1f} |"
        )
    lines += [
        "",
        "By kind (fixed or removed / planted):",
        "",
        "| policy | " + " | ".join(KINDS) + " |",
        "| --- | " + " | ".join("---:" for _ in KINDS) + " |",
    ]
    for policy, run in figures["policies"].items():
        kinds = run["scores"]["planted"]["by_kind"]
        cells = [
            f"{k.get('restored', 0) + k.get('revised otherwise', 0) + k.get('removed', 0)}"
            f" / {sum(k.values())}"
            for k in (kinds[kind] for kind in KINDS)
        ]
        lines.append(f"| {policy} | " + " | ".join(cells) + " |")
    lines += [
        "",
        f"{figures['answers']} answers over {figures['documents']} documents, indexed with "
        "`veracity index` defaults; each answer repaired against the index with the default "
        "RepairConfig and the policy, no chat model. A planted sentence is *restored* when "
        "its revision is the true sentence it was made from, *revised otherwise* when the "
        "verifier accepted another revision; a true sentence is *harmed* when revised or "
        "deleted. Development data (the decision is fit with it): in-sample.",
    ]
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0] if __doc__ else None)
    parser.add_argument("--data", type=Path, default=DATA, help="the suite's folder")
    parser.add_argument(
        "--policy", default=",".join(POLICIES), help=f"comma-separated: {', '.join(POLICIES)}"
    )
    parser.add_argument("--out", default="repair_realdocs", help="results/NAME.json")
    parser.add_argument(
        "--limit", type=int, default=None, help="the first N answers only; nothing is written"
    )
    add_allow_dirty(parser)
    args = parser.parse_args(argv)
    policies = [p for p in args.policy.split(",") if p]
    unknown = [p for p in policies if p not in POLICIES]
    if unknown or not policies:
        parser.error(f"--policy takes {', '.join(POLICIES)}, got {args.policy!r}")
    docs = args.data / "docs"
    answers = load_answers(args.data / "answers.jsonl", docs)[: args.limit]
    figures: dict[str, Any] = {
        "answers": len(answers),
        "documents": len(list(docs.iterdir())),
        "policies": {},
    }
    with tempfile.TemporaryDirectory(prefix="veracity-repair-realdocs-") as scratch:
        index, index_code, _, _ = index_docs(docs, Path(scratch))
        figures["index_exit"] = index_code
        for policy in policies:
            results, seconds = repair_all(answers, index, policy)
            figures["policies"][policy] = {
                "seconds_per_answer": seconds / max(len(answers), 1),
                "scores": score(answers, results),
            }
    markdown = table_md(figures)
    command = "python bench/repair_realdocs.py " + shlex.join(
        sys.argv[1:] if argv is None else argv
    )
    if args.limit is None:
        write_result(args.out, figures, markdown, command.strip(), allow_dirty=args.allow_dirty)
    print(markdown)


if __name__ == "__main__":
    main()
