"""The LlamaIndex adapter with the real llama-index-core, offline: reranker and evaluator."""

from __future__ import annotations

import pytest
from llama_index.core.schema import NodeWithScore, QueryBundle, TextNode

from veracity.adapters.llamaindex import VeracityEvaluator, VeracityReranker
from veracity.errors import InputError
from veracity.testing import OverlapRelevanceScorer, TablePairScorer

from .conftest import SOURCE, WRONG

pytestmark = pytest.mark.unit


def test_the_reranker_orders_nodes_by_the_reranker_s_logit() -> None:
    nodes = [
        NodeWithScore(node=TextNode(text=text), score=0.0)
        for text in ("Wasps build paper nests.", SOURCE, "Frisch studied bees.")
    ]
    ranked = VeracityReranker(top_n=2, reranker=OverlapRelevanceScorer()).postprocess_nodes(
        nodes, query_bundle=QueryBundle("Frisch Nobel Prize")
    )
    assert [node.node.get_content() for node in ranked] == [SOURCE, "Frisch studied bees."]
    assert ranked[0].score == 1.0


def test_the_reranker_needs_the_query() -> None:
    with pytest.raises(InputError, match="needs the query"):
        VeracityReranker(reranker=OverlapRelevanceScorer()).postprocess_nodes(
            [NodeWithScore(node=TextNode(text=SOURCE))]
        )


def test_the_evaluator_gives_feedback_per_claim(scorer: TablePairScorer) -> None:
    answer = f"{WRONG} He studied bees."
    result = VeracityEvaluator(verifier=scorer).evaluate(
        query="When did Frisch win?", response=answer, contexts=[SOURCE]
    )
    assert result.passing is False
    assert result.score == 0.0
    assert result.feedback is not None
    lines = result.feedback.splitlines()
    assert lines[0].startswith("not grounded: 0 of 2 claims supported, 1 contradicted")
    assert any(
        "'Karl von Frisch won the Nobel Prize in 1983.': contradicted" in line for line in lines
    )
    assert any("contradicted by context-1 [0:44]" in line for line in lines)
