"""Does the bundled local model behave? SmolLM2-135M answering ClapNQ dev over its gold passage.

Command (from the repository root)::

    nice -n 15 .venv/bin/python bench/ask_local.py --sample 12 --threads 1

Each question of a fixed-seed sample of the ClapNQ dev answerable and unanswerable questions is
answered by ``GroundedGenerator`` (the ``veracity ask`` generator) with SmolLM2-135M-Instruct
(Q4_1, llama.cpp, temperature 0, seed 0) over one block: the question's gold passage. For an
answerable question it holds the answer; for an unanswerable one it is on topic and does not, so
the right reply is "I don't know". Retrieval is left out so that only the model is measured.

Settings compared (``--configs``):

- ``plain``: no repetition penalty (1.0) and no stop rules: the backend before issue #31;
- ``rules-only``: the stop rules without the repetition penalty (the penalty alone, which lets
  a loop run to the token limit, was not run: it costs the most CPU time);
- ``guarded``: the defaults: ``defaults.LLAMA_REPEAT_PENALTY`` and the stop rules of
  ``veracity.models.chat.stops`` (a repeated sentence, a run of characters or a prompt echo ends the
  reply);
- ``guarded-fewshot``: the same with the ``grounded_fewshot_v1`` prompt, when it ships.

Figures per setting and set: replies refused ("I don't know", by ``detect_refusal``), loops (the
reply was cut by a stop rule, or reached ``--max-tokens``: finish reason ``length``), and *correct*:
an answered reply whose every factual sentence the shipped verifier (``make_verifier
("embedded")``) supports against the gold passage (P(supported) >= tau 0.5), with at least one
such sentence. Calls are cached per setting under ``.cache/bench/ask_local-<setting>.jsonl``.
Writes ``bench/results/ask_local.json`` and its section of ``bench/README.md``.
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

BENCH = Path(__file__).resolve().parent
sys.path.insert(0, str(BENCH))

from _chat_cache import CachedChat  # noqa: E402
from _report import write_result  # noqa: E402
from ask_abstention import CACHE, ClapQuestion, load_clapnq  # noqa: E402
from veracity import defaults  # noqa: E402
from veracity.errors import VeracityError  # noqa: E402
from veracity.generate import GroundedGenerator  # noqa: E402
from veracity.models.pairs.scoring import score_groups  # noqa: E402
from veracity.types import Answer, Chunk, Hit  # noqa: E402

SEED = 13
TAU = defaults.CITATION_TAU
#: setting -> (repeat penalty, stop rules on, prompt id)
CONFIGS: dict[str, tuple[float, bool, str]] = {
    "plain": (1.0, False, defaults.GROUNDED_PROMPT),
    "rules-only": (1.0, True, defaults.GROUNDED_PROMPT),
    "guarded": (defaults.LLAMA_REPEAT_PENALTY, True, defaults.GROUNDED_PROMPT),
    "guarded-fewshot": (defaults.LLAMA_REPEAT_PENALTY, True, "grounded_fewshot_v1"),
}
CUT = ("repetition", "prompt_echo")


def sample(questions: Sequence[ClapQuestion], n: int, seed: int) -> list[ClapQuestion]:
    """The first ``n`` of a seeded shuffle of each kind (a larger ``n`` keeps these)."""
    chosen: list[ClapQuestion] = []
    for answerable in (True, False):
        kind = [q for q in questions if q.answerable == answerable]
        order = list(range(len(kind)))
        random.Random(seed).shuffle(order)
        chosen += [kind[i] for i in order[:n]]
    return chosen


def gold_hit(question: ClapQuestion) -> Hit:
    chunk = Chunk(
        id=f"{question.doc_id}#0",
        doc_id=question.doc_id,
        index=0,
        text=question.passage,
        start=0,
        end=len(question.passage),
        title=question.title,
    )
    return Hit(chunk, 1.0, 1, "given")


def run_config(
    name: str, questions: Sequence[ClapQuestion], scorer: Any, threads: int, max_tokens: int
) -> dict[str, Any]:
    from veracity.models.chat.llamacpp import LlamaCppChat

    penalty, guard, prompt = CONFIGS[name]
    chat = CachedChat(
        LlamaCppChat(threads=threads, repeat_penalty=penalty, guard=guard),
        CACHE / f"ask_local-{name}.jsonl",
    )
    generator = GroundedGenerator(chat, scorer, prompt=prompt, max_tokens=max_tokens)
    rows = []
    for question in questions:
        started, recorded = time.perf_counter(), chat.seconds
        try:
            answer: Answer | None = generator.run(question.question, [gold_hit(question)])
            error = ""
        except VeracityError as exc:
            answer, error = None, f"{type(exc).__name__}: {exc}"
        rows.append(
            {
                "question": question,
                "answer": answer,
                "error": error,
                "seconds": time.perf_counter() - started,
                # the model's time when the call was made, cached or not
                "model_seconds": chat.seconds - recorded,
            }
        )
        print(
            f"[{name}] {question.id} answerable={question.answerable} "
            f"{'ERROR ' + error if answer is None else repr(answer.text[:120])}",
            file=sys.stderr,
            flush=True,
        )
    judge(rows, scorer)
    return {"rows": rows, "live": chat.live, "cached": chat.hits}


def judge(rows: Sequence[dict[str, Any]], scorer: Any) -> None:
    """Every factual sentence of every answered reply against its gold passage, one call."""
    pairs = []
    for row in rows:
        answer = row["answer"]
        if answer is None or not answer.answered:
            continue
        for sentence in answer.sentences:
            if sentence.status != "not_factual":
                pairs.append((row, (row["question"].passage, sentence.claim)))
    scored = score_groups(scorer, [[pair] for _, pair in pairs])
    for row in rows:
        row["support"] = []
    for (row, _), group in zip(pairs, scored.groups, strict=True):
        row["support"].append(None if group[0].error else group[0].supported)


def figures(rows: Sequence[dict[str, Any]], answerable: bool) -> dict[str, Any]:
    rows = [r for r in rows if r["question"].answerable == answerable]
    answers = [r["answer"] for r in rows if r["answer"] is not None]
    finish = [a.provenance.finish_reason for a in answers if a.provenance is not None]
    correct = sum(
        1
        for r in rows
        if r["answer"] is not None
        and r["answer"].answered
        and r["support"]
        and all(s is not None and s >= TAU for s in r["support"])
    )
    return {
        "questions": len(rows),
        "errors": len(rows) - len(answers),
        "refused": sum(1 for a in answers if a.refused),
        "correct": correct,
        "cut_by_rule": sum(1 for f in finish if f in CUT),
        "length": sum(1 for f in finish if f == "length"),
        "median_chars": statistics.median(len(a.text) for a in answers) if answers else None,
        "median_model_s": round(statistics.median(r["model_seconds"] for r in rows), 1)
        if rows
        else None,
    }


def table(results: dict[str, Any]) -> str:
    lines = [
        "| setting | set | questions | failed | refused | correct | cut by a stop rule | hit "
        "the token limit | median reply chars | median model s |",
        "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |",
    ]
    for name, result in results.items():
        for kind in ("answerable", "unanswerable"):
            f = result[kind]
            lines.append(
                f"| {name} | {kind} | {f['questions']} | {f['errors']} | {f['refused']} | "
                f"{f['correct'] if kind == 'answerable' else '—'} | {f['cut_by_rule']} "
                f"| {f['length']} | {f['median_chars']} | {f['median_model_s']} |"
            )
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--configs", default="plain,guarded", help=", ".join(CONFIGS))
    parser.add_argument("--sample", type=int, default=12, help="questions of each kind")
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--max-tokens", type=int, default=256)
    parser.add_argument("--name", default="ask_local")
    args = parser.parse_args(argv)
    from veracity.models.pairs import make_verifier

    scorer = make_verifier("embedded")
    questions = sample(load_clapnq(), args.sample, SEED)
    started = time.time()
    results: dict[str, Any] = {}
    examples: dict[str, list[dict[str, Any]]] = {}
    for name in args.configs.split(","):
        run = run_config(name, questions, scorer, args.threads, args.max_tokens)
        results[name] = {
            "answerable": figures(run["rows"], True),
            "unanswerable": figures(run["rows"], False),
            "live_calls": run["live"],
            "cached_calls": run["cached"],
        }
        examples[name] = [
            {
                "id": r["question"].id,
                "answerable": r["question"].answerable,
                "text": None if r["answer"] is None else r["answer"].text,
                "finish_reason": None
                if r["answer"] is None or r["answer"].provenance is None
                else r["answer"].provenance.finish_reason,
                "support": r["support"],
                "error": r["error"],
            }
            for r in run["rows"]
        ]
    niceness = os.nice(0)
    line = shlex.join([".venv/bin/python", "bench/ask_local.py", *(argv or sys.argv[1:])])
    command = f"nice -n {niceness} {line}" if niceness else line
    notes = (
        f"ClapNQ dev, a fixed-seed sample (seed {SEED}) of {args.sample} answerable and "
        f"{args.sample} unanswerable questions, each answered by SmolLM2-135M-Instruct Q4_1 "
        f"(llama.cpp, {args.threads} thread(s), temperature 0, seed 0, at most "
        f"{args.max_tokens} new tokens) through GroundedGenerator over one block, its gold "
        f"passage. *Correct*: answered, and every factual sentence supported by the gold "
        f"passage (verifier {scorer.model_id}, tau {TAU}). *Cut by a stop rule*: "
        f"a repeated sentence, a run of characters or a prompt echo ended the reply. "
        f"*Failed*: llama.cpp refused the request (prompt and reply over its 2048-token "
        f"window). *Median model s*: the generation's wall time when it was made (calls "
        f"are cached; on 2 CPU cores shared with a training job and other benchmarks, at "
        f"nice 15). "
        f"{round(time.time() - started)} s in all."
    )
    write_result(
        args.name,
        {"results": results, "examples": examples},
        notes + "\n\n" + table(results),
        command,
    )


if __name__ == "__main__":
    main()
