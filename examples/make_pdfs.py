"""Build the sample-corpus PDFs from their Markdown sources, then verify them.

The source text of each PDF lives in ``examples/pdf_sources/<name>.md``; the
generated file is written to ``examples/sample_corpus/association/<name>.pdf``.
The PDFs are committed, so nothing needs fpdf2 at demo time. Re-run this
script only after editing a source file:

    python examples/make_pdfs.py            # build (needs fpdf2) and verify
    python examples/make_pdfs.py --check    # verify the committed PDFs only (needs pypdf)

The Markdown subset understood here is deliberately small:

* ``#``, ``##``, ``###`` headings
* paragraphs (consecutive non-blank lines are joined)
* ``- item`` bullets and ``1. item`` numbered items
* ``| a | b |`` tables (the ``|---|`` separator row is skipped)
* a line holding only ``---`` starts a new page

Only the PDF core fonts are used, so every source must be latin-1 text (no
smart quotes or long dashes). After building, each block of text is checked
against what pypdf extracts from the page(s) it was drawn on.
"""

from __future__ import annotations

import argparse
import datetime as dt
import re
import sys
from dataclasses import dataclass, field
from pathlib import Path

HERE = Path(__file__).resolve().parent
SOURCES = HERE / "pdf_sources"
OUT_DIR = HERE / "sample_corpus" / "association"

# (source file stem, PDF title) in build order
DOCUMENTS = [
    ("first_year_guide", "Your First Year with Bees"),
    ("winter_loss_survey_2023", "Winter Loss Survey 2022-2023"),
]

AUTHOR = "veracity project (sample corpus)"
# A fixed date keeps the output byte-for-byte reproducible.
CREATION_DATE = dt.datetime(2024, 1, 15, 12, 0, 0, tzinfo=dt.UTC)


@dataclass
class Block:
    kind: str  # title, h2, h3, para, bullet, number, table, pagebreak
    text: str = ""
    rows: list[list[str]] = field(default_factory=list)


def parse(source: str) -> list[Block]:
    blocks: list[Block] = []
    para: list[str] = []
    table: list[list[str]] = []

    def flush() -> None:
        if para:
            blocks.append(Block("para", " ".join(para)))
            para.clear()
        if table:
            blocks.append(Block("table", rows=[r[:] for r in table]))
            table.clear()

    for raw in source.splitlines():
        line = raw.strip()
        if not line:
            flush()
        elif line == "---":
            flush()
            blocks.append(Block("pagebreak"))
        elif line.startswith("|"):
            if para:
                flush()
            cells = [c.strip() for c in line.strip("|").split("|")]
            if all(re.fullmatch(r":?-+:?", c) for c in cells):
                continue  # separator row
            table.append(cells)
        elif m := re.match(r"(#{1,3})\s+(.*)", line):
            flush()
            kind = {1: "title", 2: "h2", 3: "h3"}[len(m.group(1))]
            blocks.append(Block(kind, m.group(2)))
        elif line.startswith("- "):
            flush()
            blocks.append(Block("bullet", line[2:]))
        elif re.match(r"\d+\.\s", line):
            flush()
            blocks.append(Block("number", line))
        else:
            if table:
                flush()
            para.append(line)
    flush()
    return blocks


def norm(text: str) -> str:
    """Collapse all whitespace runs to single spaces (layout differs from source)."""
    return re.sub(r"\s+", " ", text).strip()


def block_texts(block: Block) -> list[str]:
    if block.kind == "table":
        return [cell for row in block.rows for cell in row if cell]
    if block.kind == "bullet":
        return ["- " + block.text]
    return [block.text] if block.text else []


def build(stem: str, title: str) -> tuple[Path, list[tuple[int, int, str]]]:
    from fpdf import FPDF
    from fpdf.enums import XPos, YPos

    source = (SOURCES / f"{stem}.md").read_text(encoding="utf-8")
    source.encode("latin-1")  # core fonts: fail early on anything outside latin-1
    blocks = parse(source)

    class Doc(FPDF):
        def footer(self) -> None:
            self.set_y(-15)
            self.set_font("Helvetica", "I", 8)
            self.cell(0, 10, footer_text(title, self.page_no()), align="C")

    pdf = Doc(format="A4")
    pdf.set_title(title)
    pdf.set_author(AUTHOR)
    pdf.set_creator("examples/make_pdfs.py (fpdf2)")
    pdf.set_creation_date(CREATION_DATE)
    pdf.set_auto_page_break(auto=True, margin=20)
    pdf.set_margins(20, 20, 20)
    pdf.add_page()

    placed: list[tuple[int, int, str]] = []  # (first page, last page, text)
    nl = {"new_x": XPos.LMARGIN, "new_y": YPos.NEXT}

    for block in blocks:
        start = pdf.page_no()
        if block.kind == "pagebreak":
            pdf.add_page()
            continue
        if block.kind == "title":
            pdf.set_font("Helvetica", "B", 20)
            pdf.multi_cell(0, 10, block.text, align="L", **nl)
            pdf.ln(3)
        elif block.kind == "h2":
            pdf.ln(3)
            pdf.set_font("Helvetica", "B", 15)
            pdf.multi_cell(0, 8, block.text, align="L", **nl)
            pdf.ln(1)
        elif block.kind == "h3":
            pdf.ln(1)
            pdf.set_font("Helvetica", "B", 12)
            pdf.multi_cell(0, 7, block.text, align="L", **nl)
        elif block.kind == "para":
            pdf.set_font("Helvetica", "", 11)
            pdf.multi_cell(0, 5.5, block.text, align="L", **nl)
            pdf.ln(2)
        elif block.kind in ("bullet", "number"):
            pdf.set_font("Helvetica", "", 11)
            pdf.set_x(pdf.l_margin + 5)
            text = "- " + block.text if block.kind == "bullet" else block.text
            pdf.multi_cell(pdf.epw - 5, 5.5, text, align="L", **nl)
            pdf.ln(1)
        elif block.kind == "table":
            pdf.set_font("Helvetica", "", 10)
            with pdf.table(text_align="LEFT", line_height=5.5) as tbl:
                for row in block.rows:
                    r = tbl.row()
                    for cell in row:
                        r.cell(cell)
            pdf.ln(3)
        for text in block_texts(block):
            placed.append((start, pdf.page_no(), text))

    OUT_DIR.mkdir(parents=True, exist_ok=True)
    out = OUT_DIR / f"{stem}.pdf"
    pdf.output(str(out))
    return out, placed


def footer_text(title: str, page_no: int) -> str:
    return f"{title} - page {page_no}"


def verify(pdf_path: Path, placed: list[tuple[int, int, str]] | None, stem: str) -> list[str]:
    """Return a list of problems; empty means every block round-trips through pypdf."""
    from pypdf import PdfReader

    title = dict(DOCUMENTS)[stem]
    reader = PdfReader(str(pdf_path))
    pages = [norm(p.extract_text() or "") for p in reader.pages]
    problems: list[str] = []
    for i, text in enumerate(pages, 1):
        if footer_text(title, i) not in text:
            problems.append(f"{pdf_path.name}: page {i} footer missing")
    # drop the running footer so a paragraph that breaks across pages still matches
    pages = [norm(t.replace(footer_text(title, i), " ")) for i, t in enumerate(pages, 1)]
    for i, text in enumerate(pages, 1):
        if not text:
            problems.append(f"{pdf_path.name}: page {i} extracted no text")
    if placed is None:  # --check: no layout record, search the whole document
        whole = " ".join(pages)
        source = (SOURCES / f"{stem}.md").read_text(encoding="utf-8")
        for block in parse(source):
            for text in block_texts(block):
                if norm(text) not in whole:
                    problems.append(f"{pdf_path.name}: missing {text[:60]!r}")
        return problems
    for first, last, text in placed:
        hay = " ".join(pages[first - 1 : last])
        if norm(text) not in hay:
            problems.append(f"{pdf_path.name} p{first}-{last}: missing {text[:60]!r}")
    return problems


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--check", action="store_true", help="only verify the committed PDFs")
    args = ap.parse_args()

    failures = 0
    for stem, title in DOCUMENTS:
        if args.check:
            path, placed = OUT_DIR / f"{stem}.pdf", None
        else:
            path, placed = build(stem, title)
        problems = verify(path, placed, stem)
        from pypdf import PdfReader

        n_pages = len(PdfReader(str(path)).pages)
        status = "OK" if not problems else f"{len(problems)} problem(s)"
        print(f"{path.relative_to(HERE)}: {n_pages} page(s), {status}")
        for p in problems:
            print("   ", p)
        failures += len(problems)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
