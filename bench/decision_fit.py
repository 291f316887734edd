"""Fit the one decision (veracity.decision) on development data, measure it held out, ship it.

    nice -n 10 .venv/bin/python bench/decision_fit.py [--val DATA/val.jsonl] \
        [--realdocs bench/data/realdocs] [--ship]

Every claim of every development set goes through the answer pipeline's own judging code
(``AnswerVerifier.judge``: the NLI layer over the claim's passages, the knowledge rules, the
signals), so the decision is fit on exactly the inputs it reads at run time:

- WiCE dev, the LFQA-Verification dev half and CLIMATE-FEVER (``verifier_data``): each claim
  against its document, cut into passages by the indexer's chunker (documents split at blank
  lines); supported or not, and for CLIMATE-FEVER's REFUTES also contradicted;
- held-out validation rows of the verifier's training data (``--val``, three-way labels: the
  contradicted-or-unsupported half of the decision needs them);
- the real-document suite (``--realdocs``: answers with planted errors about third-party
  documents), each answer verified against the suite's documents as ``verify-batch --index``
  would, its claims labelled by the gold sentence they fall in.

Figures: for each set, the decision fit on the *other* sets (the set held out) against the
network alone (its best passage's P(supported) at 0.5), the ``any`` rule of the layers, and word
coverage (threshold chosen on the other half of the groups); the inputs' weights and
standardized contributions of the decision fit on everything; and, with ``--ship``, that
decision written to ``src/veracity/assets/decision.json``. Signals are cached in
``.cache/decision/`` (by set and verifier version), so a refit reads no network.
"""

from __future__ import annotations

import argparse
import dataclasses
import functools
import hashlib
import json
import shlex
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _report import add_allow_dirty, write_result
from veracity import defaults
from veracity.assets import DECISION_FILE
from veracity.config import VerifyConfig
from veracity.corpus.chunker import Chunker
from veracity.decision import FEATURES, Decision, features, fit_decision
from veracity.errors import InputError
from veracity.evaluate.classification import balanced_accuracy, cross_threshold, roc_auc
from veracity.models.pairs.combiner import fit_logistic
from veracity.models.pairs.registry import make_verifier
from veracity.types import (
    Chunk,
    Claim,
    ClaimSet,
    ClaimSignals,
    Document,
    Reading,
    Span,
    ValueCheck,
)
from veracity.verify.gather import ClaimEvidence, EvidenceSet
from veracity.verify.pipeline import AnswerVerifier, make_answer_verifier
from veracity.verify.rules import LayerCombiner
from veracity.verify.signals import claim_signals
from verifier_data import DEFAULT_DATA, Item, load

ROOT = Path(__file__).resolve().parent.parent
CACHE = ROOT / ".cache" / "decision"
SETS = ("wice", "lfqa", "climate_fever")
#: The bench reads the decision's inputs, not its label: judge with weights that decide nothing,
#: so that a first fit needs no shipped decision.
_UNFIT = Decision((0.0,) * len(FEATURES), 0.0, (0.0,) * len(FEATURES), 0.0, "unfit")


#: The network whose readings the decision is fit on (``--verifier``; the shipped one by
#: default).
NETWORK = [defaults.VERIFIER]


def _collecting_verifier(sources: Sequence[Chunk]) -> AnswerVerifier:
    """The pipeline with the network (:data:`NETWORK`) and rules whose verdicts decide by the
    any rule against a placeholder decision: only the raw signals are read, so a decision file
    that does not fit the current inputs (before a refit) is never loaded."""
    verifier = make_answer_verifier(
        make_verifier(NETWORK[0]), VerifyConfig().with_options(rule="any"), sources=sources
    )
    chosen = verifier.combiner
    verifier.combiner = LayerCombiner("any", order=chosen.order, tau=chosen.tau, decision=_UNFIT)
    return verifier.load()


COVERAGE_COLUMN = FEATURES.index("coverage_all")


@dataclass(frozen=True)
class Row:
    """One claim's signals (as plain data) and gold labels (``contradicted``: None where
    unknown); ``any_rule`` is the label the layers' old default rule gave."""

    set: str
    group: str
    signals: dict[str, Any]
    supported: int
    contradicted: int | None
    any_rule: str

    @property
    def features(self) -> np.ndarray:
        return features(signals_from(self.signals))


def signals_to(signals: ClaimSignals) -> dict[str, Any]:
    return {
        "readings": [[r.supported, r.contradicted, r.neither, r.can_state]
                     for r in signals.readings],
        "checks": [[c.kind, c.status] for c in signals.checks],
        "coverage": signals.coverage,
        "coverage_all": signals.coverage_all,
        "coverage_sentence": signals.coverage_sentence,
    }  # fmt: skip


def signals_from(data: dict[str, Any]) -> ClaimSignals:
    return ClaimSignals(
        tuple(Reading(s, c, n, bool(ok)) for s, c, n, ok in data["readings"]),
        tuple(ValueCheck(kind, "", Span(0, 0), "", status) for kind, status in data["checks"]),
        data["coverage"],
        data["coverage_all"],
        data.get("coverage_sentence"),
    )


def _signals(verdict: Any) -> dict[str, Any]:
    return signals_to(claim_signals(verdict.claim.text, verdict.evidence, verdict.values))


def _climate_labels(data: Path) -> list[int | None]:
    """CLIMATE-FEVER's contradicted labels, in verifier_data's order."""
    out: list[int | None] = []
    with (data / "climate_fever" / "climate-fever.jsonl").open(encoding="utf-8") as f:
        for line in f:
            if line.strip():
                label = json.loads(line)["claim_label"]
                out.append({"REFUTES": 1, "NOT_ENOUGH_INFO": 0}.get(label))
    return out


def _passages(premise: str, name: str) -> tuple[Any, ...]:
    chunker = Chunker()
    parts = [p for p in premise.split("\n\n") if p.strip()] or [premise]
    return tuple(
        chunk
        for i, part in enumerate(parts)
        for chunk in chunker.run(Document(f"{name}/{i}", part, title=f"{name}/{i}"))
    )


def pair_rows(name: str, items: Sequence[Item], contradicted: Sequence[int | None]) -> list[Row]:
    """Each item's claim judged against its premise's passages by the pipeline."""
    verifier = _collecting_verifier(())
    rows: list[Row] = []
    started = time.perf_counter()
    batch = 32
    for at in range(0, len(items), batch):
        chunk = items[at : at + batch]
        claims = tuple(
            Claim(i, item.claim, Span(0, len(item.claim)), 0) for i, item in enumerate(chunk)
        )
        evidence = EvidenceSet(
            tuple(
                ClaimEvidence(claim, passages, tuple(False for _ in passages))
                for claim, item in zip(claims, chunk, strict=True)
                for passages in [_passages(item.premise, f"{name}{at + claim.index}")]
            ),
            "claim",
            0,
        )
        # one claim per item: the ClaimSet's answer is only where spans point
        report = verifier.judge(ClaimSet("\n".join(i.claim for i in chunk), claims), evidence)
        for verdict, item, gold in zip(
            report.verdicts, chunk, contradicted[at : at + batch], strict=True
        ):
            rows.append(
                Row(name, item.group, _signals(verdict), item.label,
                    None if item.label else gold, verdict.label)
            )  # fmt: skip
        done = at + len(chunk)
        rate = done / (time.perf_counter() - started)
        print(f"\r{name}: {done}/{len(items)} claims, {rate:.1f}/s", end="", file=sys.stderr)
    print(file=sys.stderr)
    return rows


def val_items(path: Path, limit: int) -> tuple[list[Item], list[int | None]]:
    """Up to ``limit`` three-way validation rows of the training data (premise ≤ 400 words)."""
    items: list[Item] = []
    contradicted: list[int | None] = []
    with path.open(encoding="utf-8") as f:
        for line in f:
            row = json.loads(line)
            if row["label"] not in {"supported", "contradicted", "neither"}:
                continue
            if len(row["premise"].split()) > 400:
                continue
            supported = int(row["label"] == "supported")
            items.append(Item(str(row["id"]).split("~")[0], row["premise"], row["hypothesis"],
                              supported))  # fmt: skip
            contradicted.append(None if supported else int(row["label"] == "contradicted"))
            if len(items) >= limit:
                break
    return items, contradicted


def realdocs_rows(folder: Path) -> list[Row]:
    """The suite's answers verified against its documents (as verify-batch --index would, with
    sources instead of an index), each claim labelled by the gold sentence it overlaps most."""
    from veracity.verify.gather import source_chunks, source_documents

    documents = source_documents([folder / "docs"])
    verifier = _collecting_verifier(source_chunks(documents))
    rows: list[Row] = []
    with (folder / "answers.jsonl").open(encoding="utf-8") as f:
        answers = [json.loads(line) for line in f if line.strip()]
    for n, answer in enumerate(answers):
        report = verifier.run(answer["answer"])
        for verdict in report.verdicts:
            span = verdict.claim.span
            best = max(
                answer["sentences"],
                key=lambda s: min(span.end, s["end"]) - max(span.start, s["start"]),
            )
            if min(span.end, best["end"]) <= max(span.start, best["start"]):
                continue
            planted = best["label"] == "planted"
            kind = best.get("kind", "")
            contradicted = None if not planted else int(kind != "unsupported_addition")
            rows.append(
                Row("realdocs", f"realdocs/{n}", _signals(verdict),
                    int(not planted), contradicted, verdict.label)
            )  # fmt: skip
        print(f"\rrealdocs: {n + 1}/{len(answers)} answers", end="", file=sys.stderr)
    print(file=sys.stderr)
    return rows


def code_digest() -> str:
    """A digest of the code that makes the signals (rules, NLI layer, signals): a change to any
    of it makes the cache miss (the features are computed from the cached signals)."""
    src = ROOT / "src" / "veracity"
    files = [
        *sorted((src / "rules").glob("*.py")),
        src / "rules" / "antonyms.txt",
        src / "verify" / "signals.py",
        src / "verify" / "nli.py",
    ]
    digest = hashlib.sha256()
    for path in files:
        digest.update(path.read_bytes())
    return digest.hexdigest()[:10]


DIGEST = code_digest()


def cached(name: str, version: str, make: Callable[[], list[Row]]) -> list[Row]:
    path = CACHE / f"{name}-{version}-{DIGEST}.jsonl"
    if path.is_file():
        return [Row(**json.loads(line)) for line in path.read_text().splitlines()]
    rows = make()
    CACHE.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(r.__dict__) + "\n" for r in rows))
    return rows


PAIRS = Path(__file__).resolve().parent / "data" / "minimal_pairs.jsonl"


def pair_suite_rows(version: str) -> tuple[list[dict[str, Any]], list[Row], list[Row]]:
    """The minimal-pair suite, and the decision inputs of each original and each twin."""
    pairs = [json.loads(line) for line in PAIRS.read_text().splitlines() if line]
    originals = [Item(p["id"], p["premise"], p["claim"], 1) for p in pairs]
    twins = [
        Item(p["id"], p.get("twin_premise", p["premise"]), p["twin"],
             int(p["expected"] == "supported"))
        for p in pairs
    ]  # fmt: skip
    n = len(pairs)
    first = cached(
        f"pairs-originals-{n}", version, lambda: pair_rows("pairs", originals, [None] * n)
    )
    second = cached(f"pairs-twins-{n}", version, lambda: pair_rows("pairs", twins, [None] * n))
    return pairs, first, second


def flip_rates(
    decision: Decision, pairs: list[dict[str, Any]], originals: list[Row], twins: list[Row]
) -> dict[str, Any]:
    """Per edit kind, among pairs whose original the judge calls supported: the share of twins
    that lose support (an altering edit; "kept" for a meaning-keeping one), by the network alone
    (its best P(supported) at 0.5) and by the decision; and how often the decision says
    contradicted."""
    out: dict[str, Any] = {}
    for kind in dict.fromkeys(p["kind"] for p in pairs):
        index = [i for i, p in enumerate(pairs) if p["kind"] == kind]
        expected = pairs[index[0]]["expected"]
        entry: dict[str, Any] = {"pairs": len(index), "expected": expected}
        for judge in ("network", "decision"):

            def supported(row: Row, judge: str = judge) -> bool:
                if judge == "network":
                    return _network(row) >= 0.5
                return decision.decide(np.asarray(row.features)).label == "supported"

            held = [i for i in index if supported(originals[i])]
            kept = [supported(twins[i]) for i in held]
            entry[f"{judge}_originals_supported"] = len(held)
            entry[f"{judge}_flip"] = (1 - float(np.mean(kept))) if held else None
            if judge == "decision" and held:
                entry["decision_contradicted"] = float(
                    np.mean([decision.decide(np.asarray(twins[i].features)).label
                             == "contradicted" for i in held])
                )  # fmt: skip
        out[kind] = entry
    return out


def _network(row: Row) -> float:
    """The network alone: its best reading's P(supported) (0 with none)."""
    return max((reading[0] for reading in row.signals["readings"]), default=0.0)


def _matrix(rows: Sequence[Row]) -> np.ndarray:
    return np.asarray([r.features for r in rows], dtype=np.float64)


def _cross(scores: np.ndarray, labels: np.ndarray, groups: list[str]) -> float | None:
    """Balanced accuracy at a threshold chosen on the other half of the groups (None where a
    half holds one class only: a --limit run)."""
    try:
        return cross_threshold(scores, labels, groups).value
    except InputError:
        return None


def balanced(rows: list[Row]) -> list[Row]:
    """``rows`` with each set's rows repeated so that every set weighs about the same in a fit
    (the largest set's count, rounded): 205 real-document claims count as much as 1,860 LFQA
    sentences."""
    counts = {s: sum(r.set == s for r in rows) for s in dict.fromkeys(r.set for r in rows)}
    largest = max(counts.values())
    return [r for r in rows for _ in range(max(1, round(largest / counts[r.set])))]


def fit(rows: list[Row], l2: float, **extra: Any) -> Decision:
    """The decision fit on ``rows``, every set weighing the same."""
    rows = balanced(rows)
    return fit_decision(
        _matrix(rows), [r.supported for r in rows], [r.contradicted for r in rows], l2=l2, **extra
    )


def held_out(rows: list[Row], name: str, l2: float) -> dict[str, Any]:
    """The decision fit without set ``name``, measured on it, beside the baselines."""
    test = [r for r in rows if r.set == name]
    train = [r for r in rows if r.set != name]
    labelled = any(r.contradicted is not None and not r.supported for r in train)
    decision = fit(train if labelled else rows, l2)
    if not labelled:
        # only this set has three-way labels: the support part is still fit without it
        part = balanced(train)
        weights, bias = fit_logistic(_matrix(part), [r.supported for r in part], l2=l2)
        decision = dataclasses.replace(
            decision, support_weights=tuple(float(w) for w in weights), support_bias=bias
        )
    x = _matrix(test)
    y = np.array([r.supported for r in test])
    decided = [decision.decide(row) for row in x]
    p = np.array([d.supported for d in decided])
    network = np.array([_network(r) for r in test])
    coverage = x[:, COVERAGE_COLUMN] + 0.5
    groups = [r.group for r in test]
    out: dict[str, Any] = {
        "contradiction_fit_includes_this_set": not labelled,
        "claims": len(test),
        "supported_share": float(y.mean()),
        "decision_bacc": balanced_accuracy(p >= 0.5, y),
        "decision_auc": roc_auc(p, y),
        "network_bacc": balanced_accuracy(network >= 0.5, y),
        "network_auc": roc_auc(network, y),
        "any_rule_bacc": balanced_accuracy(np.array([r.any_rule == "supported" for r in test]), y),
        "coverage_bacc_cross": _cross(coverage, y, groups),
        "coverage_auc": roc_auc(coverage, y),
    }
    known = [i for i, r in enumerate(test) if not r.supported and r.contradicted is not None]
    if known:
        truth = np.array([test[i].contradicted for i in known])
        said = np.array([decided[i].label == "contradicted" for i in known])
        flagged = np.array([decided[i].label != "supported" for i in known])
        out["not_supported_known"] = len(known)
        out["contradicted_recall"] = float(said[truth == 1].mean()) if (truth == 1).any() else None
        out["unsupported_called_contradicted"] = (
            float(said[truth == 0].mean()) if (truth == 0).any() else None
        )
        out["flag_recall"] = float(flagged.mean())
    return out


def contributions(decision: Decision, x: np.ndarray) -> dict[str, Any]:
    """Weights and standardized shares (|w| × std of the input, as a share of the sum)."""
    spread = x.std(axis=0)
    out: dict[str, Any] = {}
    for part, weights in (
        ("support", decision.support_weights),
        ("contradiction", decision.contradiction_weights),
    ):
        size = np.abs(np.asarray(weights)) * spread
        total = float(size.sum()) or 1.0
        out[part] = {
            name: {"weight": float(w), "share": float(s / total)}
            for name, w, s in zip(FEATURES, weights, size, strict=True)
        }
    return out


def table_md(figures: dict[str, Any]) -> str:
    lines = [
        "Held out: the decision fit on the other sets, measured on this one (balanced accuracy "
        "% at P(supported) ≥ 0.5, ROC-AUC); network: the best passage's P(supported) alone; "
        "`any`: the layers' old default rule; coverage: the share of the claim's content words "
        "in all its passages (word overlap), threshold chosen on the other half of the groups.",
        "",
        "| set | claims | decision BAcc | decision AUC | network BAcc | network AUC | any rule "
        "BAcc | coverage BAcc (cross) | coverage AUC | contradicted recall | unsupported "
        "called contradicted |",
        "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
    ]

    def pct(v: float | None) -> str:
        return "—" if v is None else f"{100 * v:.1f}"

    def auc(v: float | None) -> str:
        return "—" if v is None else f"{v:.3f}"

    for name, f in figures["held_out"].items():
        lines.append(
            f"| {name} | {f['claims']} | {pct(f['decision_bacc'])} | {auc(f['decision_auc'])} | "
            f"{pct(f['network_bacc'])} | {auc(f['network_auc'])} | {pct(f['any_rule_bacc'])} | "
            f"{pct(f['coverage_bacc_cross'])} | {auc(f['coverage_auc'])} | "
            f"{pct(f.get('contradicted_recall'))} | "
            f"{pct(f.get('unsupported_called_contradicted'))} |"
        )
    lines += [
        "",
        f"Fit on all {figures['rows']} claims ({figures['rows_by_set']}), each set weighing "
        "the same; the inputs' weights and standardized contributions (|weight| × the input's "
        "standard deviation over the claims, as a share):",
        "",
        "| input | support weight | support share | contradiction weight | contradiction share |",
        "| --- | ---: | ---: | ---: | ---: |",
    ]
    c = figures["contributions"]
    for name in FEATURES:
        s, k = c["support"][name], c["contradiction"][name]
        lines.append(
            f"| {name} | {s['weight']:+.3f} | {100 * s['share']:.1f}% | {k['weight']:+.3f} | "
            f"{100 * k['share']:.1f}% |"
        )
    lines.append(f"| bias | {figures['bias']['support']:+.3f} | — | "
                 f"{figures['bias']['contradiction']:+.3f} | — |")  # fmt: skip
    if figures.get("minimal_pairs"):
        lines += [
            "",
            "Minimal pairs (bench/data/minimal_pairs.jsonl): of the pairs whose original each "
            "judge calls supported, the share of twins that lose support (for a "
            "meaning-keeping edit, expected supported, the share kept), by the network alone "
            "and by the decision, and the decision's share of twins called contradicted.",
            "",
            "| edit | expected | pairs | network: originals supported | network flip (kept) | "
            "decision: originals supported | decision flip (kept) | decision contradicted |",
            "| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: |",
        ]
        for kind, f in figures["minimal_pairs"].items():
            keep = f["expected"] == "supported"

            def shown(v: float | None, keep: bool = keep) -> str:
                return "—" if v is None else f"{100 * (1 - v if keep else v):.1f}"

            lines.append(
                f"| {kind} | {f['expected']} | {f['pairs']} | "
                f"{f['network_originals_supported']} | {shown(f['network_flip'])} | "
                f"{f['decision_originals_supported']} | {shown(f['decision_flip'])} | "
                f"{pct(f.get('decision_contradicted'))} |"
            )
    if figures.get("shipped"):
        lines += ["", f"Shipped as {figures['shipped']} (src/veracity/assets/decision.json)."]
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA)
    parser.add_argument("--val", type=Path, help="val.jsonl of the verifier's training data")
    parser.add_argument("--val-rows", type=int, default=1500)
    parser.add_argument("--realdocs", type=Path, help="the real-document suite's folder")
    parser.add_argument("--limit", type=int, help="items per set (a quick check; not written)")
    parser.add_argument("--l2", type=float, default=1.0)
    parser.add_argument("--ship", action="store_true", help="write assets/decision.json")
    parser.add_argument("--version", default="1.0.0")
    parser.add_argument("--name", default="decision_fit")
    parser.add_argument(
        "--verifier",
        default=defaults.VERIFIER,
        help="the network to read with (a --verifier name, e.g. embedded:RUN/export); "
        "only the shipped one may be used with --ship",
    )
    add_allow_dirty(parser)
    args = parser.parse_args(argv)
    if args.ship and args.verifier != defaults.VERIFIER:
        parser.error("--ship fits the decision for the shipped network: leave --verifier out")
    NETWORK[0] = args.verifier
    command = "python bench/decision_fit.py " + shlex.join(sys.argv[1:] if argv is None else argv)
    checker = make_verifier(args.verifier)
    checker.load()
    version = str(getattr(checker, "version", "unknown"))
    rows: list[Row] = []
    for name in SETS:
        items = load(name, args.data, args.limit)
        gold: list[int | None] = (
            _climate_labels(args.data)[: len(items)]
            if name == "climate_fever"
            else [None] * len(items)
        )
        key = name if args.limit is None else f"{name}-limit{args.limit}"
        rows += cached(key, version, functools.partial(pair_rows, name, items, gold))
    if args.val is not None:
        items, gold = val_items(args.val, args.val_rows)
        key = f"val-{args.val.parent.name}-{args.val_rows}"
        rows += cached(key, version, lambda: pair_rows("val", items, gold))
    if args.realdocs is not None:
        rows += cached(f"realdocs-{len(list((args.realdocs / 'docs').iterdir()))}", version,
                       lambda: realdocs_rows(args.realdocs))  # fmt: skip
    sets = list(dict.fromkeys(r.set for r in rows))
    figures: dict[str, Any] = {
        "verifier_version": version,
        "rows": len(rows),
        "rows_by_set": ", ".join(f"{s} {sum(r.set == s for r in rows)}" for s in sets),
        "held_out": {name: held_out(rows, name, args.l2) for name in sets},
    }
    x = _matrix(rows)
    decision = fit(
        rows,
        args.l2,
        version=args.version,
        provenance={"command": command, "sets": figures["rows_by_set"], "verifier": version},
    )
    figures["contributions"] = contributions(decision, x)
    if args.limit is None:
        pairs, originals, twins = pair_suite_rows(version)
        figures["minimal_pairs"] = flip_rates(decision, pairs, originals, twins)
    figures["bias"] = {
        "support": decision.support_bias,
        "contradiction": decision.contradiction_bias,
    }
    if args.ship:
        figures["shipped"] = args.version
    if args.limit is None:
        write_result(args.name, figures, table_md(figures), command, allow_dirty=args.allow_dirty)
    if args.ship:  # after the figures, which name the commit that measured them
        DECISION_FILE.write_text(json.dumps(decision.to_json(), indent=2) + "\n")
    print(table_md(figures))


if __name__ == "__main__":
    main()
