"""The knowledge rules alone: how often their contradiction findings are right, and on how many
claims they speak, for the code of this tree and a baseline commit, side by side.

    nice -n 10 .venv/bin/python bench/verify_rules.py --baseline main \\
        [--realdocs bench/data/realdocs/answers.jsonl] [--data ../shared/data] [--limit N]

The rules are the knowledge layer without names (``KnowledgeLayer(entities=False)``, as
``veracity check`` runs them): values, dates, versions, units, options, negation, antonyms and
quantifiers, no network. Each (premise, claim) pair is one claim against one passage; a claim
*speaks* when the layer labels it contradicted (at least one ``mismatch``). Sets:

- **Minimal pairs** (``bench/data/minimal_pairs.jsonl``): each original claim (supported by its
  premise) and its twin (against ``twin_premise`` where the row has one: a negated claim against
  a negated premise); a finding is right on a twin whose expected label is contradicted and
  false on an original or on a twin that keeps its meaning or only loses support (expected
  supported or neither).
- **Issue cases** (``bench/data/rules_cases.jsonl``): the false findings issue 43 lists, as
  real-looking pairs from documents on this machine (a finding is false), and real
  contradictions of the same shapes (a finding is right).
- **WiCE dev** and **LFQA dev half** (bench/verifier_data.py): a finding on a claim labelled
  supported is false; one on a claim not (or partly) supported is counted right, though the
  source may only fail to state it, so their precision is an upper bound.
- **Real documents** (``--realdocs``, the suite's ``answers.jsonl``): each sentence against its
  answer's document; a finding on a true sentence is false, on a planted error right (an
  unsupported addition is not counted either way: its right label is unsupported).

Per set and tree: findings (claims spoken on), right, false, precision = right / (right +
false), recall (share of the claims whose right label is contradicted that the rules
contradict), the false findings by kind, and how many findings report a span outside its own
text (the claim's span past the claim, the evidence's past the premise). The baseline runs
in a subprocess on ``git archive BASELINE src`` of this repository.
"""

from __future__ import annotations

import argparse
import json
import os
import shlex
import subprocess
import sys
import tarfile
import tempfile
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _report import REPO, add_allow_dirty, write_result

BENCH = Path(__file__).resolve().parent
PAIRS = BENCH / "data" / "minimal_pairs.jsonl"
CASES = BENCH / "data" / "rules_cases.jsonl"
REALDOCS = BENCH / "data" / "realdocs" / "answers.jsonl"
#: Truths: a finding is right on ``contradicted``, counted right on ``plausible`` (a claim not
#: supported, which the source may or may not contradict), false on ``kept``, not counted on
#: ``unknown``.
TRUTHS = ("contradicted", "plausible", "kept", "unknown")
GOAL = 0.95
#: Real-document kinds whose planted sentence the source contradicts.
_REALDOCS_CONTRADICTED = {
    "wrong_number",
    "antonym",
    "entity_swap",
    "negation",
    "scope",
    "swapped_roles",
}


@dataclass(frozen=True)
class Pair:
    """One claim against one passage, with what a contradiction finding on it would be."""

    set: str
    id: str
    kind: str
    premise: str
    claim: str
    truth: str


def _jsonl(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line]


def minimal_pairs(limit: int | None) -> list[Pair]:
    out = []
    for row in _jsonl(PAIRS)[:limit]:
        twin = "contradicted" if row["expected"] == "contradicted" else "kept"
        out.append(
            Pair("minimal_pairs", row["id"], "original", row["premise"], row["claim"], "kept")
        )
        premise = row.get("twin_premise", row["premise"])  # a twin may have its own premise
        out.append(Pair("minimal_pairs", row["id"], row["kind"], premise, row["twin"], twin))
    return out


def issue_cases() -> list[Pair]:
    return [
        Pair(
            "issue_cases",
            row["id"],
            row["kind"],
            row["premise"],
            row["claim"],
            "contradicted" if row["expected"] == "contradicted" else "kept",
        )
        for row in _jsonl(CASES)
    ]


def dev_set(name: str, data: Path, limit: int | None) -> list[Pair]:
    from verifier_data import load

    return [
        Pair(
            name,
            f"{item.group}:{i}",
            "supported" if item.label else "not supported",
            item.premise,
            item.claim,
            "kept" if item.label else "plausible",
        )
        for i, item in enumerate(load(name, data, limit))
    ]


def realdocs(path: Path) -> list[Pair]:
    docs = path.parent / "docs"
    out = []
    for row in _jsonl(path):
        premise = (docs / row["doc"]).read_text(encoding="utf-8")
        for i, sentence in enumerate(row["sentences"]):
            if sentence["label"] == "true":
                kind, truth = "true", "kept"
            else:
                kind = str(sentence["kind"])
                truth = "contradicted" if kind in _REALDOCS_CONTRADICTED else "unknown"
            out.append(Pair("realdocs", f"{row['id']}:{i}", kind, premise, sentence["text"], truth))
    return out


# --- reading: runs on whichever veracity is importable (this tree's or the baseline's) ----------


def _finding(check: Any) -> str:
    """The kind of a finding; older code has no ``ValueCheck.finding``."""
    finding = getattr(check, "finding", None)
    if isinstance(finding, str):
        return finding
    groups: dict[str, str] = {
        "percent": "number",
        "money": "number",
        "year": "date",
        "quantity": "unit",
    }
    return groups.get(str(check.kind), str(check.kind))


def read(pairs: Sequence[Pair]) -> list[dict[str, Any]]:
    """Per pair: whether the rules contradict the claim, the kinds of their findings, and how
    many findings have a span outside its own text."""
    from veracity.rules.layer import KnowledgeLayer
    from veracity.types import Chunk, Claim, Span

    layer = KnowledgeLayer(entities=False).load()
    chunks: dict[str, Any] = {}
    for pair in pairs:
        if pair.premise not in chunks:
            doc = f"p{len(chunks)}"
            chunks[pair.premise] = Chunk(f"{doc}#0", doc, 0, pair.premise, 0, len(pair.premise))
    out: list[dict[str, Any]] = []
    step = 256
    for first in range(0, len(pairs), step):
        batch = pairs[first : first + step]
        result = layer.run(
            [Claim(i, p.claim, Span(0, len(p.claim)), i) for i, p in enumerate(batch)],
            [[chunks[p.premise]] for p in batch],
        )
        for pair, checks in zip(batch, result.values, strict=True):
            found = [c for c in checks if c.status == "mismatch"]
            outside = sum(
                not (0 <= c.span.start <= c.span.end <= len(pair.claim))
                or c.span.of(pair.claim) != c.text
                or (
                    c.evidence is not None
                    and not (0 <= c.evidence.start <= c.evidence.end <= len(pair.premise))
                )
                for c in checks
            )
            out.append(
                {
                    "contradicted": bool(found),
                    "kinds": sorted({_finding(c) for c in found}),
                    "outside": outside,
                }
            )
    return out


# --- measuring ----------------------------------------------------------------------------------


def summarise(pairs: Sequence[Pair], readings: Sequence[dict[str, Any]]) -> dict[str, Any]:
    spoken = [(p, r) for p, r in zip(pairs, readings, strict=True) if r["contradicted"]]
    right = sum(p.truth in ("contradicted", "plausible") for p, _ in spoken)
    false = sum(p.truth == "kept" for p, _ in spoken)
    should = [r for p, r in zip(pairs, readings, strict=True) if p.truth == "contradicted"]
    false_kinds: Counter[str] = Counter()
    for p, r in spoken:
        if p.truth == "kept":
            false_kinds.update(r["kinds"])
    return {
        "claims": len(pairs),
        "spoken": len(spoken),
        "right": right,
        "false": false,
        "unknown": len(spoken) - right - false,
        "precision": right / (right + false) if right + false else None,
        "contradicted_claims": len(should),
        "recall": sum(r["contradicted"] for r in should) / len(should) if should else None,
        "false_by_kind": dict(sorted(false_kinds.items())),
        "spans_outside": sum(r["outside"] for r in readings),
    }


def by_kind(pairs: Sequence[Pair], readings: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """Per edit kind and right label of a set (minimal pairs, issue cases, real documents): the
    share the rules contradict."""
    out: dict[str, Any] = {}
    for kind, truth in dict.fromkeys((p.kind, p.truth) for p in pairs):
        rows = [
            r for p, r in zip(pairs, readings, strict=True) if p.kind == kind and p.truth == truth
        ]
        out[f"{kind}/{truth}"] = {
            "kind": kind,
            "truth": truth,
            "claims": len(rows),
            "contradicted": sum(r["contradicted"] for r in rows) / len(rows),
        }
    return out


def _baseline(rev: str, pairs: Sequence[Pair]) -> tuple[str, list[dict[str, Any]]]:
    """Read ``pairs`` with the rules of commit ``rev`` (its ``src/``, in a subprocess)."""
    commit = subprocess.run(
        ["git", "rev-parse", "--short", rev], cwd=REPO, capture_output=True, text=True, check=True
    ).stdout.strip()
    with tempfile.TemporaryDirectory(prefix="veracity-rules-") as tmp:
        archive = Path(tmp) / "src.tar"
        subprocess.run(["git", "archive", "-o", str(archive), commit, "src"], cwd=REPO, check=True)
        with tarfile.open(archive) as tar:
            tar.extractall(tmp, filter="data")
        given, got = Path(tmp) / "pairs.json", Path(tmp) / "readings.json"
        given.write_text(json.dumps([asdict(p) for p in pairs]), encoding="utf-8")
        env = {**os.environ, "PYTHONPATH": str(Path(tmp) / "src")}
        subprocess.run(
            [sys.executable, __file__, "--worker", str(given), str(got)], env=env, check=True
        )
        return commit, json.loads(got.read_text(encoding="utf-8"))


def _worker(given: Path, got: Path) -> None:
    import veracity

    if not Path(veracity.__file__).resolve().is_relative_to(given.parent.resolve()):
        raise SystemExit(f"the baseline imported {veracity.__file__}, not its own src/")
    pairs = [Pair(**row) for row in json.loads(given.read_text(encoding="utf-8"))]
    got.write_text(json.dumps(read(pairs)), encoding="utf-8")


def _pct(value: float | None) -> str:
    return "—" if value is None else f"{100 * value:.1f}%"


def table(figures: dict[str, Any]) -> str:
    base, new = figures["baseline"]["commit"], figures["tree"]["commit"]
    lines = [
        f"The knowledge rules alone (no network, no names), baseline {base} against this tree "
        f"({new}). *Spoken*: claims the rules contradict; precision = right / (right + false); "
        "recall: of the claims whose right label is contradicted. Goal: precision "
        f">= {100 * GOAL:.0f}%.",
        "",
        "| set | claims | spoken (old → new) | false (old → new) | precision (old → new) "
        "| recall (old → new) | spans outside (old → new) |",
        "| --- | ---: | ---: | ---: | ---: | ---: | ---: |",
    ]
    for name in [*figures["sets"], "all"]:
        old, cur = figures["baseline"]["sets"][name], figures["tree"]["sets"][name]
        lines.append(
            f"| {name} | {cur['claims']} | {old['spoken']} → {cur['spoken']} "
            f"| {old['false']} → {cur['false']} "
            f"| {_pct(old['precision'])} → {_pct(cur['precision'])} "
            f"| {_pct(old['recall'])} → {_pct(cur['recall'])} "
            f"| {old['spans_outside']} → {cur['spans_outside']} |"
        )
    lines += [
        "",
        "WiCE and LFQA count a finding on a claim not (or partly) supported as right, so their "
        "precision is an upper bound; real documents do not count unsupported additions.",
        "",
        "False findings by kind (old → new): "
        + "; ".join(
            f"{name}: {_kinds(figures['baseline']['sets'][name])} → "
            f"{_kinds(figures['tree']['sets'][name])}"
            for name in figures["sets"]
        ),
        "",
        "Share contradicted per edit kind (old → new):",
        "",
        "| set | kind | right label | claims | old | new |",
        "| --- | --- | --- | ---: | ---: | ---: |",
    ]
    for name in figures["sets"]:
        if name not in figures["tree"]["kinds"]:
            continue
        for key, cur in figures["tree"]["kinds"][name].items():
            old = figures["baseline"]["kinds"][name][key]
            label = {"contradicted": "contradicted", "kept": "not contradicted"}.get(
                cur["truth"], "—"
            )
            lines.append(
                f"| {name} | {cur['kind']} | {label} | {cur['claims']} "
                f"| {_pct(old['contradicted'])} | {_pct(cur['contradicted'])} |"
            )
    return "\n".join(lines)


def _kinds(summary: dict[str, Any]) -> str:
    kinds = summary["false_by_kind"]
    return ", ".join(f"{k} {v}" for k, v in kinds.items()) if kinds else "none"


def _measure(sets: dict[str, list[Pair]], readings: Iterable[dict[str, Any]]) -> dict[str, Any]:
    rows = list(readings)
    out: dict[str, Any] = {"sets": {}, "kinds": {}}
    position = 0
    for name, pairs in sets.items():
        mine = rows[position : position + len(pairs)]
        position += len(pairs)
        out["sets"][name] = summarise(pairs, mine)
        if name in ("minimal_pairs", "issue_cases", "realdocs"):
            out["kinds"][name] = by_kind(pairs, mine)
    everything = [p for pairs in sets.values() for p in pairs]
    out["sets"]["all"] = summarise(everything, rows)
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--baseline", default="main", help="commit to compare with (main)")
    parser.add_argument("--realdocs", type=Path, default=REALDOCS, help="the suite's answers.jsonl")
    parser.add_argument("--data", type=Path, default=None, help="shared/data (wice, lfqa)")
    parser.add_argument("--limit", type=int, default=None, help="first N items of each set")
    parser.add_argument("--worker", nargs=2, type=Path, help=argparse.SUPPRESS)
    add_allow_dirty(parser)
    args = parser.parse_args()
    if args.worker:
        _worker(*args.worker)
        return

    from verifier_data import DEFAULT_DATA

    data = args.data or DEFAULT_DATA
    sets = {
        "minimal_pairs": minimal_pairs(args.limit),
        "issue_cases": issue_cases(),
        "wice": dev_set("wice", data, args.limit),
        "lfqa": dev_set("lfqa", data, args.limit),
    }
    if args.realdocs.is_file():
        sets["realdocs"] = realdocs(args.realdocs)
    else:
        print(f"no real-document suite at {args.realdocs}: pass --realdocs PATH", file=sys.stderr)
    everything = [p for pairs in sets.values() for p in pairs]
    commit, old = _baseline(args.baseline, everything)
    new = read(everything)
    head = subprocess.run(
        ["git", "rev-parse", "--short", "HEAD"], cwd=REPO, capture_output=True, text=True
    ).stdout.strip()
    figures = {
        "sets": list(sets),
        "baseline": {"commit": commit, **_measure(sets, old)},
        "tree": {"commit": head, **_measure(sets, new)},
        "goal_precision": GOAL,
    }
    markdown = table(figures)
    print(markdown)
    python = os.path.relpath(sys.executable, REPO) if ".venv" in sys.executable else "python"
    path = f"PYTHONPATH={os.environ['PYTHONPATH']} " if os.environ.get("PYTHONPATH") else ""
    command = f"{path}nice -n 10 {python} bench/verify_rules.py {shlex.join(sys.argv[1:])}"
    write_result("verify_rules", figures, markdown, command.strip(), allow_dirty=args.allow_dirty)


if __name__ == "__main__":
    main()
