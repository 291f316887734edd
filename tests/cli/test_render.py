"""Nothing a user wrote is read as Rich markup: documents, titles, paths, options, errors, help."""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Sequence
from pathlib import Path

import pytest
from typer.testing import CliRunner

from veracity import cli
from veracity.cli.render import make_console, show, styled, text
from veracity.testing import TablePairScorer
from veracity.types import PairScores

pytestmark = pytest.mark.unit
runner = CliRunner()

#: Bracket and colon sequences Rich would read as closing tags, styles, links or emoji.
HOSTILE = [
    "[/etc/fstab]",
    "[bold]",
    "[x]",
    "[draft]",
    "[/]",
    "[link=http://a]b[/link]",
    ":smile:",
    "[red on white]",
    "\\[escaped]",
    "[#ff0000]",
    "[@click]",
]


@pytest.mark.parametrize("value", HOSTILE)
def test_show_prints_every_part_as_it_is(value: str) -> None:
    out = make_console(record=True, width=200)
    show(styled(value, "bold"), f" and {value}", out=out)
    assert out.export_text() == f"{value} and {value}\n"


def test_wrapped_lines_keep_brackets_and_indent() -> None:
    out = make_console(record=True, width=40)
    show("[/etc/fstab] " * 8, out=out, indent=2, hang=4, wrap=True)
    lines = out.export_text().splitlines()
    assert len(lines) > 1
    assert lines[0].startswith("  [/etc/fstab]")
    assert all(line.startswith("    [/etc/fstab]") for line in lines[1:])
    assert "".join(lines).count("[/etc/fstab]") == 8


def test_text_keeps_styles_apart_from_data() -> None:
    line = text("plain [bold] ", styled("[/x]", "red"))
    assert line.plain == "plain [bold] [/x]"
    assert [span.style for span in line.spans] == ["red"]


@pytest.fixture
def hostile_folder(tmp_path: Path) -> Path:
    folder = tmp_path / "[bold]"
    folder.mkdir()
    body = (
        "CUPS keeps its printer list in [/etc/fstab] style files; "
        + " ".join(HOSTILE)
        + " are kept as written."
    )
    (folder / "cups [draft].md").write_text(f"# Printers [x]\n\n{body}\n", encoding="utf-8")
    (folder / "broken.pdf").write_bytes(b"not a pdf [/etc/fstab]")
    return folder


def test_index_and_search_show_brackets_as_written(hostile_folder: Path, tmp_path: Path) -> None:
    index = tmp_path / "index"
    result = runner.invoke(
        cli.app, ["index", str(hostile_folder), "--index", str(index), "--no-dense"]
    )
    assert result.exit_code == 1, result.output  # the PDF is skipped and reported
    assert f"{hostile_folder / 'broken.pdf'}" in result.stderr
    result = runner.invoke(
        cli.app, ["search", "printer list [/etc/fstab]", "--index", str(index), "--mode", "bm25"]
    )
    assert result.exit_code == 0, result.output
    assert "printer list [/etc/fstab]" in result.stdout
    assert "cups [draft].md" in result.stdout
    for value in HOSTILE:
        assert value in result.stdout


class WholePremiseScorer(TablePairScorer):
    """The table's scores, with the whole premise as the evidence span."""

    def run(self, premises: Sequence[str], hypotheses: Sequence[str]) -> PairScores:
        result = super().run(premises, hypotheses)
        return dataclasses.replace(
            result,
            scores=tuple(
                dataclasses.replace(score, evidence=(score.window,)) for score in result.scores
            ),
        )


def test_check_prints_premise_evidence_as_written() -> None:
    premise = "Mount points are listed in [/etc/fstab] by default [x]."
    claim = "Mount points are listed in [/etc/fstab]."
    app = cli.build_app(
        cli.Models(verifier=lambda name: WholePremiseScorer({(premise, claim): (0.9, 0.05, 0.05)}))
    )
    result = runner.invoke(app, ["check", "--premise", premise, "--claim", claim])
    assert result.exit_code == 0, result.output
    assert "[/etc/fstab] by default [x]." in result.stdout


def test_errors_show_the_value_as_written(tmp_path: Path) -> None:
    missing = tmp_path / "[/etc/fstab]" / "[bold]index"
    result = runner.invoke(cli.app, ["search", "bees", "--index", str(missing)])
    assert result.exit_code == 2
    assert str(missing) in result.stderr
    assert "Traceback" not in result.output


def test_verify_report_shows_claims_and_evidence_as_written(tmp_path: Path) -> None:
    source = tmp_path / "[bold]notes.md"
    passage = "The config file [/etc/squid/squid.conf] sets cache_effective_user [proxy]."
    source.write_text(passage + "\n", encoding="utf-8")
    claim = "The config file [/etc/squid/squid.conf] sets cache_effective_user [proxy]."
    app = cli.build_app(
        cli.Models(verifier=lambda name: TablePairScorer({(passage, claim): (0.9, 0.05, 0.05)}))
    )
    result = runner.invoke(
        app, ["verify", "--answer", claim, "--sources", str(source), "--layers", "nli"]
    )
    assert result.exit_code == 0, result.output
    assert result.stdout.count("[/etc/squid/squid.conf]") >= 2  # the answer, the claim, evidence
    assert "[bold]notes.md" in result.stdout
    payload = json.loads(
        runner.invoke(
            app,
            ["verify", "--answer", claim, "--sources", str(source), "--layers", "nli", "--json"],
        ).stdout
    )
    assert payload["claims"][0]["text"] == claim


@pytest.mark.parametrize("command", [[], ["index"], ["ask"], ["verify"], ["serve"]])
def test_help_shows_brackets_as_written(command: list[str]) -> None:
    result = runner.invoke(cli.app, [*command, "--help"])
    assert result.exit_code == 0, result.output
    assert "[" in result.stdout


def test_help_keeps_the_documented_brackets() -> None:
    assert "[hf]" in runner.invoke(cli.app, ["verify", "--help"]).stdout
    assert "[n]" in runner.invoke(cli.app, ["ask", "--help"]).stdout


@pytest.mark.parametrize("value", ["premise_typo.md", "./missing.txt"])
def test_a_mistyped_premise_file_is_an_error_not_text(value: str) -> None:
    result = runner.invoke(
        cli.app, ["check", "--premise", value, "--claim", "Bees dance.", "--verifier", "lexical"]
    )
    assert result.exit_code == 2
    assert f"--premise {value}: no such file" in result.stderr


@pytest.mark.parametrize(
    ("args", "shown", "hidden"),
    [
        (
            ["index", "DOCS", "--index", "INDEX", "--chunk-tokens", "3", "--no-dense"],
            "--chunk-tokens 3 is not allowed",
            "size=",
        ),
        (
            ["index", "DOCS", "--index", "INDEX", "--overlap", "100", "--no-dense"],
            "--overlap 100 is not allowed",
            "overlap=",
        ),
        (
            ["check", "--premise", "Bees dance.", "--claim", "Bees dance.", "--verifier", "nope"],
            "--verifier 'nope' is not allowed",
            "name=",
        ),
    ],
)
def test_option_errors_name_the_flag_the_user_typed(
    tmp_path: Path, args: list[str], shown: str, hidden: str
) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "a.txt").write_text("Bees dance.\n", encoding="utf-8")
    values = {"DOCS": str(docs), "INDEX": str(tmp_path / "index")}
    result = runner.invoke(cli.app, [values.get(arg, arg) for arg in args])
    assert result.exit_code == 2
    assert shown in result.stderr
    assert hidden not in result.stderr
