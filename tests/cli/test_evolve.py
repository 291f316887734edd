"""``veracity evolve`` on a tiny BM25 index with fake models."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from veracity import cli
from veracity.testing import OverlapRelevanceScorer, ScriptedChatModel, TablePairScorer

pytestmark = pytest.mark.unit

QUERY = "why do honeybees dance"
DOCS = {"bees.md": "Honeybees dance to tell nestmates where flowers are.\n",
        "wasps.md": "Wasps build paper nests from chewed wood.\n"}
REWRITE = "Honeybees dance to tell nestmates where the flowers are."


@pytest.fixture
def index(tmp_path: Path) -> Path:
    docs = tmp_path / "docs"
    docs.mkdir()
    for name, text in DOCS.items():
        (docs / name).write_text(text, encoding="utf-8")
    folder = tmp_path / "index"
    result = CliRunner().invoke(cli.app, ["index", str(docs), "--index", str(folder),
                                          "--no-dense"])
    assert result.exit_code == 0, result.output
    return folder


def app(replies: list[str]) -> tuple[object, ScriptedChatModel]:
    chat = ScriptedChatModel(replies, model_id="scripted-llm")
    return cli.build_app(cli.Models(verifier=lambda name: TablePairScorer({}),
                                    chat=lambda spec, model, scorer: chat,
                                    reranker=lambda name: OverlapRelevanceScorer())), chat


def test_evolve_prints_json_with_the_trace(index: Path, tmp_path: Path) -> None:
    built, chat = app([REWRITE] * 4)
    trace = tmp_path / "trace.json"
    result = CliRunner().invoke(built, ["evolve", QUERY, "--index", str(index), "--mode", "bm25",
                                        "--offspring", "2", "--iterations", "2", "--seed", "3",
                                        "--trace", str(trace), "--json"])
    assert result.exit_code == 0, result.output
    payload = json.loads(result.stdout)
    assert payload["calls"] == len(chat.requests)
    assert payload["members"][0]["operator"] == "seed"
    assert "rouge2" in payload["fitness"]
    assert json.loads(trace.read_text(encoding="utf-8"))["members"] == payload["members"]
    assert all(r.temperature == 0.7 for r in chat.requests)


def test_evolve_shows_the_best_answer_and_its_lineage(index: Path) -> None:
    built, _ = app([REWRITE, "", REWRITE, REWRITE])
    result = CliRunner().invoke(built, ["evolve", QUERY, "--index", str(index), "--mode", "bm25",
                                        "--offspring", "2", "--iterations", "2",
                                        "--fitness", "relevance"])
    assert result.exit_code == 1, result.output  # one reply was empty: a reported failure
    assert "1 failed" in result.output
    assert "seed" in result.output


def test_evolve_refuses_an_unknown_fitness_and_a_zero_budget(index: Path) -> None:
    built, _ = app([])
    result = CliRunner().invoke(built, ["evolve", QUERY, "--index", str(index),
                                        "--fitness", "bleu"])
    assert result.exit_code == 2
    assert "--fitness 'bleu'" in result.output
    result = CliRunner().invoke(built, ["evolve", QUERY, "--index", str(index),
                                        "--offspring", "0"])
    assert result.exit_code == 2
    assert "--offspring 0" in result.output


def test_evolve_with_no_passages_found_is_an_error(index: Path) -> None:
    built, _ = app([])
    result = CliRunner().invoke(built, ["evolve", "zebra quantum", "--index", str(index),
                                        "--mode", "bm25"])
    assert result.exit_code == 2
    assert "error" in result.output


def test_evolve_checks_each_sentence_against_the_seeds(index: Path) -> None:
    seed = DOCS["bees.md"].strip()
    # The rewrite ties the seed on relevance, so the seed stays best; either is checked.
    verifier = TablePairScorer({(seed, REWRITE): (0.9, 0.05, 0.05), (seed, seed): (0.9, 0, 0.1)})
    chat = ScriptedChatModel([REWRITE] * 4, model_id="scripted-llm")
    built = cli.build_app(cli.Models(verifier=lambda name: verifier,
                                     chat=lambda spec, model, scorer: chat,
                                     reranker=lambda name: OverlapRelevanceScorer()))
    args = ["evolve", QUERY, "--index", str(index), "--mode", "bm25", "--offspring", "2",
            "--iterations", "1"]
    result = CliRunner().invoke(built, [*args, "--json"])
    assert result.exit_code == 0, result.output
    answer = json.loads(result.stdout)["answer"]
    [sentence] = answer["sentences"]
    assert sentence["status"] == "citation_attached"
    [citation] = sentence["citations"]
    assert (citation["doc_id"], citation["start"], citation["end"]) == ("bees.md", 0, len(seed))
    assert answer["sources"][0]["text"] == seed
    result = CliRunner().invoke(built, args)
    assert result.exit_code == 0, result.output
    assert "citation attached" in result.output
    assert "lineage" in result.output
    assert "bees.md" in result.output
    # The seed stayed best: no prompt wrote it, so none is named (never "prompt @0", "seed None").
    assert answer["provenance"]["prompt_id"] == ""
    assert "prompt @0" not in result.output
    assert "seed None" not in result.output
