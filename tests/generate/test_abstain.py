"""Confidence signals, the Abstainer, and the Asker pipeline (no model call when abstaining)."""

from __future__ import annotations

import math

import pytest

from veracity import defaults
from veracity.errors import InputError, OptionError
from veracity.generate.ask import Asker
from veracity.generate.grounded import GroundedGenerator
from veracity.retrieve.abstain import (
    RANK_ONLY,
    SIGNALS,
    Abstainer,
    SignalReading,
    TopSupport,
    make_signal,
    question_content,
)
from veracity.retrieve.base import Retriever
from veracity.testing import ScriptedChatModel, TablePairScorer
from veracity.types import Confidence, Hit, SearchResult

from .failing_scorers import FailingScorer

pytestmark = pytest.mark.unit

QUESTION = "How many days does a worker take to develop?"
CLAIM = "days does a worker take to develop"


class FixedRetriever:
    """A Retriever that returns the same hits and confidence for every query."""

    name = "fixed"

    def __init__(self, hits: tuple[Hit, ...], confidence: Confidence) -> None:
        self.hits = hits
        self.confidence = confidence
        self.queries: list[tuple[str, int]] = []
        self.loads = 0

    def load(self) -> FixedRetriever:
        self.loads += 1
        return self

    def run(self, query: str, *, k: int = defaults.TOP_K) -> SearchResult:
        self.queries.append((query, k))
        return SearchResult(query, "bm25", self.hits[:k], self.confidence)


def result(hits=(), **confidence) -> SearchResult:
    return SearchResult(QUESTION, "hybrid", tuple(hits), Confidence(**confidence))


# --- signals ----------------------------------------------------------------------------------


def test_raw_score_signals_read_the_confidence():
    results = [result(top_bm25=3.5, top_cosine=0.4), result(top_bm25=0.0, top_cosine=-0.1)]
    assert make_signal("top_bm25").run(results) == [SignalReading(3.5), SignalReading(0.0)]
    assert make_signal("top_cosine").run(results) == [SignalReading(0.4), SignalReading(-0.1)]


def test_a_signal_the_mode_does_not_compute_names_the_modes_that_do():
    bm25_only = SearchResult(QUESTION, "bm25", (), Confidence(top_bm25=2.0))
    with pytest.raises(OptionError, match=r"top_cosine \(dense, hybrid\)"):
        make_signal("top_cosine").run([bm25_only])


@pytest.mark.parametrize("name", sorted(RANK_ONLY))
def test_rank_only_scores_are_refused_with_the_reason(name):
    with pytest.raises(OptionError, match=r"perfect and a useless top hit|rank 1") as caught:
        make_signal(name)
    assert "top_bm25, top_cosine, top_support" in str(caught.value)


def test_an_unknown_signal_lists_the_registry():
    with pytest.raises(OptionError, match=", ".join(SIGNALS)):
        make_signal("margin_of_doubt")


def test_top_support_needs_a_scorer():
    with pytest.raises(OptionError, match="scorer=verifier"):
        make_signal("top_support")


def test_top_support_is_the_best_support_of_the_key_content_over_the_top_hits(hits):
    table = {
        (hits[0].chunk.text, CLAIM): (0.3, 0.0, 0.7),
        (hits[1].chunk.text, CLAIM): (0.8, 0.0, 0.2),
        (hits[2].chunk.text, CLAIM): (0.99, 0.0, 0.01),
    }
    scorer = TablePairScorer(table)
    signal = make_signal("top_support", scorer=scorer, hits=2)
    readings = signal.run([result(hits), result(hits[2:]), result(())])
    assert readings == [SignalReading(0.8), SignalReading(0.99), SignalReading(0.0)]
    assert scorer.calls == [2 + 2]  # all questions and passages in one call


def test_top_support_failures_are_readings_with_an_error(hits):
    signal = TopSupport(FailingScorer({}, fail_on="worker"))
    (reading,) = signal.run([result(hits)])
    assert reading.value is None
    assert "not a label" in (reading.error or "")


@pytest.mark.parametrize(
    ("question", "content"),
    [
        ("How many days does a worker take to develop?", CLAIM),
        ("In what year was the association founded?", "year was the association founded"),
        ("Who decoded the waggle dance?", "decoded the waggle dance"),
        ("Does varroa spread viruses?", "varroa spread viruses"),
        ("Beeswax melting point?", "Beeswax melting point"),
        ("What?", "What?"),
    ],
)
def test_question_content(question, content):
    assert question_content(question) == content


# --- the abstainer ----------------------------------------------------------------------------


def test_the_abstainer_abstains_below_the_threshold_only():
    abstainer = Abstainer(make_signal("top_bm25"), 2.0, source="test")
    below, at = abstainer.run(result(top_bm25=1.9)), abstainer.run(result(top_bm25=2.0))
    assert below.abstain
    assert not at.abstain
    assert (below.signal, below.value, below.threshold, below.source) == (
        "top_bm25",
        1.9,
        2.0,
        "test",
    )
    assert below.reason == "top_bm25 = 1.9 is below the threshold 2"
    assert at.reason == "top_bm25 = 2 reaches the threshold 2"


def test_a_failed_signal_never_abstains(hits):
    abstainer = Abstainer(TopSupport(FailingScorer({}, fail_on="worker")), 0.5)
    check = abstainer.run(result(hits))
    assert not check.abstain
    assert check.value is None
    assert check.error is not None
    assert "not abstaining" in check.reason


@pytest.mark.parametrize("threshold", [math.nan, math.inf, "1", True])
def test_thresholds_must_be_finite_numbers(threshold):
    with pytest.raises(OptionError, match="threshold="):
        Abstainer(make_signal("top_bm25"), threshold)


# --- the asker --------------------------------------------------------------------------------

WORKER = "Worker bees develop in 21 days from egg to adult."


def asker(hits, confidence, replies, threshold=None, k=3):
    chat = ScriptedChatModel(replies)
    scorer = TablePairScorer({(WORKER, "Workers take 21 days."): (0.9, 0.0, 0.1)})
    abstainer = None if threshold is None else Abstainer(make_signal("top_bm25"), threshold)
    retriever = FixedRetriever(hits, confidence)
    return Asker(retriever, GroundedGenerator(chat, scorer), k=k, abstainer=abstainer), chat


def test_abstaining_makes_no_model_call(hits):
    ask, chat = asker(hits, Confidence(top_bm25=1.0), replies=[], threshold=5.0)
    answer = ask.run(QUESTION)
    assert answer.abstained
    assert not answer.answered
    assert answer.text == defaults.ABSTAIN_TEXT
    assert answer.abstention is not None
    assert answer.abstention.value == 1.0
    assert answer.provenance is None
    assert answer.sources == ()
    assert chat.requests == []


def test_nothing_retrieved_abstains_even_without_an_abstainer():
    ask, chat = asker((), Confidence(top_bm25=0.0), replies=[])
    answer = ask.run(QUESTION)
    assert answer.abstained
    assert answer.abstention is not None
    assert answer.abstention.signal == "hits"
    assert chat.requests == []


def test_a_confident_question_is_answered_and_verified(hits):
    ask, chat = asker(
        hits, Confidence(top_bm25=9.0), ["Workers take 21 days [1]."], threshold=5.0, k=2
    )
    answer = ask.run(QUESTION)
    assert not answer.abstained
    assert answer.abstention is not None
    assert not answer.abstention.abstain
    assert [s.status for s in answer.sentences] == ["supported"]
    assert answer.sources == hits[:2]
    assert ask.retriever.queries == [(QUESTION, 2)]
    assert len(chat.requests) == 1
    assert all(
        value >= 0
        for value in (
            answer.timings.retrieve,
            answer.timings.abstain,
            answer.timings.generate,
            answer.timings.verify,
        )
    )


def test_without_an_abstainer_every_question_reaches_the_model(hits):
    ask, chat = asker(hits, Confidence(top_bm25=0.1), ["I don't know."])
    answer = ask.run(QUESTION)
    assert answer.refused
    assert not answer.abstained
    assert answer.abstention is None
    assert len(chat.requests) == 1


def test_load_is_idempotent(hits):
    ask, _ = asker(hits, Confidence(top_bm25=9.0), [])
    assert ask.load() is ask  # (before: load() is load(), which None is None also passes)
    assert ask.load() is ask


def test_asker_inputs_are_validated(hits):
    ask, _ = asker(hits, Confidence(), [])
    assert isinstance(ask.retriever, Retriever)
    with pytest.raises(InputError, match="Retriever"):
        Asker(object(), ask.generator)  # type: ignore[arg-type]
    with pytest.raises(InputError, match="GroundedGenerator"):
        Asker(ask.retriever, object())  # type: ignore[arg-type]
    with pytest.raises(OptionError, match="k=0"):
        Asker(ask.retriever, ask.generator, k=0)
    with pytest.raises(InputError, match="empty"):
        ask.run(" ")


@pytest.mark.unit
def test_question_focus_keeps_short_questions_and_picks_what_a_long_one_asks() -> None:
    from veracity.text.sentences import question_focus

    assert question_focus("Which mite is it?") == "Which mite is it?"
    story = "I keep bees. " * 40
    assert (
        question_focus(story + "Which mite is it? And when to treat?")
        == "Which mite is it? And when to treat?"
    )
    assert question_focus(story + "Tell me the mite") == "Tell me the mite"
