"""Public labelled pairs: read the normalized ``*.jsonl`` files, map labels, sample to a quota.

Every reader drops rows whose ``eval_overlap`` list is non-empty (they share a 12-word span with an
evaluation set). Labels are mapped per source; ``not_supported`` is used only where the source
does not say whether "not supported" is a contradiction or missing information.
"""

from __future__ import annotations

import hashlib
import json
import random
import re
from collections import Counter
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from veracity_training.data.schema import DataLabel, Row
from veracity_training.data.text import capitalise_first, clean, detokenize, word_count

__all__ = [
    "PUBLIC_SOURCES",
    "PublicSource",
    "build_public",
    "digest",
    "license_of",
    "read_jsonl",
]

JsonRow = dict[str, Any]


def digest(text: str, size: int = 12) -> str:
    """A short stable hash (not Python's salted ``hash``)."""
    return hashlib.sha1(text.encode("utf-8")).hexdigest()[:size]


def read_jsonl(path: Path, *, stats: Counter[str] | None = None) -> Iterator[JsonRow]:
    """Rows of a JSONL file in file order, skipping (and counting) rows with an eval overlap."""
    with path.open(encoding="utf-8") as handle:
        for line in handle:
            if not line.strip():
                continue
            row: JsonRow = json.loads(line)
            if row.get("eval_overlap"):
                if stats is not None:
                    stats["dropped_eval_overlap"] += 1
                continue
            yield row


_LICENSE = re.compile(r"^- \*\*License \(as stated\):\*\*\s*(.+)$", re.MULTILINE)


def license_of(folder: Path) -> str:
    """The "License (as stated)" line of ``folder/SOURCE.md``, verbatim."""
    text = (folder / "SOURCE.md").read_text(encoding="utf-8")
    match = _LICENSE.search(text)
    return match.group(1).strip() if match else "not stated in SOURCE.md"


@dataclass(frozen=True)
class PublicSource:
    """How to turn one normalized file into rows.

    ``labels`` maps the source's own ``label`` value (as a string) to ours; unmapped labels are
    dropped. ``shares`` optionally fixes the label mix of the sample (fractions of ``quota``).
    ``group`` picks the field whose value keeps related rows in one split (default: the premise).
    """

    name: str
    path: str
    quota: int
    labels: Mapping[str, DataLabel]
    tokenized: bool = False
    shares: Mapping[DataLabel, float] = field(default_factory=dict)
    group: str = "premise"
    first: Callable[[JsonRow], bool] | None = None


def _is_paragraph_protocol(row: JsonRow) -> bool:
    return str(row.get("split", "")).startswith("paragraph")


S: DataLabel = "supported"
C: DataLabel = "contradicted"
N: DataLabel = "neither"
U: DataLabel = "not_supported"

PUBLIC_SOURCES: tuple[PublicSource, ...] = (
    PublicSource(
        "vitaminc_bigbench", "vitaminc_bigbench/vitaminc_bigbench.jsonl", 12000,
        {"SUPPORTS": S, "REFUTES": C, "NOT ENOUGH INFO": N}, tokenized=True,
        shares={S: 0.4, C: 0.35, N: 0.25}, group="page_guess",
    ),
    # NOT-ENOUGH-INFO claims are absent from this file: not_entailment is REFUTES (label3 says
    # contradiction), so it maps to contradicted.
    PublicSource(
        "fever_rte_dev", "fever_rte_dev/fever_rte_dev.jsonl", 4000,
        {"entailment": S, "not_entailment": C}, tokenized=True,
    ),
    PublicSource(
        "tenp_wiki_nli", "tenp_wiki_nli/tenp_all.jsonl", 6000,
        {"entailment": S, "contradiction": C, "neutral": N}, first=_is_paragraph_protocol,
    ),
    PublicSource(
        "nli_misc_felipessalvatore/mnli", "nli_misc_felipessalvatore/mnli.jsonl", 3000,
        {"entailment": S, "contradiction": C, "neutral": N},
    ),
    # SciTail has two classes, entails and neutral: not_entailment is "neither".
    PublicSource(
        "nli_misc_felipessalvatore/scitail", "nli_misc_felipessalvatore/scitail.jsonl", 1000,
        {"entailment": S, "not_entailment": N},
    ),
    # RTE merges contradiction and unknown into not_entailment.
    PublicSource(
        "nli_misc_felipessalvatore/rte", "nli_misc_felipessalvatore/rte.jsonl", 1500,
        {"entailment": S, "not_entailment": U},
    ),
    PublicSource(
        "fm2", "fm2/fm2_dev_test.jsonl", 2500, {"SUPPORTS": S, "REFUTES": C},
    ),
    PublicSource(
        "fever_symmetric", "fever_symmetric/fever_symmetric_all.jsonl", 2000,
        {"SUPPORTS": S, "REFUTES": C}, tokenized=True,
    ),
    PublicSource(
        "covidfact", "covidfact/covidfact_all.jsonl", 1500, {"SUPPORTED": S, "REFUTED": C},
        shares={S: 0.5, C: 0.5},
    ),
    PublicSource(
        "healthver", "healthver/healthver_dev_test.jsonl", 2000,
        {"Supports": S, "Refutes": C, "Neutral": N},
    ),
    # Only claims with rationales are in this file (no NEI): not_entailment is CONTRADICT.
    PublicSource(
        "scifact_rte", "scifact_rte/scifact_rte.jsonl", 800,
        {"entailment": S, "not_entailment": C},
    ),
    PublicSource(
        "summedits", "summedits/summedits_8domains.jsonl", 3000, {"1": S, "0": U},
        shares={S: 0.45, U: 0.55},
    ),
    PublicSource(
        "propsegment_dev", "propsegment_dev/propsegment_dev_wiki.jsonl", 1100,
        {"entailment": S, "neutral": N, "contradiction": C},
    ),
    PublicSource(
        "sufficient_facts", "sufficient_facts/sufficient_facts_all.jsonl", 3000,
        {"NOT ENOUGH INFO": N, "SUPPORTS": S, "REFUTES": C}, tokenized=True,
    ),
)  # fmt: skip

#: Sources built from FEVER dev claims: fever_rte_dev rows whose claim is in one of these are
#: dropped, so the same claim does not appear twice with different evidence.
_FEVER_FAMILY = ("fever_symmetric", "sufficient_facts")


def _claim_key(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", " ", text.lower()).strip()


def _sample(
    rows: list[Row], spec: PublicSource, quota: int, rng: random.Random, first: set[str]
) -> list[Row]:
    rng.shuffle(rows)
    rows.sort(key=lambda r: r.id not in first)  # stable: preferred rows first, shuffled inside
    if not spec.shares:
        return rows[:quota]
    by_label: dict[DataLabel, list[Row]] = {}
    for row in rows:
        by_label.setdefault(row.label, []).append(row)
    chosen: list[Row] = []
    for label in sorted(by_label):
        want = round(quota * spec.shares.get(label, 0.0))
        chosen.extend(by_label[label][:want])
    taken = {r.id for r in chosen}
    for row in rows:  # top up from whatever is left when a label ran short
        if len(chosen) >= quota:
            break
        if row.id not in taken:
            chosen.append(row)
    return chosen[:quota]


#: Longer premises (a few SummEdits transcripts) are dropped rather than cut, since a cut could
#: remove the evidence a label depends on.
MAX_PREMISE_WORDS = 800


def _unquote(text: str) -> str:
    """Undo TSV quoting left in some files: '""' -> '"', and a lone leading or trailing quote."""
    text = text.replace('"""', '"').replace('""', '"')
    if text.count('"') % 2 == 1:
        if text.startswith('"'):
            text = text[1:]
        elif text.endswith('"'):
            text = text[:-1]
    return text.strip()


def _to_row(raw: JsonRow, spec: PublicSource) -> Row | None:
    label = spec.labels.get(str(raw.get("label")))
    if label is None:
        return None
    fix = detokenize if spec.tokenized else clean
    premise = _unquote(fix(str(raw.get("premise") or "")))
    hypothesis = _unquote(fix(str(raw.get("hypothesis") or "")))
    if not premise or not hypothesis or word_count(premise) > MAX_PREMISE_WORDS:
        return None
    hypothesis = capitalise_first(hypothesis)
    group_value = str(raw.get(spec.group) or raw.get("premise") or "")
    return Row(
        id=f"{spec.name.replace('/', '-')}-{raw['id']}",
        premise=premise,
        hypothesis=hypothesis,
        label=label,
        source=spec.name,
        kind="public",
        group=f"{spec.name}:{digest(group_value)}",
    )


def build_public(
    root: Path,
    *,
    seed: int,
    scale: float,
    stats: dict[str, Counter[str]],
    specs: tuple[PublicSource, ...] = PUBLIC_SOURCES,
) -> list[Row]:
    """Rows from every public labelled source, each sampled to ``quota * scale``."""
    loaded: dict[str, list[Row]] = {}
    first_ids: dict[str, set[str]] = {}
    for spec in specs:
        counter = stats.setdefault(spec.name, Counter())
        rows: list[Row] = []
        seen: set[tuple[str, str]] = set()
        first: set[str] = set()
        for raw in read_jsonl(root / spec.path, stats=counter):
            row = _to_row(raw, spec)
            if row is None:
                counter["dropped_unmapped_label_empty_or_long"] += 1
                continue
            if (row.premise, row.hypothesis) in seen:
                counter["dropped_duplicate"] += 1
                continue
            seen.add((row.premise, row.hypothesis))
            rows.append(row)
            if spec.first is not None and spec.first(raw):
                first.add(row.id)
        loaded[spec.name] = rows
        first_ids[spec.name] = first
    fever_claims = {
        _claim_key(r.hypothesis) for name in _FEVER_FAMILY for r in loaded.get(name, [])
    }
    if "fever_rte_dev" in loaded:
        kept = [r for r in loaded["fever_rte_dev"] if _claim_key(r.hypothesis) not in fever_claims]
        stats["fever_rte_dev"]["dropped_claim_in_other_fever_set"] += len(
            loaded["fever_rte_dev"]
        ) - len(kept)
        loaded["fever_rte_dev"] = kept
    out: list[Row] = []
    for spec in specs:
        rng = random.Random(f"{seed}:public:{spec.name}")
        quota = max(0, round(spec.quota * scale))
        chosen = _sample(loaded[spec.name], spec, quota, rng, first_ids[spec.name])
        stats[spec.name]["rows"] += len(chosen)
        out.extend(chosen)
    return out
