"""Chunker: option checks, sentence packing, overlap, long sentences, sections and pages."""

from __future__ import annotations

import itertools

import pytest

from veracity.corpus.chunker import Chunker, count_tokens, token_spans
from veracity.errors import OptionError
from veracity.sentences import split_sentences
from veracity.types import Document, Page, Section

pytestmark = pytest.mark.unit


def _sentence(i: int) -> str:
    return f"Sentence number {i} is here."  # six tokens


def _text(n: int) -> str:
    return " ".join(_sentence(i) for i in range(n))


def test_tokens_are_words_and_single_punctuation_marks():
    assert count_tokens("It's 3.5% of U.S. sales — ok?") == 16
    assert [s.of("a-b  c") for s in token_spans("a-b  c")] == ["a", "-", "b", "c"]
    assert [s.of("xx yy zz") for s in token_spans("xx yy zz", 1, 6)] == ["x", "yy"]
    assert count_tokens("  \n ") == 0


@pytest.mark.parametrize(
    ("options", "name", "needle"),
    [
        ({"size": 15}, "size", "at least 16"),
        ({"size": 20.0}, "size", "integer"),
        ({"size": True}, "size", "integer"),
        ({"size": 32, "overlap": 16}, "overlap", "half the chunk size (16)"),
        ({"size": 32, "overlap": -1}, "overlap", "from 0 to less than half"),
        ({"size": 32, "overlap": 1.5}, "overlap", "integer"),
    ],
)
def test_options_are_validated_with_the_value_and_range(options, name, needle):
    with pytest.raises(OptionError) as caught:
        Chunker(**options)
    assert caught.value.name == name
    assert needle in str(caught.value)
    assert repr(options[name]) in str(caught.value)


def test_defaults_are_valid():
    chunker = Chunker()
    assert (chunker.size, chunker.overlap) == (160, 32)
    assert Chunker(size=16, overlap=7).overlap == 7


def test_whole_sentences_are_packed_up_to_size_with_sentence_overlap():
    text = _text(12)
    chunks = Chunker(size=20, overlap=6).run(Document(id="d", text=text, title="T", source="s"))
    sentences = [span.of(text) for span in split_sentences(text)]
    for chunk in chunks:
        assert count_tokens(chunk.text) <= 20
        inside = [s for s in sentences if s in chunk.text]
        assert " ".join(inside) == chunk.text  # only whole sentences
    for before, after in itertools.pairwise(chunks):
        shared = before.text[after.start - before.start :]
        assert after.start < before.end
        assert after.text.startswith(shared)
        assert count_tokens(shared) >= 6
    assert [c.id for c in chunks] == [f"d#{i}" for i in range(len(chunks))]
    assert all(
        (c.doc_id, c.title, c.source, c.section, c.page) == ("d", "T", "s", (), None)
        for c in chunks
    )
    assert chunks[-1].text.endswith(_sentence(11))


def test_no_overlap_means_chunks_tile_the_sentences():
    text = _text(10)
    chunks = Chunker(size=18, overlap=0).run(Document(id="d", text=text))
    assert [c.text for c in chunks] == [
        " ".join(_sentence(i) for i in range(j, min(j + 3, 10))) for j in range(0, 10, 3)
    ]


def test_overlap_is_skipped_when_it_cannot_fit():
    big = " ".join(["word"] * 12) + "."  # 13 tokens
    text = f"{big} {big} {big}"
    chunks = Chunker(size=16, overlap=7).run(Document(id="d", text=text))
    assert len(chunks) == 3
    assert [c.start for c in chunks] == [0, len(big) + 1, 2 * len(big) + 2]


def test_a_sentence_longer_than_size_is_cut_into_overlapping_token_pieces():
    words = [f"w{i}" for i in range(50)]
    text = "Intro here. " + " ".join(words) + ". Outro here."
    chunks = Chunker(size=16, overlap=4).run(Document(id="d", text=text))
    assert all(count_tokens(c.text) <= 16 for c in chunks)
    # the long sentence (51 tokens) is cut every 12 tokens, sharing 4 with the piece before
    assert [c.text.split()[0] for c in chunks] == ["Intro", "w0", "w12", "w24", "w36", "Outro"]
    assert [c.text.split()[-1] for c in chunks[1:4]] == ["w15", "w27", "w39"]
    assert chunks[4].text.endswith("w49.")
    assert chunks[-1].text == "Outro here."
    for chunk in chunks:
        assert text[chunk.start : chunk.end] == chunk.text == chunk.text.strip()


def test_chunks_never_cross_a_section_boundary():
    text = "# A\n\nFirst part. Still A.\n\n## B\n\nInside B. More B.\n\n# C\n\nIn C."
    sections = (
        Section(0, text.index("# C"), ("A",)),
        Section(text.index("## B"), text.index("# C"), ("A", "B")),
        Section(text.index("# C"), len(text), ("C",)),
    )
    doc = Document(id="m", text=text, sections=sections)
    chunks = Chunker(size=40, overlap=0).run(doc)
    assert [(c.text, c.section) for c in chunks] == [
        ("# A\n\nFirst part. Still A.", ("A",)),
        ("## B\n\nInside B. More B.", ("A", "B")),
        ("# C\n\nIn C.", ("C",)),
    ]


def test_chunks_carry_their_first_and_last_page():
    pages = ["Page one has text. " * 3, "Page two has text. " * 3]
    text = "\n\n".join(p.strip() for p in pages)
    first_end = len(pages[0].strip())
    doc = Document(
        id="p", text=text, pages=(Page(1, 0, first_end), Page(2, first_end + 2, len(text)))
    )
    chunks = Chunker(size=16, overlap=5).run(doc)
    assert chunks[0].page == chunks[0].page_end == 1
    assert chunks[-1].page == chunks[-1].page_end == 2
    crossing = [c for c in chunks if c.page != c.page_end]
    assert all((c.page, c.page_end) == (1, 2) for c in crossing)
    assert {c.page for c in chunks} == {1, 2}


@pytest.mark.parametrize("text", ["", "   \n\t "])
def test_blank_documents_have_no_chunks(text):
    assert Chunker().run(Document(id="e", text=text)) == ()


def test_text_the_sentence_splitter_drops_is_still_chunked():
    text = "  Odd text ))) ]]] ... \n\n ??? !!!  "
    chunks = Chunker(size=16, overlap=0).run(Document(id="o", text=text))
    covered = {i for c in chunks for i in range(c.start, c.end)}
    assert all(i in covered for i, ch in enumerate(text) if not ch.isspace())
