"""VerifyConfig and open_answer_verifier on fakes: the options checked once, in the config, the
models made by the names it gives, the parts made from it, the config in every report."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from veracity.config import VerifyConfig
from veracity.errors import InputError, OptionError
from veracity.models import Models
from veracity.rules import KnowledgeLayer
from veracity.testing import ScriptedChatModel, TablePairScorer
from veracity.types import Chunk, LayerResult
from veracity.verify.gather import source_chunks, source_documents
from veracity.verify.open import open_answer_verifier
from veracity.verify.pipeline import AnswerVerifier
from veracity.verify.rules import fit_layer_weights

pytestmark = pytest.mark.unit

SOURCE = "A honey bee colony can hold about 60,000 workers in summer."
CLAIM = "A honey bee colony can hold about 60,000 workers."


def sources() -> tuple[Chunk, ...]:
    return source_chunks(source_documents(texts=[SOURCE]))


def scorer() -> TablePairScorer:
    return TablePairScorer({(SOURCE, CLAIM): (0.9, 0.0, 0.1)})


def models(chat: ScriptedChatModel | None = None) -> Models:
    made = scorer()
    return Models(
        verifier=lambda name: made,
        chat=lambda spec, model: chat or ScriptedChatModel([]),
    )


def config(**options: Any) -> VerifyConfig:
    return VerifyConfig().with_options(**options)


def test_the_config_reaches_the_stages_and_the_report() -> None:
    chosen = config(layers="knowledge, nli", rule="cascade", k=2, tau=0.8, window="claim")
    verifier = open_answer_verifier(chosen, models(), sources=sources())
    assert isinstance(verifier, AnswerVerifier)
    assert verifier.layers == ("knowledge", "nli")  # the cascade's order, as given
    assert verifier.combiner.rule == "cascade"
    assert verifier.combiner.order == ("knowledge", "nli")
    assert (verifier.nli.tau, verifier.nli.window, verifier.evidence.k) == (0.8, "claim", 2)
    report = verifier.run(f"{CLAIM}")
    assert report.layers == ("knowledge", "nli")
    assert report.verdicts[0].label == "supported"
    assert report.rule.startswith("cascade")
    saved = report.to_dict()["config"]
    assert VerifyConfig.from_dict(saved) == chosen
    assert (saved["evidence"]["k"], saved["checking"]["tau"]) == (2, 0.8)
    assert (saved["checking"]["window"], saved["checking"]["aggregation"]) == ("claim", "max")


def test_the_source_files_a_config_names_are_read(tmp_path: Path) -> None:
    source = tmp_path / "bees.md"
    source.write_text(SOURCE, encoding="utf-8")
    verifier = open_answer_verifier(config(sources=[source], layers="nli"), models())
    assert verifier.run(CLAIM).verdicts[0].label == "supported"


def test_a_search_mode_with_source_files_is_refused() -> None:
    # the files are searched with BM25 in memory: a mode would be silently ignored
    with pytest.raises(OptionError, match=r"^mode='dense'.*Leave --mode out"):
        VerifyConfig().with_options(sources=["notes.md"], mode="dense")
    assert VerifyConfig().with_options(sources=["notes.md"]).evidence.sources == ("notes.md",)


def test_layers_are_checked_when_the_config_is_made() -> None:
    assert config(layers=["nli", "nli"]).decision.layers == ("nli",)
    with pytest.raises(OptionError, match="one or more of nli, knowledge, consistency"):
        config(layers="nli,vibes")
    with pytest.raises(OptionError, match="one or more of nli, knowledge, consistency"):
        config(layers=())


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
        ("k", 0, "k=0 is not allowed: at least 1. Ask for one passage or more."),
        ("tau", 1.5, "tau=1.5 is not allowed: from 0.0 to 1.0"),
        ("colour", "red", "colour='red' is not allowed: an option of verify: verifier, llm"),
    ],
)
def test_an_option_outside_its_choices_is_refused_with_the_choices(
    option: str, value: object, message: str
) -> None:
    with pytest.raises(OptionError, match=message):
        config(**{option: value})


def test_a_knowledge_base_without_the_knowledge_layer_is_refused(tmp_path: Path) -> None:
    facts = tmp_path / "facts.csv"
    with pytest.raises(InputError, match=r"--kb .*facts.csv is read by the knowledge layer"):
        config(layers="nli", knowledge_base=facts)


def test_a_knowledge_base_file_is_read_into_the_knowledge_layer(tmp_path: Path) -> None:
    facts = tmp_path / "facts.csv"
    facts.write_text("entity,attribute,value\nhoney bee colony,workers,60000\n", encoding="utf-8")
    chosen = config(knowledge_base=facts)
    verifier = open_answer_verifier(chosen, models(), sources=sources())
    assert verifier.knowledge is not None
    assert verifier.knowledge.knowledge_base is not None
    assert [f.entity for f in verifier.knowledge.knowledge_base.facts] == ["honey bee colony"]
    with pytest.raises(OptionError, match="a knowledge layer or a knowledge base"):
        open_answer_verifier(chosen, models(), knowledge=KnowledgeLayer())


def test_a_loaded_knowledge_layer_is_used_as_given() -> None:
    layer = KnowledgeLayer()
    verifier = open_answer_verifier(VerifyConfig(), models(), sources=sources(), knowledge=layer)
    assert verifier.knowledge is layer


def test_the_consistency_layer_samples_as_the_config_says() -> None:
    chat = ScriptedChatModel([])
    chosen = config(layers=("nli", "consistency"), samples=3, temperature=0.7, llm="scripted")
    verifier = open_answer_verifier(chosen, models(chat), sources=sources())
    assert verifier.consistency is not None
    assert (verifier.consistency.samples, verifier.consistency.temperature) == (3, 0.7)
    assert verifier.consistency.chat is chat


def test_a_chat_model_is_asked_for_where_one_is_used_and_refused_elsewhere() -> None:
    with pytest.raises(OptionError, match="a chat model for 'consistency'"):
        config(layers=("nli", "consistency"))
    with pytest.raises(OptionError, match="a chat model to write the questions"):
        config(query="question")
    with pytest.raises(OptionError, match="a chat model only where one is used"):
        config(llm="extractive")
    verifier = open_answer_verifier(
        config(query="question", llm="scripted"), models(), sources=sources()
    )
    assert verifier.evidence.queries.chat is not None


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
    verifier = open_answer_verifier(
        config(rule="logistic", weights=path), models(), sources=sources()
    )
    assert verifier.combiner.weights == fitted
    with pytest.raises(OptionError, match="weights is needed"):
        open_answer_verifier(config(rule="logistic"), models(), sources=sources())
