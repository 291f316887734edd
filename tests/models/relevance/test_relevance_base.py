"""The RelevanceScorer protocol's shared parts: input checks, best-window scoring, batching,
and a pair verifier read as relevance."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pytest

from veracity.errors import InputError, ModelError, OptionError
from veracity.models.pairs.windows import EvidenceSelector
from veracity.models.relevance import RelevanceScorer, make_reranker
from veracity.models.relevance.base import batched_logits, check_passages, score_windows
from veracity.models.relevance.support import SupportRelevance
from veracity.testing import FailingPairScorer, OverlapRelevanceScorer, TablePairScorer

pytestmark = pytest.mark.unit

LONG = " ".join(f"Sentence {i} talks about subject number {i} in some detail." for i in range(30))


@pytest.mark.parametrize(
    ("query", "passages", "needle"),
    [
        ("", ["x"], "is empty"),
        ("   ", ["x"], "is empty"),
        (3, ["x"], "must be a string"),
        ("q", "one passage", "wrap a single passage"),
        ("q", ["ok", 7], "passage 1 is a int"),
    ],
)
def test_bad_input_says_what_to_pass(query: Any, passages: Any, needle: str) -> None:
    with pytest.raises(InputError, match=needle):
        check_passages(query, passages)


def test_an_empty_list_of_passages_scores_nothing() -> None:
    scores = OverlapRelevanceScorer().run("bees", [])
    assert len(scores) == 0
    assert scores.windowed == 0


def _by_marker(pairs: list[tuple[str, str]]) -> np.ndarray:
    """A fake model: the logit is the number of 'subject number 7' mentions in the window."""
    return np.array([float(text.count("subject number 7 ")) for _, text in pairs])


def test_a_long_passage_scores_as_its_best_window_and_says_so() -> None:
    selector = EvidenceSelector(max_tokens=64, strategy="slide")
    seen: list[list[tuple[str, str]]] = []

    def logits(pairs: list[tuple[str, str]]) -> np.ndarray:
        seen.append(pairs)
        return _by_marker(pairs)

    short = "Bees dance."
    scores = score_windows(selector, "subject seven", [short, LONG], logits)
    assert scores[0].windows == 1
    assert not scores[0].windowed
    assert scores[0].window.of(short) == short
    assert scores[1].windows > 1
    assert scores[1].windowed
    assert scores[1].logit == 1.0
    assert "subject number 7 " in scores[1].window.of(LONG)
    assert all(query == "subject seven" for query, _ in seen[0])  # (query, passage) order
    # every window fits the model: nothing was cut
    tokenizer = selector.tokenizer
    assert max(len(tokenizer.encode(q, w).ids) for q, w in seen[0]) <= 64


def test_a_query_too_long_for_the_window_is_an_input_error_about_the_query() -> None:
    selector = EvidenceSelector(max_tokens=32, strategy="slide")
    with pytest.raises(InputError, match="shorten the query"):
        score_windows(selector, LONG, ["Bees dance."], _by_marker)


def test_batches_of_similar_length_come_back_in_input_order() -> None:
    class Encoding:
        def __init__(self, n: int) -> None:
            self.ids = list(range(n))

    encodings = [Encoding(n) for n in (5, 1, 3, 9, 2)]
    batches: list[list[int]] = []

    def run(batch: list[Any]) -> np.ndarray:
        batches.append([len(e.ids) for e in batch])
        return np.array([[float(len(e.ids))] for e in batch])

    assert batched_logits(encodings, 2, run).tolist() == [5.0, 1.0, 3.0, 9.0, 2.0]
    assert batches == [[1, 2], [3, 5], [9]]


def test_support_relevance_ranks_by_p_supported_and_keeps_its_window() -> None:
    table = {
        ("Bees dance.", "bee dance"): (0.9, 0.0, 0.1),
        ("Ants march.", "bee dance"): (0.2, 0.1, 0.7),
    }
    scorer = SupportRelevance(TablePairScorer(table)).load()
    assert isinstance(scorer, RelevanceScorer)
    scores = scorer.run("bee dance", ["Ants march.", "Bees dance."])
    assert [round(s.relevance, 6) for s in scores.scores] == [0.2, 0.9]
    assert scores.model_id == "support:table"
    certain = SupportRelevance(TablePairScorer({("a", "q"): (1.0, 0.0, 0.0)})).run("q", ["a"])
    assert math.isfinite(certain.scores[0].logit)


def test_support_relevance_reports_a_pair_that_could_not_be_scored() -> None:
    with pytest.raises(ModelError, match="could not score passage 0"):
        SupportRelevance(FailingPairScorer()).run("q", ["a"])


def test_the_registry_names_its_choices() -> None:
    with pytest.raises(OptionError, match="embedded, verifier, cosine, or hf:<model>"):
        make_reranker("colbert")
    with pytest.raises(OptionError):
        make_reranker("hf:")
    assert make_reranker("verifier").model_id.startswith("support:")


def test_scores_carry_the_query_and_serialise() -> None:
    payload = OverlapRelevanceScorer().run("bee dance", ["Bees dance."]).to_dict()
    assert payload["query"] == "bee dance"
    assert payload["scores"][0]["relevance"] == pytest.approx(1 / (1 + math.exp(-1)))
    assert payload["scores"][0]["window"] == [0, 11]
