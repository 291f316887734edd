"""The fields of every command's ``--json`` output, in order, pinned.

The CLI, the Python API (``to_dict()`` on the result types) and the REST service print the same
shapes; a field added, dropped, renamed or moved shows up here. Each test runs the command with
fakes on a tiny index and compares the keys of every JSON object in the output, by path
(``claims[].citations[]`` is an element of the ``citations`` list of a ``claims`` element).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from veracity import cli
from veracity.decision import FEATURES
from veracity.testing import ScriptedChatModel
from veracity.types import PairScore, PairScores, Span

pytestmark = pytest.mark.unit

PHRASES = {"63 degrees": "62 to 64", "21 days": "21 days"}
CONTRARY = {"90 degrees": "62 to 64"}
#: Objects whose keys are data (signal, builder, stage or model names), not fields.
DATA_KEYED = {"hits[].scores", "sources[].scores", "builders", "timings", "calls"}
DECISION = [
    "label",
    "supported",
    "contradicted",
    "unsupported",
    "inputs",
    "support",
    "contradiction",
    "version",
]


#: The config a verify report carries (``VerifyConfig.to_dict()``).
VERIFY_CONFIG = {
    "config": ["format", "pipeline", "models", "evidence", "claims", "checking", "decision"],
    "config.models": ["verifier", "llm", "model", "reranker", "spans"],
    "config.evidence": ["index", "mode", "sources", "query", "k"],
    "config.claims": ["method", "decompose", "decontextualize"],
    "config.checking": ["tau", "window", "aggregation"],
    "config.decision": ["layers", "rule", "weights", "knowledge_base", "samples", "temperature"],
}

#: The config a repair result carries (``RepairConfig.to_dict()``).
REPAIR_CONFIG = {
    "config": ["format", "pipeline", "models", "evidence", "tau", "policy"],
    "config.models": VERIFY_CONFIG["config.models"],
    "config.evidence": VERIFY_CONFIG["config.evidence"],
    "config.policy": [
        "policy",
        "refuse_below",
        "questions",
        "quote",
        "max_edit_chars",
        "max_edit_share",
    ],
}


def shapes(
    value: Any, path: str = "", found: dict[str, list[str]] | None = None
) -> dict[str, list[str]]:
    """The keys of every object in ``value`` by path; two objects at one path must agree."""
    found = {} if found is None else found
    if isinstance(value, dict):
        if path in found:
            assert found[path] == list(value), path
        found[path] = list(value)
        if path not in DATA_KEYED:
            for key, item in value.items():
                shapes(item, f"{path}.{key}" if path else key, found)
    elif isinstance(value, list):
        for item in value:
            shapes(item, f"{path}[]", found)
    return found


def test_shapes_sees_nested_objects_and_a_change_of_order() -> None:
    assert shapes({"a": [{"b": 1, "c": {"d": 2}}], "timings": {"x": 1.0}}) == {
        "": ["a", "timings"],
        "a[]": ["b", "c"],
        "a[].c": ["d"],
        "timings": ["x"],
    }
    with pytest.raises(AssertionError):
        shapes([{"b": 1, "c": 2}, {"c": 2, "b": 1}])


class Scorer:
    """P(supported) 0.9 for a premise holding the claim's phrase, P(contradicted) 0.8 for one
    holding its contrary; the evidence is the premise's first ten characters."""

    model_id = "fake"

    def load(self) -> Scorer:
        return self

    def run(self, premises: Sequence[str], hypotheses: Sequence[str]) -> PairScores:
        scores = []
        for premise, claim in zip(premises, hypotheses, strict=True):
            supported = any(k in claim and v in premise for k, v in PHRASES.items())
            contrary = any(k in claim and v in premise for k, v in CONTRARY.items())
            p, c = (0.9, 0.02) if supported else (0.05, 0.8) if contrary else (0.05, 0.02)
            scores.append(
                PairScore(
                    p,
                    c,
                    1.0 - p - c,
                    window=Span(0, len(premise)),
                    evidence=(Span(0, min(10, len(premise))),),
                )
            )
        return PairScores(tuple(scores), self.model_id, "1")


class Similarity(Scorer):
    scores_are_probabilities = False


class Fakes:
    def __init__(self, tmp_path: Path) -> None:
        self.scorer: Scorer = Scorer()
        self.chat = ScriptedChatModel([])
        self.app = cli.build_app(
            cli.Models(verifier=lambda name: self.scorer, chat=lambda spec, model: self.chat)
        )
        self.docs = tmp_path / "docs"
        self.docs.mkdir()
        (self.docs / "bees.txt").write_text("Honeybee workers develop in 21 days.\n")
        (self.docs / "wax.md").write_text(
            "# Beeswax\n\n## Melting\n\nBeeswax melts at about 62 to 64 degrees Celsius.\n"
        )
        (self.docs / "rows.jsonl").write_text('{"id": "r1", "text": "Comb is wax."}\nnot json\n')
        self.index = tmp_path / "index"
        self.tmp_path = tmp_path

    def json(self, *args: str, code: int = 0, stdin: str | None = None) -> Any:
        result = CliRunner().invoke(self.app, list(args), input=stdin)
        assert result.exit_code == code, result.output
        return json.loads(result.stdout)

    def indexed(self) -> Fakes:
        self.json(
            "index", str(self.docs), "--index", str(self.index), "--no-dense", "--json", code=1
        )
        return self


@pytest.fixture
def fakes(tmp_path: Path) -> Fakes:
    return Fakes(tmp_path)


HIT = [
    "rank",
    "score",
    "scores",
    "retriever",
    "doc_id",
    "title",
    "section",
    "page",
    "page_end",
    "start",
    "end",
    "chunk_id",
    "chunk_index",
    "source",
    "text",
]
PAIR = [
    "claim",
    "label",
    "verifier_label",
    "probabilities",
    "supported",
    "contradicted",
    "neither",
    "window",
    "windows",
    "evidence",
    "error",
    "rules",
    "decision",
    "not_checkable",
]
CITATION = [
    "marker",
    "span",
    "attached",
    "support",
    "contradicted",
    "error",
    "chunk_id",
    "doc_id",
    "title",
    "section",
    "page",
    "page_end",
    "start",
    "end",
    "evidence",
]
INVALID = ["marker", "span", "reason"]


def decision_at(path: str) -> dict[str, list[str]]:
    """The shapes of a decision at ``path``: its fields and its inputs by name, twice more for
    their contributions."""
    return {path: DECISION} | {
        f"{path}.{part}": list(FEATURES) for part in ("inputs", "support", "contradiction")
    }


JUDGEMENT = [
    "chunk_id",
    "doc_id",
    "title",
    "section",
    "page",
    "page_end",
    "start",
    "end",
    "supported",
    "contradicted",
    "neither",
    "evidence",
    "cited",
    "query",
    "error",
    "cannot_state",
    "text",
]


def test_index(fakes: Fakes) -> None:
    payload = fakes.json(
        "index", str(fakes.docs), "--index", str(fakes.index), "--no-dense", "--json", code=1
    )
    assert shapes(payload) == {
        "": [
            "index",
            "generation",
            "files_seen",
            "files_indexed",
            "files_unchanged",
            "files_removed",
            "files_failed",
            "files_kept",
            "paths_failed",
            "lines_failed",
            "documents",
            "chunks",
            "failures",
            "builders",
            "exit_code",
        ],
        "failures[]": ["path", "reason", "message"],
        "builders": ["bm25"],
    }
    assert payload["failures"][0]["reason"] == "bad_line"
    assert payload["exit_code"] == 1


SEARCH_CONFIG = {
    "config": ["format", "pipeline", "models", "evidence", "rerank_depth", "abstain"],
    "config.models": ["verifier", "llm", "model", "reranker", "spans"],
    "config.evidence": ["index", "mode", "sources", "query", "k"],
    "config.abstain": ["abstain", "signal", "threshold"],
}


def test_search(fakes: Fakes) -> None:
    payload = fakes.indexed().json(
        "search", "beeswax melts", "--index", str(fakes.index), "-k", "2", "--json"
    )
    assert shapes(payload) == {
        "": ["query", "mode", "confidence", "notes", "hits", "config"],
        "confidence": ["top_bm25", "top_cosine", "margin", "top_rerank"],
        "hits[]": HIT,
        "hits[].scores": ["bm25"],
        **SEARCH_CONFIG,
    }
    assert payload["notes"]  # the hybrid default fell back to BM25
    assert (payload["config"]["pipeline"], payload["config"]["evidence"]["k"]) == ("search", 2)


def test_search_runs_again_from_its_output_with_config(fakes: Fakes) -> None:
    first = fakes.indexed().json(
        "search", "beeswax melts", "--index", str(fakes.index), "-k", "2", "--json"
    )
    saved = fakes.tmp_path / "search.json"
    saved.write_text(json.dumps(first), encoding="utf-8")
    again = fakes.json("search", "beeswax melts", "--config", str(saved), "--json")
    assert again["config"] == first["config"]
    assert [hit["chunk_id"] for hit in again["hits"]] == [hit["chunk_id"] for hit in first["hits"]]
    more = fakes.json("search", "beeswax melts", "--config", str(saved), "-k", "3", "--json")
    assert more["config"]["evidence"]["k"] == 3


def test_search_reranked(fakes: Fakes) -> None:
    from veracity.testing import OverlapRelevanceScorer

    fakes.app = cli.build_app(cli.Models(reranker=lambda name: OverlapRelevanceScorer()))
    payload = fakes.indexed().json(
        "search", "beeswax melts", "--index", str(fakes.index), "--rerank", "--json"
    )
    assert shapes(payload) == {
        "": ["query", "mode", "confidence", "notes", "hits", "config"],
        "confidence": ["top_bm25", "top_cosine", "margin", "top_rerank"],
        "hits[]": HIT,
        "hits[].scores": ["bm25", "rerank", "first_stage", "first_stage_rank"],
        **SEARCH_CONFIG,
    }


@pytest.mark.parametrize("scorer", [Scorer(), Similarity()])
def test_check(fakes: Fakes, scorer: Scorer) -> None:
    fakes.scorer = scorer
    payload = fakes.json(
        "check",
        "--premise",
        "Beeswax melts at 62 to 64 degrees.",
        "--claim",
        "Wax melts at 63 degrees.",
        "--json",
    )
    decided = {} if isinstance(scorer, Similarity) else decision_at("decision")
    assert shapes(payload) == {
        "": [*PAIR, "model", "version"],
        "evidence[]": ["start", "end", "text"],
        **decided,
    }
    assert payload["probabilities"] is not isinstance(scorer, Similarity)


def test_check_batch(fakes: Fakes) -> None:
    batch = fakes.tmp_path / "pairs.jsonl"
    batch.write_text(
        json.dumps({"id": "a", "premise": "62 to 64", "claim": "63 degrees"})
        + "\n"
        + json.dumps({"premise": "x", "hypothesis": "y"})
        + "\n"
    )
    result = CliRunner().invoke(fakes.app, ["check", "--batch", str(batch)])
    assert result.exit_code == 0, result.output
    rows = [json.loads(line) for line in result.stdout.splitlines()]
    assert [shapes(row) for row in rows] == [
        {"": ["id", *PAIR], "evidence[]": ["start", "end", "text"], **decision_at("decision")},
        {"": PAIR, "evidence[]": ["start", "end", "text"]},  # "y" is not checkable
    ]


ANSWER = [
    "question",
    "status",
    "text",
    "truncated",
    "abstained",
    "abstention",
    "refused",
    "refusal",
    "sentences",
    "citations",
    "invalid_citations",
    "sources",
    "provenance",
    "timings",
    "config",
    "notes",
    "exit_code",
]
#: The config an answer carries (``AskConfig.to_dict()``).
VALUE_CHECK = [
    "kind",
    "text",
    "span",
    "value",
    "status",
    "found",
    "doc_id",
    "evidence",
    "source",
    "unit",
    "finding",
    "aligned",
    "sentence",
]
ASK_CONFIG = {
    "config": [
        "format",
        "pipeline",
        "models",
        "evidence",
        "rerank_depth",
        "abstain",
        "tau",
        "knowledge",
    ],
    "config.models": ["verifier", "llm", "model", "reranker", "spans"],
    "config.evidence": ["index", "mode", "sources", "query", "k"],
    "config.abstain": ["abstain", "signal", "threshold"],
}
PROVENANCE = [
    "model",
    "prompt_id",
    "prompt_version",
    "temperature",
    "seed",
    "max_tokens",
    "finish_reason",
    "verifier",
    "verifier_version",
    "tau",
    "prompt",
]
TIMINGS = ["retrieve", "abstain", "generate", "verify", "total"]


def test_ask(fakes: Fakes) -> None:
    fakes.indexed()
    ask = [
        "ask",
        "At what temperature does beeswax melt?",
        "--index",
        str(fakes.index),
        "--mode",
        "bm25",
        "--llm",
        "openai:http://127.0.0.1:9/v1",  # the scripted model (extractive is no chat model)
        "--json",
    ]
    fakes.chat = ScriptedChatModel(
        ["Beeswax melts at about 63 degrees [1]. Workers take 21 days. It melts [7]."]
    )
    answered = fakes.json(*ask, "--signal", "top_bm25", "--threshold", "0")
    assert shapes(answered) == {
        "": ANSWER,
        **ASK_CONFIG,
        "abstention": ["signal", "value", "threshold", "abstain", "source", "error", "reason"],
        "sentences[]": [
            "index",
            "span",
            "text",
            "claim",
            "status",
            "support",
            "failure",
            "note",
            "citations",
            "invalid",
            "decision",
            "checks",
        ],
        **decision_at("sentences[].decision"),
        "sentences[].checks[]": VALUE_CHECK,
        "sentences[].citations[]": CITATION,
        "sentences[].invalid[]": INVALID,
        "citations[]": CITATION,
        "invalid_citations[]": INVALID,
        "sources[]": ["block", *HIT],
        "sources[].scores": ["bm25"],
        "provenance": PROVENANCE,
        "timings": TIMINGS,
    }
    fakes.chat = ScriptedChatModel(["I don't know."])
    refused = fakes.json(*ask, "--no-abstain")
    assert shapes(refused)["refusal"] == ["pattern", "language", "span", "text"]
    assert refused["status"] == "refused"


def test_calibrate(fakes: Fakes) -> None:
    fakes.indexed()
    dev = fakes.tmp_path / "dev.jsonl"
    dev.write_text(
        "".join(
            json.dumps(row) + "\n"
            for row in [
                {"question": "How many days do workers take?", "answerable": True},
                {"question": "When does beeswax melt?", "answerable": True},
                {"question": "Who painted the Mona Lisa?", "answerable": False},
            ]
        )
        + "not json\n"
    )
    payload = fakes.json(
        "calibrate",
        "--index",
        str(fakes.index),
        "--dev",
        str(dev),
        "--mode",
        "bm25",
        "--signal",
        "top_bm25",
        "--json",
        code=1,
    )
    assert shapes(payload) == {
        "": [
            "path",
            "generation",
            "mode",
            "k",
            "verifier",
            "dev",
            "created",
            "signal",
            "threshold",
            "precision",
            "recall",
            "f1",
            "abstained",
            "answered",
            "answerable",
            "unanswerable",
            "failed",
            "curve",
            "skipped",
            "failed_questions",
            "exit_code",
        ],
        "curve[]": ["threshold", "precision", "recall", "f1", "abstained", "answered"],
    }


def test_verify(fakes: Fakes) -> None:
    answer = (
        "Beeswax melts at about 63 degrees [1]. Hello! Beeswax melts at 90 degrees. "
        "Workers take 21 days."
    )
    payload = fakes.json(
        "verify",
        "--answer",
        answer,
        "--sources",
        str(fakes.docs / "wax.md"),
        str(fakes.docs / "bees.txt"),
        "--json",
    )
    assert shapes(payload) == {
        "": [
            "summary",
            "answer",
            "question",
            "layers",
            "rule",
            "query_mode",
            "claims_method",
            "verifier",
            "verifier_version",
            "claims",
            "skipped",
            "timings",
            "calls",
            "warnings",
            "config",
            "exit_code",
        ],
        **VERIFY_CONFIG,
        "summary": [
            "claims",
            "supported",
            "contradicted",
            "unsupported",
            "unchecked",
            "skipped",
            "failed",
            "contested",
        ],
        "claims[]": [
            "index",
            "text",
            "span",
            "sentence",
            "markers",
            "edits",
            "label",
            "contested",
            "layers",
            "citations",
            "anti_citations",
            "values",
            "evidence",
            "decision",
        ],
        **decision_at("claims[].decision"),
        "claims[].layers[]": ["layer", "label", "flagged", "score", "detail", "error"],
        "claims[].citations[]": JUDGEMENT,
        "claims[].anti_citations[]": JUDGEMENT,
        "claims[].values[]": VALUE_CHECK,
        "claims[].evidence[]": JUDGEMENT,
        "skipped[]": ["sentence", "span", "text", "reason"],
        "timings": ["claims", "evidence", "nli", "knowledge"],
        "calls": ["searches", "verifier_calls", "verifier_pairs"],
    }


def test_repair(fakes: Fakes) -> None:
    answer = "Beeswax melts at about 90 degrees. Workers take 21 days. Bees hum in winter."
    payload = fakes.json(
        "repair",
        "--answer",
        answer,
        "--sources",
        str(fakes.docs / "wax.md"),
        str(fakes.docs / "bees.txt"),
        "--policy",
        "delete",
        "--json",
    )
    assert payload["text"] == "Workers take 21 days."
    edit = ["kind", "claims", "original", "new", "before", "after", "method", "reason", "evidence"]
    report = [
        "claims",
        "supported",
        "contradicted",
        "unsupported",
        "unchecked",
        "skipped",
        "failed",
        "contested",
    ]
    assert shapes(payload) == {
        "": [
            "summary",
            "policy",
            "original",
            "text",
            "changed",
            "refused",
            "query_mode",
            "edits",
            "claims",
            "attribution_before",
            "attribution_after",
            "attribution",
            "preservation",
            "before",
            "after",
            "verifier",
            "verifier_version",
            "notes",
            "calls",
            "timings",
            "config",
            "exit_code",
        ],
        **REPAIR_CONFIG,
        "summary": [
            "claims",
            "kept",
            "revised",
            "deleted",
            "flagged",
            "rejected",
            "failed",
            "refused",
            "edits",
            "changed",
        ],
        "edits[]": edit,
        "edits[].evidence[]": JUDGEMENT,
        "claims[]": [
            "claim",
            "label",
            "agreement",
            "action",
            "reason",
            "questions",
            "supporting",
            "contradicting",
            "edit",
            "proposed",
            "failure",
        ],
        "claims[].claim": ["index", "text", "span", "sentence", "markers", "edits"],
        "claims[].supporting[]": JUDGEMENT,
        "claims[].contradicting[]": JUDGEMENT,
        "claims[].edit": edit,
        "claims[].edit.evidence[]": JUDGEMENT,
        "attribution_before": ["claims", "supported", "share"],
        "attribution_after": ["claims", "supported", "share"],
        "attribution[]": JUDGEMENT,
        "preservation": ["chars", "words"],
        "before": report,
        "after": report,
        "calls": ["searches", "verifier_calls", "verifier_pairs"],
        "timings": ["check", "research", "agreement", "recheck"],
    }
