"""open_asker and open_search on a BM25 index made in the test, with fake models."""

from __future__ import annotations

from pathlib import Path

import pytest

from veracity.corpus.indexer import Indexer
from veracity.errors import OptionError, VeracityError
from veracity.generate.ask import Asker
from veracity.generate.open import IndexSearch, SearchSettings, open_asker, open_search
from veracity.retrieve.bm25 import BM25Builder
from veracity.retrieve.open import FallbackRetriever
from veracity.retrieve.rerank import RerankingRetriever
from veracity.testing import OverlapRelevanceScorer, ScriptedChatModel, TablePairScorer

pytestmark = pytest.mark.unit

WAX = "Beeswax melts at about 62 to 64 degrees Celsius."
DOCS = {
    "wax.txt": WAX,
    "bees.txt": "Honeybee workers develop in 21 days from egg to adult.",
    "mites.txt": "Varroa mites are the most damaging parasite of honeybee colonies.",
}
QUESTION = "At what temperature does beeswax melt?"
CLAIM = "Beeswax melts at about 63 degrees."


@pytest.fixture(scope="module")
def index(tmp_path_factory: pytest.TempPathFactory) -> Path:
    docs = tmp_path_factory.mktemp("docs")
    for name, text in DOCS.items():
        (docs / name).write_text(text + "\n", encoding="utf-8")
    folder = tmp_path_factory.mktemp("index") / "index"
    Indexer(builders=[BM25Builder()]).run([docs], folder)
    return folder


def scorer(support: float = 0.9) -> TablePairScorer:
    return TablePairScorer({(WAX, CLAIM): (support, 0.0, 1.0 - support)})


def test_an_asker_answers_from_the_index_with_the_settings_given(index: Path) -> None:
    chat = ScriptedChatModel([f"{CLAIM} [1]"])
    asker = open_asker(
        index,
        chat,
        scorer(0.6),
        search=SearchSettings(mode="bm25", abstain=False),
        k=2,
        tau=0.7,
    )
    assert isinstance(asker, Asker)
    assert (asker.k, asker.generator.tau, asker.abstainer, asker.notes) == (2, 0.7, None, ())
    answer = asker.run(QUESTION)
    assert len(chat.requests) == 1
    assert answer.sources[0].chunk.doc_id == "wax.txt"
    assert len(answer.sources) <= 2
    # tau is the decision's threshold: the sentence is supported exactly when the decision's
    # P(supported) reaches 0.7
    strict = answer.sentences[0]
    assert strict.decision is not None
    assert (strict.status == "supported") == (strict.decision.supported >= 0.7)
    default = open_asker(
        index,
        ScriptedChatModel([f"{CLAIM} [1]"]),
        scorer(0.6),
        search=SearchSettings(mode="bm25", abstain=False),
    ).run(QUESTION)
    loose = default.sentences[0]
    assert loose.decision is not None
    assert loose.decision.supported == pytest.approx(strict.decision.supported)
    assert (loose.status == "supported") == (loose.decision.supported >= 0.5)  # default tau


def test_a_hybrid_search_without_vectors_falls_back_and_says_so_once(index: Path) -> None:
    asker = open_asker(index, ScriptedChatModel([]), scorer())
    assert isinstance(asker.retriever, FallbackRetriever)
    assert len(asker.notes) == 1
    assert "used BM25 alone" in asker.notes[0]
    # the abstention that goes with the search that runs (BM25), not with hybrid
    assert asker.abstainer is not None
    assert asker.abstainer.signal.name == "top_support"


def test_without_a_calibration_the_shipped_default_abstains_and_is_named(index: Path) -> None:
    chat = ScriptedChatModel([])
    asker = open_asker(index, chat, scorer(0.0), search=SearchSettings(mode="bm25"))
    answer = asker.run("Who first bred honeybee queens?")
    assert answer.abstained
    assert answer.abstention is not None
    assert "no calibration was made" in answer.abstention.source
    assert chat.requests == []


def test_a_threshold_in_the_settings_replaces_the_calibration(index: Path) -> None:
    chat = ScriptedChatModel([])
    settings = SearchSettings(mode="bm25", signal="top_bm25", threshold=1000.0)
    answer = open_asker(index, chat, scorer(), search=settings).run(QUESTION)
    assert answer.abstained
    assert answer.abstention is not None
    assert answer.abstention.source == "--threshold"
    assert chat.requests == []


def test_a_signal_without_its_threshold_is_refused(index: Path) -> None:
    with pytest.raises(VeracityError, match="needs --threshold"):
        open_search(index, settings=SearchSettings(mode="bm25", signal="top_bm25"), scorer=scorer())


def test_abstaining_needs_a_verifier_and_not_abstaining_does_not(index: Path) -> None:
    with pytest.raises(OptionError, match="scorer is needed"):
        open_search(index, settings=SearchSettings(mode="bm25"))
    search = open_search(index, settings=SearchSettings(mode="bm25", abstain=False))
    assert isinstance(search, IndexSearch)
    assert search.abstainer is None
    assert search.retriever.run("varroa mites", k=1).hits[0].chunk.doc_id == "mites.txt"


def test_a_reranker_reranks_to_the_depth_given(index: Path) -> None:
    reranker = OverlapRelevanceScorer()
    settings = SearchSettings(mode="bm25", rerank_depth=2, abstain=False)
    search = open_search(index, settings=settings, reranker=reranker)
    assert isinstance(search.retriever, RerankingRetriever)
    hits = search.retriever.run("honeybee colonies", k=1).hits  # two passages match
    assert reranker.calls == [2]
    assert hits[0].chunk.doc_id == "mites.txt"
    assert {"rerank", "first_stage_rank"} <= set(hits[0].scores)


def test_a_depth_without_a_reranker_is_refused_not_ignored(index: Path) -> None:
    with pytest.raises(OptionError, match="rerank_depth=5 is not allowed: given with a reranker"):
        open_search(index, settings=SearchSettings(mode="bm25", rerank_depth=5, abstain=False))


def test_settings_check_the_search_mode_when_made() -> None:
    with pytest.raises(OptionError, match="mode='fuzzy' is not allowed: one of bm25, dense"):
        SearchSettings(mode="fuzzy")


def test_an_index_search_makes_askers_without_changing_itself(index: Path) -> None:
    search = open_search(index, settings=SearchSettings(mode="bm25"), scorer=scorer())
    one = search.asker(ScriptedChatModel([]), scorer(), k=1, tau=0.9)
    two = search.asker(ScriptedChatModel([]), scorer(), k=3)
    assert (one.k, one.generator.tau, two.k, two.generator.tau) == (1, 0.9, 3, 0.5)
    assert one.retriever is two.retriever is search.retriever
    assert one.abstainer is two.abstainer is search.abstainer
