"""The three claim-verification development sets as (group, premise, claim, label) items.

label 1 = supported, 0 = anything else. Run it to print counts and label balance:

    python bench/verifier_data.py [--data ../shared/data]

- **WiCE dev** (``wice/claim/dev.jsonl``, 349 claims): the claim against the evidence sentences of
  its cited article, one per line. The ``(meta data) TITLE: ...`` line is kept as the first line
  with the marker removed (the page title alone). supported = 1 only for ``supported``
  (``partially_supported`` and ``not_supported`` are 0). group = ``meta.id``.
- **LFQA-Verification dev half** (``lfqa_verification_dev``, 1,860 sentences): every annotated
  answer sentence of all six annotation files against the documents of ``docs/docs-webgpt.json``
  for its ``question_id`` (each doc as its title, a newline and its text; docs separated by a
  blank line), as the authors evaluate every file. supported = 1 when at least 2 of the 3
  annotators said ``supported``; ``partially`` counts as not supported, and a three-way split has
  no majority, so it is 0 too. group = ``question_id`` (its answers from all six systems stay
  together).
- **CLIMATE-FEVER** (``climate_fever/climate-fever.jsonl``, 1,535 claims): each claim against
  its five evidence sentences, one per line. supported = 1 iff ``claim_label`` is ``SUPPORTS``
  (REFUTES, NOT_ENOUGH_INFO and DISPUTED are 0). group = ``claim_id``. Not the leaderboard's
  FactCheck set, only the nearest public one.
"""

from __future__ import annotations

import argparse
import json
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from _data import data_root

__all__ = [
    "DATASETS",
    "DEFAULT_DATA",
    "Item",
    "load",
    "load_climate_fever",
    "load_lfqa",
    "load_wice",
]

DEFAULT_DATA = data_root()
_TITLE_MARKER = "(meta data) TITLE:"


@dataclass(frozen=True)
class Item:
    """One (premise, claim) pair; ``label`` 1 = supported; ``group`` ties related items."""

    group: str
    premise: str
    claim: str
    label: int


def _jsonl(path: Path) -> Iterator[dict[str, Any]]:
    with path.open(encoding="utf-8") as handle:
        for line in handle:
            if line.strip():
                yield json.loads(line)


def _missing(path: Path) -> FileNotFoundError:
    return FileNotFoundError(
        f"{path} not found: pass --data pointing at shared/data "
        "(the folder that holds wice/, lfqa_verification_dev/, climate_fever/)"
    )


def load_wice(data: Path = DEFAULT_DATA) -> list[Item]:
    path = data / "wice" / "claim" / "dev.jsonl"
    if not path.is_file():
        raise _missing(path)
    items = []
    for row in _jsonl(path):
        lines = [str(line) for line in row["evidence"]]
        if lines and lines[0].startswith(_TITLE_MARKER):
            lines[0] = lines[0][len(_TITLE_MARKER) :].strip()
        meta = row["meta"]
        items.append(
            Item(
                group=str(meta["id"]),
                premise="\n".join(line for line in lines if line.strip()),
                claim=str(row["claim"]),
                label=int(row["label"] == "supported"),
            )
        )
    return items


def _majority_supported(labels: list[str]) -> int:
    if len(labels) != 3:
        raise ValueError(f"expected 3 annotator labels, got {labels}")
    return int(labels.count("supported") >= 2)


def load_lfqa(data: Path = DEFAULT_DATA) -> list[Item]:
    folder = data / "lfqa_verification_dev"
    docs_path = folder / "docs" / "docs-webgpt.json"
    if not docs_path.is_file():
        raise _missing(docs_path)
    premises = {
        str(entry["question_id"]): "\n\n".join(
            f"{doc['title']}\n{doc['text']}" for doc in entry["docs"]
        )
        for entry in json.loads(docs_path.read_text(encoding="utf-8"))
    }
    items = []
    for path in sorted((folder / "annotations").glob("annotations-*.json")):
        for question in json.loads(path.read_text(encoding="utf-8")):
            group = str(question["question_id"])
            if group not in premises:
                raise ValueError(f"{path.name}: question_id {group} has no docs in {docs_path}")
            for annotation in question["annotations"]:
                items.append(
                    Item(
                        group=group,
                        premise=premises[group],
                        claim=str(annotation["answer"]),
                        label=_majority_supported(list(annotation["labels"])),
                    )
                )
    return items


def load_climate_fever(data: Path = DEFAULT_DATA) -> list[Item]:
    path = data / "climate_fever" / "climate-fever.jsonl"
    if not path.is_file():
        raise _missing(path)
    return [
        Item(
            group=str(row["claim_id"]),
            premise="\n".join(str(e["evidence"]) for e in row["evidences"]),
            claim=str(row["claim"]),
            label=int(row["claim_label"] == "SUPPORTS"),
        )
        for row in _jsonl(path)
    ]


#: name -> (loader, display name, matching LLM-AggreFact column)
DATASETS: dict[str, tuple[Callable[[Path], list[Item]], str, str]] = {
    "wice": (load_wice, "WiCE dev", "WiCE"),
    "lfqa": (load_lfqa, "LFQA dev half", "LFQA"),
    "climate_fever": (load_climate_fever, "CLIMATE-FEVER", "FactCheck"),
}


def load(name: str, data: Path = DEFAULT_DATA, limit: int | None = None) -> list[Item]:
    """Items of one set, in file order; ``limit`` keeps the first N whole groups' worth.

    With a limit, items are taken group by group (in order of first appearance) until N items
    are reached, so a quick run still keeps each group whole.
    """
    if name not in DATASETS:
        raise ValueError(f"unknown dataset {name!r}: choose from {', '.join(DATASETS)}")
    items = DATASETS[name][0](data)
    if limit is None or limit >= len(items):
        return items
    by_group: dict[str, list[Item]] = {}
    for item in items:
        by_group.setdefault(item.group, []).append(item)
    kept: list[Item] = []
    for group_items in by_group.values():
        if len(kept) >= limit:
            break
        kept.extend(group_items)
    return kept


def describe(name: str, items: list[Item]) -> str:
    labels = Counter(item.label for item in items)
    groups = len({item.group for item in items})
    words = sorted(len(item.premise.split()) for item in items)
    return (
        f"{DATASETS[name][1]:<15} {len(items):>5} items  {groups:>5} groups  "
        f"supported {labels[1]:>5} ({labels[1] / len(items):.1%})  not {labels[0]:>5}  "
        f"premise words median {words[len(words) // 2]}, max {words[-1]}"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0] if __doc__ else None)
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA)
    args = parser.parse_args()
    for name in DATASETS:
        print(describe(name, load(name, args.data)))


if __name__ == "__main__":
    main()
