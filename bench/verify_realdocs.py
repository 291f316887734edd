"""Real-document development suite: planted errors caught and true sentences flagged.

    nice -n 10 .venv/bin/python bench/verify_realdocs.py

The documents are third-party files that ship on the development machine (Debian package
READMEs, NEWS files and man pages, Python packages' METADATA; ``bench/data/realdocs/SOURCE.md``
says where each comes from, its licence and what was cut). The answers
(``bench/data/realdocs/answers.jsonl``) were written by hand about them, 2-5 sentences each:
about two thirds carry exactly one planted error in one sentence (unsupported addition, wrong
number, antonym, entity swap, negation, scope, swapped roles), the rest are correct
paraphrases. Every sentence carries its gold label and its character span in the answer; the
file is checked before anything runs (offsets, exact slices, labels, kinds, documents).

The run is what a user does, through the command itself in a subprocess (this tree's
``src/`` first on ``PYTHONPATH``): ``veracity index DOCS --index TMP`` and ``veracity
verify-batch ANSWERS --index TMP --out OUT``, both with their defaults (``--verifier NAME`` is
passed on when given). Each gold sentence is matched to the report's claims by character span
overlap; a sentence is *flagged* when any claim overlapping it is labelled contradicted or
unsupported. Figures: planted sentences flagged (overall and by kind), true sentences flagged
(with and without a negation word), the precision of flags, what labelled the flags, and the
knowledge rules alone (of the claims the knowledge layer calls contradicted, how many lie on a
planted sentence). Every claim's raw inputs (each layer's label, score and detail, the value
checks, the passages read with their three probabilities) are kept in the result file, so the
decision can be studied later. This is development data: nothing may be tuned to it alone.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _report import REPO, add_allow_dirty, write_result

DATA = Path(__file__).resolve().parent / "data" / "realdocs"
KINDS = (
    "unsupported_addition",
    "wrong_number",
    "antonym",
    "entity_swap",
    "negation",
    "scope",
    "swapped_roles",
)
#: Labels that warn the reader (a sentence with a claim so labelled is flagged).
FLAG_LABELS = ("contradicted", "unsupported")
#: A negation word in a true sentence ("no longer", "not", "won't", "cannot", "in no way", ...).
NEGATION = re.compile(r"\b(?:not|no|never|none|nor|neither|without|cannot)\b|n't\b", re.I)


class SuiteError(ValueError):
    """The answers file breaks its own format (the message names the answer and sentence)."""


@dataclass(frozen=True)
class Sentence:
    text: str
    start: int
    end: int
    label: str
    kind: str | None
    doc: str | None
    original: str | None

    @property
    def negated(self) -> bool:
        return NEGATION.search(self.text) is not None


@dataclass(frozen=True)
class Answer:
    id: str
    question: str
    answer: str
    sentences: tuple[Sentence, ...]

    @property
    def planted(self) -> str | None:
        return next((s.kind for s in self.sentences if s.label == "planted"), None)


def load_answers(path: Path, docs: Path) -> list[Answer]:
    """The suite's answers, checked: every sentence is the exact slice ``answer[start:end]``,
    the sentences joined by one space are the answer, at most one sentence is planted, every
    label, kind and document is known, and a planted sentence (but an addition) names the true
    sentence it was made from."""
    answers: list[Answer] = []
    seen: set[str] = set()
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip():
            continue
        row = json.loads(line)
        where = f"{path.name} line {number} ({row.get('id')!r})"
        if row["id"] in seen:
            raise SuiteError(f"{where}: id {row['id']!r} appears twice")
        seen.add(row["id"])
        text = row["answer"]
        sentences = []
        for i, s in enumerate(row["sentences"]):
            at = f"{where} sentence {i}"
            if text[s["start"] : s["end"]] != s["text"]:
                raise SuiteError(
                    f"{at}: answer[{s['start']}:{s['end']}] is "
                    f"{text[s['start'] : s['end']]!r}, not {s['text']!r}; fix the offsets"
                )
            if s["label"] not in ("true", "planted"):
                raise SuiteError(f"{at}: label {s['label']!r} is not 'true' or 'planted'")
            kind = s.get("kind")
            if (s["label"] == "planted") != (kind is not None):
                raise SuiteError(f"{at}: a planted sentence, and only one, names its kind")
            if kind is not None and kind not in KINDS:
                raise SuiteError(f"{at}: kind {kind!r} is not one of {', '.join(KINDS)}")
            addition = kind == "unsupported_addition"
            doc = s.get("doc")
            if addition != (doc is None):
                raise SuiteError(f"{at}: every sentence but an addition names its document")
            if doc is not None and not (docs / doc).is_file():
                raise SuiteError(f"{at}: document {doc!r} is not in {docs}")
            original = s.get("original")
            if kind is not None and not addition and not original:
                raise SuiteError(f"{at}: a planted {kind} names the true sentence it came from")
            sentences.append(
                Sentence(s["text"], s["start"], s["end"], s["label"], kind, doc, original)
            )
        if " ".join(s.text for s in sentences) != text:
            raise SuiteError(f"{where}: the sentences joined by one space are not the answer")
        if sum(s.label == "planted" for s in sentences) > 1:
            raise SuiteError(f"{where}: more than one planted sentence")
        if not 2 <= len(sentences) <= 5:
            raise SuiteError(f"{where}: {len(sentences)} sentences, not 2-5")
        answers.append(Answer(row["id"], row["question"], text, tuple(sentences)))
    return answers


def _veracity() -> list[str]:
    """The command, from this interpreter's environment."""
    script = Path(sys.executable).parent / "veracity"
    found = str(script) if script.is_file() else shutil.which("veracity")
    if found is None:
        raise SystemExit("no `veracity` command next to this Python or on PATH: install it")
    return [found]


def _run(command: list[str]) -> tuple[int, dict[str, Any]]:
    """Run the command with this tree's ``src`` first; its exit code and ``--json`` output."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(REPO / "src"), *filter(None, [env.get("PYTHONPATH")])])
    done = subprocess.run(command, env=env, capture_output=True, text=True, check=False)
    if done.returncode not in (0, 1):
        raise SystemExit(f"{shlex.join(command)} exited {done.returncode}:\n{done.stderr[-4000:]}")
    return done.returncode, json.loads(done.stdout)


def index_docs(docs: Path, work: Path) -> tuple[Path, int, dict[str, Any], float]:
    """``veracity index DOCS --index WORK/index`` with its defaults: the index folder, the
    exit code, the ``--json`` report and the seconds taken."""
    index = work / "index"
    began = time.monotonic()
    code, report = _run([*_veracity(), "index", str(docs), "--index", str(index), "--json"])
    return index, code, report, time.monotonic() - began


def run_cli(answers: Sequence[Answer], docs: Path, work: Path, verifier: str | None) -> Any:
    """Index ``docs`` and verify the answers against the index, both with the defaults."""
    index, index_code, index_report, index_seconds = index_docs(docs, work)
    source = work / "answers.jsonl"
    source.write_text(
        "".join(
            json.dumps({"id": a.id, "question": a.question, "answer": a.answer}) + "\n"
            for a in answers
        ),
        encoding="utf-8",
    )
    out = work / "reports.jsonl"
    command = [*_veracity(), "verify-batch", str(source), "--index", str(index)]
    command += ["--out", str(out), "--json"]
    if verifier is not None:
        command += ["--verifier", verifier]
    began = time.monotonic()
    batch_code, summary = _run(command)
    batch_seconds = time.monotonic() - began
    records = {}
    for line in out.read_text(encoding="utf-8").splitlines():
        record = json.loads(line)
        records[record["id"]] = record
    return {
        "index_exit": index_code,
        "index_report": index_report,
        "index_seconds": index_seconds,
        "batch_exit": batch_code,
        "batch_summary": summary,
        "batch_seconds": batch_seconds,
        "records": records,
    }


def _overlaps(span: Sequence[int], sentence: Sentence) -> bool:
    return span[0] < sentence.end and sentence.start < span[1]


def _layer(claim: Mapping[str, Any], name: str) -> Mapping[str, Any] | None:
    return next((layer for layer in claim.get("layers", ()) if layer["layer"] == name), None)


def _round(value: Any) -> Any:
    return round(value, 4) if isinstance(value, float) else value


def _passage(item: Mapping[str, Any]) -> dict[str, Any]:
    """One passage read for a claim: its chunk, the network's three probabilities (supported,
    contradicted, neither), and why it cannot state the claim, if it cannot."""
    return {
        "chunk": item.get("chunk_id"),
        "p": [_round(item.get(key)) for key in ("supported", "contradicted", "neither")],
        "cannot_state": item.get("cannot_state"),
        "error": item.get("error"),
    }


def claim_inputs(claim: Mapping[str, Any]) -> dict[str, Any]:
    """What the report says about one claim: each layer's reading, the values, the passages."""
    evidence = claim.get("evidence", ())
    readable = [e for e in evidence if not e.get("cannot_state")]
    return {
        "index": claim.get("index"),
        "text": claim.get("text"),
        "span": claim.get("span"),
        "label": claim.get("label"),
        "contested": claim.get("contested"),
        "layers": [
            {k: _round(layer.get(k)) for k in ("layer", "label", "score", "detail", "error")}
            for layer in claim.get("layers", ())
        ],
        "values": [
            {k: value.get(k) for k in ("kind", "text", "status", "found", "doc_id")}
            for value in claim.get("values", ())
        ],
        "max_supported": _round(max((e.get("supported") or 0.0 for e in evidence), default=None)),
        "max_contradicted": _round(
            max((e.get("contradicted") or 0.0 for e in readable), default=None)
        ),
        "citations": [item.get("chunk_id") for item in claim.get("citations", ())],
        "anti_citations": [item.get("chunk_id") for item in claim.get("anti_citations", ())],
        "evidence": [_passage(item) for item in evidence],
    }


def rule_finding(
    answer: Answer, claim: Mapping[str, Any], on: Sequence[Sentence]
) -> dict[str, Any]:
    """One contradiction of the knowledge layer, beside the gold: the mismatched values and
    where their evidence came from. ``same_document`` is true when the claim lies on a planted
    sentence other than an addition and every mismatch was found in the document that states
    the true version (whether it is the same slot is for the reader: see ``mismatches``)."""
    planted = next((s for s in on if s.label == "planted"), None)
    mismatches = [
        {
            "kind": v.get("kind"),
            "claim": v.get("text"),
            "evidence": v.get("found"),
            "doc": v.get("doc_id"),
        }
        for v in claim.get("values", ())
        if v.get("status") == "mismatch"
    ]
    same = (
        planted is not None
        and planted.kind != "unsupported_addition"
        and bool(mismatches)
        and all(m["doc"] == planted.doc for m in mismatches)
    )
    return {
        "id": answer.id,
        "gold": planted.kind if planted is not None else "true",
        "claim": claim.get("text"),
        "mismatches": mismatches,
        "same_document": same,
    }


def _share(part: int, whole: int) -> float | None:
    return part / whole if whole else None


def score(answers: Sequence[Answer], records: Mapping[str, Any]) -> dict[str, Any]:
    """Sentence flags against the gold labels, the flags' labels, the rules alone, per claim."""
    planted = Counter[str]()
    caught = Counter[str]()
    true_counts = {"negation": [0, 0], "no negation": [0, 0]}
    flagged_by = {"planted": Counter[str](), "true": Counter[str]()}
    claim_labels = Counter[str]()
    uncovered = {"planted": 0, "true": 0}
    findings: list[dict[str, Any]] = []
    failed_answers: list[str] = []
    answers_flagged = {"with error": [0, 0], "correct": [0, 0]}
    sentences_out: list[dict[str, Any]] = []
    claims_out: list[dict[str, Any]] = []
    for answer in answers:
        record = records.get(answer.id)
        if record is None or "error" in record:
            failed_answers.append(answer.id)
            continue
        claims = record["claims"]
        for claim in claims:
            claim_labels[claim["label"]] += 1
        answer_flagged = False
        for number, sentence in enumerate(answer.sentences):
            group = "planted" if sentence.label == "planted" else "true"
            on = [c for c in claims if c.get("span") and _overlaps(c["span"], sentence)]
            labels = sorted({c["label"] for c in on})
            flags = [label for label in labels if label in FLAG_LABELS]
            flagged = bool(flags)
            answer_flagged |= flagged
            if not on:
                uncovered[group] += 1
            if group == "planted":
                planted[str(sentence.kind)] += 1
                caught[str(sentence.kind)] += flagged
            else:
                key = "negation" if sentence.negated else "no negation"
                true_counts[key][0] += 1
                true_counts[key][1] += flagged
            if flagged:
                flagged_by[group]["contradicted" if "contradicted" in flags else "unsupported"] += 1
            sentences_out.append(
                {
                    "id": answer.id,
                    "sentence": number,
                    "label": sentence.label,
                    "kind": sentence.kind,
                    "negation": sentence.negated,
                    "flagged": flagged,
                    "claim_labels": labels,
                    "claims": [c.get("index") for c in on],
                }
            )
        key = "with error" if answer.planted else "correct"
        answers_flagged[key][0] += 1
        answers_flagged[key][1] += answer_flagged
        for claim in claims:
            on_sentences = [
                (n, s)
                for n, s in enumerate(answer.sentences)
                if claim.get("span") and _overlaps(claim["span"], s)
            ]
            gold = [s.kind or "true" for _, s in on_sentences]
            knowledge = _layer(claim, "knowledge")
            if knowledge is not None and knowledge["label"] == "contradicted":
                findings.append(rule_finding(answer, claim, [s for _, s in on_sentences]))
            claims_out.append(
                {"id": answer.id, "sentences": [n for n, _ in on_sentences], "gold": gold}
                | claim_inputs(claim)
            )
    n_planted, n_caught = sum(planted.values()), sum(caught.values())
    on_planted = sum(f["gold"] != "true" for f in findings)
    same_document = sum(f["same_document"] for f in findings)
    n_true = sum(c[0] for c in true_counts.values())
    n_false = sum(c[1] for c in true_counts.values())
    return {
        "answers": len(answers),
        "failed_answers": failed_answers,
        "planted": {
            "sentences": n_planted,
            "caught": n_caught,
            "catch_rate": _share(n_caught, n_planted),
            "by_kind": {
                kind: {
                    "sentences": planted[kind],
                    "caught": caught[kind],
                    "rate": _share(caught[kind], planted[kind]),
                }
                for kind in KINDS
            },
        },
        "true": {
            "sentences": n_true,
            "flagged": n_false,
            "false_alarm_rate": _share(n_false, n_true),
            "by_negation": {
                key: {"sentences": c[0], "flagged": c[1], "rate": _share(c[1], c[0])}
                for key, c in true_counts.items()
            },
        },
        "flag_precision": _share(n_caught, n_caught + n_false),
        "flags_by_label": {group: dict(counter) for group, counter in flagged_by.items()},
        "claim_labels": dict(claim_labels),
        "sentences_without_claim": uncovered,
        "answers_flagged": {
            key: {"answers": c[0], "flagged": c[1], "rate": _share(c[1], c[0])}
            for key, c in answers_flagged.items()
        },
        "knowledge_rules": {
            "contradicted_claims": len(findings),
            "on_planted": on_planted,
            "precision": _share(on_planted, len(findings)),
            "same_document": same_document,
            "precision_same_document": _share(same_document, len(findings)),
            "by_kind": dict(Counter(f["gold"] for f in findings if f["gold"] != "true")),
            "findings": findings,
        },
        "sentences": sentences_out,
        "claims": claims_out,
    }


def _cell(value: Any) -> str:
    """A table cell: one line, no pipe, in backticks."""
    text = " ".join(str(value).split()).replace("|", "\\|").replace("`", "'")
    return f"`{text}`"


def _pct(value: float | None) -> str:
    return "—" if value is None else f"{100 * value:.0f}%"


def table_md(figures: Mapping[str, Any]) -> str:
    s = figures["scores"]
    p, t = s["planted"], s["true"]
    rows = [
        "| planted error | sentences | caught | rate |",
        "| --- | ---: | ---: | ---: |",
    ]
    for kind, row in p["by_kind"].items():
        rows.append(
            f"| {kind.replace('_', ' ')} | {row['sentences']} | {row['caught']} | "
            f"{_pct(row['rate'])} |"
        )
    rows.append(f"| **all** | {p['sentences']} | {p['caught']} | **{_pct(p['catch_rate'])}** |")
    rows += [
        "",
        "| true sentences | sentences | flagged | rate |",
        "| --- | ---: | ---: | ---: |",
    ]
    for key, row in t["by_negation"].items():
        name = "with a negation word" if key == "negation" else "without a negation word"
        rows.append(f"| {name} | {row['sentences']} | {row['flagged']} | {_pct(row['rate'])} |")
    rows.append(
        f"| **all** | {t['sentences']} | {t['flagged']} | **{_pct(t['false_alarm_rate'])}** |"
    )
    by = s["flags_by_label"]
    labels = s["claim_labels"]
    other = sum(n for label, n in labels.items() if label not in (*FLAG_LABELS, "supported"))
    k = s["knowledge_rules"]
    kinds = ", ".join(f"{kind.replace('_', ' ')} {n}" for kind, n in sorted(k["by_kind"].items()))
    af = s["answers_flagged"]
    notes = [
        "",
        f"Precision of flags: **{_pct(s['flag_precision'])}** of the flagged sentences carry "
        f"the planted error ({p['caught']} of {p['caught'] + t['flagged']}). Flags on planted "
        f"sentences by label: {by['planted'].get('contradicted', 0)} contradicted, "
        f"{by['planted'].get('unsupported', 0)} unsupported; on true sentences: "
        f"{by['true'].get('contradicted', 0)} contradicted, "
        f"{by['true'].get('unsupported', 0)} unsupported (a sentence counts as contradicted "
        "when any of its claims is). Claims: "
        f"{sum(labels.values())}: {labels.get('supported', 0)} supported, "
        f"{labels.get('contradicted', 0)} contradicted, {labels.get('unsupported', 0)} "
        f"unsupported, {other} other (unchecked or error). Sentences no claim covers: "
        f"{s['sentences_without_claim']['planted']} planted, "
        f"{s['sentences_without_claim']['true']} true. Answers: "
        f"{af['with error']['flagged']} of {af['with error']['answers']} with an error flagged, "
        f"{af['correct']['flagged']} of {af['correct']['answers']} correct answers flagged; "
        f"{len(s['failed_answers'])} answers failed.",
        "",
        "Knowledge rules alone: the knowledge layer labels "
        f"{k['contradicted_claims']} claims contradicted, {k['on_planted']} of them on a "
        f"planted sentence (precision **{_pct(k['precision'])}**"
        + (f"; {kinds}" if kinds else "")
        + f"), {k['same_document']} of them on a planted sentence other than an addition with "
        "every mismatch found in the document that states the true version (precision "
        f"**{_pct(k['precision_same_document'])}**; whether it is the same slot is in the "
        "table). Each finding:",
        "",
        "| answer | gold sentence | claim value | evidence value | evidence document | same "
        "document |",
        "| --- | --- | --- | --- | --- | --- |",
        *(
            f"| {f['id']} | {f['gold'].replace('_', ' ')} | "
            f"{'; '.join(_cell(m['claim']) for m in f['mismatches'])} | "
            f"{'; '.join(_cell(m['evidence']) for m in f['mismatches'])} | "
            f"{'; '.join(sorted({_cell(m['doc']) for m in f['mismatches']}))} | "
            f"{'yes' if f['same_document'] else 'no'} |"
            for f in k["findings"]
        ),
        "",
        f"{s['answers']} hand-written answers about {figures['documents']} third-party "
        "documents that ship on this machine (bench/data/realdocs/SOURCE.md), "
        f"{p['sentences']} with one planted error, {s['answers'] - p['sentences']} correct; "
        f"{p['sentences'] + t['sentences']} sentences. The command itself with its defaults: "
        "`veracity index` of the documents, then `veracity verify-batch --index` "
        + (f"`--verifier {option}` " if (option := figures["verifier_option"]) else "")
        + f"(verifier {figures['verifier']} {figures['verifier_version']}, layers "
        f"{', '.join(figures['layers'])}, rule {figures['rule']}). A sentence is flagged when "
        "a claim overlapping it is "
        "contradicted or unsupported; a negation word is one of not, no, never, none, nor, "
        "neither, without, cannot, n't. Development data: the shipped decision is fit with this "
        "suite among its five sets, so these figures are in-sample (decision_fit gives it held "
        "out). Per-claim "
        "inputs (layer readings, value checks, passages) are in the result file.",
    ]
    return "\n".join([*rows, *notes])


def _first(records: Iterable[Mapping[str, Any]], key: str) -> Any:
    return next((r[key] for r in records if key in r), None)


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0] if __doc__ else None)
    parser.add_argument("--data", type=Path, default=DATA, help="the suite's folder")
    parser.add_argument(
        "--verifier", default=None, help="passed to verify-batch (default: its own default)"
    )
    parser.add_argument(
        "--out", default="verify_realdocs", help="the result's name: results/NAME.json"
    )
    parser.add_argument("--json", type=Path, default=None, help="also write the result here")
    parser.add_argument(
        "--check", action="store_true", help="check the answers file and exit; run nothing"
    )
    parser.add_argument("--keep", type=Path, default=None, help="keep the index and reports here")
    parser.add_argument(
        "--limit", type=int, default=None, help="the first N answers only; nothing is written"
    )
    add_allow_dirty(parser)
    args = parser.parse_args(argv)
    docs = args.data / "docs"
    answers = load_answers(args.data / "answers.jsonl", docs)[: args.limit]
    kinds = Counter(a.planted or "correct" for a in answers)
    print(f"{len(answers)} answers: {dict(kinds)}", file=sys.stderr)
    if args.check:
        return
    with tempfile.TemporaryDirectory(prefix="veracity-realdocs-") as scratch:
        work = args.keep or Path(scratch)
        work.mkdir(parents=True, exist_ok=True)
        ran = run_cli(answers, docs, work, args.verifier)
    records = list(ran["records"].values())
    figures = {
        "documents": len(list(docs.iterdir())),
        "verifier_option": args.verifier,
        "verifier": _first(records, "verifier"),
        "verifier_version": _first(records, "verifier_version"),
        "layers": _first(records, "layers") or [],
        "rule": _first(records, "rule"),
        "index": {
            "exit": ran["index_exit"],
            "seconds": round(ran["index_seconds"], 1),
            "report": ran["index_report"],
        },
        "batch": {
            "exit": ran["batch_exit"],
            "seconds": round(ran["batch_seconds"], 1),
            "summary": ran["batch_summary"],
        },
        "scores": score(answers, ran["records"]),
    }
    markdown = table_md(figures)
    command = "python bench/verify_realdocs.py " + shlex.join(
        sys.argv[1:] if argv is None else argv
    )
    if args.limit is None:
        write_result(args.out, figures, markdown, command.strip(), allow_dirty=args.allow_dirty)
    if args.json is not None:
        args.json.write_text(json.dumps(figures, indent=2) + "\n", encoding="utf-8")
    print(markdown)


if __name__ == "__main__":
    main()
