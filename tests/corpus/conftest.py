"""Fixtures for corpus tests: small PDFs generated with fpdf2, and a fake index builder."""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path

import pytest

from veracity.corpus.base import ChunkLookup

MakePdf = Callable[..., Path]


def _write_pdf(path: Path, pages: Sequence[str], *, title: str | None = None) -> Path:
    from fpdf import FPDF

    pdf = FPDF()
    if title is not None:
        pdf.set_title(title)
    pdf.set_font("Helvetica", size=12)
    for text in pages:
        pdf.add_page()
        if text:
            pdf.multi_cell(0, 8, text)
    pdf.output(str(path))
    return path


@pytest.fixture
def make_pdf() -> MakePdf:
    """``make_pdf(path, ["page one text", "page two text"], title=None)`` writes a real PDF."""
    return _write_pdf


class FakeBuilder:
    """An ``IndexBuilder`` that writes the chunk texts to a JSON file and records its calls.

    With ``fail=True`` it writes its file and then raises, as a builder that crashes
    half-way would.
    """

    def __init__(self, name: str = "fake", *, fail: bool = False) -> None:
        self.name = name
        self.fail = fail
        self.calls: list[tuple[int, Path, Path | None]] = []

    def build(
        self, chunks: ChunkLookup, directory: Path, previous: Path | None
    ) -> Mapping[str, object]:
        texts = [chunk.text for chunk in chunks]
        self.calls.append((len(chunks), directory, previous))
        (directory / f"{self.name}.json").write_text(json.dumps(texts), encoding="utf-8")
        if self.fail:
            raise RuntimeError(f"builder {self.name} crashed")
        return {"chunks": len(texts), "file": f"{self.name}.json"}


@pytest.fixture
def make_builder() -> type[FakeBuilder]:
    """``make_builder(name="fake", fail=False)`` makes a fake builder."""
    return FakeBuilder


def within(seconds: float, call: Callable[[], object]) -> object:
    """``call()``'s result, or a test failure when it has not returned after ``seconds``.

    It runs in a daemon thread, so a call that blocks forever (opening a FIFO) fails the test
    instead of hanging the run.
    """
    import threading

    outcome: dict[str, object] = {}

    def target() -> None:
        try:
            outcome["value"] = call()
        except BaseException as exc:  # handed back to the test's thread
            outcome["error"] = exc

    worker = threading.Thread(target=target, daemon=True)
    worker.start()
    worker.join(seconds)
    if worker.is_alive():
        pytest.fail(f"still running after {seconds} s: it blocks (reading a FIFO?)")
    if "error" in outcome:
        raise outcome["error"]  # type: ignore[misc]
    return outcome.get("value")


@pytest.fixture
def bounded() -> Callable[..., object]:
    """``bounded(seconds, call)``: see :func:`within`."""
    return within
