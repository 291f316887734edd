"""Property: in every format, every chunk is an exact, trimmed span of its document's text,
the chunks cover all non-whitespace text, no chunk crosses a section boundary except over the
headings it starts with, and no chunk is only headings while a body follows."""

from __future__ import annotations

import html
import json
import re
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from veracity.corpus.chunker import Chunker, count_tokens
from veracity.corpus.loaders import load_file, parse_file
from veracity.errors import DocumentError
from veracity.types import Document

pytestmark = pytest.mark.unit

PROPERTY = settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
HERE = Path("/nonexistent/corpus")  # parse_file never touches the disk

_letters = st.sampled_from(list("abcdefghijklmnopqrstuvwxyzÀéßΩжあ0123456789_"))
_word = st.text(_letters, min_size=1, max_size=10) | st.sampled_from(
    ["Dr.", "U.S.", "e.g.", "3.5%", "—", "(see", "note)", "'quoted'", "a-b", "…", "«x»"]
)
_sentence = st.builds(
    lambda words, end: " ".join(words) + end,
    st.lists(_word, min_size=1, max_size=30),
    st.sampled_from([".", "?", "!", "", "...", ".)"]),
)
_paragraph = st.builds(
    lambda sentences, glue: glue.join(sentences),
    st.lists(_sentence, min_size=1, max_size=6),
    st.sampled_from([" ", "  ", "\n", " \t"]),
)
_free_text = st.text(
    st.characters(blacklist_categories=("Cs", "Cc")) | st.sampled_from(["\n", "\t", " ", "\r"]),
    max_size=400,
)
_body = (
    st.builds(
        lambda paragraphs, glue: glue.join(paragraphs),
        st.lists(_paragraph, min_size=1, max_size=6),
        st.sampled_from(["\n\n", "\n", "\n \n\n"]),
    )
    | _free_text
)


@st.composite
def _chunkers(draw: st.DrawFn) -> Chunker:
    size = draw(st.integers(16, 48))
    overlap = draw(st.integers(0, (size - 1) // 2))
    return Chunker(size=size, overlap=overlap)


def word_lines(document: Document, start: int, end: int) -> list[bool]:
    """For each line that ``text[start:end]`` touches and that holds a word, whether it is a
    heading's (starts a section); in these generated documents every heading is one line."""
    text = document.text
    heads = {section.start for section in document.sections}
    offset = text.rfind("\n", 0, start) + 1  # the start of the line that holds ``start``
    found: list[bool] = []
    for line in text[offset:end].split("\n"):
        if re.search(r"\w", line):
            found.append(offset in heads)
        offset += len(line) + 1
    return found


def headings_only(document: Document, start: int, end: int) -> bool:
    lines = word_lines(document, start, end)
    return bool(lines) and all(lines)


def check_chunks(document: Document, chunker: Chunker) -> None:
    text = document.text
    chunks = chunker.run(document)
    covered = bytearray(len(text))
    for index, chunk in enumerate(chunks):
        assert text[chunk.start : chunk.end] == chunk.text
        assert chunk.text
        assert chunk.text == chunk.text.strip()
        assert count_tokens(chunk.text) <= chunker.size
        assert (chunk.id, chunk.index, chunk.doc_id) == (
            f"{document.id}#{index}",
            index,
            document.id,
        )
        assert chunk.section == document.section_at(chunk.end - 1)
        assert chunk.page == document.page_at(chunk.start)
        assert chunk.page_end == document.page_at(chunk.end - 1)
        for section in document.sections:
            for boundary in (section.start, section.end):
                if chunk.start < boundary < chunk.end:  # only over the headings it starts with
                    assert all(word_lines(document, chunk.start, boundary))
        if headings_only(document, chunk.start, chunk.end):
            # a body follows only when the headings alone are too long for one chunk
            assert all(word_lines(document, chunk.end, len(text))) or (
                count_tokens(chunk.text) == chunker.size
            )
        covered[chunk.start : chunk.end] = b"\x01" * (chunk.end - chunk.start)
    missed = [i for i, ch in enumerate(text) if not ch.isspace() and not covered[i]]
    assert missed == []


def _parse_one(name: str, data: bytes) -> Document | None:
    """The file's only document, or None when it has no text (which must be refused)."""
    if not data.decode("utf-8").strip():
        with pytest.raises(DocumentError) as caught:
            parse_file(HERE / name, data, root=HERE)
        assert caught.value.reason == "empty"
        return None
    (document,) = parse_file(HERE / name, data, root=HERE).documents
    return document


@PROPERTY
@given(body=_body, chunker=_chunkers())
def test_text_files(body, chunker):
    document = _parse_one("notes.txt", body.encode("utf-8"))
    assert (document is None) == (not body.strip())
    if document is not None:
        assert document.text == body
        check_chunks(document, chunker)


_heading = st.builds(
    lambda level, title: f"{'#' * level} {title}",
    st.integers(1, 6),
    st.text(_letters, min_size=1, max_size=12),
)


@PROPERTY
@given(
    blocks=st.lists(_heading | _paragraph, min_size=1, max_size=12),
    glue=st.sampled_from(["\n\n", "\n"]),
    chunker=_chunkers(),
)
def test_markdown_with_headings(blocks, glue, chunker):
    body = glue.join(blocks) + "\n"
    document = _parse_one("guide.md", body.encode("utf-8"))
    assert document is not None
    assert document.text == body
    headings = [block.split(" ", 1)[1] for block in blocks if block.startswith("#")]
    assert [section.path[-1] for section in document.sections] == headings
    check_chunks(document, chunker)


_element = st.tuples(
    st.sampled_from(["h1", "h2", "h3", "h4", "p", "div", "li", "span"]), _paragraph
)


@PROPERTY
@given(elements=st.lists(_element, min_size=1, max_size=10), chunker=_chunkers())
def test_html(elements, chunker):
    markup = (
        "<html><head><title>T</title></head><body>"
        + "".join(f"<{tag}>{html.escape(text)}</{tag}>" for tag, text in elements)
        + "<script>var HIDDEN = 1;</script></body></html>"
    )
    document = _parse_one("page.html", markup.encode("utf-8"))
    assert document is not None
    # upper case: the generated text has no upper-case ASCII, so only the script could bring it
    assert "HIDDEN" not in document.text
    for _, text in elements:
        assert " ".join(text.split()) in " ".join(document.text.split())
    check_chunks(document, chunker)


@settings(PROPERTY, max_examples=20)  # up to five documents an example: half the examples
@given(texts=st.lists(_body.filter(str.strip), min_size=1, max_size=5), chunker=_chunkers())
def test_jsonl(texts, chunker):
    lines = [json.dumps({"id": f"doc-{i}", "text": text}) for i, text in enumerate(texts)]
    result = parse_file(HERE / "docs.jsonl", "\n".join(lines).encode("utf-8"))
    assert result.failures == ()
    assert [document.text for document in result.documents] == texts
    for document in result.documents:
        check_chunks(document, chunker)


PDF_CASES = {
    "three pages": [
        " ".join(f"Page one sentence {i} talks about bees." for i in range(40)),
        "A short second page.",
        " ".join(f"Third page, line {i}: numbers like 3.5 and U.S. spelling." for i in range(25)),
    ],
    "blank middle page": ["Only the first page has words.", "", "And the last page too."],
    "one long word run": [" ".join(f"w{i}" for i in range(400))],
}


@pytest.mark.parametrize("pages", PDF_CASES.values(), ids=PDF_CASES.keys())
@pytest.mark.parametrize(("size", "overlap"), [(16, 0), (40, 12), (160, 32)])
def test_pdf(tmp_path, make_pdf, pages, size, overlap):
    document = load_file(make_pdf(tmp_path / "case.pdf", pages)).documents[0]
    assert len(document.pages) == len(pages)
    check_chunks(document, Chunker(size=size, overlap=overlap))
    chunks = Chunker(size=size, overlap=overlap).run(document)
    spanned = {n for c in chunks for n in range(c.page or 0, (c.page_end or 0) + 1)}
    assert {n for n, text in enumerate(pages, start=1) if text} <= spanned
