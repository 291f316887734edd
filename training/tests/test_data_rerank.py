"""The reranker's data builder on a tiny fixture tree: determinism, gold positives, negatives
without the answer, a split by document, eval overlap and CPKC edits handled."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from veracity.errors import OptionError
from veracity.testing import save_tiny_static_model
from veracity_training.data.rerank import (
    RerankBuildConfig,
    RerankBuildResult,
    build_rerank,
    write_rerank,
)
from veracity_training.data.rerank_queries import contains_answer, web_query

pytestmark = pytest.mark.unit

TOWNS = ["Aldmoor", "Brackwell", "Corrin", "Dunhollow", "Eskdale", "Fenwick", "Garrow", "Hexley"]
COACHES = [
    "Tom Hale",
    "Ned Lowe",
    "Sam Price",
    "Joe Kirk",
    "Al Dunn",
    "Bo Fry",
    "Cy Hart",
    "Di Lamb",
]


def _write_jsonl(path: Path, rows: list[dict[str, Any]]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")


def _source_md(folder: Path, license_text: str) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "SOURCE.md").write_text(
        f"# x\n\n- **License (as stated):** {license_text}\n", encoding="utf-8"
    )


def _paragraphs(town: str, t: int) -> list[dict[str, Any]]:
    texts = [
        (
            f"The {town} Rovers won the cup in {1990 + t}. The final was played before "
            f"{20000 + t} fans and the coach, {COACHES[t]}, retired a year later.",
            [
                (f"When did the {town} Rovers win the cup?", f"{1990 + t}"),
                (f"Which coach of the {town} Rovers retired?", COACHES[t]),
            ],
        ),
        (
            f"The {town} Rovers play at Mill Park, a ground opened in {1880 + t} beside the "
            f"river. The {town} club shop sells scarves.",
            [(f"Where do the {town} Rovers play?", "Mill Park")],
        ),
        # holds the first answer without being its gold paragraph: never a negative
        (f"A statue in {town} recalls the Rovers and the cup win of {1990 + t}.", []),
        (
            f"{town} market square hosts a fair every spring. The {town} fair began in "
            f"{1700 + t} and draws farmers from the valley.",
            [(f"When did the {town} fair begin?", f"{1700 + t}")],
        ),
    ]
    return [
        {
            "context": text,
            "qas": [
                {
                    "id": f"s{t}-{p}-{q}",
                    "question": question,
                    "answers": [{"text": answer, "answer_start": 0}],
                }
                for q, (question, answer) in enumerate(qas)
            ],
        }
        for p, (text, qas) in enumerate(texts)
    ]


def _tiny_root(root: Path) -> Path:
    squad = root / "squad_bigbench"
    (squad / "original").mkdir(parents=True)
    _source_md(squad, "CC BY-SA 4.0")
    articles = [{"title": town, "paragraphs": _paragraphs(town, t)} for t, town in enumerate(TOWNS)]
    (squad / "original" / "squaddev_v1.1.json").write_text(
        json.dumps({"data": articles}), encoding="utf-8"
    )
    for name in ("amazon_reviews_v1.0", "new_wiki_v1.0", "nyt_v1.0", "reddit_v1.0"):
        (squad / "original" / f"{name}.json").write_text('{"data": []}', encoding="utf-8")
    # the Hexley fair paragraph overlaps an evaluation set
    (squad / "eval_overlap_paragraphs.json").write_text(
        json.dumps(
            [{"file": "squaddev_v1.1.json", "title": "Hexley", "paragraph_index": 3, "qa_ids": []}]
        ),
        encoding="utf-8",
    )
    qed = [
        {
            "id": f"n{t}",
            "title": f"{town} Castle",
            "question": f"who built {town.lower()} castle",
            "paragraph": f"{town} Castle was built by Lord {COACHES[t].split()[1]} in "
            f"{1100 + t} . Its keep stands on a hill above the town .",
            "answers": [f"Lord {COACHES[t].split()[1]}"],
            "eval_overlap": ["clapnq"] if t == 0 else [],
        }
        for t, town in enumerate(TOWNS)
    ]
    # the same NQ question again in CPKC: kept once
    qed.append(
        {
            "id": "n-dup",
            "title": "Aldmoor Castle",
            "question": "who built brackwell castle",
            "paragraph": "Brackwell Castle is a ruin .",
            "answers": ["Lord Lowe"],
            "eval_overlap": [],
        }
    )
    _write_jsonl(root / "qed_nq" / "qed_all.jsonl", qed)
    _source_md(root / "qed_nq", "CC BY-SA 3.0")
    cpkc = [
        {
            "id": f"c{t}",
            "question": f"who wrote the {town} chronicle?",
            "context": f"The {town} chronicle was written by Ada Byrne in {1500 + t} . "
            "Ada Byrne kept it in the abbey library .",
            "context_answer": "Ada Byrne",
            "other_options": [f"Monk {COACHES[t].split()[0]}"],
            "eval_overlap": [],
        }
        for t, town in enumerate(TOWNS)
    ]
    # not reversible: the real answer is already in the edited passage
    cpkc.append(
        {
            "id": "c-bad",
            "question": "who painted the mural?",
            "context": "The mural was painted by Ada Byrne , a pupil of Jan Roth .",
            "context_answer": "Ada Byrne",
            "other_options": ["Jan Roth"],
            "eval_overlap": [],
        }
    )
    _write_jsonl(root / "cpkc_nq_counterfactual" / "cpkc.jsonl", cpkc)
    _source_md(root / "cpkc_nq_counterfactual", "CC BY-SA 3.0")
    halueval = [
        {
            "id": f"h{t}-right",
            "premise": f"The {town} Gazette is a weekly paper.It was founded in {1850 + t}.",
            "hypothesis": f"{1850 + t}",
            "question": f"When was the {town} Gazette founded?",
            "supported": 1,
            "eval_overlap": [],
        }
        for t, town in enumerate(TOWNS)
    ]
    halueval.append(
        {
            "id": "h0-halluc",
            "premise": "The Aldmoor Gazette is a weekly paper.",
            "hypothesis": "1999",
            "question": "When was the Aldmoor Gazette founded?",
            "supported": 0,
            "eval_overlap": [],
        }
    )
    _write_jsonl(root / "halueval_qa_gen" / "halueval_qa_gen.jsonl", halueval)
    _source_md(root / "halueval_qa_gen", "MIT")
    return root


@pytest.fixture(scope="module")
def tiny_root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return _tiny_root(tmp_path_factory.mktemp("nlidata"))


def _build(root: Path, seed: int = 13) -> RerankBuildResult:
    return build_rerank(
        RerankBuildConfig(
            root=root,
            out=root / "out",
            seed=seed,
            val_fraction=0.4,
            command="python -m x --seed 13",
        )
    )


def test_same_seed_same_bytes_and_another_seed_differs(tiny_root: Path, tmp_path: Path) -> None:
    write_rerank(_build(tiny_root), tmp_path / "a")
    write_rerank(_build(tiny_root), tmp_path / "b")
    for name in ("train.jsonl", "val.jsonl"):
        assert (tmp_path / "a" / name).read_bytes() == (tmp_path / "b" / name).read_bytes()
    card = json.loads((tmp_path / "a" / "card.json").read_text())
    assert card["command"] == "python -m x --seed 13"
    assert card["licenses"]["halueval_qa_gen"] == "MIT"
    other = _build(tiny_root, seed=14)
    first = _build(tiny_root)
    assert [p.id for p in other.train] != [p.id for p in first.train]


def test_each_query_has_its_gold_positive_and_negatives_without_the_answer(tiny_root: Path) -> None:
    result = _build(tiny_root)
    rows = result.train + result.val
    by_query: dict[str, list[Any]] = {}
    for row in rows:
        by_query.setdefault(row.query, []).append(row)
    for query, pairs in by_query.items():
        positives = [p for p in pairs if p.label == "relevant"]
        assert len(positives) == 1, query
        assert positives[0].kind == "positive"
        for pair in pairs:
            if pair.label == "not_relevant":
                assert pair.passage != positives[0].passage
                assert pair.kind in {"bm25_negative", "random_negative"}
    squad = by_query["When did the Corrin Rovers win the cup?"]
    assert "won the cup in 1992" in next(p.passage for p in squad if p.label == "relevant")
    hard = [p.passage for p in squad if p.kind == "bm25_negative"]
    assert hard  # the other Corrin paragraphs share the query's words
    assert not any("1992" in text for text in hard)
    assert result.card["per_kind"]["positive"] == len(by_query)


def test_train_and_val_share_no_passage_or_query(tiny_root: Path) -> None:
    result = _build(tiny_root)
    assert result.train
    assert result.val
    assert not {p.passage for p in result.train} & {p.passage for p in result.val}
    assert not {p.query for p in result.train} & {p.query for p in result.val}
    # a SQuAD article is one document: all its queries land in one split
    for town in TOWNS:
        splits = {
            name
            for name, rows in (("train", result.train), ("val", result.val))
            for p in rows
            if p.source == "squad_bigbench" and town in p.query
        }
        assert len(splits) <= 1, town
    # validation rows come grouped by query
    seen: list[str] = []
    for pair in result.val:
        if not seen or seen[-1] != pair.query:
            assert pair.query not in seen
            seen.append(pair.query)


def test_eval_overlap_duplicates_and_irreversible_edits_are_dropped(tiny_root: Path) -> None:
    result = _build(tiny_root)
    rows = result.train + result.val
    queries = {p.query for p in rows}
    assert "who built aldmoor castle" not in queries  # eval overlap
    assert "When did the Hexley fair begin?" not in queries  # paragraph in the overlap list
    assert not any("Hexley fair began" in p.passage for p in rows)
    assert "who painted the mural?" not in queries
    assert sum(p.query == "who built brackwell castle" and p.label == "relevant" for p in rows) == 1
    assert "When was the Aldmoor Gazette founded?" in queries
    stats = result.card["source_stats"]
    assert stats["cpkc_nq_counterfactual"]["dropped_edit_not_reversible"] == 1
    assert stats["qed_nq"]["dropped_eval_overlap"] == 1
    assert stats["qed_nq"]["dropped_duplicate_question"] == 1


def test_cpkc_positives_are_the_real_passage(tiny_root: Path) -> None:
    result = _build(tiny_root)
    gold = [
        p
        for p in result.train + result.val
        if p.source == "cpkc_nq_counterfactual" and p.label == "relevant"
    ]
    assert len(gold) == len(TOWNS)
    for pair in gold:
        assert "Ada Byrne" not in pair.passage
        assert pair.passage.count("Monk ") == 2  # both mentions put back


def test_contains_answer_matches_whole_words_only() -> None:
    assert contains_answer("Built by Lord Hale in 1100.", ["lord hale"])
    assert not contains_answer("In 11000 years.", ["1100"])
    assert not contains_answer("Anything.", [""])


def test_bad_options_name_the_value(tmp_path: Path) -> None:
    with pytest.raises(OptionError, match="bm25_negatives=0"):
        RerankBuildConfig(root=tmp_path, out=tmp_path, bm25_negatives=0, random_negatives=0)
    with pytest.raises(OptionError, match="scale=0"):
        RerankBuildConfig(root=tmp_path, out=tmp_path, scale=0)


def test_web_style_queries_and_dense_negatives(tiny_root: Path, tmp_path: Path) -> None:
    pytest.importorskip("model2vec")
    result = build_rerank(
        RerankBuildConfig(
            root=tiny_root,
            out=tmp_path / "out",
            val_fraction=0.4,
            web_share=1.0,
            dense_negatives=1,
            dense_embedder=save_tiny_static_model(tmp_path / "static"),
        )
    )
    rows = result.train + result.val
    assert all(not row.query.endswith("?") and row.query == row.query.lower() for row in rows)
    styles: Counter[str] = Counter()
    for counter in result.card["source_stats"].values():
        styles.update({k: v for k, v in counter.items() if k.startswith("query_style_")})
    assert styles["query_style_keywords"]
    assert styles["query_style_lowercase"]
    assert not styles["query_style_question"]
    dense = [row for row in rows if row.kind == "dense_negative"]
    assert dense
    assert all(row.label == "not_relevant" for row in dense)
    for row in dense:
        same = [r for r in rows if r.query == row.query and r.kind != "dense_negative"]
        assert row.passage not in {r.passage for r in same}  # never the gold or a BM25 pick
    assert result.card["negatives_per_query"]["dense"] == 1


def test_web_query_keeps_a_question_of_stopwords_whole() -> None:
    assert web_query("Who is he?", keywords=True) == "who is he"
