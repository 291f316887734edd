"""`veracity verify` through the CLI with a fake verifier (given to ``cli.build_app``); claims,
knowledge and rendering real."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import typer
from typer.testing import CliRunner

from veracity import cli
from veracity.corpus.indexer import Indexer
from veracity.retrieve.bm25 import BM25Builder
from veracity.testing import (
    FailingPairScorer,
    OverlapSpanDetector,
    ScriptedChatModel,
    TablePairScorer,
)

pytestmark = pytest.mark.unit

SOURCES = [
    "Honey bees perform a waggle dance to show other workers where food is.",
    "A honey bee colony can hold about 60,000 workers in summer.",
    "Bumblebees do not perform a waggle dance.",
]
TABLE = {
    (SOURCES[0], "Honey bees perform a waggle dance."): (0.9, 0.02, 0.08),
    (SOURCES[2], "Bumblebees perform a waggle dance."): (0.05, 0.8, 0.15),
}

ANSWER = (
    "Honey bees perform a waggle dance. A colony can hold about 90,000 workers. "
    "Bumblebees perform a waggle dance."
)


#: The command with the table's scores for every --verifier.
APP = cli.build_app(cli.Models(verifier=lambda name: TablePairScorer(TABLE)))


@pytest.fixture
def sources(tmp_path: Path) -> list[Path]:
    paths = []
    for number, text in enumerate(SOURCES, start=1):
        path = tmp_path / f"source{number}.md"
        path.write_text(text + "\n", encoding="utf-8")
        paths.append(path)
    return paths


def _run(*args: str, app: typer.Typer = APP) -> tuple[int, str, str]:
    result = CliRunner().invoke(app, ["verify", *args])
    return result.exit_code, result.stdout, result.stderr


def test_verify_json_reports_each_claim_with_evidence(sources: list[Path]) -> None:
    args = ["--answer", ANSWER, "--json", "--window", "passage"]  # each source's own reading
    for path in sources:
        args += ["--sources", str(path)]
    code, out, _ = _run(*args)
    assert code == 0
    payload = json.loads(out)
    assert payload["summary"] == {
        "claims": 3,
        "supported": 1,
        "contradicted": 1,
        # 90,000 against 60,000: the rules' mismatch beside a reading of "neither" (the table
        # has no pair for it) makes the decision say unsupported
        "unsupported": 1,
        "unchecked": 0,
        "skipped": 0,
        "failed": 0,
        "contested": 0,
    }
    first = payload["claims"][0]
    assert first["label"] == "supported"
    assert first["citations"][0]["doc_id"] == "source1.md"
    start, end = first["span"]
    assert ANSWER[start:end] == "Honey bees perform a waggle dance."
    number = payload["claims"][1]
    assert [layer["layer"] for layer in number["layers"]] == ["nli", "knowledge"]
    assert number["values"][0]["status"] == "mismatch"
    assert number["decision"]["inputs"]["value_mismatch"] == 1.0
    assert payload["claims"][2]["anti_citations"][0]["doc_id"] == "source3.md"


def test_verify_terminal_output_highlights_and_summarises(
    sources: list[Path], tmp_path: Path
) -> None:
    answer_file = tmp_path / "answer.txt"
    answer_file.write_text(ANSWER, encoding="utf-8")
    code, out, _ = _run(
        "--answer",
        str(answer_file),
        "--sources",
        str(sources[0]),
        "--sources",
        str(sources[2]),
        "--layers",
        "nli",
        "--window",
        "passage",
    )
    assert code == 0
    assert "✓ supported" in out
    assert "✗ contradicted" in out
    assert "contradicted by source3.md" in out
    assert "3 claims: 1 supported, 1 contradicted, 1 unsupported" in out


def test_a_claim_no_layer_could_check_is_unchecked_not_supported(sources: list[Path]) -> None:
    # Harden-2 #5: the knowledge layer alone abstains on a claim without values
    moon = "Bees can fly to the moon."
    code, out, _ = _run(
        "--answer", moon, "--sources", str(sources[0]), "--layers", "knowledge", "--json"
    )
    assert code == 0
    payload = json.loads(out)
    assert payload["summary"]["supported"] == 0
    assert payload["summary"]["unchecked"] == 1
    assert payload["claims"][0]["label"] == "unchecked"
    assert payload["claims"][0]["layers"][0]["label"] == "unchecked"
    code, out, _ = _run("--answer", moon, "--sources", str(sources[0]), "--layers", "knowledge")
    assert "○ unchecked" in out
    assert "supported" not in out.split("claims")[1].split("\n")[1]
    assert "knowledge: abstains: no values to check" in out
    assert "1 claims: 0 supported, 0 contradicted, 0 unsupported, 1 unchecked" in out


def test_an_index_in_the_answer_is_checked_as_written(tmp_path: Path) -> None:
    # Harden-2 #8: "[5]" of heap[5] was taken for a citation and "…always heap." was checked
    heap = tmp_path / "heap.txt"
    heap.write_text("The smallest item of a min-heap is always heap[0].\n", encoding="utf-8")
    answer = "The smallest item of a min-heap is always heap[5]."
    code, out, _ = _run("--answer", answer, "--sources", str(heap), "--json")
    assert code == 0
    claim = json.loads(out)["claims"][0]
    assert claim["text"] == answer
    assert claim["markers"] == []
    assert claim["span"] == [0, len(answer)]


def test_an_answer_too_long_is_refused_with_the_limit_not_a_traceback(
    sources: list[Path], tmp_path: Path
) -> None:
    # Harden-2 #9: a 5 MB answer ended in spaCy's E088 traceback
    big = tmp_path / "big.txt"
    big.write_text("Honey bees perform a waggle dance. " * 6000, encoding="utf-8")
    code, out, err = _run("--answer", str(big), "--sources", str(sources[0]))
    assert code == 2, out
    message = " ".join(err.split())
    assert (
        "the answer is 210,000 characters long, more than the 200,000 verified at once" in message
    )
    assert "verify-batch" in message
    assert "Traceback" not in err


def test_verify_against_an_index(sources: list[Path], tmp_path: Path) -> None:
    index = tmp_path / "index"
    Indexer(builders=[BM25Builder()]).run(sources, index)
    code, out, _ = _run(
        "--answer", ANSWER, "--index", str(index), "--json", "--layers", "nli", "--mode", "bm25"
    )
    assert code == 0
    assert json.loads(out)["summary"]["claims"] == 3


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--answer", "  ", "--sources", "SOURCE"], "answer is empty"),
        (["--answer", "Bees dance."], "--sources FILE"),
        (["--answer", "Bees dance.", "--sources", "missing.md"], "missing.md"),
        (
            ["--answer", "Bees dance.", "--sources", "SOURCE", "--layers", "nli,vibes"],
            "nli, knowledge, consistency. For example --layers nli,knowledge.",
        ),
        (
            ["--answer", "Bees dance.", "--sources", "SOURCE", "--layers", "consistency"],
            "chat model",
        ),
        (
            ["--answer", "Bees dance.", "--sources", "SOURCE", "--rule", "majority"],
            "any, all, cascade, logistic",
        ),
        (
            ["--answer", "Bees dance.", "--sources", "SOURCE", "--window", "page"],
            "one of claim, focused, passage",
        ),
        (
            ["--answer", "Bees dance.", "--sources", "SOURCE", "--query", "page"],
            "--query 'page' is not allowed: one of claim, question",
        ),
    ],
)
def test_verify_bad_input_exits_2_with_the_fix(
    sources: list[Path], args: list[str], message: str
) -> None:
    code, _, err = _run(*[str(sources[0]) if arg == "SOURCE" else arg for arg in args])
    assert code == 2
    assert message in " ".join(err.split())


@pytest.mark.parametrize(
    "value",
    [
        "examples/answer_to_chek.md",
        "answer.txt",
        "./answer",
        "../notes/answer.html",
        "/no/such/answer.pdf",
        "~/answer.md",
    ],
)
def test_a_mistyped_answer_file_is_an_error_not_text(sources: list[Path], value: str) -> None:
    code, out, err = _run("--answer", value, "--sources", str(sources[0]))
    assert code == 2, out
    assert "no such file" in err
    assert value in err


def test_a_folder_as_answer_is_an_error(sources: list[Path]) -> None:
    code, _, err = _run("--answer", str(sources[0].parent), "--sources", str(sources[0]))
    assert code == 2
    assert "is a folder" in err


@pytest.mark.parametrize(
    "text", ["Honey bees perform a waggle dance.", "TCP/IP", "3.14", "x" * 300]
)
def test_text_that_is_no_path_is_checked_as_text(sources: list[Path], text: str) -> None:
    code, out, _ = _run("--answer", text, "--sources", str(sources[0]), "--json")
    assert code == 0, out
    assert json.loads(out)["answer"] == text


def test_the_answer_can_come_from_a_file_or_standard_input(
    sources: list[Path], tmp_path: Path
) -> None:
    answer = tmp_path / "answer.md"
    answer.write_text(ANSWER, encoding="utf-8")
    code, out, _ = _run("--answer", str(answer), "--sources", str(sources[0]), "--json")
    assert code == 0
    assert json.loads(out)["answer"] == ANSWER
    result = CliRunner().invoke(
        APP, ["verify", "--answer", "-", "--sources", str(sources[0]), "--json"], input=ANSWER
    )
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["answer"] == ANSWER


def test_sources_can_follow_one_option(sources: list[Path]) -> None:
    repeated = ["--answer", ANSWER, "--json"]
    for path in sources:
        repeated += ["--sources", str(path)]
    code, out, _ = _run(*repeated)
    listed = ["--answer", ANSWER, "--json", "--sources", *map(str, sources)]
    code_listed, out_listed, err = _run(*listed)
    assert (code, code_listed) == (0, 0), err
    assert json.loads(out_listed)["claims"] == json.loads(out)["claims"]
    # ... and before other options, as the shell user writes them
    code_mixed, out_mixed, _ = _run("--sources", *map(str, sources), "--answer", ANSWER, "--json")
    assert code_mixed == 0
    assert json.loads(out_mixed)["summary"] == json.loads(out)["summary"]


def test_a_stray_argument_without_sources_is_an_error(sources: list[Path], tmp_path: Path) -> None:
    code, _, err = _run("--answer", ANSWER, "--index", str(tmp_path), str(sources[0]))
    assert code == 2
    assert "unexpected argument" in err


def _two_page_pdf(path: Path) -> Path:
    from fpdf import FPDF

    pdf = FPDF()
    pdf.set_font("Helvetica", size=12)
    for text in ("Honey bees perform a waggle dance", "to show other workers where food is."):
        pdf.add_page()
        pdf.multi_cell(0, 8, text)
    pdf.output(str(path))
    return path


def test_verify_shows_the_last_page_of_a_passage_that_spans_two(tmp_path: Path) -> None:
    pdf = _two_page_pdf(tmp_path / "dance.pdf")
    args = [
        "--answer",
        "Honey bees perform a waggle dance.",
        "--sources",
        str(pdf),
        "--verifier",
        "lexical",
        "--layers",
        "nli",
    ]
    code, out, _ = _run(*args, "--json", app=cli.app)
    assert code == 0
    (evidence,) = json.loads(out)["claims"][0]["evidence"]
    assert (evidence["page"], evidence["page_end"]) == (1, 2)
    code, out, _ = _run(*args, app=cli.app)
    assert code == 0
    assert "dance.pdf, page 1-2, chars 0-" in out


def test_pairs_that_cannot_be_scored_give_strict_json_and_exit_1(sources: list[Path]) -> None:
    app = cli.build_app(cli.Models(verifier=lambda name: FailingPairScorer("bad reply")))
    result = CliRunner().invoke(
        app,
        ["verify", "--answer", ANSWER, "--sources", str(sources[0]), "--layers", "nli", "--json"],
    )
    assert result.exit_code == 1
    payload = json.loads(result.stdout, parse_constant=lambda name: pytest.fail(name))
    judged = payload["claims"][0]["evidence"][0]
    assert (judged["supported"], judged["error"]) == (None, "bad reply")
    assert payload["summary"]["failed"] >= 1


def test_sources_may_be_folders_read_as_the_index_reads_them(tmp_path: Path) -> None:
    # Harden-2 #11: --help said files or folders, and a folder was refused
    folder = tmp_path / "docs"
    (folder / "guide").mkdir(parents=True)
    (folder / "guide" / "dance.md").write_text(SOURCES[0] + "\n", encoding="utf-8")
    (folder / "colony.txt").write_text(SOURCES[1] + "\n", encoding="utf-8")
    (folder / "image.png").write_bytes(b"\x89PNG")  # not a format veracity reads: left out
    code, out, err = _run(
        "--answer",
        "Honey bees perform a waggle dance.",
        "--sources",
        str(folder),
        "--layers",
        "nli",
        "--window",
        "passage",
        "--json",
    )
    assert code == 0, err
    claim = json.loads(out)["claims"][0]
    assert claim["label"] == "supported"
    assert claim["citations"][0]["doc_id"] == "guide/dance.md"
    assert {item["doc_id"] for item in claim["evidence"]} == {"guide/dance.md", "colony.txt"}
    empty = tmp_path / "empty"
    empty.mkdir()
    code, _, err = _run("--answer", "Bees dance.", "--sources", str(empty))
    assert code == 2
    assert "holds no file veracity reads" in " ".join(err.split())


def test_an_answer_file_that_is_a_link_loop_is_called_a_loop(
    sources: list[Path], tmp_path: Path
) -> None:
    loop = tmp_path / "answer.md"
    loop.symlink_to("answer.md")
    code, _, err = _run("--answer", str(loop), "--sources", str(sources[0]))
    assert code == 2
    assert f"--answer {loop}: is a symbolic link that loops" in " ".join(err.split())


def test_an_openai_llm_without_a_model_asks_for_model_not_none(
    sources: list[Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    # Harden-2 #14: "--model None is not allowed"
    monkeypatch.delenv("VERACITY_LLM_MODEL", raising=False)
    code, _, err = _run(
        "--answer",
        "Bees dance.",
        "--sources",
        str(sources[0]),
        "--llm",
        "openai:http://127.0.0.1:9/v1",
        "--llm-claims",
        app=cli.app,
    )
    message = " ".join(err.split())
    assert code == 2
    assert (
        "--model is needed: the name of a model the server offers. Name it with --model NAME"
        in message
    )
    assert "None" not in message


def test_one_window_per_claim_reads_one_pair_per_claim(sources: list[Path]) -> None:
    scorer = TablePairScorer({})
    app = cli.build_app(cli.Models(verifier=lambda name: scorer))
    args = ["--answer", ANSWER, "--json", "--window", "claim", "--layers", "nli"]
    for path in sources:
        args += ["--sources", str(path)]
    code, out, _ = _run(*args, app=app)
    assert code == 0
    payload = json.loads(out)
    assert scorer.calls == [3]  # three claims, one window each over the three sources
    assert payload["calls"]["verifier_pairs"] == 3


#: The command with the table's scores and the overlap fake for every --spans.
SPANS_APP = cli.build_app(
    cli.Models(
        verifier=lambda name: TablePairScorer(TABLE), spans=lambda name: OverlapSpanDetector()
    )
)


def test_spans_put_each_claim_s_unsupported_characters_in_the_json(sources: list[Path]) -> None:
    answer = "Honey bees perform a waggle dance. A colony can hold about 90,000 workers."
    code, out, _ = _run(
        "--answer",
        answer,
        "--sources",
        str(sources[0]),
        str(sources[1]),
        "--json",
        "--spans",
        "hf:some/detector",
        app=SPANS_APP,
    )
    assert code == 0
    payload = json.loads(out)
    assert payload["span_detector"] == "overlap-spans"
    first, second = payload["claims"]
    assert first["unsupported_spans"] == []
    found = [(item["start"], item["end"], item["text"]) for item in second["unsupported_spans"]]
    assert [text for _, _, text in found] == ["90"]  # 60,000 is in the source: "000" is
    assert all(answer[start:end] == text for start, end, text in found)
    assert found[0][0] > second["span"][0]  # offsets into the answer, not into the claim


def test_without_spans_the_json_has_no_such_field(sources: list[Path]) -> None:
    code, out, _ = _run("--answer", ANSWER, "--sources", str(sources[0]), "--json", app=SPANS_APP)
    payload = json.loads(out)
    assert code == 0
    assert "span_detector" not in payload
    assert all("unsupported_spans" not in claim for claim in payload["claims"])


def test_spans_are_listed_in_the_terminal_as_data(sources: list[Path]) -> None:
    answer = "Honey bees perform a waggle [/tango]."
    code, out, _ = _run(
        "--answer", answer, "--sources", str(sources[0]), "--spans", "hf:x", app=SPANS_APP
    )
    assert code == 0
    assert "[/tango]" in out
    assert "not supported by its passages: 'tango' (chars 30-35)" in out


def test_a_span_detector_that_is_no_hf_model_exits_2_with_the_form(sources: list[Path]) -> None:
    code, _, err = _run("--answer", ANSWER, "--sources", str(sources[0]), "--spans", "lexical")
    assert code == 2
    assert "--spans 'lexical' is not allowed" in err
    assert "hf:<model id or folder>" in err


def test_llm_feeds_the_consistency_layer_alone(sources: list[Path]) -> None:
    # `--layers ...,consistency --llm X` was refused as "a chat model only where one is used":
    # the command made the layer over the chat model and handed the model on as well
    chat = ScriptedChatModel(["Honey bees perform a waggle dance."] * 3)
    app = cli.build_app(
        cli.Models(verifier=lambda name: TablePairScorer(TABLE), chat=lambda s, m: chat)
    )
    code, out, err = _run(
        "--answer",
        "Honey bees perform a waggle dance.",
        "--sources",
        str(sources[0]),
        "--layers",
        "nli,consistency",
        "--llm",
        "openai:x",
        "--question",
        "What do honey bees do?",
        "--samples",
        "3",
        "--json",
        app=app,
    )
    assert code == 0, err
    payload = json.loads(out)
    assert payload["layers"] == ["nli", "consistency"]
    assert [r["layer"] for r in payload["claims"][0]["layers"]] == ["nli", "consistency"]
    assert len(chat.requests) == 3
    assert {request.temperature for request in chat.requests} == {1.0}


def test_verify_prints_a_sentence_with_nothing_checkable_as_not_checkable(
    sources: list[Path],
) -> None:
    answer = "Honey bees perform a waggle dance. docs. The system works as documented."
    code, out, _ = _run("--answer", answer, "--sources", str(sources[0]))
    assert code == 0
    text = " ".join(out.split())
    assert "not checkable (fragment): docs." in text
    assert "not checkable (vague): The system works as documented." in text
    code, out, _ = _run("--answer", answer, "--sources", str(sources[0]), "--json")
    payload = json.loads(out)
    assert [claim["text"] for claim in payload["claims"]] == ["Honey bees perform a waggle dance."]
    assert [s["reason"] for s in payload["skipped"]] == ["fragment", "vague"]


def _without_timings(payload: dict[str, object]) -> dict[str, object]:
    return {key: value for key, value in payload.items() if key != "timings"}


def test_a_report_carries_its_config_and_reproduces_itself(
    sources: list[Path], tmp_path: Path
) -> None:
    args = ["--answer", ANSWER, "--json", "--window", "passage", "-k", "2", "--tau", "0.6"]
    code, out, _ = _run(*args, "--layers", "nli", "--sources", *map(str, sources))
    assert code == 0
    first = json.loads(out)
    config = first["config"]
    assert (config["format"], config["pipeline"]) == (1, "verify")
    assert (config["evidence"]["k"], config["checking"]["tau"]) == (2, 0.6)
    assert (config["checking"]["window"], config["checking"]["aggregation"]) == ("passage", "max")
    assert config["evidence"]["sources"] == [str(path) for path in sources]
    saved = tmp_path / "report.json"
    saved.write_text(out, encoding="utf-8")
    # no answer, no sources, no options: all of them come from the report
    code, again, _ = _run("--config", str(saved), "--json")
    assert code == 0
    assert _without_timings(json.loads(again)) == _without_timings(first)


def test_options_given_with_a_config_override_it(sources: list[Path], tmp_path: Path) -> None:
    code, out, _ = _run(
        "--answer", ANSWER, "--json", "--layers", "nli", "--sources", str(sources[0])
    )
    assert code == 0
    saved = tmp_path / "report.json"
    saved.write_text(out, encoding="utf-8")
    code, again, _ = _run("--config", str(saved), "-k", "3", "--sources", str(sources[1]), "--json")
    assert code == 0
    config = json.loads(again)["config"]
    assert config["evidence"]["k"] == 3
    assert config["evidence"]["sources"] == [str(sources[1])]
    assert config["decision"]["layers"] == ["nli"]  # from the saved report


@pytest.mark.parametrize(
    ("saved", "message"),
    [
        ({"config": {"format": 99}}, "format 99 is newer than this veracity reads (1)"),
        ({"config": {"pipeline": "repair"}}, "this is a repair config, not a verify one"),
        ({"config": {"evidence": {"kk": 3}}}, "unknown key 'kk' in evidence; known: index"),
        ({"config": {"evidence": {"k": 0}}}, "-k 0 is not allowed: at least 1"),
    ],
)
def test_a_bad_saved_config_is_refused_with_the_fix(
    tmp_path: Path, saved: dict[str, object], message: str
) -> None:
    path = tmp_path / "config.json"
    path.write_text(json.dumps(saved), encoding="utf-8")
    code, _, err = _run("--config", str(path), "--answer", ANSWER)
    assert code == 2
    assert message in " ".join(err.split())


def test_without_an_answer_or_a_report_the_answer_is_asked_for(sources: list[Path]) -> None:
    code, _, err = _run("--sources", str(sources[0]))
    assert code == 2
    assert "--answer is needed" in err
