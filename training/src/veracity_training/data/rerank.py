"""Deterministic builder of the reranker's training data: (query, passage) -> relevant or not.

Queries come from the QA sets of ``shared/nlidata``, read with the verifier's loaders
(:mod:`veracity_training.data.qa`, :mod:`veracity_training.data.sources`, which drop every row and
SQuAD paragraph that overlaps an evaluation set):

* SQuAD v1.1 dev and SQuADShifts (``squad_bigbench``; Reddit and Amazon at a reduced share);
* QED, i.e. Natural Questions paragraphs (``qed_nq``);
* the NQ passages of ``cpkc_nq_counterfactual`` with their *real* answer put back: CPKC replaced
  every mention of the answer entity by another one, so replacing it back restores the NQ
  passage; a row whose real answer is already in the edited passage (the edit is then not
  reversible) is dropped;
* HaluEval QA (HotpotQA knowledge paragraphs with their question and right answer).

A share of the queries (``web_share``) is rewritten the way people type into a web search box,
as in MS MARCO and TREC DL, the reranker's use: lowercased without the question mark ("how long
is the life cycle of a flea"), and half of those cut to their content words ("life cycle
flea"); the card counts each style. Negatives are mined with the form the model will read.

For each query: the gold paragraph is ``relevant`` (kind ``positive``); ``not_relevant`` are the
top BM25 paragraphs of the same collection that are not the gold one and hold no answer string
(kind ``bm25_negative``), the nearest paragraphs by the static embedder's cosine that BM25 did
not already give (kind ``dense_negative``, when ``dense_negatives`` > 0: needs ``veracity
distill-embedder``), and random paragraphs of the collection (kind ``random_negative``).

The split is by document, before any mining: documents (an article, an NQ title, a passage; a
passage shared by two sources joins their documents) go to validation by a seeded hash, and
negatives are mined only among paragraphs of the query's own split, so no passage text is shared
between train and val. Nothing under ``shared/data`` (evaluation data) is read.

Run ``python -m veracity_training.data.rerank --out runs/reranker/data --seed 13``.

>>> RerankBuildConfig(root=nli_root(), out=Path("runs/reranker/data")).seed
13
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import random
import re
import shlex
import sys
import time
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final, Literal

from veracity.errors import OptionError
from veracity_training.data.build import BuildConfig, _UnionFind
from veracity_training.data.locations import nli_root
from veracity_training.data.qa import load_qed, load_squad
from veracity_training.data.rerank_queries import (
    LICENSE_FOLDERS,
    QUERY_QUOTAS,
    Query,
    contains_answer,
    load_queries,
    web_query,
)
from veracity_training.data.sources import digest, license_of

__all__ = [
    "RELEVANCE_LABELS",
    "Pair",
    "RerankBuildConfig",
    "RerankBuildResult",
    "build_rerank",
    "write_rerank",
]

Relevance = Literal["relevant", "not_relevant"]
RELEVANCE_LABELS: Final[tuple[Relevance, ...]] = ("relevant", "not_relevant")
#: A paragraph sharing this share of its words (Jaccard) with the gold one is no negative.
NEAR_DUPLICATE = 0.6
#: A document holding more than this share of all queries always goes to train.
MAX_VAL_DOCUMENT_SHARE = 0.003


@dataclass(frozen=True, slots=True)
class Pair:
    """One training row. ``group`` is the query's document; it is not written out."""

    id: str
    query: str
    passage: str
    label: Relevance
    source: str
    kind: str
    group: str

    def to_json(self) -> dict[str, str]:
        return {
            "id": self.id,
            "query": self.query,
            "passage": self.passage,
            "label": self.label,
            "source": self.source,
            "kind": self.kind,
        }


@dataclass(frozen=True)
class RerankBuildConfig(BuildConfig):
    """The verifier data's settings (where, seed, scale, validation share, command) and how
    many negatives per query."""

    bm25_negatives: int = 2
    random_negatives: int = 1
    #: Nearest paragraphs by the static embedder's cosine (0: none, and no embedder needed).
    dense_negatives: int = 0
    #: The static embedder that mines them (a ``distill-embedder`` folder; None: the package's).
    dense_embedder: Path | None = None
    #: BM25 hits (and dense neighbours) looked at per query when picking its hard negatives.
    bm25_depth: int = 30
    #: Share of queries rewritten in web-search style (:func:`web_query`).
    web_share: float = 0.0

    def __post_init__(self) -> None:
        super().__post_init__()
        for name in ("bm25_negatives", "random_negatives", "dense_negatives"):
            if getattr(self, name) < 0:
                raise OptionError(name, getattr(self, name), "0 or more")
        if not 0.0 <= self.web_share <= 1.0:
            raise OptionError("web_share", self.web_share, "a share between 0 and 1")
        if self.bm25_negatives + self.random_negatives == 0:
            raise OptionError(
                "bm25_negatives",
                0,
                "at least one negative per query in all",
                "Use bm25_negatives=2 or random_negatives=1.",
            )
        if self.bm25_depth < self.bm25_negatives:
            raise OptionError(
                "bm25_depth", self.bm25_depth, f"at least bm25_negatives ({self.bm25_negatives})"
            )


@dataclass(frozen=True)
class RerankBuildResult:
    """The rows of each split (grouped by query) and the card that describes them."""

    train: list[Pair]
    val: list[Pair]
    card: dict[str, Any] = field(default_factory=dict)


def _styled(
    queries: Sequence[Query], config: RerankBuildConfig, stats: Counter[str]
) -> list[Query]:
    """Each query in the style a seeded draw gives it (see :data:`RerankBuildConfig.web_share`)."""
    out = []
    for query in queries:
        draw = int(digest(f"{config.seed}:web-style:{query.qid}", 8), 16) / 16**8
        if draw >= config.web_share:
            stats["query_style_question"] += 1
            out.append(query)
            continue
        keywords = draw < config.web_share / 2
        stats["query_style_" + ("keywords" if keywords else "lowercase")] += 1
        out.append(
            dataclasses.replace(query, question=web_query(query.question, keywords=keywords))
        )
    return out


def _words(text: str) -> set[str]:
    return set(re.findall(r"\w+", text.lower()))


def _near_duplicate(words: set[str], gold: set[str]) -> bool:
    """Another revision of the gold paragraph (NQ holds several): most words shared."""
    return len(words & gold) >= NEAR_DUPLICATE * len(words | gold)


def _sample(queries: list[Query], *, seed: int, scale: float) -> list[Query]:
    chosen: list[Query] = []
    for source, quota in QUERY_QUOTAS.items():
        mine = [q for q in queries if q.source == source]
        random.Random(f"{seed}:rerank:{source}").shuffle(mine)
        chosen.extend(mine[: round(quota * scale)])
    return chosen


def _split(queries: list[Query], *, seed: int, val_fraction: float) -> set[str]:
    """The qids of validation queries: whole documents, joined where they share a passage."""
    uf = _UnionFind()
    for query in queries:
        uf.union(f"{query.source}|{query.document}", "passage:" + digest(query.passage, 16))
    sizes = Counter(uf.find(f"{q.source}|{q.document}") for q in queries)
    limit = max(1.0, MAX_VAL_DOCUMENT_SHARE * len(queries))
    val_roots = {
        root
        for root, size in sizes.items()
        if size <= limit
        and int(digest(f"{seed}:rerank-split:{root}", 8), 16) / 16**8 < val_fraction
    }
    return {q.qid for q in queries if uf.find(f"{q.source}|{q.document}") in val_roots}


def _collection(queries: Sequence[Query], all_paragraphs: Mapping[str, Sequence[str]]) -> list[str]:
    """Every paragraph of the documents of ``queries`` (not only the gold ones), once each."""
    seen: dict[str, None] = {}
    for query in queries:
        for paragraph in all_paragraphs.get(query.document, (query.passage,)):
            seen.setdefault(paragraph, None)
    return list(seen)


def _mine(
    queries: Sequence[Query],
    collection: list[str],
    config: RerankBuildConfig,
    rng: random.Random,
    stats: Counter[str],
) -> list[Pair]:
    from veracity.retrieve.memory import MemoryBM25
    from veracity.types import Chunk

    chunks = [Chunk(str(i), str(i), 0, text, 0, len(text)) for i, text in enumerate(collection)]
    bm25 = MemoryBM25(chunks).load()
    neighbours = _dense_neighbours(queries, collection, config) if config.dense_negatives else None
    pairs: list[Pair] = []
    for position, query in enumerate(queries):
        group = f"{query.source}:{query.document}"
        pairs.append(
            Pair(
                f"{query.qid}-pos",
                query.question,
                query.passage,
                "relevant",
                query.source,
                "positive",
                group,
            )
        )

        gold_words = _words(query.passage)

        def usable(text: str, query: Query = query, gold: set[str] = gold_words) -> bool:
            return (
                text != query.passage
                and not contains_answer(text, query.answers)
                and not _near_duplicate(_words(text), gold)
            )

        hits = bm25.run(query.question, k=config.bm25_depth).hits
        hard = [hit.chunk.text for hit in hits if usable(hit.chunk.text)]
        stats["bm25_hits_rejected_gold_answer_or_near_copy"] += len(hits) - len(hard)
        picked = hard[: config.bm25_negatives]
        stats["bm25_negatives_short"] += config.bm25_negatives - len(picked)
        for n, text in enumerate(picked):
            pairs.append(
                Pair(
                    f"{query.qid}-bm25-{n}",
                    query.question,
                    text,
                    "not_relevant",
                    query.source,
                    "bm25_negative",
                    group,
                )
            )
        taken = set(picked)
        if neighbours is not None:
            near = [
                collection[i]
                for i in neighbours[position]
                if collection[i] not in taken and usable(collection[i])
            ][: config.dense_negatives]
            stats["dense_negatives_short"] += config.dense_negatives - len(near)
            for n, text in enumerate(near):
                taken.add(text)
                pairs.append(
                    Pair(
                        f"{query.qid}-dense-{n}",
                        query.question,
                        text,
                        "not_relevant",
                        query.source,
                        "dense_negative",
                        group,
                    )
                )
        for n in range(config.random_negatives):
            for _ in range(20):  # a few tries: the gold paragraph or an answer may come up
                text = collection[rng.randrange(len(collection))]
                if usable(text) and text not in taken:
                    taken.add(text)
                    pairs.append(
                        Pair(
                            f"{query.qid}-random-{n}",
                            query.question,
                            text,
                            "not_relevant",
                            query.source,
                            "random_negative",
                            group,
                        )
                    )
                    break
            else:
                stats["random_negatives_short"] += 1
    return pairs


def _dense_neighbours(
    queries: Sequence[Query], collection: Sequence[str], config: RerankBuildConfig
) -> Any:
    """Per query, the indices of its ``bm25_depth`` nearest paragraphs by the static embedder's
    cosine, nearest first (a matrix, one row per query)."""
    import numpy as np

    from veracity.models.embedding import StaticEmbedder

    embedder = StaticEmbedder(config.dense_embedder).load()
    passages = embedder.run(list(collection)).vectors
    depth = min(config.bm25_depth, len(collection))
    rows = []
    for first in range(0, len(queries), 512):
        vectors = embedder.run([q.question for q in queries[first : first + 512]]).vectors
        similarity = vectors @ passages.T
        top = np.argpartition(-similarity, depth - 1, axis=1)[:, :depth]
        order = np.take_along_axis(similarity, top, axis=1).argsort(axis=1)[:, ::-1]
        rows.append(np.take_along_axis(top, order, axis=1))
    return np.concatenate(rows)


def _document_paragraphs(root: Path) -> dict[str, tuple[str, ...]]:
    """All kept paragraphs of every SQuAD article and NQ title, by the loaders' group names."""
    paragraphs: dict[str, tuple[str, ...]] = {}
    for item in load_squad(root / "squad_bigbench", Counter()):
        paragraphs[item.group] = item.paragraphs
    for item in load_qed(root / "qed_nq" / "qed_all.jsonl", Counter()):
        paragraphs[item.group] = item.paragraphs
    return paragraphs


def build_rerank(config: RerankBuildConfig) -> RerankBuildResult:
    """Load, sample, split by document, mine negatives per split and source; writes nothing."""
    started = time.perf_counter()
    stats: dict[str, Counter[str]] = {}
    queries = _sample(
        load_queries(config.root, seed=config.seed, stats=stats),
        seed=config.seed,
        scale=config.scale,
    )
    val_ids = _split(queries, seed=config.seed, val_fraction=config.val_fraction)
    paragraphs = _document_paragraphs(config.root)
    splits: dict[str, list[Pair]] = {"train": [], "val": []}
    for split in splits:
        for source in QUERY_QUOTAS:
            mine = [
                q for q in queries if q.source == source and (q.qid in val_ids) == (split == "val")
            ]
            if not mine:
                continue
            collection = _collection(mine, paragraphs)
            rng = random.Random(f"{config.seed}:rerank-negatives:{split}:{source}")
            counter = stats.setdefault(source, Counter())
            counter[f"collection_paragraphs_{split}"] += len(collection)
            styled = _styled(mine, config, counter)
            splits[split].extend(_mine(styled, collection, config, rng, counter))
    # Train rows shuffled; validation rows kept together per query (its ranking is measured).
    train = splits["train"]
    random.Random(f"{config.seed}:rerank-shuffle").shuffle(train)
    by_query: dict[str, list[Pair]] = {}
    for pair in splits["val"]:
        by_query.setdefault(pair.query, []).append(pair)
    groups = list(by_query.values())
    random.Random(f"{config.seed}:rerank-val-order").shuffle(groups)
    val = [pair for group in groups for pair in group]
    card = _card(config, train, val, stats)
    card["build_seconds"] = round(time.perf_counter() - started, 1)
    return RerankBuildResult(train=train, val=val, card=card)


def _counts(rows: Sequence[Pair], key: str) -> dict[str, int]:
    return dict(sorted(Counter(getattr(row, key) for row in rows).items()))


def _card(
    config: RerankBuildConfig, train: list[Pair], val: list[Pair], stats: dict[str, Counter[str]]
) -> dict[str, Any]:
    rows = train + val
    per_source_kind: dict[str, dict[str, int]] = {}
    for row in rows:
        kinds = per_source_kind.setdefault(row.source, {})
        kinds[row.kind] = kinds.get(row.kind, 0) + 1
    return {
        "task": "rerank",
        "command": config.command,
        "seed": config.seed,
        "scale": config.scale,
        "val_fraction_target": config.val_fraction,
        "negatives_per_query": {
            "bm25": config.bm25_negatives,
            "random": config.random_negatives,
            "dense": config.dense_negatives,
            "bm25_depth": config.bm25_depth,
        },
        "web_share": config.web_share,
        "rows": {"total": len(rows), "train": len(train), "val": len(val)},
        "queries": {"train": len({r.query for r in train}), "val": len({r.query for r in val})},
        "labels": list(RELEVANCE_LABELS),
        "per_label": _counts(rows, "label"),
        "per_source": _counts(rows, "source"),
        "per_kind": _counts(rows, "kind"),
        "per_source_kind": {k: dict(sorted(v.items())) for k, v in sorted(per_source_kind.items())},
        "per_split_source": {"train": _counts(train, "source"), "val": _counts(val, "source")},
        "licenses": {name: license_of(config.root / name) for name in LICENSE_FOLDERS},
        "targets": {name: round(quota * config.scale) for name, quota in QUERY_QUOTAS.items()},
        "source_stats": {name: dict(sorted(c.items())) for name, c in sorted(stats.items())},
        "excluded": [
            "rows with a non-empty eval_overlap list",
            "SQuAD paragraphs listed in eval_overlap_paragraphs.json",
            "CPKC rows whose edit cannot be reversed (real answer already in the passage)",
            "a question seen before (normalised text) in any source",
            "anything under shared/data (evaluation data, $VERACITY_DATA)",
        ],
    }


def write_rerank(result: RerankBuildResult, out: Path) -> None:
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


def main(argv: list[str] | None = None) -> int:
    """``python -m veracity_training.data.rerank --out DIR``. Exit codes: 0 built, 2 bad option."""
    parser = argparse.ArgumentParser(
        prog="python -m veracity_training.data.rerank",
        description="Build the reranker's training data (train.jsonl, val.jsonl, card.json).",
    )
    parser.add_argument("--out", type=Path, required=True, help="output folder")
    parser.add_argument("--seed", type=int, default=13)
    parser.add_argument("--scale", type=float, default=1.0, help="multiplies every quota")
    parser.add_argument(
        "--dense-negatives",
        type=int,
        default=0,
        help="nearest paragraphs by the static embedder per query (needs distill-embedder)",
    )
    parser.add_argument(
        "--web-share",
        type=float,
        default=0.0,
        help="share of queries rewritten in web-search style (lowercase; half keywords only)",
    )
    parser.add_argument(
        "--root",
        type=Path,
        default=nli_root(),
        help="the nlidata folder (default: $VERACITY_DATA/../nlidata)",
    )
    args = parser.parse_args(argv)
    command = "python -m veracity_training.data.rerank " + shlex.join(
        sys.argv[1:] if argv is None else argv
    )
    try:
        config = RerankBuildConfig(
            root=args.root,
            out=args.out,
            seed=args.seed,
            scale=args.scale,
            dense_negatives=args.dense_negatives,
            web_share=args.web_share,
            command=command,
        )
    except OptionError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    result = build_rerank(config)
    write_rerank(result, args.out)
    card = result.card
    print(
        f"wrote {card['rows']['train']} train + {card['rows']['val']} val rows to {args.out} "
        f"in {card['build_seconds']} s; {card['per_kind']}"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
