"""AnswerVerifierSettings and open_answer_verifier on fakes: the settings checked once, the
parts made from them."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from veracity.errors import InputError, OptionError
from veracity.rules import KnowledgeLayer
from veracity.testing import ScriptedChatModel, TablePairScorer
from veracity.types import Chunk, LayerResult
from veracity.verify.gather import source_chunks, source_documents
from veracity.verify.open import AnswerVerifierSettings, open_answer_verifier
from veracity.verify.pipeline import AnswerVerifier
from veracity.verify.rules import fit_layer_weights

pytestmark = pytest.mark.unit

SOURCE = "A honey bee colony can hold about 60,000 workers in summer."
CLAIM = "A honey bee colony can hold about 60,000 workers."


def sources() -> tuple[Chunk, ...]:
    return source_chunks(source_documents(texts=[SOURCE]))


def scorer() -> TablePairScorer:
    return TablePairScorer({(SOURCE, CLAIM): (0.9, 0.0, 0.1)})


def test_the_settings_reach_the_stages() -> None:
    settings = AnswerVerifierSettings(
        layers="knowledge, nli", rule="cascade", k=2, tau=0.8, window="claim", query="claim"
    )
    verifier = open_answer_verifier(scorer(), sources=sources(), settings=settings)
    assert isinstance(verifier, AnswerVerifier)
    assert verifier.layers == ("knowledge", "nli")  # the cascade's order, as given
    assert verifier.combiner.rule == "cascade"
    assert verifier.combiner.order == ("knowledge", "nli")
    assert (verifier.nli.tau, verifier.nli.window, verifier.gatherer.k) == (0.8, "claim", 2)
    report = verifier.run(f"{CLAIM}")
    assert report.layers == ("knowledge", "nli")
    assert report.verdicts[0].label == "supported"
    assert report.rule.startswith("cascade")


def test_layers_are_checked_when_the_settings_are_made() -> None:
    assert AnswerVerifierSettings(layers=["nli", "nli"]).layers == ("nli",)
    with pytest.raises(OptionError, match="one or more of nli, knowledge, consistency"):
        AnswerVerifierSettings(layers="nli,vibes")
    with pytest.raises(OptionError, match="one or more of nli, knowledge, consistency"):
        AnswerVerifierSettings(layers=())


@pytest.mark.parametrize(
    ("option", "value", "message"),
    [
        (
            "rule",
            "majority",
            "rule='majority' is not allowed: one of decision, any, all, cascade, logistic",
        ),
        ("claims", "magic", "claims='magic' is not allowed: one of rules, llm"),
        ("query", "page", "query='page' is not allowed: one of claim, question"),
        ("window", "page", "window='page' is not allowed: one of claim, focused, passage"),
    ],
)
def test_a_choice_outside_its_registry_is_refused_with_the_choices(
    option: str, value: str, message: str
) -> None:
    options: dict[str, Any] = {option: value}
    with pytest.raises(OptionError, match=message):
        AnswerVerifierSettings(**options)


def test_a_knowledge_base_without_the_knowledge_layer_is_refused(tmp_path: Path) -> None:
    facts = tmp_path / "facts.csv"
    with pytest.raises(InputError, match=r"--kb .*facts.csv is read by the knowledge layer"):
        AnswerVerifierSettings(layers="nli", knowledge_base=facts)


def test_a_knowledge_base_file_is_read_into_the_knowledge_layer(tmp_path: Path) -> None:
    facts = tmp_path / "facts.csv"
    facts.write_text("entity,attribute,value\nhoney bee colony,workers,60000\n", encoding="utf-8")
    settings = AnswerVerifierSettings(knowledge_base=facts)
    verifier = open_answer_verifier(scorer(), sources=sources(), settings=settings)
    assert verifier.knowledge is not None
    assert verifier.knowledge.knowledge_base is not None
    assert [f.entity for f in verifier.knowledge.knowledge_base.facts] == ["honey bee colony"]
    with pytest.raises(OptionError, match="a knowledge layer or a knowledge base"):
        open_answer_verifier(scorer(), knowledge=KnowledgeLayer(), settings=settings)


def test_a_loaded_knowledge_layer_is_used_as_given() -> None:
    layer = KnowledgeLayer()
    verifier = open_answer_verifier(scorer(), sources=sources(), knowledge=layer)
    assert verifier.knowledge is layer


def test_the_consistency_layer_samples_as_the_settings_say() -> None:
    chat = ScriptedChatModel([])
    settings = AnswerVerifierSettings(layers=("nli", "consistency"), samples=3, temperature=0.7)
    verifier = open_answer_verifier(scorer(), sources=sources(), chat=chat, settings=settings)
    assert verifier.consistency is not None
    assert (verifier.consistency.samples, verifier.consistency.temperature) == (3, 0.7)
    assert verifier.consistency.chat is chat


def test_a_chat_model_is_asked_for_where_one_is_used_and_refused_elsewhere() -> None:
    with pytest.raises(OptionError, match="a chat model for 'consistency'"):
        open_answer_verifier(
            scorer(), settings=AnswerVerifierSettings(layers=("nli", "consistency"))
        )
    with pytest.raises(OptionError, match="a chat model only where one is used"):
        open_answer_verifier(scorer(), chat=ScriptedChatModel([]))
    verifier = open_answer_verifier(
        scorer(),
        sources=sources(),
        chat=ScriptedChatModel([]),
        settings=AnswerVerifierSettings(query="question"),
    )
    assert verifier.gatherer.queries.chat is not None


def test_logistic_reads_its_weights_from_a_file(tmp_path: Path) -> None:
    findings = [
        [
            LayerResult("nli", "unsupported", True, 0.9),
            LayerResult("knowledge", "supported", False, 0.0),
        ],
        [
            LayerResult("nli", "supported", False, 0.1),
            LayerResult("knowledge", "supported", False, 0.0),
        ],
    ]
    fitted = fit_layer_weights(
        findings, [True, False], layers=("nli", "knowledge"), fitted_on="test"
    )
    path = fitted.save(tmp_path / "weights.json")
    settings = AnswerVerifierSettings(rule="logistic", weights=path)
    verifier = open_answer_verifier(scorer(), sources=sources(), settings=settings)
    assert verifier.combiner.weights == fitted
    with pytest.raises(OptionError, match="weights is needed"):
        open_answer_verifier(
            scorer(), sources=sources(), settings=AnswerVerifierSettings(rule="logistic")
        )
