"""The minimal-pair suite: (supported claim, altered twin) pairs from held-out training text.

``python -m veracity_training.data.pairs --data DATA --out bench/data/minimal_pairs.jsonl``

Every supported one-sentence claim of the training data's validation split whose premise is in
the suite's half (:func:`~veracity_training.data.contrast.suite_half`: the verifier's combiner is
fit on the other half, and the network never trains on validation rows) is given every twin
that :func:`~veracity_training.data.contrast.twin_edits` can make of it, at most ``per_kind`` pairs
per edit, chosen at random (seeded). Nothing comes from evaluation data. VitaminC rows are left
out: its copy asks not to be published, and the suite is committed.

Besides those twins: the parsed ones of :mod:`~veracity_training.data.parsed` (swapped roles,
co-hyponyms, WordNet antonyms; when spaCy is installed), and the premise-side pairs of
:mod:`~veracity_training.data.balance`: ``negated_both`` (the claim's sentence negated in the
premise and the claim negated too: a true negated claim, expected supported),
``premise_negated`` (the same premise against the original claim: contradicted) and
``verbatim_number`` (a sentence of the premise with a number or date, lightly edited: supported).

Each line: ``premise``, ``claim`` (the original), ``twin``, ``kind`` (the edit), ``expected``
(the twin's label: ``contradicted`` for most edits, ``neither`` for a strengthened modal or an
unstated swap, ``supported`` for the meaning-keeping ones), ``source`` and ``id`` (the original
row's), and ``twin_premise`` where the twin is read against another premise than the original.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
from collections import Counter
from pathlib import Path
from typing import Any

from veracity_training.data.balance import aligned_sentence, verbatim_twin
from veracity_training.data.contrast import Edit, suite_half, twin_edits
from veracity_training.data.perturb import negate
from veracity_training.data.schema import DataLabel
from veracity_training.data.text import sentences, word_count

__all__ = ["suite_pairs"]

#: Sources whose text is not published in the suite.
_UNPUBLISHED = ("vitaminc_bigbench",)
_MAX_WORDS = 45


def _premise_twins(
    premise: str, claim: str, rng: random.Random
) -> dict[str, tuple[DataLabel, str, str]]:
    """Twins that change the premise: kind -> (expected label, twin premise, twin claim)."""
    out: dict[str, tuple[DataLabel, str, str]] = {}
    span = aligned_sentence(premise, claim)
    if span is not None:
        negated = negate(premise[span[0] : span[1]], rng)
        negated_claim = negate(claim, rng)
        if negated and negated_claim:
            twin_premise = premise[: span[0]] + negated + premise[span[1] :]
            out["negated_both"] = ("supported", twin_premise, negated_claim)
            out["premise_negated"] = ("contradicted", twin_premise, claim)
    verbatim = verbatim_twin(premise, rng)
    if verbatim is not None:
        out["verbatim_number"] = ("supported", premise, verbatim)
    return out


def suite_pairs(
    rows: list[dict[str, Any]],
    *,
    per_kind: int,
    seed: int,
    extra: dict[str, tuple[DataLabel, Edit]] | None = None,
) -> list[dict[str, Any]]:
    """The suite's pairs from validation ``rows`` (as read from val.jsonl), kinds in
    :func:`twin_edits` order, then ``extra`` edits, then the premise-side pairs, at most
    ``per_kind`` of each."""
    rng = random.Random(f"{seed}:suite")
    originals = [
        row
        for row in rows
        if row["label"] == "supported"
        and row["source"] not in _UNPUBLISHED
        and suite_half(row["premise"])
        and not str(row.get("kind", "")).startswith("twin_")
        and len(sentences(row["hypothesis"])) == 1
        and word_count(row["hypothesis"]) <= _MAX_WORDS
    ]
    originals.sort(key=lambda row: row["id"])
    rng.shuffle(originals)
    pairs: list[dict[str, Any]] = []
    counts: Counter[str] = Counter()
    for name, (label, edit) in {**twin_edits(), **(extra or {})}.items():
        for row in originals:
            if counts[name] >= per_kind:
                break
            twin = edit(row["hypothesis"], random.Random(f"{seed}:{row['id']}:{name}"))
            if not twin or twin == row["hypothesis"]:
                continue
            counts[name] += 1
            pairs.append(
                {
                    "id": row["id"],
                    "kind": name,
                    "expected": label,
                    "source": row["source"],
                    "premise": row["premise"],
                    "claim": row["hypothesis"],
                    "twin": twin,
                }
            )
    for row in originals:
        rng = random.Random(f"{seed}:{row['id']}:premise")
        for name, (label, twin_premise, twin) in _premise_twins(
            row["premise"], row["hypothesis"], rng
        ).items():
            if counts[name] >= per_kind:
                continue
            counts[name] += 1
            pair = {
                "id": row["id"],
                "kind": name,
                "expected": label,
                "source": row["source"],
                "premise": row["premise"],
                "claim": row["hypothesis"],
                "twin": twin,
            }
            if twin_premise != row["premise"]:
                pair["twin_premise"] = twin_premise
            pairs.append(pair)
    return pairs


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m veracity_training.data.pairs",
        description="Write the minimal-pair suite (JSONL).",
    )
    parser.add_argument(
        "--data", type=Path, required=True, help="the training data folder (its val.jsonl is read)"
    )
    parser.add_argument("--out", type=Path, required=True, help="the JSONL file to write")
    parser.add_argument("--per-kind", type=int, default=60, help="pairs per edit at most")
    parser.add_argument("--seed", type=int, default=13)
    parser.add_argument(
        "--no-parsed", action="store_true", help="skip the twins that need spaCy's parse"
    )
    args = parser.parse_args(argv)
    val = args.data / "val.jsonl"
    if not val.is_file():
        print(
            f"error: {val} not found: build the data first with "
            "`python -m veracity_training.data --out DATA`",
            file=sys.stderr,
        )
        return 2
    rows = [json.loads(line) for line in val.read_text(encoding="utf-8").splitlines() if line]
    extra = None
    if not args.no_parsed:
        from veracity_training.data.parsed import ParsedEdits, parsed_edits
        from veracity_training.data.wordnet import WordNet

        extra = parsed_edits(ParsedEdits.load(WordNet.find()))
    pairs = suite_pairs(rows, per_kind=args.per_kind, seed=args.seed, extra=extra)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(
        "".join(json.dumps(pair, ensure_ascii=False) + "\n" for pair in pairs), encoding="utf-8"
    )
    kinds = Counter(pair["kind"] for pair in pairs)
    print(
        f"wrote {len(pairs)} pairs to {args.out}: "
        + ", ".join(f"{kind} {n}" for kind, n in kinds.items())
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
