"""`veracity repair` and `ask --repair` through the CLI with fake models."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from veracity import cli
from veracity.testing import ScriptedChatModel, TablePairScorer

pytestmark = pytest.mark.unit

NOBEL = "Karl von Frisch shared the Nobel Prize in Physiology or Medicine in 1973."
WRONG = "Karl von Frisch shared the Nobel Prize in Physiology or Medicine in 1983."
TABLE = {(NOBEL, WRONG): (0.05, 0.9, 0.05), (NOBEL, NOBEL): (0.95, 0.0, 0.05)}
APP = cli.build_app(cli.Models(verifier=lambda name: TablePairScorer(TABLE)))


@pytest.fixture
def source(tmp_path: Path) -> Path:
    path = tmp_path / "nobel.md"
    path.write_text(NOBEL + "\n", encoding="utf-8")
    return path


def _run(*args: str, app: object = APP) -> tuple[int, str, str]:
    result = CliRunner().invoke(app, ["repair", *args])  # type: ignore[arg-type]
    return result.exit_code, result.stdout, result.stderr


def test_repair_json_has_the_original_the_text_and_the_edit(source: Path) -> None:
    code, out, _ = _run("--answer", WRONG, "--sources", str(source), "--json")
    assert code == 0
    payload = json.loads(out)
    assert (payload["original"], payload["text"]) == (WRONG, NOBEL)
    assert payload["edits"][0]["method"] == "value_substitution@1"
    assert payload["edits"][0]["evidence"][0]["doc_id"].endswith("nobel.md")
    assert payload["exit_code"] == 0
    assert payload["summary"]["revised"] == 1


def test_repair_shows_a_diff_and_the_attribution(source: Path) -> None:
    code, out, _ = _run("--answer", WRONG, "--sources", str(source))
    assert code == 0
    assert "[-1983-]{+1973+}" in out
    assert "0/1 claims supported before, 1/1 after" in out


def test_an_answer_with_nothing_to_repair_says_so(source: Path) -> None:
    code, out, _ = _run("--answer", NOBEL, "--sources", str(source))
    assert code == 0
    assert "nothing to repair" in out


def test_a_model_reply_that_cannot_be_read_exits_1_and_keeps_the_sentence(source: Path) -> None:
    claim = "Karl von Frisch won the prize for his work on bees."
    table = {(NOBEL, claim): (0.1, 0.8, 0.1)}
    app = cli.build_app(
        cli.Models(
            verifier=lambda name: TablePairScorer(table),
            chat=lambda spec, model: ScriptedChatModel(["?!"]),
        )
    )
    code, out, _ = _run(
        "--answer", claim, "--sources", str(source), "--llm", "openai:x", "--json", app=app
    )
    assert code == 1
    payload = json.loads(out)
    assert payload["text"] == claim
    assert payload["claims"][0]["action"] == "failed"
    assert "repair_edit_v1" in payload["claims"][0]["failure"]


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--answer", "  ", "--sources", "SRC"], "empty"),
        (["--answer", WRONG], "give the sources"),
        (["--answer", WRONG, "--sources", "SRC", "--policy", "fix"], "--policy 'fix'"),
        (["--answer", WRONG, "--sources", "SRC", "--policy", "flag", "--llm", "openai:x"], "--llm"),
    ],
)
def test_bad_input_exits_2_with_a_clear_error(source: Path, args: list[str], message: str) -> None:
    args = [str(source) if arg == "SRC" else arg for arg in args]
    app = cli.build_app(
        cli.Models(
            verifier=lambda name: TablePairScorer(TABLE),
            chat=lambda spec, model: ScriptedChatModel([]),
        )
    )
    code, _, err = _run(*args, app=app)
    assert code == 2
    assert message in err


def test_a_repair_carries_its_config_and_reproduces_itself(source: Path, tmp_path: Path) -> None:
    args = ["--answer", WRONG, "--sources", str(source), "--json", "-k", "2", "--tau", "0.7"]
    code, out, _ = _run(*args)
    assert code == 0
    first = json.loads(out)
    config = first["config"]
    assert (config["pipeline"], config["evidence"]["k"], config["tau"]) == ("repair", 2, 0.7)
    saved = tmp_path / "repair.json"
    saved.write_text(out, encoding="utf-8")
    code, again, _ = _run("--config", str(saved), "--json")  # the original answer, the sources
    assert code == 0
    second = json.loads(again)
    assert (second["text"], second["config"]) == (first["text"], first["config"])
    code, _, err = _run("--config", str(saved), "--policy", "mend")
    assert code == 2
    assert "--policy 'mend' is not allowed: one of revise, delete, flag, refuse" in err
