"""Chunker: option checks, sentence packing, overlap, long sentences, sections and pages."""

from __future__ import annotations

import itertools

import pytest

from veracity.corpus.chunker import Chunker, count_tokens, token_spans
from veracity.errors import OptionError
from veracity.text.sentences import split_sentences
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


# --- headings go with the body that follows them -------------------------------------------------
def _markdown(text: str) -> Document:
    from veracity.corpus._markdown import markdown_sections

    _, sections = markdown_sections(text)
    return Document(id="m.md", text=text, sections=sections)


def _html(markup: str) -> Document:
    from veracity.corpus._html import HtmlText

    page = HtmlText.parse(markup)
    return Document(id="p.html", text=page.text, sections=page.sections)


def _texts_and_sections(document: Document, **options: int) -> list[tuple[str, tuple[str, ...]]]:
    chunks = Chunker(**options).run(document)
    assert all(document.text[c.start : c.end] == c.text for c in chunks)
    return [(c.text, c.section) for c in chunks]


def test_a_heading_right_above_a_subheading_joins_the_subsection_chunk():
    doc = _markdown("# The Varroa Mite\n\n## Life cycle\n\nThe mite breeds in brood cells.\n")
    assert _texts_and_sections(doc) == [
        ("# The Varroa Mite\n\n## Life cycle\n\nThe mite breeds in brood cells.",
         ("The Varroa Mite", "Life cycle")),
    ]  # fmt: skip


def test_a_run_of_headings_joins_the_first_body_after_them():
    text = "# A\n\n## B\n\n### C\n\nBody of C. More of C.\n\n## D\n\nBody of D.\n"
    assert _texts_and_sections(_markdown(text), size=24, overlap=0) == [
        ("# A\n\n## B\n\n### C\n\nBody of C. More of C.", ("A", "B", "C")),
        ("## D\n\nBody of D.", ("A", "D")),
    ]


def test_a_heading_stays_with_a_first_sentence_that_nearly_fills_a_chunk():
    long = " ".join(f"w{i}" for i in range(15)) + "."  # 16 tokens: a chunk of size 16 alone
    text = f"# Title\n\n{long} Next sentence here."
    chunks = Chunker(size=16, overlap=0).run(_markdown(text))
    assert chunks[0].text.startswith("# Title\n\nw0 w1")
    assert all(count_tokens(c.text) <= 16 for c in chunks)
    assert all(c.text.strip("# \n") != "Title" for c in chunks)
    assert chunks[-1].text.endswith("Next sentence here.")


def test_html_headings_join_the_following_paragraph():
    doc = _html("<h1>Guide</h1><h2>Install</h2><p>Run the installer.</p><h2>Use</h2><p>Go.</p>")
    assert _texts_and_sections(doc) == [
        ("Guide\n\nInstall\n\nRun the installer.", ("Guide", "Install")),
        ("Use\n\nGo.", ("Guide", "Use")),
    ]


def test_an_html_heading_broken_by_br_still_counts_as_one_heading():
    doc = _html("<h1>Part one<br>of two</h1><h2>Intro</h2><p>Text here.</p>")
    assert _texts_and_sections(doc) == [
        ("Part one\nof two\n\nIntro\n\nText here.", ("Part one of two", "Intro")),
    ]


def test_a_document_that_is_only_headings_still_gives_one_chunk():
    assert _texts_and_sections(_markdown("# Only a title\n")) == [
        ("# Only a title", ("Only a title",)),
    ]
    assert _texts_and_sections(_markdown("# A\n## B\n")) == [("# A\n## B", ("A", "B"))]


def test_headings_at_the_end_of_a_document_keep_a_chunk_of_their_own():
    assert _texts_and_sections(_markdown("# A\n\nBody.\n\n## Appendix\n")) == [
        ("# A\n\nBody.", ("A",)),
        ("## Appendix", ("A", "Appendix")),
    ]


def test_headings_change_the_chunker_settings_so_old_indexes_are_rechunked():
    assert Chunker().settings["headings"] == "with-body"


def test_the_sample_corpus_has_no_chunk_that_is_only_a_heading():
    from pathlib import Path

    from veracity.corpus.loaders import iter_files, load_file

    root = Path(__file__).parents[2] / "examples" / "sample_corpus"
    chunker, seen, alone = Chunker(), 0, []
    for path in iter_files([root]):
        for document in load_file(path, root=root).documents:
            titles = {section.path[-1] for section in document.sections}
            for chunk in chunker.run(document):
                seen += 1
                lines = [line.strip().lstrip("#").strip() for line in chunk.text.splitlines()]
                if all(line in titles for line in lines if line):
                    alone.append(chunk.id)
    assert seen > 300
    assert alone == []  # 53 of 381 chunks before headings were joined to their body


def test_a_section_whose_heading_is_not_in_the_text_is_not_taken_for_one():
    text = "Workers develop in 21 days.\n\nDrones develop in 24 days."
    split = text.index("Drones")
    doc = Document(
        id="g.pdf",
        text=text,
        sections=(Section(0, split, ("Development",)), Section(split, len(text), ("Drones",))),
    )
    assert _texts_and_sections(doc, size=16, overlap=0) == [
        ("Workers develop in 21 days.", ("Development",)),
        ("Drones develop in 24 days.", ("Drones",)),
    ]
