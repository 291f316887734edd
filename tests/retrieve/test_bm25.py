"""BM25 builder and retriever: oracle agreement with bm25s and rank_bm25, edges, bad input."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import bm25s
import numpy as np
import pytest
import rank_bm25
import Stemmer

from veracity.errors import (
    IndexNotFoundError,
    IndexStoreError,
    IndexVersionError,
    InputError,
    OptionError,
)
from veracity.retrieve.base import Retriever
from veracity.retrieve.bm25 import Analyzer, BM25Builder, BM25Retriever

pytestmark = pytest.mark.unit

CORPUS = [
    "The solar eclipse of 2024 crossed North America from Mexico to Canada.",
    "A lunar eclipse happens when the Earth passes between the Sun and the Moon.",
    "Honeybees beat their wings about two hundred times per second.",
    "Varroa mites are the most damaging parasite of honeybee colonies worldwide.",
    "The treaty was signed in Paris in 1783, ending the American Revolutionary War.",
    "Queen bees can live for several years, while workers live a few weeks in summer.",
    "Eclipses of the Sun were recorded by Babylonian astronomers thousands of years ago.",
    "Mexico City sits on the bed of a drained lake, and it sinks a few centimetres a year.",
    "Running water erodes rock; rivers running fast carry more sediment than slow ones.",
    "The Moon is slowly drifting away from the Earth, about four centimetres a year.",
]
QUERIES = [
    "solar eclipse Mexico",
    "honeybee parasites mites",
    "when was the treaty signed",
    "Moon drifting away from Earth",
    "how long do queen bees live",
    "rivers run fast",
    "eclipse",
]


def _build(chunks, generation: Path, **options) -> BM25Retriever:
    BM25Builder(**options).build(chunks, generation, None)
    return BM25Retriever(chunks, generation).load()


def test_scores_and_ranking_equal_bm25s(chunks_of, generation):
    retriever = _build(chunks_of(CORPUS), generation)
    stemmer = Stemmer.Stemmer("english")
    oracle = bm25s.BM25()
    oracle.index(
        bm25s.tokenize(CORPUS, stopwords="en", stemmer=stemmer, show_progress=False),
        show_progress=False,
    )
    for query in QUERIES:
        tokens = bm25s.tokenize([query], stopwords="en", stemmer=stemmer, show_progress=False)
        docs, scores = oracle.retrieve(tokens, k=len(CORPUS), show_progress=False)
        pairs = zip(docs[0].tolist(), scores[0].tolist(), strict=True)
        # bm25s leaves ties in any order; ours breaks them by ordinal
        expected = sorted(((d, s) for d, s in pairs if s > 0), key=lambda p: (-p[1], p[0]))
        result = retriever.run(query, k=len(CORPUS))
        got = [(int(hit.chunk.id[1:]), hit.scores["bm25"]) for hit in result.hits]
        assert [d for d, _ in got] == [d for d, _ in expected], query
        np.testing.assert_allclose([s for _, s in got], [s for _, s in expected], rtol=1e-6)
        assert [hit.score for hit in result.hits] == [s for _, s in got]


def test_scores_agree_with_rank_bm25(chunks_of, generation):
    # rank_bm25's BM25Okapi is bm25s's "atire" term frequency with Robertson idf (floored at 0).
    retriever = _build(chunks_of(CORPUS), generation, method="atire", idf_method="robertson")
    analyzer = Analyzer()
    oracle = rank_bm25.BM25Okapi(
        [analyzer.terms(text) for text in CORPUS], k1=1.5, b=0.75, epsilon=0.0
    )
    for query in QUERIES:
        expected = oracle.get_scores(analyzer.terms(query))
        np.testing.assert_allclose(retriever.score_all(query), expected, rtol=1e-5, atol=1e-6)
        ranked = [int(hit.chunk.id[1:]) for hit in retriever.run(query, k=3).hits]
        order = sorted(range(len(CORPUS)), key=lambda i: (-expected[i], i))
        assert ranked == [i for i in order[:3] if expected[i] > 0], query


def test_index_files_are_plain_npy_and_json(chunks_of, generation):
    BM25Builder().build(chunks_of(CORPUS), generation, None)
    files = sorted((generation / "bm25").iterdir())
    assert {f.suffix for f in files} == {".npy", ".json"}
    for path in files:
        if path.suffix == ".npy":
            np.load(path, allow_pickle=False)  # raises if anything was pickled
        else:
            json.loads(path.read_text(encoding="utf-8"))


def test_build_summary_records_the_tokenizer(chunks_of, generation):
    summary = BM25Builder(stemmer=None).build(chunks_of(CORPUS), generation, None)
    assert summary["count"] == len(CORPUS)
    assert summary["stemmer"] is None
    assert summary["method"] == "lucene"
    assert isinstance(summary["terms"], int)
    assert summary["terms"] > 50


def test_stemming_matches_word_forms(chunks_of, tmp_path):
    chunks = chunks_of(["rivers running", "a river runs"])
    stemmed = _build(chunks, tmp_path / "a")
    surface = _build(chunks, tmp_path / "b", stemmer=None)
    assert {hit.chunk.id for hit in stemmed.run("river run", k=5).hits} == {"c0", "c1"}
    assert {hit.chunk.id for hit in surface.run("river run", k=5).hits} == {"c1"}


def test_query_with_no_known_term_returns_no_hits(chunks_of, generation):
    retriever = _build(chunks_of(CORPUS), generation)
    for query in ["zyzzyva quux", "the and of", "!!!"]:
        result = retriever.run(query, k=3)
        assert result.hits == ()
        assert result.confidence.top_bm25 == 0.0
        assert result.confidence.margin == 0.0
        assert result.mode == "bm25"


def test_k_larger_than_corpus_is_clamped(chunks_of, generation):
    retriever = _build(chunks_of(CORPUS[:3]), generation)
    result = retriever.run("eclipse", k=1000)
    assert {hit.chunk.id for hit in result.hits} == {"c0", "c1"}
    assert [hit.rank for hit in result.hits] == [1, 2]


def test_confidence_is_top_score_and_margin(chunks_of, generation):
    retriever = _build(chunks_of(CORPUS), generation)
    full = np.sort(retriever.score_all("solar eclipse Mexico"))[::-1]
    for k in (1, 2, 5):
        confidence = retriever.run("solar eclipse Mexico", k=k).confidence
        assert confidence.top_bm25 == pytest.approx(float(full[0]))
        assert confidence.margin == pytest.approx(float(full[0] - full[1]))
        assert confidence.top_cosine is None


def test_margin_with_a_single_match_is_the_top_score(chunks_of, generation):
    retriever = _build(chunks_of(CORPUS), generation)
    result = retriever.run("Babylonian", k=5)
    assert len(result.hits) == 1
    assert result.confidence.margin == pytest.approx(result.confidence.top_bm25)


def test_ties_are_ranked_by_ordinal(chunks_of, generation):
    retriever = _build(chunks_of(["alpha beta", "gamma", "alpha beta", "alpha beta"]), generation)
    assert [hit.chunk.id for hit in retriever.run("alpha", k=2).hits] == ["c0", "c2"]


@pytest.mark.parametrize("query", ["", "   ", "\n\t"])
def test_empty_query_raises_input_error(chunks_of, generation, query):
    retriever = _build(chunks_of(CORPUS), generation)
    with pytest.raises(InputError, match="empty"):
        retriever.run(query)


@pytest.mark.parametrize("k", [0, -1, 2.5, True, "3"])
def test_bad_k_raises_option_error(chunks_of, generation, k):
    retriever = _build(chunks_of(CORPUS), generation)
    with pytest.raises(OptionError, match="k="):
        retriever.run("eclipse", k=k)


def test_non_string_query_raises_input_error(chunks_of, generation):
    retriever = _build(chunks_of(CORPUS), generation)
    with pytest.raises(InputError, match="string"):
        retriever.run(["eclipse"])  # type: ignore[arg-type]


def test_corpus_without_terms_searches_to_nothing(chunks_of, generation):
    retriever = _build(chunks_of(["the of", "", "a"]), generation)
    assert retriever.run("the", k=5).hits == ()
    assert retriever.score_all("anything").shape == (3,)


def test_empty_corpus(chunks_of, generation):
    retriever = _build(chunks_of([]), generation)
    result = retriever.run("eclipse", k=5)
    assert result.hits == ()
    assert result.confidence.top_bm25 == 0.0


def test_chunk_without_terms_among_others(chunks_of, generation):
    retriever = _build(chunks_of(["the", "eclipse today", ""]), generation)
    assert [hit.chunk.id for hit in retriever.run("eclipse", k=5).hits] == ["c1"]


def test_missing_index_raises_index_not_found(chunks_of, tmp_path):
    with pytest.raises(IndexNotFoundError, match="Build the index"):
        BM25Retriever(chunks_of(CORPUS), tmp_path).load()


def test_chunk_count_mismatch_raises(chunks_of, generation):
    BM25Builder().build(chunks_of(CORPUS), generation, None)
    with pytest.raises(IndexStoreError, match="different generations"):
        BM25Retriever(chunks_of(CORPUS[:4]), generation).run("eclipse")


def test_other_format_version_raises(chunks_of, generation):
    BM25Builder().build(chunks_of(CORPUS), generation, None)
    meta_path = generation / "bm25" / "veracity.bm25.json"
    meta = json.loads(meta_path.read_text())
    meta["format_version"] = 999
    meta_path.write_text(json.dumps(meta))
    with pytest.raises(IndexVersionError, match="999"):
        BM25Retriever(chunks_of(CORPUS), generation).load()


def test_init_does_no_io_and_load_is_idempotent(chunks_of, tmp_path):
    retriever = BM25Retriever(chunks_of(CORPUS), tmp_path / "nowhere")  # no error yet
    BM25Builder().build(chunks_of(CORPUS), tmp_path / "nowhere", None)
    assert retriever.load() is retriever
    shutil.rmtree(tmp_path / "nowhere")  # a second load reads nothing again
    assert retriever.load() is retriever
    assert retriever.run("honeybees wings", k=1).hits
    assert isinstance(retriever, Retriever)


@pytest.mark.parametrize(
    ("options", "name"),
    [
        ({"k1": 0}, "k1"),
        ({"k1": "1.2"}, "k1"),
        ({"b": 1.5}, "b"),
        ({"method": "okapi"}, "method"),
        ({"idf_method": "tfidf"}, "idf_method"),
        ({"stemmer": "klingon"}, "stemmer"),
        ({"stemmer": 3}, "stemmer"),
    ],
)
def test_bad_builder_options_raise_option_error(options, name):
    with pytest.raises(OptionError, match=f"{name}="):
        BM25Builder(**options)


def test_retriever_needs_a_chunk_lookup(tmp_path):
    with pytest.raises(InputError, match="ChunkLookup"):
        BM25Retriever(["not", "chunks"], tmp_path)  # type: ignore[arg-type]


def test_analyzer_keeps_repeats_and_drops_stopwords():
    assert Analyzer(stemmer=None).terms("The cat and THE cat") == ["cat", "cat"]
    assert Analyzer().terms("Running runners ran") == ["run", "runner", "ran"]


@pytest.mark.parametrize("stemmer", ["english", None])
def test_term_ids_index_the_same_terms(stemmer):
    analyzer = Analyzer(stemmer=stemmer)
    rows, vocab = analyzer.term_ids(CORPUS)
    terms = {term_id: term for term, term_id in vocab.items()}
    assert sorted(vocab.values()) == list(range(len(vocab)))
    for text, row in zip(CORPUS, rows, strict=True):
        assert [terms[i] for i in row] == Analyzer(stemmer=stemmer).terms(text)


def test_damaged_metadata_raises_index_store_error(chunks_of, generation):
    BM25Builder().build(chunks_of(CORPUS), generation, None)
    meta_path = generation / "bm25" / "veracity.bm25.json"
    meta = json.loads(meta_path.read_text())
    del meta["count"]
    meta_path.write_text(json.dumps(meta))
    with pytest.raises(IndexStoreError, match="'count'"):
        BM25Retriever(chunks_of(CORPUS), generation).load()
    meta_path.write_text("{not json")
    with pytest.raises(IndexStoreError, match="Re-index"):
        BM25Retriever(chunks_of(CORPUS), generation).load()
