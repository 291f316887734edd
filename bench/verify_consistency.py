"""Closed-book consistency: does SmolLM2 contradict itself where its claims are wrong?

    nice -n 10 .venv/bin/python bench/verify_consistency.py [--questions 40] [--samples 5]

For a fixed sample of ClapNQ dev answerable questions, the bundled SmolLM2-135M answers from its
own knowledge (prompt ``consistency_v1``, temperature 0, no passages). Its claims (rule-based
extraction) get two scores from the consistency layer: the SelfCheckGPT NLI variant over
``--samples`` answers at temperature ``--temperature``, and the two-temperature variant (one
regeneration at ``--temperature``). The reference for each claim is the NLI layer's verdict
against the question's gold passage: a claim the gold passage does not support counts as an
error (positive class). Reported: ROC-AUC of each inconsistency score against that reference,
recall and false-alarm rate at the layer's default threshold, and the blind spot — the share of
errors that the samples repeat consistently (score below the threshold), which no consistency
check can catch.
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

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _report import write_result
from veracity import defaults
from veracity.config import VerifyConfig
from veracity.evaluate.classification import roc_auc
from veracity.models.chat.base import Decoding
from veracity.models.chat.registry import make_chat
from veracity.models.pairs.registry import make_verifier
from veracity.types import ClaimSet, Document
from veracity.verify.claims import ClaimExtractor
from veracity.verify.consistency import ConsistencyLayer
from veracity.verify.gather import source_chunks
from veracity.verify.pipeline import make_answer_verifier
from verifier_data import DEFAULT_DATA


def load_questions(data: Path, count: int) -> list[tuple[str, str, str]]:
    """(id, question, gold passage text) for every ``len // count``-th answerable question."""
    path = data / "clapnq" / "dev" / "clapnq_dev_answerable.jsonl"
    rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line]
    step = max(1, len(rows) // count)
    return [
        (str(r["id"]), str(r["input"]), f"{r['passages'][0]['title']}\n{r['passages'][0]['text']}")
        for r in rows[::step][:count]
    ]


def _rates(scores: list[float | None], errors: list[int], threshold: float) -> dict[str, Any]:
    kept = [(s, e) for s, e in zip(scores, errors, strict=True) if s is not None]
    values = np.asarray([s for s, _ in kept])
    gold = np.asarray([e for _, e in kept])
    result: dict[str, Any] = {"scored": len(kept), "unscored": len(scores) - len(kept)}
    if gold.size and 0 < gold.sum() < gold.size:
        result["roc_auc"] = roc_auc(values, gold)
    flagged = values >= threshold
    if gold.sum():
        result["recall"] = float(flagged[gold == 1].mean())
        result["blind_spot"] = float((~flagged[gold == 1]).mean())
    if (gold == 0).sum():
        result["false_alarm"] = float(flagged[gold == 0].mean())
    return result


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0] if __doc__ else None)
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA)
    parser.add_argument("--questions", type=int, default=40)
    parser.add_argument("--samples", type=int, default=defaults.CONSISTENCY_SAMPLES)
    parser.add_argument("--temperature", type=float, default=defaults.CONSISTENCY_TEMPERATURE)
    parser.add_argument("--verifier", default="embedded")
    parser.add_argument("--name", default="verify_consistency")
    args = parser.parse_args(argv)

    scorer = make_verifier(args.verifier)
    chat = make_chat("llamacpp")
    extractor = ClaimExtractor()
    samples_layer = ConsistencyLayer(
        chat, scorer, samples=args.samples, decoding=Decoding(args.temperature)
    ).load()
    two_temperature = ConsistencyLayer(
        chat, scorer, mode="two_temperature", second_temperature=args.temperature
    ).load()
    errors: list[int] = []
    sampled: list[float | None] = []
    regenerated: list[float | None] = []
    answers_without_claims = 0
    started = time.perf_counter()
    questions = load_questions(args.data, args.questions)
    for number, (qid, question, gold) in enumerate(questions, start=1):
        request = samples_layer.request(question, 0.0, defaults.CONSISTENCY_SEED)
        answer = chat.run(request).text
        claims = extractor.run(answer) if answer.strip() else ClaimSet(answer, ())
        if not claims.claims:
            answers_without_claims += 1
            continue
        reference = make_answer_verifier(
            scorer,
            VerifyConfig().with_options(layers=("nli",)),
            sources=source_chunks([Document(id=qid, text=gold)]),
        ).verify_claims(claims)
        errors += [int(v.label != "supported") for v in reference.verdicts]
        sampled += [r.score for r in samples_layer.run(question, claims.claims).results]
        regenerated += [r.score for r in two_temperature.run(question, claims.claims).results]
        print(
            f"{number}/{len(questions)} claims {len(errors)} errors {sum(errors)} "
            f"({time.perf_counter() - started:.0f} s)",
            file=sys.stderr,
        )
    threshold = samples_layer.threshold
    figures = {
        "questions": len(questions),
        "answers_without_claims": answers_without_claims,
        "claims": len(errors),
        "errors": sum(errors),
        "samples": args.samples,
        "temperature": args.temperature,
        "threshold": threshold,
        "model": chat.model_id,
        "verifier": scorer.model_id,
        "seconds": time.perf_counter() - started,
        f"samples_{args.samples}": _rates(sampled, errors, threshold),
        "two_temperature": _rates(regenerated, errors, threshold),
    }
    rows = [
        "| variant | claims scored | ROC-AUC | recall at 0.5 | false alarm at 0.5 | blind "
        "spot (consistent errors) |",
        "| --- | ---: | ---: | ---: | ---: | ---: |",
    ]
    for label, key in (
        (f"{args.samples} samples at T={args.temperature:g}", f"samples_{args.samples}"),
        (f"two temperatures (0 and {args.temperature:g})", "two_temperature"),
    ):
        r = figures[key]
        rows.append(
            f"| {label} | {r['scored']} | {r.get('roc_auc', float('nan')):.3f} | "
            f"{100 * r.get('recall', float('nan')):.0f}% | "
            f"{100 * r.get('false_alarm', float('nan')):.0f}% | "
            f"{100 * r.get('blind_spot', float('nan')):.0f}% |"
        )
    note = (
        f"{figures['questions']} ClapNQ dev answerable questions answered closed-book by "
        f"{figures['model']} at temperature 0; {figures['claims']} claims, of which "
        f"{figures['errors']} are not supported by the gold passage (reference: the NLI "
        f"layer, verifier {figures['verifier']}); {answers_without_claims} answers had no "
        f"claim. {figures['seconds'] / 60:.0f} min in all."
    )
    markdown = "\n".join([*rows, "", note])
    command = "python bench/verify_consistency.py " + shlex.join(
        sys.argv[1:] if argv is None else argv
    )
    write_result(args.name, figures, markdown, command)
    print(markdown)


if __name__ == "__main__":
    main()
