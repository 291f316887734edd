"""Repair on LFQA-Verification dev and RGB counterfactual: the policies side by side, with no
model and with chat models, and regenerating the answer with the same model as a baseline.

    nice -n 5 .venv/bin/python bench/repair.py [--limit N] [--rgb-limit N]
    nice -n 5 .venv/bin/python bench/repair.py -k 3 --per-system 8 --llm llamacpp \
        [--llm openai:http://127.0.0.1:8081/v1=2 --model smollm2]

**LFQA-Verification dev** (282 answers of six systems, 1860 sentences with human labels): every
answer (its annotated sentences joined by a space) is repaired against the documents of its
question (each a source text), under each policy: ``flag`` (no repair, the baseline),
``revise`` (value substitution, and with a chat model its edit), ``delete`` and ``refuse``
(threshold 0.5). Attribution is the share of claims the shipped verifier finds supported (nli +
knowledge, rule any, claim queries, k passages), before and after, over all claims (micro); a
refused answer has no claims after. *auto-AIS* judges the output's claims against only its
attribution report (at most five passages), as RARR does (there with a T5 NLI model, per
sentence). Pres_Lev = max(0, 1 - Levenshtein / length), rapidfuzz, per answer, at character and
word level (mean). *Harm*: of the sentences people labelled supported (at least 2 of 3
annotators), how many the repair changed (an edit overlaps the sentence), and how many of those
carry a claim the verifier finds unsupported after an edit (deletions excepted). Revision
research: questions (the default; up to 3 per claim) and the claim's own words. An LFQA
question has 2 to 7 source passages: with no more than k of them every passage is evidence and
no query is made, so the query choice only matters for questions with more than k.

With ``--llm`` (repeatable; ``SPEC=N`` runs that model on the first N answers per system) the
table covers a fixed subset, the first ``--per-system`` answers of each system (the same
questions for all six): the rows above with no model, then per chat model ``revise`` (its
research questions, prompt ``repair_questions_v1``, and its edits, ``repair_edit_v1``),
``revise`` with claim queries (edits only), ``delete`` (its questions), and *regenerate*: the
model answers the question again from the k passages BM25 finds for it (prompt
``grounded_v1``, at most 256 tokens), and the new answer, ``[n]`` markers removed, is measured
the same way (a labelled sentence counts as changed when the new answer does not contain it;
*of which unsupported* has no sentence mapping there: "—"). ``refuse`` makes no model call
and is not repeated. Chat calls are cached by content in ``.cache/bench/repair-chat-*.jsonl``
(``_chat_cache.py``): a re-run makes no call, an interrupted run resumes, and *model s/answer*
adds the recorded time of each call when it was made.

**RGB counterfactual** (``en_fact``, 100 questions; no ``--llm`` only): the false answer (the
planted passage's sentence, as in ``verify_rgb.py``) is repaired with the true passages among
the sources, once beside the planted ones (*conflict*) and once without them (*true passages
only*): *corrected* (the repaired text states the true answer, in any of RGB's spellings of it,
and not the false one), *flagged* (unchanged, with a claim flagged for a person), *deleted*,
*other edit*, *left* (unchanged, nothing flagged). The true control answer is repaired with only
the planted and unrelated passages (*planted only*): *imports* counts repaired texts that now
state the false answer. k = 8 passages per query, as in ``verify_rgb.py``.

Verifier scores are cached per (passage, claim) pair across policies; seconds per answer
therefore count each pair once, in the first policy that needs it (the ``s/answer`` column is an
order of magnitude, not a per-policy cost).
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

from _chat_cache import CachedChat
from _report import REPO, write_result
from veracity.config import RepairConfig, VerifyConfig
from veracity.errors import GenerationError
from veracity.generate.grounded import GroundedGenerator
from veracity.models.chat.base import ChatModel
from veracity.models.chat.registry import make_chat
from veracity.models.pairs.registry import make_verifier
from veracity.repair import RepairResult, make_repairer
from veracity.retrieve.memory import MemoryBM25
from veracity.text.citations import find_markers
from veracity.text.refusal import detect_refusal
from veracity.types import Chunk, EvidenceJudgement, Report
from veracity.verify.gather import source_chunks, source_documents
from veracity.verify.pipeline import make_answer_verifier
from verifier_data import DEFAULT_DATA
from verify_lfqa import Answer, CachedScorer, load_answers, sentence_starts
from verify_rgb import Case, answers, load_cases

#: (row name, policy, research query): the rows without a model.
LFQA_RUNS = (
    ("no repair (flag)", "flag", "question"),
    ("revise", "revise", "question"),
    ("revise without quotation", "revise-noquote", "question"),
    ("revise (claim queries)", "revise", "claim"),
    ("delete", "delete", "question"),
    ("refuse", "refuse", "question"),
)
#: The rows of each chat model: (row name, policy or "regenerate", research query).
CHAT_RUNS = (
    ("revise", "revise", "question"),
    ("revise (claim queries)", "revise", "claim"),
    ("delete", "delete", "question"),
    ("regenerate", "regenerate", ""),
)
RGB_RUNS = (
    ("revise", "revise", "question"),
    ("revise (claim queries)", "revise", "claim"),
    ("delete", "delete", "question"),
    ("flag", "flag", "question"),
)


def _sentence_of(starts: Sequence[int], position: int) -> int:
    return max(i for i, start in enumerate(starts) if start <= position)


def _changed_sentences(result: RepairResult, starts: Sequence[int], count: int) -> set[int]:
    ends = [*starts[1:], len(result.original) + 1]
    changed = set()
    for edit in result.edits:
        for i in range(count):
            if edit.original.start < ends[i] - 1 and starts[i] < max(
                edit.original.end, edit.original.start + 1
            ):
                changed.add(i)
    return changed


def _blank() -> dict[str, Any]:
    return {
        "answers": 0,
        "claims_before": 0,
        "supported_before": 0,
        "claims_after": 0,
        "supported_after": 0,
        "ais_claims": 0,
        "ais_supported": 0,
        "pres_chars": 0.0,
        "pres_words": 0.0,
        "edits": 0,
        "changed_answers": 0,
        "refused": 0,
        "human_supported": 0,
        "human_supported_changed": 0,
        "changed_then_unsupported": 0,
        "human_unsupported": 0,
        "human_unsupported_changed": 0,
        "chat_calls": 0,
        "chat_seconds": 0.0,
        "failed": 0,
        "actions": {},
        "editor": {},
        "claims_researched": 0,
        "questions": 0,
        "question_replies_unreadable": 0,
    }


def auto_ais(
    scorer: CachedScorer,
    text: str,
    report: Sequence[EvidenceJudgement],
    chunks: Sequence[Chunk],
    claims: int,
    k: int,
) -> tuple[int, int]:
    """(claims, supported) of ``text`` judged against only its attribution report's passages
    (RARR's auto-AIS, at claim level, by the shipped verifier)."""
    by_id = {chunk.id: chunk for chunk in chunks}
    passages = [by_id[j.chunk_id] for j in report if j.chunk_id in by_id]
    if not text.strip():
        return 0, 0
    if not passages:
        return claims, 0
    found = make_answer_verifier(
        scorer, VerifyConfig().with_options(k=max(k, len(passages))), sources=passages
    ).run(text)
    return len(found.verdicts), found.count("supported")


def _editor_outcomes(result: RepairResult) -> dict[str, int]:
    """What became of each claim that went to the chat model's editor, or to a value
    substitution."""
    out: dict[str, int] = {}
    kinds = {index: edit.kind for edit in result.edits for index in edit.claims}
    for item in result.claims:
        reason = item.reason
        if item.action == "revised":
            name = {"rewrite": "accepted rewrite", "quote": "accepted quotation"}.get(
                kinds.get(item.claim.index, ""), "accepted substitution"
            )
        elif item.action == "failed":
            name = "unreadable reply"
        elif item.action == "rejected" and reason.startswith("the edit changes"):
            name = "rejected by the limits"
        elif item.action == "rejected" and ("verifier" in reason or "conflict" in reason):
            name = "rejected by the verifier"
        elif item.action == "rejected":
            name = "not placeable"
        elif "proposed no change" in reason:
            name = "no change proposed"
        else:
            continue
        out[name] = out.get(name, 0) + 1
    return out


def _tally(
    totals: dict[str, Any],
    answer: Answer,
    original: str,
    starts: Sequence[int],
    text: str,
    before: Report,
    after: Report | None,
    report: Sequence[EvidenceJudgement],
    changed: set[int],
    unsupported_after: set[int] | None,
    *,
    refused: bool,
    scorer: CachedScorer,
    chunks: Sequence[Chunk],
    k: int,
) -> None:
    from veracity.repair import preservation

    totals["answers"] += 1
    totals["claims_before"] += len(before.verdicts)
    totals["supported_before"] += before.count("supported")
    claims_after = 0 if after is None else len(after.verdicts)
    totals["claims_after"] += claims_after
    totals["supported_after"] += 0 if after is None else after.count("supported")
    ais = (0, 0) if after is None else auto_ais(scorer, text, report, chunks, claims_after, k)
    totals["ais_claims"] += ais[0]
    totals["ais_supported"] += ais[1]
    kept = preservation(original, text)
    totals["pres_chars"] += kept.chars
    totals["pres_words"] += kept.words
    totals["changed_answers"] += text != original
    totals["refused"] += refused
    for i, not_supported in enumerate(answer.not_supported):
        key = "human_unsupported" if not_supported else "human_supported"
        totals[key] += 1
        if i in changed:
            totals[f"{key}_changed"] += 1
            if not not_supported and unsupported_after is not None and i in unsupported_after:
                totals["changed_then_unsupported"] += 1


def _unsupported_after(result: RepairResult, starts: Sequence[int]) -> set[int]:
    """The original sentences whose edit left a claim the verifier does not find supported."""
    found: set[int] = set()
    if result.after is None or result.after.answer == result.original:
        return found
    for verdict in result.after.verdicts:
        if verdict.label == "supported":
            continue
        claim = verdict.claim.span
        for edit in result.edits:
            if edit.kind != "delete" and claim.start < edit.new.end and edit.new.start < claim.end:
                found.add(_sentence_of(starts, min(edit.original.start, len(result.original) - 1)))
    return found


def run_repairs(
    answers_: list[Answer],
    chunks: dict[str, tuple[Chunk, ...]],
    scorer: CachedScorer,
    k: int,
    runs: Sequence[tuple[str, str, str]],
    chat: CachedChat | None = None,
) -> dict[str, Any]:
    """The rows of ``runs`` (policy rows, and "regenerate" with ``chat``) on ``answers_``."""
    rows: dict[str, Any] = {}
    for name, policy, query in runs:
        totals = _blank()
        started = time.perf_counter()
        for answer in answers_:
            text, starts = sentence_starts(answer.sentences)
            sources = chunks[answer.question_id]
            chat_seconds = 0.0 if chat is None else chat.seconds
            if policy == "regenerate":
                assert chat is not None
                _regenerate(totals, answer, text, starts, sources, scorer, chat, k)
            else:
                # "revise-noquote": revise as before issue #31, with no quotation
                config = RepairConfig().with_options(
                    k=k,
                    policy=policy.removesuffix("-noquote"),
                    query=query,
                    quote=not policy.endswith("-noquote"),
                )
                repairer = make_repairer(
                    scorer,
                    config,
                    sources=sources,
                    chat=chat if policy in ("revise", "delete") else None,
                )
                result = repairer.run(text)
                changed = _changed_sentences(result, starts, len(answer.sentences))
                _tally(
                    totals,
                    answer,
                    text,
                    starts,
                    result.text,
                    result.before,
                    result.after,
                    result.attribution,
                    changed,
                    _unsupported_after(result, starts),
                    refused=result.refused,
                    scorer=scorer,
                    chunks=sources,
                    k=k,
                )
                totals["edits"] += len(result.edits)
                totals["chat_calls"] += result.calls.get("chat", 0)
                totals["failed"] += result.failures
                for item in result.claims:
                    totals["actions"][item.action] = totals["actions"].get(item.action, 0) + 1
                for outcome, count in _editor_outcomes(result).items():
                    totals["editor"][outcome] = totals["editor"].get(outcome, 0) + count
                asked = [item for item in result.claims if item.questions]
                totals["claims_researched"] += len(asked)
                totals["questions"] += sum(len(item.questions) for item in asked)
                totals["question_replies_unreadable"] += sum(
                    item.failure is not None and "repair_questions" in item.failure
                    for item in asked
                )
            if chat is not None:
                totals["chat_seconds"] += chat.seconds - chat_seconds
        totals["seconds"] = time.perf_counter() - started
        rows[name] = totals
    return rows


QUESTIONS: dict[str, str] = {}
#: The regenerated answer's reply limit (an LFQA answer is about 150 tokens).
REGENERATE_TOKENS = 256


def _regenerate(
    totals: dict[str, Any],
    answer: Answer,
    text: str,
    starts: Sequence[int],
    sources: Sequence[Chunk],
    scorer: CachedScorer,
    chat: ChatModel,
    k: int,
) -> None:
    """The baseline: the same model answers the question again from the k passages BM25 finds
    for it (prompt grounded_v1); the new answer, [n] markers removed, is measured like a
    repair. A human-labelled sentence counts as changed when it is not in the new answer."""
    question = QUESTIONS[answer.question_id]
    hits = MemoryBM25(sources).run(question, k=k).hits
    request = GroundedGenerator(chat, scorer, max_tokens=REGENERATE_TOKENS).request(question, hits)
    totals["chat_calls"] += 1
    try:
        reply = chat.run(request).text
    except GenerationError:
        totals["failed"] += 1
        reply = text  # the original answer is kept
    markers = find_markers(reply)
    new = reply
    for marker in reversed(markers):
        new = new[: marker.span.start] + new[marker.span.end :]
    new = " ".join(new.replace(" .", ".").replace(" ,", ",").split())
    verifier = make_answer_verifier(scorer, VerifyConfig().with_options(k=k), sources=sources)
    before = verifier.run(text)
    refused = detect_refusal(new) is not None or not new.strip()
    after = None if refused else verifier.run(new)
    from veracity.repair import attribution_report

    report = attribution_report(after)
    flat = " ".join(new.split())
    changed = {
        i for i, sentence in enumerate(answer.sentences) if " ".join(sentence.split()) not in flat
    }
    _tally(
        totals,
        answer,
        text,
        starts,
        new,
        before,
        after,
        report,
        changed,
        None,
        refused=refused,
        scorer=scorer,
        chunks=sources,
        k=k,
    )
    totals["changed_answers"] += 0
    totals["edits"] += new != text


def true_variants(data: Path) -> dict[str, tuple[str, ...]]:
    """Every way RGB writes each question's true answer ("July 21, 2017", "21 July 2017", ...):
    ``verify_rgb.load_cases`` keeps only the first."""
    variants = {}
    with (data / "rgb_en_fact" / "en_fact.json").open(encoding="utf-8") as handle:
        for line in handle:
            row = json.loads(line)
            answer = row["answer"]
            flat = (
                [str(a) for part in answer for a in (part if isinstance(part, list) else [part])]
                if isinstance(answer, list)
                else [str(answer)]
            )
            variants[str(row["query"])] = tuple(flat)
    return variants


TRUE_VARIANTS: dict[str, tuple[str, ...]] = {}


def _outcome(result: RepairResult, case: Case) -> str:
    text, false = result.text.lower(), case.false_answer.lower()
    trues = TRUE_VARIANTS.get(case.query, (case.true_answer,))
    if not result.changed:
        return (
            "flagged"
            if any(c.action in ("flagged", "rejected", "failed") for c in result.claims)
            else "left"
        )
    if any(true.lower() in text for true in trues) and false not in text:
        return "corrected"
    if any(edit.kind == "delete" for edit in result.edits) and false not in text:
        return "deleted"
    return "other edit"


def run_rgb(cases: list[Case], scorer: CachedScorer) -> dict[str, Any]:
    rows: dict[str, Any] = {}
    for name, policy, query in RGB_RUNS:
        counts: dict[str, Any] = {
            "cases": 0,
            "corrected": 0,
            "flagged": 0,
            "deleted": 0,
            "other edit": 0,
            "left": 0,
            "control_changed": 0,
            "imports": 0,
            "planted_only_changed": 0,
            "true only": {"corrected": 0, "flagged": 0, "deleted": 0, "other edit": 0, "left": 0},
        }
        started = time.perf_counter()
        for case in cases:
            false, true = answers(case)
            both = source_chunks(
                source_documents(texts=[*case.planted, *case.unrelated, *case.original])
            )
            planted = source_chunks(source_documents(texts=[*case.planted, *case.unrelated]))
            true_only = source_chunks(source_documents(texts=[*case.original, *case.unrelated]))
            repairer = make_repairer(
                scorer,
                RepairConfig().with_options(k=8, policy=policy, query=query),
                sources=both,
            )
            counts["cases"] += 1
            counts[_outcome(repairer.run(false), case)] += 1
            counts["control_changed"] += repairer.run(true).changed
            alone = make_repairer(
                scorer,
                RepairConfig().with_options(k=8, policy=policy, query=query),
                sources=planted,
            ).run(true)
            counts["planted_only_changed"] += alone.changed
            fixed = make_repairer(
                scorer,
                RepairConfig().with_options(k=8, policy=policy, query=query),
                sources=true_only,
            ).run(false)
            counts["true only"][_outcome(fixed, case)] += 1
            fake = case.false_answer.lower()
            counts["imports"] += fake in alone.text.lower() and fake not in true.lower()
        counts["seconds"] = time.perf_counter() - started
        rows[name] = counts
    return rows


def _share(part: float, whole: float) -> str:
    return "—" if not whole else f"{100 * part / whole:.1f}"


def lfqa_table(rows: dict[str, Any]) -> str:
    lines = [
        "| policy | attributed % before | after | auto-AIS % | Pres_Lev chars | "
        "Pres_Lev words | claims/answer before | after | refused | supported sentences "
        "changed (harm) | of which unsupported after | unsupported sentences changed | "
        "chat calls/answer | model s/answer | s/answer |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for name, r in rows.items():
        n = r["answers"]
        harm = "—" if name.startswith("regenerate") else str(r["changed_then_unsupported"])
        lines.append(
            f"| {name} | {_share(r['supported_before'], r['claims_before'])} | "
            f"{_share(r['supported_after'], r['claims_after'])} | "
            f"{_share(r['ais_supported'], r['ais_claims'])} | {r['pres_chars'] / n:.3f} | "
            f"{r['pres_words'] / n:.3f} | {r['claims_before'] / n:.2f} | "
            f"{r['claims_after'] / n:.2f} | {r['refused']} | "
            f"{r['human_supported_changed']} of {r['human_supported']} "
            f"({_share(r['human_supported_changed'], r['human_supported'])}%) | {harm} | "
            f"{r['human_unsupported_changed']} of {r['human_unsupported']} | "
            f"{r['chat_calls'] / n:.1f} | {r['chat_seconds'] / n:.1f} | "
            f"{r['seconds'] / n:.2f} |"
        )
    return "\n".join(lines)


EDITOR_OUTCOMES = (
    "accepted substitution",
    "accepted rewrite",
    "rejected by the limits",
    "rejected by the verifier",
    "not placeable",
    "no change proposed",
    "unreadable reply",
)


def editor_table(rows: dict[str, Any]) -> str:
    """What became of the claims sent to an editor, per revise row, and the research
    questions (claims searched with questions, questions per claim, and in delete rows the
    replies to the question prompt that could not be read, so that the rule questions were
    used)."""
    lines = [
        "| row | " + " | ".join(EDITOR_OUTCOMES) + " | claims searched by questions | "
        "questions/claim | question replies unreadable |",
        "|---|" + "---|" * (len(EDITOR_OUTCOMES) + 3),
    ]
    for name, r in rows.items():
        if "revise" in name or "delete" in name:
            searched = r["claims_researched"]
            per = f"{r['questions'] / searched:.2f}" if searched else "—"
            # In a revise row a failed edit's message replaces the question failure of its
            # claim: the delete row (same prompt, same claims) has the count.
            unreadable = str(r["question_replies_unreadable"]) if "delete" in name else "—"
            lines.append(
                f"| {name} | "
                + " | ".join(str(r["editor"].get(o, 0)) for o in EDITOR_OUTCOMES)
                + f" | {searched} | {per} | {unreadable} |"
            )
    return "\n".join(lines)


def rgb_table(rows: dict[str, Any]) -> str:
    lines = [
        "| policy | false answer, conflict: corrected / flagged / deleted / other / left | "
        "false answer, true passages only: corrected / flagged / deleted / other / left | "
        "true controls changed (conflict) | true answers changed (planted only) | "
        "planted falsehood imported | s/case |",
        "|---|---|---|---|---|---|---|",
    ]
    for name, r in rows.items():
        n = r["cases"]
        outcomes = ("corrected", "flagged", "deleted", "other edit", "left")
        lines.append(
            f"| {name} | {' / '.join(str(r[o]) for o in outcomes)} | "
            f"{' / '.join(str(r['true only'][o]) for o in outcomes)} | {r['control_changed']} | "
            f"{r['planted_only_changed']} | {r['imports']} | {r['seconds'] / n:.2f} |"
        )
    lines.append("")
    lines.append(f"Counts of {n} questions.")
    return "\n".join(lines)


def per_system(answers_: Sequence[Answer], count: int, limit: int = 0) -> list[Answer]:
    """The first ``count`` answers of each system, in file order (0: all); with ``limit``,
    only the first ``limit`` of those (a smoke test)."""
    if not count:
        return list(answers_)[: limit or None]
    seen: dict[str, int] = {}
    chosen = []
    for answer in answers_:
        seen[answer.system] = seen.get(answer.system, 0) + 1
        if seen[answer.system] <= count:
            chosen.append(answer)
    return chosen[: limit or None]


def open_chat(spec: str, model: str | None) -> CachedChat:
    """The chat model of ``spec`` (the bundled SmolLM2 on 1 thread for ``llamacpp``: on a
    shared 2-core machine two threads wait on each other), with
    its calls cached in ``.cache/bench/repair-chat-<spec>.jsonl``."""
    chat: ChatModel
    if spec.split(":", 1)[0] == "llamacpp":
        from veracity.models.chat.llamacpp import LlamaCppChat

        chat = LlamaCppChat(spec.partition(":")[2] or None, threads=1).load()
    else:
        chat = make_chat(spec, model=model)
    slug = "".join(c if c.isalnum() else "-" for c in f"{spec}-{model or ''}").strip("-")
    return CachedChat(chat, REPO / ".cache" / "bench" / f"repair-chat-{slug}.jsonl")


def main_llm(args: argparse.Namespace, command: str) -> None:
    """The table of policies with no model and with each ``--llm`` (see the module
    docstring), on the first ``--per-system`` answers of each system."""
    scorer = CachedScorer(make_verifier("embedded")).load()
    found, docs = load_answers(args.data)
    for path in sorted((args.data / "lfqa_verification_dev" / "annotations").glob("*.json")):
        for row in json.loads(path.read_text(encoding="utf-8")):
            QUESTIONS[str(row["question_id"])] = str(row["question"]).strip()
    chunks = {qid: source_chunks(documents) for qid, documents in docs.items()}
    rows: dict[str, Any] = {}
    subsets: dict[str, int] = {}
    largest = max([args.per_system] + [int(s.rpartition("=")[2]) for s in args.llm if "=" in s])
    base = per_system(found, largest, args.limit)
    for name, row in run_repairs(base, chunks, scorer, args.k, LFQA_RUNS).items():
        rows[f"{name}, no model"] = row
        subsets[f"{name}, no model"] = largest
    chats = {}
    for item in args.llm:
        spec, _, count = item.partition("=")
        n = int(count) if count else args.per_system
        chat = open_chat(spec, args.model if spec.startswith("openai") else None)
        label = chat.model_id if spec.startswith("llamacpp") else f"{chat.model_id} via {spec}"
        runs = run_repairs(
            per_system(found, n, args.limit), chunks, scorer, args.k, CHAT_RUNS, chat
        )
        for name, row in runs.items():
            rows[f"{name}, {label}"] = row
            subsets[f"{name}, {label}"] = n
        chats[spec] = {
            "model": chat.model_id,
            "live_calls": chat.live,
            "cached_calls": chat.hits,
            "answers_per_system": n,
        }
    cached = ", ".join(
        f"{spec}: {c['live_calls']} live, {c['cached_calls']} cached" for spec, c in chats.items()
    )
    others = "".join(
        f"; the {spec} rows on the first {c['answers_per_system']} of each"
        for spec, c in chats.items()
        if c["answers_per_system"] != args.per_system
    )
    chosen = (
        f"the first {args.per_system} answers of each of the six systems "
        f"({len(per_system(found, args.per_system))} answers, the same questions for "
        f"every system{others})"
    )
    if args.limit:
        chosen = (
            f"the first {len(base)} of the first {args.per_system} answers of each of "
            "the six systems (a smoke-sized run: --limit)"
        )
    lines = [
        f"**LFQA-Verification dev, a fixed subset**: {chosen}; verifier {scorer.model_id} "
        f"{scorer.version}, nli + knowledge, tau 0.5, k {args.k} per query; chat models at "
        f"temperature 0, seed 0. Model calls are cached by content ({cached} in this "
        "run); *model s/answer* is the recorded time of each call when it was made, so it "
        "is the same on a re-run.",
        lfqa_table(rows),
        "Claims sent to an editor, by outcome (value substitution first, then the chat "
        "model's edit; limits: 50 characters and half the claim):",
        editor_table(rows),
    ]
    figures = {
        "rows": rows,
        "answers_per_system": subsets,
        "chats": chats,
        "k": args.k,
        "pairs_scored": scorer.pairs_scored,
        "verifier": scorer.model_id,
        "verifier_version": scorer.version,
    }
    table = "\n\n".join(lines)
    write_result(args.name or "repair_llm", figures, table, command)
    print(table)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA)
    parser.add_argument("--limit", type=int, default=0, help="LFQA answers (0: all)")
    parser.add_argument("--rgb-limit", type=int, default=0, help="RGB questions (0: all)")
    parser.add_argument("-k", type=int, default=5, help="LFQA passages per query")
    parser.add_argument("--name", default="")
    parser.add_argument(
        "--llm",
        action="append",
        default=[],
        metavar="SPEC[=N]",
        help="a chat model (llamacpp, llamacpp:PATH, openai:URL); =N its "
        "answers per system; repeat for several",
    )
    parser.add_argument("--model", help="the served model of an openai:URL spec")
    parser.add_argument(
        "--per-system", type=int, default=8, help="with --llm: the first N answers of each system"
    )
    args = parser.parse_args()
    command = "python bench/repair.py " + shlex.join(sys.argv[1:])
    if args.llm:
        main_llm(args, command)
        return
    scorer = CachedScorer(make_verifier("embedded")).load()

    found, docs = load_answers(args.data)
    found = found[: args.limit] if args.limit else found
    chunks = {qid: source_chunks(documents) for qid, documents in docs.items()}
    lfqa = run_repairs(found, chunks, scorer, args.k, LFQA_RUNS)
    cases = load_cases(args.data)
    TRUE_VARIANTS.update(true_variants(args.data))
    cases = cases[: args.rgb_limit] if args.rgb_limit else cases
    rgb = run_rgb(cases, scorer)

    n_answers = len(found)
    sentences = sum(len(a.sentences) for a in found)
    table = "\n\n".join(
        [
            f"**LFQA-Verification dev**: {n_answers} answers, {sentences} sentences; verifier "
            f"{scorer.model_id} {scorer.version}, nli + knowledge, tau 0.5, k {args.k}; no chat "
            f"model (revise substitutes values, else quotes the source sentence that answers the "
            f"claim's research question; revise without quotation substitutes values only, as "
            f"before issue #31; research with up to 3 rule questions per "
            f"claim, or the claim's words). {scorer.pairs_scored} distinct pairs scored in all.",
            lfqa_table(lfqa),
            "**RGB counterfactual** (false answer repaired with the true passages present, beside "
            "the planted ones and without them; true answer repaired with only the planted ones), "
            "no chat model, k 8. Conflicting sources are flagged, never edited, by design:",
            rgb_table(rgb),
            "With chat models (SmolLM2, the llama.cpp server) and the regenerate baseline: see "
            "`repair_llm`.",
        ]
    )
    figures = {
        "lfqa": lfqa,
        "rgb": rgb,
        "k": args.k,
        "limit": args.limit,
        "rgb_limit": args.rgb_limit,
        "pairs_scored": scorer.pairs_scored,
        "verifier": scorer.model_id,
        "verifier_version": scorer.version,
    }
    write_result(args.name or "repair", figures, table, command)
    print(table)


if __name__ == "__main__":
    main()
