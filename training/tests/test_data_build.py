"""End to end on a tiny fixture tree: determinism, split disjointness, eval-overlap dropping.

A build reads the real WordNet database and loads the real spaCy model (about 7 s on 2 cores):
those tests are integration tests, and share one build where they can."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from veracity.errors import OptionError
from veracity_training.data.build import BuildConfig, build, dedupe, split_rows, write
from veracity_training.data.schema import Row
from veracity_training.data.sources import PUBLIC_SOURCES

WIKI = [
    {
        "doc_id": f"doc-{k}",
        "paragraphs": [
            f"{name} is a town in {region}, founded in {1700 + 10 * k} by {founder}. "
            f"It has a population of {1200 * (k + 1)} people and a large market square.",
            f"{name} became a city in {1800 + k}. It was connected to the railway in "
            f"{1850 + k}, and the station was designed by {architect}. "
            f"The town hall was rebuilt after a fire in {1900 + k}.",
            f"In {1950 + k}, {name} was twinned with {twin}. It hosts the {festival} every "
            f"summer, which draws {10 * (k + 2)},000 visitors. The festival was first held "
            f"on 1 May {1960 + k} and is run by volunteers from {region}.",
        ],
    }
    for k, (name, region, founder, architect, twin, festival) in enumerate(
        [
            ("Aldmoor", "Northshire", "Peter Grant", "Anna Holt", "Lyon", "Aldmoor Fair"),
            ("Brackwell", "Westfold", "John Ash", "Mary Stone", "Turin", "Brackwell Show"),
            ("Corrin", "Eastmarch", "Hugh Reed", "Paul Crane", "Ghent", "Corrin Games"),
            ("Dunhollow", "Southvale", "Ivo Lang", "Rita Moss", "Graz", "Dunhollow Week"),
        ]
    )
]


def _write_jsonl(path: Path, rows: list[dict[str, Any]]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")


def _source_md(folder: Path, license_text: str) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "SOURCE.md").write_text(
        f"# x\n\n- **License (as stated):** {license_text}\n", encoding="utf-8"
    )


def _tiny_root(root: Path) -> Path:
    for spec in PUBLIC_SOURCES:
        labels = list(spec.labels)
        rows = [
            {
                "id": f"{i}",
                "premise": f"Premise {i} of {spec.name} says the bridge opened in {1900 + i}.",
                "hypothesis": f"The bridge of {spec.name} opened in {1900 + i}.",
                "label": labels[i % len(labels)] if labels[0] not in {"1", "0"} else int(i % 2),
                "page_guess": f"page {i % 3}",
                "eval_overlap": ["wice"] if i == 0 else [],
            }
            for i in range(6)
        ]
        _write_jsonl(root / spec.path, rows)
        _source_md(root / spec.path.split("/")[0], f"License of {spec.name}")
    _write_jsonl(
        root / "halueval_qa_gen" / "halueval_qa_gen.jsonl",
        [
            {
                "id": "h1",
                "premise": "Arthur's Magazine (1844–1846) was an American literary periodical.",
                "hypothesis": "1844",
                "question": "When was Arthur's Magazine first published?",
                "label": "right_answer",
                "supported": 1,
                "eval_overlap": [],
            }
        ],
    )
    _source_md(root / "halueval_qa_gen", "MIT")
    squad = root / "squad_bigbench"
    (squad / "original").mkdir(parents=True)
    _source_md(squad, "CC BY-SA 4.0")
    paragraphs = [
        {
            "context": f"The {team} won the cup in {1990 + p}. The final was played in "
            f"{city} before {20000 + p} fans. The coach, {coach}, retired a year later.",
            "qas": [
                {
                    "id": f"s{p}a",
                    "question": f"When did the {team} win the cup?",
                    "answers": [{"text": f"{1990 + p}", "answer_start": 0}],
                },
                {
                    "id": f"s{p}b",
                    "question": "Who retired a year later?",
                    "answers": [{"text": coach, "answer_start": 0}],
                },
            ],
        }
        for p, (team, city, coach) in enumerate(
            [
                ("Rovers", "Leeds", "Tom Hale"),
                ("Wanderers", "York", "Ned Lowe"),
                ("Albion", "Derby", "Sam Price"),
                ("United", "Hull", "Joe Kirk"),
            ]
        )
    ]
    (squad / "original" / "squaddev_v1.1.json").write_text(
        json.dumps({"data": [{"title": "Cup", "paragraphs": paragraphs}]}), encoding="utf-8"
    )
    for name in ("amazon_reviews_v1.0", "new_wiki_v1.0", "nyt_v1.0", "reddit_v1.0"):
        (squad / "original" / f"{name}.json").write_text('{"data": []}', encoding="utf-8")
    (squad / "eval_overlap_paragraphs.json").write_text(
        json.dumps(
            [{"file": "squaddev_v1.1.json", "title": "Cup", "paragraph_index": 3, "qa_ids": []}]
        ),
        encoding="utf-8",
    )
    _write_jsonl(
        root / "qed_nq" / "qed_all.jsonl",
        [
            {
                "id": "n1",
                "title": "Cup",
                "question": "who won the cup in 1990",
                "paragraph": "The Rovers won the cup in 1990 , beating the Wanderers .",
                "answers": ["The Rovers"],
                "eval_overlap": [],
            }
        ],
    )
    _source_md(root / "qed_nq", "CC BY-SA 3.0")
    _write_jsonl(
        root / "cpkc_nq_counterfactual" / "cpkc.jsonl",
        [
            {
                "id": "c1",
                "question": "who wrote the novel?",
                "context": "The novel was written by Ada Byrne in 1901 .",
                "context_answer": "Ada Byrne",
                "other_options": ["Jane Austen"],
                "eval_overlap": [],
            }
        ],
    )
    _source_md(root / "cpkc_nq_counterfactual", "CC BY-SA 3.0")
    _write_jsonl(root / "raw_wikipedia_bigbench" / "wikipedia_docs.jsonl", WIKI)
    _source_md(root / "raw_wikipedia_bigbench", "CC BY-SA 3.0")
    return root


@pytest.fixture(scope="module")
def tiny_root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return _tiny_root(tmp_path_factory.mktemp("nlidata"))


def _config(root: Path, seed: int = 13) -> BuildConfig:
    return BuildConfig(root=root, out=root / "out", seed=seed, scale=1.0, val_fraction=0.3)


@pytest.fixture(scope="module")
def built(tiny_root: Path) -> Any:
    """One build of the tiny tree with seed 13."""
    return build(_config(tiny_root))


@pytest.mark.integration
def test_same_seed_same_output(tiny_root: Path, built: Any, tmp_path: Path) -> None:
    first = built
    second = build(_config(tiny_root))
    assert [r.to_json() for r in first.train] == [r.to_json() for r in second.train]
    assert [r.to_json() for r in first.val] == [r.to_json() for r in second.val]
    write(first, tmp_path / "a")
    write(second, tmp_path / "b")
    for name in ("train.jsonl", "val.jsonl"):
        assert (tmp_path / "a" / name).read_bytes() == (tmp_path / "b" / name).read_bytes()
    other = build(_config(tiny_root, seed=14))
    assert [r.id for r in other.train + other.val] != [r.id for r in first.train + first.val]


@pytest.mark.integration
def test_rows_are_well_formed_and_eval_overlap_is_dropped(built: Any) -> None:
    result = built
    rows = result.train + result.val
    kinds = {r.kind for r in rows}
    assert {"public", "qa_statement", "qa_counterfactual", "multi_sentence"} <= kinds
    for row in rows:
        assert row.label in {"supported", "contradicted", "neither", "not_supported"}
        assert row.premise
        assert row.hypothesis
        assert not row.id.endswith("-0") or row.kind != "public"  # id 0 had an eval overlap
    assert not any("United" in r.premise for r in rows)  # paragraph 3 is in the overlap list
    vitaminc = [r for r in rows if r.source == "vitaminc_bigbench"]
    assert sum(r.kind == "public" for r in vitaminc) == 5
    balanced = {"negated_both", "premise_negated", "verbatim_number"}
    assert all(
        r.kind == "public" or r.kind.startswith("twin_") or r.kind in balanced for r in vitaminc
    )


@pytest.mark.integration
def test_train_and_val_share_no_premise_text(built: Any) -> None:
    result = built
    assert result.val
    assert result.train
    train_premises = {r.premise for r in result.train}
    train_groups = {r.group for r in result.train}
    for row in result.val:
        assert row.premise not in train_premises
        assert row.group not in train_groups


@pytest.mark.integration
def test_card_lists_licenses_and_counts(built: Any) -> None:
    card = built.card
    assert card["licenses"]["fm2"] == "License of fm2"
    assert card["licenses"]["nli_misc_felipessalvatore/mnli"] == (
        "License of nli_misc_felipessalvatore/rte"
    ) or card["licenses"]["nli_misc_felipessalvatore/mnli"].startswith("License of")
    assert sum(card["per_label"].values()) == card["rows"]["total"]
    assert card["seed"] == 13


def _row(i: int, premise: str, group: str, label: str = "supported") -> Row:
    return Row(f"r{i}", premise, f"claim {i}", label, "s", "k", group)  # type: ignore[arg-type]


@pytest.mark.unit
def test_split_keeps_shared_premises_together() -> None:
    rows = [_row(i, f"premise {i % 7}", f"g{i % 11}") for i in range(200)]
    train, val = split_rows(rows, seed=1, val_fraction=0.3)
    assert len(train) + len(val) == 200
    assert not {r.premise for r in train} & {r.premise for r in val}


@pytest.mark.unit
def test_dedupe_drops_repeats_and_conflicts() -> None:
    from collections import Counter

    stats: Counter[str] = Counter()
    rows = [
        _row(1, "p", "g"),
        _row(1, "p", "g"),
        _row(2, "q", "g"),
        Row("x", "q", "claim 2", "neither", "s", "k", "g"),
    ]
    kept = dedupe(rows, stats)
    assert [r.id for r in kept] == ["r1"]
    assert stats["dropped_conflicting_pair"] == 1


@pytest.mark.unit
def test_bad_scale_is_refused(tiny_root: Path) -> None:
    with pytest.raises(OptionError, match="scale"):
        BuildConfig(root=tiny_root, out=tiny_root, scale=0)
