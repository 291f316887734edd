"""Wikipedia-derived claims: subject, pronoun resolution, fusion, removal negatives."""

from __future__ import annotations

import json
import random
from collections import Counter
from pathlib import Path

import pytest

from veracity_training.data.articles import Article, category_of, load_articles, subject_of
from veracity_training.data.synthetic import build_wikipedia, fuse, resolve
from veracity_training.data.text import novel_tokens

pytestmark = pytest.mark.unit

BIO = [
    "Ada Byrne (1850–1920) was an Irish engineer who built bridges.",
    "She was born in Cork in 1850. She studied at Trinity College in Dublin. "
    "Her father, a miller, died in 1862.",
    "In 1880, Byrne moved to Leeds, where she designed the Aire Bridge. She married Tom Hale "
    "in 1885. The bridge opened in 1890 and carried 4,000 carts a day. She retired in 1910.",
    "She died in 1920 in London. A statue of her stands in Cork since 1950.",
]


def _article(paragraphs: list[str], tmp_path: Path) -> Article:
    path = tmp_path / "docs.jsonl"
    path.write_text(json.dumps({"doc_id": "d1", "paragraphs": paragraphs}) + "\n")
    (article,) = load_articles(path)
    return article


@pytest.mark.parametrize(
    ("sentence", "subject"),
    [
        ("Gustave Biéler DSO MBE (1904–1944) was a Canadian agent.", "Gustave Biéler"),
        (
            "The Vale of Glamorgan, often referred to as The Vale, is a county.",
            "The Vale of Glamorgan",
        ),
        ("This is a list of rivers.", ""),
        ("On November 29, the storm hit.", ""),
    ],
)
def test_subject_of(sentence: str, subject: str) -> None:
    assert subject_of(sentence) == subject


def test_category_of() -> None:
    assert category_of("Decatur is a city in DeKalb County, Georgia.") == "city"
    assert category_of("Nazz is the self-titled debut album by Nazz.") == "album"
    assert category_of("It rained.") == ""


def test_load_articles_finds_subject_and_pronoun(tmp_path: Path) -> None:
    article = _article(BIO, tmp_path)
    assert article.subject == "Ada Byrne"
    assert article.pronoun == "she"
    assert article.category == "engineer"


def test_resolve_replaces_pronouns_of_the_subject_only(tmp_path: Path) -> None:
    article = _article(BIO, tmp_path)
    assert resolve("She was born in Cork.", article, None) == "Ada Byrne was born in Cork."
    assert resolve("Her father was a miller.", article, None) == "Ada Byrne's father was a miller."
    assert resolve("He was born in Cork.", article, None) is None  # wrong gender
    assert resolve("They moved to Leeds.", article, None) is None
    assert resolve("In , she was promoted.", article, None) is None  # text lost in the dump
    assert resolve("Byrne moved to Leeds.", article, None) == "Byrne moved to Leeds."
    assert resolve("She married.", article, None, name="Byrne") == "Byrne married."
    assert resolve("In 1880, she moved.", article, None) == "In 1880, Ada Byrne moved."
    assert resolve("In 1880, he moved.", article, None) is None


def test_fuse_shares_the_subject_or_joins_sentences() -> None:
    rng = random.Random(0)
    parts = ["Ada Byrne was born in Cork.", "Ada Byrne married Tom Hale in 1885."]
    fused = fuse(parts, "Ada Byrne", rng)
    assert fused in {
        "Ada Byrne was born in Cork and married Tom Hale in 1885.",
        "Ada Byrne, who married Tom Hale in 1885, was born in Cork.",
    }
    other = fuse(["The bridge opened in 1890.", "The city grew."], "Ada Byrne", rng, frozenset())
    assert other.startswith("The bridge opened in 1890")
    assert "the city grew." in other
    assert other.count(".") == 1


def test_build_wikipedia_labels_and_removal_negatives(tmp_path: Path) -> None:
    article = _article(BIO, tmp_path)
    quotas = {
        "multi_sentence": 20,
        "multi_sentence_removed": 20,
        "compression": 20,
        "negation": 20,
        "number_change": 20,
        "paraphrase_edit": 20,
    }
    rows = build_wikipedia([article], quotas=quotas, seed=3, stats=Counter())
    kinds = Counter(r.kind for r in rows)
    assert kinds["multi_sentence"] > 0
    assert kinds["multi_sentence_removed"] > 0
    assert kinds["negation"] > 0
    expected = {
        "multi_sentence": "supported",
        "compression": "supported",
        "paraphrase_edit": "supported",
        "multi_sentence_removed": "neither",
        "negation": "contradicted",
        "number_change": "contradicted",
    }
    positives = {r.hypothesis: r.premise for r in rows if r.kind == "multi_sentence"}
    for row in rows:
        assert row.label == expected[row.kind]
        if row.kind == "multi_sentence_removed":
            full = positives.get(row.hypothesis)
            if full is not None:
                assert len(row.premise) < len(full)  # exactly one sentence is missing
            assert novel_tokens(row.hypothesis, row.premise)  # something the premise lacks
        if row.kind == "multi_sentence":
            assert row.hypothesis not in row.premise  # fused, not copied


def test_build_wikipedia_is_deterministic(tmp_path: Path) -> None:
    article = _article(BIO, tmp_path)
    quotas = {"multi_sentence": 5, "negation": 5, "compression": 5}
    first = build_wikipedia([article], quotas=quotas, seed=1, stats=Counter())
    second = build_wikipedia([article], quotas=quotas, seed=1, stats=Counter())
    assert [r.to_json() for r in first] == [r.to_json() for r in second]
