"""Repair without a model: attribution, preservation and harm on LFQA-Verification dev, and
what repair does with RGB's planted false answers.

    nice -n 5 .venv/bin/python bench/repair.py [--limit N] [--rgb-limit N]

**LFQA-Verification dev** (282 answers of six systems, 1860 sentences with human labels): every
answer (its annotated sentences joined by a space) is repaired against the documents of its
question (each a source text), under each policy that needs no model: ``flag`` (no repair, the
baseline), ``revise`` (value substitution only), ``delete`` and ``refuse`` (threshold 0.5).
Attribution is the share of claims the shipped verifier finds supported (nli + knowledge, rule
any, claim queries, k passages), before and after, over all claims (micro); a refused answer has
no claims after. Pres_Lev = max(0, 1 - Levenshtein / length), rapidfuzz, per answer, at
character and word level (mean). *Harm*: of the sentences people labelled supported (at least 2
of 3 annotators), how many the repair changed (an edit overlaps the sentence); for ``revise``
also how many of those the verifier finds unsupported after. Revision research: questions (the
default) and, for ``revise``, the claim's own words.

**RGB counterfactual** (``en_fact``, 100 questions): the false answer (the planted passage's
sentence, as in ``verify_rgb.py``) is repaired with the true passages among the sources, once
beside the planted ones (*conflict*) and once without them (*true passages only*): *corrected*
(the repaired text states the true answer, in any of RGB's spellings of it, and not the
false one),
*flagged* (unchanged, with a claim flagged for a person), *deleted*, *other edit*, *left*
(unchanged, nothing flagged). The true control answer is repaired with only the planted and
unrelated passages (*planted only*): *imports* counts repaired texts that now state the false
answer. k = 8 passages per query, as in ``verify_rgb.py``.

No chat model runs here: the SmolLM2 and endpoint rows of the issue's table, and the
regenerate baseline, are not measured by this script. Verifier scores are cached per
(passage, claim) pair across policies; seconds per answer therefore count each pair once, in
the first policy that needs it (the ``s/answer`` column is an order of magnitude, not a
per-policy cost).
"""

from __future__ import annotations

import argparse
import json
import shlex
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _report import write_result
from veracity.repair import RepairResult, make_repairer
from veracity.types import Chunk
from veracity.verifiers.registry import make_verifier
from veracity.verify.gather import source_chunks, source_documents
from verifier_data import DEFAULT_DATA
from verify_lfqa import Answer, CachedScorer, load_answers, sentence_starts
from verify_rgb import Case, answers, load_cases

#: (row name, policy, research query)
LFQA_RUNS = (("no repair (flag)", "flag", "question"), ("revise", "revise", "question"),
             ("revise (claim queries)", "revise", "claim"), ("delete", "delete", "question"),
             ("refuse", "refuse", "question"))
RGB_RUNS = (("revise", "revise", "question"), ("revise (claim queries)", "revise", "claim"),
            ("delete", "delete", "question"), ("flag", "flag", "question"))


def _sentence_of(starts: Sequence[int], position: int) -> int:
    return max(i for i, start in enumerate(starts) if start <= position)


def _changed_sentences(result: RepairResult, starts: Sequence[int], count: int) -> set[int]:
    ends = [*starts[1:], len(result.original) + 1]
    changed = set()
    for edit in result.edits:
        for i in range(count):
            if edit.original.start < ends[i] - 1 and starts[i] < max(edit.original.end,
                                                                   edit.original.start + 1):
                changed.add(i)
    return changed


def run_lfqa(answers_: list[Answer], chunks: dict[str, tuple[Chunk, ...]], scorer: CachedScorer,
             k: int) -> dict[str, Any]:
    rows: dict[str, Any] = {}
    for name, policy, query in LFQA_RUNS:
        totals = {"answers": 0, "claims_before": 0, "supported_before": 0, "claims_after": 0,
                  "supported_after": 0, "pres_chars": 0.0, "pres_words": 0.0, "edits": 0,
                  "changed_answers": 0, "refused": 0, "human_supported": 0,
                  "human_supported_changed": 0, "changed_then_unsupported": 0,
                  "human_unsupported": 0, "human_unsupported_changed": 0, "chat_calls": 0,
                  "failed": 0, "actions": {}}
        started = time.perf_counter()
        for answer in answers_:
            text, starts = sentence_starts(answer.sentences)
            repairer = make_repairer(scorer, sources=chunks[answer.question_id], k=k,
                                     policy=policy, query=query)  # type: ignore[arg-type]
            result = repairer.run(text)
            totals["answers"] += 1
            before, after = result.attribution_before, result.attribution_after
            totals["claims_before"] += before.claims
            totals["supported_before"] += before.supported
            totals["claims_after"] += after.claims
            totals["supported_after"] += after.supported
            totals["pres_chars"] += result.preservation.chars
            totals["pres_words"] += result.preservation.words
            totals["edits"] += len(result.edits)
            totals["changed_answers"] += result.changed
            totals["refused"] += result.refused
            totals["chat_calls"] += result.calls.get("chat", 0)
            totals["failed"] += result.failures
            for item in result.claims:
                totals["actions"][item.action] = totals["actions"].get(item.action, 0) + 1
            changed = _changed_sentences(result, starts, len(answer.sentences))
            unsupported_after = set()
            if result.after is not None and result.after.answer != result.original:
                for verdict in result.after.verdicts:
                    if verdict.label != "supported":
                        edit_at = verdict.claim.span.start
                        for edit in result.edits:
                            if edit.new.start <= edit_at < edit.new.end + 200:
                                unsupported_after.add(_sentence_of(
                                    starts, min(edit.original.start, len(text) - 1)))
            for i, not_supported in enumerate(answer.not_supported):
                key = "human_unsupported" if not_supported else "human_supported"
                totals[key] += 1
                if i in changed:
                    totals[f"{key}_changed"] += 1
                    if not not_supported and policy == "revise" and i in unsupported_after:
                        totals["changed_then_unsupported"] += 1
        totals["seconds"] = time.perf_counter() - started
        rows[name] = totals
    return rows


def true_variants(data: Path) -> dict[str, tuple[str, ...]]:
    """Every way RGB writes each question's true answer ("July 21, 2017", "21 July 2017", ...):
    ``verify_rgb.load_cases`` keeps only the first."""
    variants = {}
    with (data / "rgb_en_fact" / "en_fact.json").open(encoding="utf-8") as handle:
        for line in handle:
            row = json.loads(line)
            answer = row["answer"]
            flat = [str(a) for part in answer for a in (part if isinstance(part, list)
                                                       else [part])] \
                if isinstance(answer, list) else [str(answer)]
            variants[str(row["query"])] = tuple(flat)
    return variants


TRUE_VARIANTS: dict[str, tuple[str, ...]] = {}


def _outcome(result: RepairResult, case: Case) -> str:
    text, false = result.text.lower(), case.false_answer.lower()
    trues = TRUE_VARIANTS.get(case.query, (case.true_answer,))
    if not result.changed:
        return "flagged" if any(c.action in ("flagged", "rejected", "failed")
                                for c in result.claims) else "left"
    if any(true.lower() in text for true in trues) and false not in text:
        return "corrected"
    if any(edit.kind == "delete" for edit in result.edits) and false not in text:
        return "deleted"
    return "other edit"


def run_rgb(cases: list[Case], scorer: CachedScorer) -> dict[str, Any]:
    rows: dict[str, Any] = {}
    for name, policy, query in RGB_RUNS:
        counts = {"cases": 0, "corrected": 0, "flagged": 0, "deleted": 0, "other edit": 0,
                  "left": 0, "control_changed": 0, "imports": 0, "planted_only_changed": 0,
                  "true only": {"corrected": 0, "flagged": 0, "deleted": 0, "other edit": 0,
                                "left": 0}}
        started = time.perf_counter()
        for case in cases:
            false, true = answers(case)
            both = source_chunks(source_documents(texts=[*case.planted, *case.unrelated,
                                                         *case.original]))
            planted = source_chunks(source_documents(texts=[*case.planted, *case.unrelated]))
            true_only = source_chunks(source_documents(texts=[*case.original,
                                                              *case.unrelated]))
            repairer = make_repairer(scorer, sources=both, k=8, policy=policy,  # type: ignore[arg-type]
                                     query=query)  # type: ignore[arg-type]
            counts["cases"] += 1
            counts[_outcome(repairer.run(false), case)] += 1
            counts["control_changed"] += repairer.run(true).changed
            alone = make_repairer(scorer, sources=planted, k=8, policy=policy,  # type: ignore[arg-type]
                                  query=query).run(true)  # type: ignore[arg-type]
            counts["planted_only_changed"] += alone.changed
            fixed = make_repairer(scorer, sources=true_only, k=8, policy=policy,  # type: ignore[arg-type]
                                  query=query).run(false)  # type: ignore[arg-type]
            counts["true only"][_outcome(fixed, case)] += 1
            fake = case.false_answer.lower()
            counts["imports"] += fake in alone.text.lower() and fake not in true.lower()
        counts["seconds"] = time.perf_counter() - started
        rows[name] = counts
    return rows


def _share(part: float, whole: float) -> str:
    return "—" if not whole else f"{100 * part / whole:.1f}"


def lfqa_table(rows: dict[str, Any]) -> str:
    lines = ["| policy | attributed % before | after | Pres_Lev chars | Pres_Lev words | "
             "claims/answer before | after | refused | supported sentences changed (harm) | "
             "of which unsupported after | unsupported sentences changed | claims revised / "
             "edit rejected / flagged / deleted | chat calls/answer | s/answer |",
             "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for name, r in rows.items():
        n = r["answers"]
        lines.append(
            f"| {name} | {_share(r['supported_before'], r['claims_before'])} | "
            f"{_share(r['supported_after'], r['claims_after'])} | {r['pres_chars'] / n:.3f} | "
            f"{r['pres_words'] / n:.3f} | {r['claims_before'] / n:.2f} | "
            f"{r['claims_after'] / n:.2f} | {r['refused']} | "
            f"{r['human_supported_changed']} of {r['human_supported']} "
            f"({_share(r['human_supported_changed'], r['human_supported'])}%) | "
            f"{r['changed_then_unsupported']} | "
            f"{r['human_unsupported_changed']} of {r['human_unsupported']} | "
            + " / ".join(str(r["actions"].get(a, 0)) for a in ("revised", "rejected", "flagged",
                                                                "deleted"))
            + f" | {r['chat_calls'] / n:.1f} | {r['seconds'] / n:.2f} |")
    return "\n".join(lines)


def rgb_table(rows: dict[str, Any]) -> str:
    lines = ["| policy | false answer, conflict: corrected / flagged / deleted / other / left | "
             "false answer, true passages only: corrected / flagged / deleted / other / left | "
             "true controls changed (conflict) | true answers changed (planted only) | "
             "planted falsehood imported | s/case |", "|---|---|---|---|---|---|---|"]
    for name, r in rows.items():
        n = r["cases"]
        outcomes = ("corrected", "flagged", "deleted", "other edit", "left")
        lines.append(
            f"| {name} | {' / '.join(str(r[o]) for o in outcomes)} | "
            f"{' / '.join(str(r['true only'][o]) for o in outcomes)} | {r['control_changed']} | "
            f"{r['planted_only_changed']} | {r['imports']} | {r['seconds'] / n:.2f} |")
    lines.append("")
    lines.append(f"Counts of {n} questions.")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA)
    parser.add_argument("--limit", type=int, default=0, help="LFQA answers (0: all)")
    parser.add_argument("--rgb-limit", type=int, default=0, help="RGB questions (0: all)")
    parser.add_argument("-k", type=int, default=5, help="LFQA passages per query")
    parser.add_argument("--name", default="repair")
    args = parser.parse_args()
    command = "python bench/repair.py " + shlex.join(sys.argv[1:])
    scorer = CachedScorer(make_verifier("embedded")).load()

    found, docs = load_answers(args.data)
    found = found[:args.limit] if args.limit else found
    chunks = {qid: source_chunks(documents) for qid, documents in docs.items()}
    lfqa = run_lfqa(found, chunks, scorer, args.k)
    cases = load_cases(args.data)
    TRUE_VARIANTS.update(true_variants(args.data))
    cases = cases[:args.rgb_limit] if args.rgb_limit else cases
    rgb = run_rgb(cases, scorer)

    n_answers = len(found)
    sentences = sum(len(a.sentences) for a in found)
    table = "\n\n".join([
        f"**LFQA-Verification dev**: {n_answers} answers, {sentences} sentences; verifier "
        f"{scorer.model_id} {scorer.version}, nli + knowledge, tau 0.5, k {args.k}; no chat "
        f"model (revise substitutes values only). {scorer.pairs_scored} distinct pairs scored "
        "in all.",
        lfqa_table(lfqa),
        "**RGB counterfactual** (false answer repaired with the true passages present, beside "
        "the planted ones and without them; true answer repaired with only the planted ones), "
        "no chat model, k 8. Conflicting sources are flagged, never edited, by design:",
        rgb_table(rgb),
        "Not measured here: SmolLM2 and OpenAI-compatible edits, and regenerating the answer "
        "as a baseline (see the module docstring).",
    ])
    figures = {"lfqa": lfqa, "rgb": rgb, "k": args.k, "limit": args.limit,
               "rgb_limit": args.rgb_limit, "pairs_scored": scorer.pairs_scored,
               "verifier": scorer.model_id, "verifier_version": scorer.version}
    write_result(args.name, figures, table, command)
    print(table)


if __name__ == "__main__":
    main()
