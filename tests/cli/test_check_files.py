"""`veracity check --premise FILE` reads the file as `veracity index` does (Harden-2 #10), with a
fake verifier that records what it was given."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import pytest
from typer.testing import CliRunner

from veracity import cli
from veracity.testing import TablePairScorer
from veracity.types import PairScores

pytestmark = pytest.mark.unit

PAGE = (
    "<html><head><title>Bees</title><style>p { color: red }</style></head>"
    "<body><h1>Dance</h1><p>Honey bees perform a waggle dance.</p></body></html>"
)


class Recording(TablePairScorer):
    def __init__(self) -> None:
        super().__init__({})
        self.premises: list[str] = []

    def run(self, premises: Sequence[str], hypotheses: Sequence[str]) -> PairScores:
        self.premises += premises
        return super().run(premises, hypotheses)


def _premise(path: Path) -> tuple[int, str, str]:
    scorer = Recording()
    app = cli.build_app(cli.Models(verifier=lambda name: scorer))
    result = CliRunner().invoke(
        app, ["check", "--premise", str(path), "--claim", "Bees dance.", "--json"]
    )
    return result.exit_code, "".join(scorer.premises), result.stderr


def test_an_html_premise_is_its_text_not_its_markup(tmp_path: Path) -> None:
    page = tmp_path / "page.html"
    page.write_text(PAGE, encoding="utf-8")
    code, premise, _ = _premise(page)
    assert code == 0
    assert "Honey bees perform a waggle dance." in premise
    assert "<" not in premise
    assert "color" not in premise


def test_a_pdf_premise_is_read_not_refused_as_not_utf8(tmp_path: Path) -> None:
    from fpdf import FPDF

    pdf = FPDF()
    pdf.set_font("Helvetica", size=12)
    pdf.add_page()
    pdf.multi_cell(0, 8, "Honey bees perform a waggle dance.")
    pdf.output(str(tmp_path / "dance.pdf"))
    code, premise, err = _premise(tmp_path / "dance.pdf")
    assert code == 0, err
    assert "Honey bees perform a waggle dance." in premise


def test_a_file_of_another_extension_is_read_as_text(tmp_path: Path) -> None:
    notes = tmp_path / "notes.rst"
    notes.write_text("Honey bees *dance*.", encoding="utf-8")
    assert _premise(notes)[:2] == (0, "Honey bees *dance*.")
