"""open_asker and open_search from configs on a BM25 index made in the test, with fake models."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from veracity.config import AskConfig, SearchConfig
from veracity.corpus.indexer import Indexer
from veracity.errors import OptionError, VeracityError
from veracity.generate.ask import Asker
from veracity.generate.extractive import ExtractiveGenerator
from veracity.generate.open import open_asker, search_asker
from veracity.models import Models
from veracity.retrieve.bm25 import BM25Builder
from veracity.retrieve.open import FallbackRetriever
from veracity.retrieve.rerank import RerankingRetriever
from veracity.retrieve.search import IndexSearch, open_search
from veracity.testing import OverlapRelevanceScorer, ScriptedChatModel, TablePairScorer

pytestmark = pytest.mark.unit

WAX = "Beeswax melts at about 62 to 64 degrees Celsius."
DOCS = {
    "wax.txt": WAX,
    "bees.txt": "Honeybee workers develop in 21 days from egg to adult.",
    "mites.txt": "Varroa mites are the most damaging parasite of honeybee colonies.",
}
QUESTION = "At what temperature does beeswax melt?"
#: A chat backend, so that the writer is the fake chat model (extractive is no chat model).
CHAT = "openai:http://127.0.0.1:9/v1"
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


def models(
    chat: ScriptedChatModel | None = None,
    verifier: TablePairScorer | None = None,
    reranker: OverlapRelevanceScorer | None = None,
) -> Models:
    """Every name makes the model given (a fresh fake where none is)."""
    made = verifier or scorer()
    return Models(
        verifier=lambda name: made,
        chat=lambda spec, model: chat or ScriptedChatModel([]),
        reranker=lambda name: reranker or OverlapRelevanceScorer(),
    )


def ask(index: Path, **options: Any) -> AskConfig:
    return AskConfig().with_options(index=index, **({"llm": CHAT, "knowledge": False} | options))


def search_of(index: Path, **options: Any) -> SearchConfig:
    return SearchConfig().with_options(index=index, **options)


def test_an_asker_answers_from_the_index_with_the_settings_given(index: Path) -> None:
    chat = ScriptedChatModel([f"{CLAIM} [1]"])
    config = ask(index, mode="bm25", abstain=False, k=2, tau=0.7)
    asker = open_asker(config, models(chat, scorer(0.6)))
    assert isinstance(asker, Asker)
    assert (asker.k, asker.generator.tau, asker.abstainer, asker.notes) == (2, 0.7, None, ())
    answer = asker.run(QUESTION)
    assert answer.config is not None
    assert AskConfig.from_dict(answer.to_dict()["config"]) == config
    assert len(chat.requests) == 1
    assert answer.sources[0].chunk.doc_id == "wax.txt"
    assert len(answer.sources) <= 2
    # tau is the decision's threshold: the sentence is supported exactly when the decision's
    # P(supported) reaches 0.7
    strict = answer.sentences[0]
    assert strict.decision is not None
    assert (strict.status == "supported") == (strict.decision.supported >= 0.7)
    default = open_asker(
        ask(index, mode="bm25", abstain=False),
        models(ScriptedChatModel([f"{CLAIM} [1]"]), scorer(0.6)),
    ).run(QUESTION)
    loose = default.sentences[0]
    assert loose.decision is not None
    assert loose.decision.supported == pytest.approx(strict.decision.supported)
    assert (loose.status == "supported") == (loose.decision.supported >= 0.5)  # default tau


def test_an_extractive_config_answers_without_a_chat_model(index: Path) -> None:
    config = ask(index, mode="bm25", abstain=False, llm="extractive")
    asker = open_asker(config, models(verifier=scorer(0.9)))
    assert isinstance(asker.generator, ExtractiveGenerator)
    answer = asker.run(QUESTION)
    assert answer.provenance is not None
    assert answer.provenance.prompt_id == ""  # no prompt, no model
    assert AskConfig.from_dict(answer.to_dict()["config"]) == config
    with pytest.raises(OptionError, match="extractive"):
        open_asker(ask(index, llm="extractive", model="qwen"), models())


def test_a_hybrid_search_without_vectors_falls_back_and_says_so_once(index: Path) -> None:
    asker = open_asker(ask(index), models())
    assert isinstance(asker.retriever, FallbackRetriever)
    assert len(asker.notes) == 1
    assert "used BM25 alone" in asker.notes[0]
    # the abstention that goes with the search that runs (BM25), not with hybrid
    assert asker.abstainer is not None
    assert asker.abstainer.signal.name == "top_support"


def test_without_a_calibration_the_shipped_default_abstains_and_is_named(index: Path) -> None:
    chat = ScriptedChatModel([])
    asker = open_asker(ask(index, mode="bm25"), models(chat, scorer(0.0)))
    answer = asker.run("Who first bred honeybee queens?")
    assert answer.abstained
    assert answer.config is not None  # an answer that abstained says how it was made too
    assert answer.abstention is not None
    assert "no calibration was made" in answer.abstention.source
    assert chat.requests == []


def test_a_threshold_in_the_config_replaces_the_calibration(index: Path) -> None:
    chat = ScriptedChatModel([])
    config = ask(index, mode="bm25", signal="top_bm25", threshold=1000.0)
    answer = open_asker(config, models(chat)).run(QUESTION)
    assert answer.abstained
    assert answer.abstention is not None
    assert answer.abstention.source == "--threshold"
    assert chat.requests == []


def test_a_signal_without_its_threshold_is_refused(index: Path) -> None:
    with pytest.raises(VeracityError, match="needs --threshold"):
        open_search(search_of(index, mode="bm25", signal="top_bm25"), models())


def test_a_search_needs_an_index_and_searches_it(index: Path) -> None:
    with pytest.raises(OptionError, match="index is needed: an index folder"):
        open_search(SearchConfig(), models())
    search = open_search(search_of(index, mode="bm25", abstain=False), models())
    assert isinstance(search, IndexSearch)
    assert search.abstainer is None
    assert search.retriever.run("varroa mites", k=1).hits[0].chunk.doc_id == "mites.txt"


def test_a_reranker_reranks_to_the_depth_given(index: Path) -> None:
    reranker = OverlapRelevanceScorer()
    config = search_of(index, mode="bm25", reranker="overlap", rerank_depth=2, abstain=False)
    search = open_search(config, models(reranker=reranker))
    assert isinstance(search.retriever, RerankingRetriever)
    hits = search.retriever.run("honeybee colonies", k=1).hits  # two passages match
    assert reranker.calls == [2]
    assert hits[0].chunk.doc_id == "mites.txt"
    assert {"rerank", "first_stage_rank"} <= set(hits[0].scores)


def test_a_depth_without_a_reranker_is_refused_not_ignored(index: Path) -> None:
    with pytest.raises(OptionError, match="rerank_depth=5 is not allowed: given with a reranker"):
        search_of(index, mode="bm25", rerank_depth=5, abstain=False)


def test_a_config_checks_the_search_mode_when_made() -> None:
    with pytest.raises(OptionError, match="mode='fuzzy' is not allowed: one of bm25, dense"):
        SearchConfig().with_options(mode="fuzzy")
    with pytest.raises(OptionError, match="llm is needed: a writer for the answer"):
        AskConfig().with_options(llm=None)


def test_an_index_search_makes_askers_without_changing_itself(index: Path) -> None:
    search = open_search(search_of(index, mode="bm25"), models())
    one = search_asker(search, ScriptedChatModel([]), scorer(), k=1, tau=0.9)
    two = search_asker(search, ScriptedChatModel([]), scorer(), k=3)
    assert (one.k, one.generator.tau, two.k, two.generator.tau) == (1, 0.9, 3, 0.5)
    assert one.retriever is two.retriever is search.retriever
    assert one.abstainer is two.abstainer is search.abstainer
