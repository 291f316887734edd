"""RGB counterfactual robustness: an answer grounded in a planted false passage, per layer.

    nice -n 10 .venv/bin/python bench/verify_rgb.py

RGB's ``en_fact`` set gives, for 100 questions, passages edited to state a false answer
(``positive_wrong``), the original passages (``positive``) and unrelated ones (``negative``).
The answer to verify is the first sentence of a planted passage that states the false answer (as
a system that trusted it would write), or, when no sentence names it, "The answer to <query> is
<fake answer>."; the control is the same sentence taken from the original passage, with the true
answer. Two source settings:

- **conflict**: planted, original and unrelated passages together;
- **planted only**: planted and unrelated passages (the true passage is missing).

For each layer setting: the share of false answers *flagged* (label not supported), *contested*
(some passages support the claim and others contradict it; shown to the reader whatever the
label), and *caught* (either); and the same shares for the true answers (false alarms when the
true passage is among the sources).
An answer counts once: flagged or contested when any of its claims is.
"""

from __future__ import annotations

import argparse
import json
import re
import shlex
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _report import write_result
from veracity import defaults
from veracity.config import VerifyConfig
from veracity.defaults import EvidenceWindow
from veracity.models.pairs.registry import make_verifier
from veracity.rules import KnowledgeLayer
from veracity.text.sentences import split_sentences
from veracity.types import Report
from veracity.verify.gather import source_chunks, source_documents
from veracity.verify.nli import WINDOWS
from veracity.verify.pipeline import make_answer_verifier
from verifier_data import DEFAULT_DATA
from verify_lfqa import CachedScorer

WINDOW_NOTES = {
    "passage": "each passage read on its own",
    "claim": "one reading per claim cannot both cite and anti-cite, so a claim window contests "
    "nothing",
    "focused": "each passage whose chosen sentences say the claim's words read on its own, the "
    "others not read",
}
LAYERS = {"nli": ("nli",), "knowledge": ("knowledge",), "nli+knowledge": ("nli", "knowledge")}


@dataclass(frozen=True)
class Case:
    query: str
    false_answer: str
    true_answer: str
    planted: tuple[str, ...]
    original: tuple[str, ...]
    unrelated: tuple[str, ...]
    from_passage: bool


def _answer_text(value: object) -> str:
    if isinstance(value, list):
        return str(value[0]) if value else ""
    return str(value)


def _sentence_with(passages: Sequence[str], value: str) -> tuple[int, int, str] | None:
    for p, passage in enumerate(passages):
        for s, span in enumerate(split_sentences(passage)):
            sentence = span.of(passage).strip(" .…")
            if value.lower() in sentence.lower() and len(sentence) > len(value) + 10:
                return p, s, sentence
    return None


def load_cases(data: Path) -> list[Case]:
    cases = []
    with (data / "rgb_en_fact" / "en_fact.json").open(encoding="utf-8") as handle:
        for line in handle:
            row = json.loads(line)
            fake, true = _answer_text(row["fakeanswer"]), _answer_text(row["answer"])
            planted = tuple(str(p) for p in row["positive_wrong"])
            original = tuple(str(p) for p in row["positive"])
            found = _sentence_with(planted, fake)
            cases.append(
                Case(
                    str(row["query"]),
                    fake,
                    true,
                    planted,
                    original,
                    tuple(str(p) for p in row["negative"]),
                    found is not None,
                )
            )
    return cases


def answers(case: Case) -> tuple[str, str]:
    """The false answer and its true control (see the module docstring)."""
    found = _sentence_with(case.planted, case.false_answer)
    if found is not None:
        sentence = found[2]
        control = re.sub(
            re.escape(case.false_answer), case.true_answer, sentence, flags=re.IGNORECASE
        )
        return sentence + ".", control + "."
    return (
        f"The answer to {case.query} is {case.false_answer}.",
        f"The answer to {case.query} is {case.true_answer}.",
    )


def _outcome(report: Report) -> tuple[bool, bool]:
    flagged = any(v.flagged for v in report.verdicts)
    contested = any(v.contested for v in report.verdicts)
    return flagged, contested


def run(
    cases: list[Case],
    scorer: CachedScorer,
    knowledge: KnowledgeLayer,
    window: EvidenceWindow = defaults.NLI_WINDOW,
) -> dict[str, Any]:
    results: dict[str, Any] = {}
    for setting in ("conflict", "planted only"):
        for layer_name, layers in LAYERS.items():
            counts = {"false": [0, 0, 0], "true": [0, 0, 0]}
            for case in cases:
                texts = list(case.planted) + list(case.unrelated)
                if setting == "conflict":
                    texts += list(case.original)
                chunks = source_chunks(source_documents(texts=texts))
                verifier = make_answer_verifier(
                    scorer,
                    VerifyConfig().with_options(layers=layers, k=8, window=window),
                    sources=chunks,
                    knowledge=knowledge if "knowledge" in layers else None,
                )
                for kind, text in zip(("false", "true"), answers(case), strict=True):
                    flagged, contested = _outcome(verifier.run(text))
                    counts[kind][0] += flagged
                    counts[kind][1] += contested
                    counts[kind][2] += flagged or contested
            results[f"{setting} / {layer_name}"] = {
                kind: {
                    "flagged": c[0] / len(cases),
                    "contested": c[1] / len(cases),
                    "caught": c[2] / len(cases),
                }
                for kind, c in counts.items()
            }
            row = results[f"{setting} / {layer_name}"]
            print(
                f"{setting:<13} {layer_name:<14} false caught {row['false']['caught']:.2f} "
                f"true flagged {row['true']['caught']:.2f}",
                file=sys.stderr,
            )
    return results


def table_md(figures: dict[str, Any]) -> str:
    rows = [
        "| sources / layers | false answer flagged | contested | caught | true answer "
        "flagged | contested | flagged or contested |",
        "| --- | ---: | ---: | ---: | ---: | ---: | ---: |",
    ]
    for name, r in figures["results"].items():
        f, t = r["false"], r["true"]
        rows.append(
            f"| {name} | {100 * f['flagged']:.0f}% | {100 * f['contested']:.0f}% | "
            f"{100 * f['caught']:.0f}% | {100 * t['flagged']:.0f}% | "
            f"{100 * t['contested']:.0f}% | {100 * t['caught']:.0f}% |"
        )
    note = (
        f"{figures['cases']} questions; {figures['from_passage']} false answers are a "
        "sentence of a planted passage, the rest the template. *caught* = flagged or "
        "contested. With *conflict* sources, flagging or contesting the true control is a "
        "false alarm; with *planted only* sources the passages state the false answer, so a "
        "checker faithful to its sources should flag the true control. Every verdict shows "
        "its supporting and contradicting passages, scored by the verifier whichever layers "
        "decide, so *contested* is the same for every layer setting. Verifier "
        f"{figures['verifier']}, default thresholds, k = 8 passages per claim, NLI window "
        f"{figures.get('window', 'passage')} ({WINDOW_NOTES[figures.get('window', 'passage')]})."
    )
    return "\n".join([*rows, "", note])


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0] if __doc__ else None)
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA)
    parser.add_argument("--verifier", default="embedded")
    parser.add_argument(
        "--window",
        default=defaults.NLI_WINDOW,
        choices=list(WINDOWS),
        help="what the NLI layer reads per claim (default: the library's)",
    )
    parser.add_argument("--limit", type=int, default=None)
    parser.add_argument("--name", default=None)
    args = parser.parse_args(argv)
    cases = load_cases(args.data)[: args.limit]
    base = make_verifier(args.verifier)
    figures = {
        "cases": len(cases),
        "from_passage": sum(c.from_passage for c in cases),
        "verifier": base.model_id,
        "window": args.window,
        "results": run(cases, CachedScorer(base), KnowledgeLayer().load(), args.window),
    }
    markdown = table_md(figures)
    command = "python bench/verify_rgb.py " + shlex.join(sys.argv[1:] if argv is None else argv)
    name = args.name or (None if args.limit else "verify_rgb")
    if name is not None:
        write_result(name, figures, markdown, command)
    print(markdown)


if __name__ == "__main__":
    main()
