"""``veracity evolve`` on a tiny BM25 index with fake models."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import typer
from typer.testing import CliRunner

from veracity import cli
from veracity.testing import OverlapRelevanceScorer, ScriptedChatModel, TablePairScorer

pytestmark = pytest.mark.unit

QUERY = "why do honeybees dance"
DOCS = {
    "bees.md": "Honeybees dance to tell nestmates where flowers are.\n",
    "wasps.md": "Wasps build paper nests from chewed wood.\n",
}
REWRITE = "Honeybees dance to tell nestmates where the flowers are."


@pytest.fixture(scope="module")
def index(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The index of DOCS, made once: the commands only read it."""
    tmp_path = tmp_path_factory.mktemp("evolve")
    docs = tmp_path / "docs"
    docs.mkdir()
    for name, text in DOCS.items():
        (docs / name).write_text(text, encoding="utf-8")
    folder = tmp_path / "index"
    result = CliRunner().invoke(cli.app, ["index", str(docs), "--index", str(folder), "--no-dense"])
    assert result.exit_code == 0, result.output
    return folder


def app(replies: list[str]) -> tuple[typer.Typer, ScriptedChatModel]:
    chat = ScriptedChatModel(replies, model_id="scripted-llm")
    return cli.build_app(
        cli.Models(
            verifier=lambda name: TablePairScorer({}),
            chat=lambda spec, model: chat,
            reranker=lambda name: OverlapRelevanceScorer(),
        )
    ), chat


def test_evolve_prints_json_with_the_trace(index: Path, tmp_path: Path) -> None:
    built, chat = app([REWRITE] * 4)
    trace = tmp_path / "trace.json"
    result = CliRunner().invoke(
        built,
        [
            "evolve",
            QUERY,
            "--index",
            str(index),
            "--mode",
            "bm25",
            "--offspring",
            "2",
            "--iterations",
            "2",
            "--seed",
            "3",
            "--llm",
            "llamacpp",
            "--trace",
            str(trace),
            "--no-knowledge",
            "--json",
        ],
    )
    assert result.exit_code == 0, result.output
    payload = json.loads(result.stdout)
    assert payload["calls"] == len(chat.requests)
    assert payload["members"][0]["operator"] == "seed"
    assert "rouge2" in payload["fitness"]
    assert json.loads(trace.read_text(encoding="utf-8"))["members"] == payload["members"]
    assert all(r.temperature == 0.7 for r in chat.requests)
    config = payload["config"]
    assert (config["pipeline"], config["knowledge"], config["evidence"]["index"]) == (
        "evolve",
        False,
        str(index),
    )
    assert (config["genetic"]["offspring"], config["genetic"]["seed"]) == (2, 3)


def test_evolve_runs_again_from_its_output_with_config(index: Path, tmp_path: Path) -> None:
    built, _ = app([])
    args = ["evolve", QUERY, "--index", str(index), "--mode", "bm25", "--iterations", "2"]
    first = CliRunner().invoke(built, [*args, "--seed", "5", "--no-knowledge", "--json"])
    assert first.exit_code == 0, first.output
    saved = tmp_path / "evolved.json"
    saved.write_text(first.stdout, encoding="utf-8")
    again = CliRunner().invoke(built, ["evolve", QUERY, "--config", str(saved), "--json"])
    assert again.exit_code == 0, again.output
    payload, earlier = json.loads(again.stdout), json.loads(first.stdout)
    assert payload["config"] == earlier["config"]
    assert payload["answer"]["text"] == earlier["answer"]["text"]
    changed = CliRunner().invoke(
        built, ["evolve", QUERY, "--config", str(saved), "--seed", "6", "--json"]
    )
    assert json.loads(changed.stdout)["config"]["genetic"]["seed"] == 6
    missing = CliRunner().invoke(built, ["evolve", QUERY])
    assert missing.exit_code == 2
    assert "--index" in missing.output


def test_evolve_shows_the_best_answer_and_its_lineage(index: Path) -> None:
    args = [
        "evolve",
        QUERY,
        "--index",
        str(index),
        "--mode",
        "bm25",
        "--offspring",
        "6",
        "--iterations",
        "1",
        "--fitness",
        "relevance",
        "--llm",
        "llamacpp",
        "--no-knowledge",
    ]
    built, chat = app([""] * 6)
    result = CliRunner().invoke(built, args)
    assert result.exit_code == 1, result.output  # empty replies: reported failures
    assert chat.requests
    assert f"{len(chat.requests)} failed, 0 rejected" in result.output
    assert "seed" in result.output
    # the table verifier supports nothing: every rewrite is rejected, which is no failure
    built, chat = app([REWRITE] * 6)
    result = CliRunner().invoke(built, args)
    assert result.exit_code == 0, result.output
    assert f"0 failed, {len(chat.requests)} rejected" in result.output


def test_evolve_refuses_an_unknown_fitness_and_a_zero_budget(index: Path) -> None:
    built, _ = app([])
    result = CliRunner().invoke(
        built, ["evolve", QUERY, "--index", str(index), "--fitness", "bleu"]
    )
    assert result.exit_code == 2
    assert "--fitness 'bleu'" in result.output
    result = CliRunner().invoke(built, ["evolve", QUERY, "--index", str(index), "--offspring", "0"])
    assert result.exit_code == 2
    assert "--offspring 0" in result.output


def test_evolve_with_no_passages_found_is_an_error(index: Path) -> None:
    built, _ = app([])
    result = CliRunner().invoke(
        built, ["evolve", "zebra quantum", "--index", str(index), "--mode", "bm25"]
    )
    assert result.exit_code == 2
    assert "error" in result.output


def test_evolve_with_no_model_answers_from_the_seeds_sentences(index: Path) -> None:
    bees = DOCS["bees.md"].strip()
    verifier = TablePairScorer({(bees, bees): (0.9, 0.0, 0.1)})
    built = cli.build_app(
        cli.Models(
            verifier=lambda name: verifier,
            reranker=lambda name: OverlapRelevanceScorer(),
            chat=lambda spec, model: pytest.fail("no chat model is needed"),
        )
    )
    args = ["evolve", QUERY, "--index", str(index), "--mode", "bm25"]
    result = CliRunner().invoke(built, [*args, "--json"])
    assert result.exit_code == 0, result.output
    payload = json.loads(result.stdout)
    assert payload["calls"] == 0
    assert payload["stop_reason"] != "all_failed"
    answer = payload["answer"]
    assert answer["text"].startswith(bees.removesuffix(".") + " [1].")
    assert answer["sentences"][0]["status"] == "supported"
    [quote, *_] = payload["quotes"]
    assert (quote["doc_id"], quote["start"], quote["end"]) == ("bees.md", 0, len(bees))
    result = CliRunner().invoke(built, args)
    assert result.exit_code == 0, result.output
    assert "quoted from" in result.output
    assert "0 model calls" in result.output


def test_evolve_checks_each_sentence_against_the_seeds(index: Path) -> None:
    seed = DOCS["bees.md"].strip()
    # The rewrite ties the seed on relevance, so the seed stays best; either is checked.
    verifier = TablePairScorer({(seed, REWRITE): (0.9, 0.05, 0.05), (seed, seed): (0.9, 0, 0.1)})
    chat = ScriptedChatModel([REWRITE] * 4, model_id="scripted-llm")
    built = cli.build_app(
        cli.Models(
            verifier=lambda name: verifier,
            chat=lambda spec, model: chat,
            reranker=lambda name: OverlapRelevanceScorer(),
        )
    )
    args = [
        "evolve",
        QUERY,
        "--index",
        str(index),
        "--mode",
        "bm25",
        "--offspring",
        "2",
        "--iterations",
        "1",
        "--llm",
        "llamacpp",
    ]
    result = CliRunner().invoke(built, [*args, "--json"])
    assert result.exit_code == 0, result.output
    answer = json.loads(result.stdout)["answer"]
    [sentence] = answer["sentences"]
    assert sentence["status"] == "supported"  # the seed's sentence cites its seed
    [citation] = sentence["citations"]
    assert (citation["doc_id"], citation["start"], citation["end"]) == ("bees.md", 0, len(seed))
    assert answer["sources"][0]["text"] == seed
    result = CliRunner().invoke(built, args)
    assert result.exit_code == 0, result.output
    assert "✓" in result.output
    assert "lineage" in result.output
    assert "bees.md" in result.output
    # The seed stayed best: no prompt wrote it, so none is named (never "prompt @0", "seed None").
    assert answer["provenance"]["prompt_id"] == ""
    assert "prompt @0" not in result.output
    assert "seed None" not in result.output
