"""Loaders: every format, document ids and titles, spans, and every kind of bad input."""

from __future__ import annotations

import codecs
import json
import os
import random
import time
from pathlib import Path

import pytest

from veracity import defaults
from veracity.corpus import _markdown, chunker
from veracity.corpus.loaders import (
    LOADERS,
    find_files,
    iter_files,
    load_file,
    parse_file,
    read_file,
)
from veracity.errors import DocumentError, InputError, OptionError

pytestmark = pytest.mark.unit


def _write(path: Path, content: str | bytes) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(content, str):
        path.write_text(content, encoding="utf-8")
    else:
        path.write_bytes(content)
    return path


def _only(path: Path, **kwargs: object):
    result = load_file(path, **kwargs)  # type: ignore[arg-type]
    assert result.failures == ()
    (document,) = result.documents
    return document


def _reason(path: Path, reason: str, **kwargs: object) -> DocumentError:
    with pytest.raises(DocumentError) as caught:
        load_file(path, **kwargs)  # type: ignore[arg-type]
    assert caught.value.reason == reason
    assert str(path) in str(caught.value)
    assert isinstance(caught.value, InputError)
    return caught.value


def test_registry_covers_the_default_extensions():
    assert set(LOADERS) == set(defaults.EXTENSIONS)


# --- plain text --------------------------------------------------------------------------------
def test_text_file_is_read_whole_with_id_relative_to_root(tmp_path):
    path = _write(tmp_path / "docs" / "sub" / "notes.txt", "The sky is blue.\nGrass is green.\n")
    doc = _only(path, root=tmp_path / "docs")
    assert doc.id == "sub/notes.txt"
    assert doc.title == "notes"
    assert doc.text == "The sky is blue.\nGrass is green.\n"
    assert doc.source == str(path)
    assert _only(path).id == "notes.txt"


@pytest.mark.parametrize(
    ("bom", "encoding"),
    [
        (codecs.BOM_UTF8, "utf-8"),
        (codecs.BOM_UTF16_LE, "utf-16-le"),
        (codecs.BOM_UTF16_BE, "utf-16-be"),
    ],
)
def test_text_with_a_bom_is_decoded_and_the_bom_removed(tmp_path, bom, encoding):
    text = "Café au lait — 3 €.\n"
    path = _write(tmp_path / "bom.txt", bom + text.encode(encoding))
    assert _only(path).text == text


# --- Markdown ------------------------------------------------------------------------------------
MARKDOWN = """Intro line.

# Guide #

Welcome text.

```python
# not a heading
```

## Install

Run pip.

### Linux
Use apt.

## Use

Call it.

# Appendix
End.
"""


def test_markdown_keeps_raw_text_and_gives_heading_sections(tmp_path):
    doc = _only(_write(tmp_path / "guide.md", MARKDOWN))
    assert doc.text == MARKDOWN
    assert doc.title == "Guide"
    paths = [section.path for section in doc.sections]
    assert paths == [
        ("Guide",),
        ("Guide", "Install"),
        ("Guide", "Install", "Linux"),
        ("Guide", "Use"),
        ("Appendix",),
    ]
    by_path = {section.path: section for section in doc.sections}
    guide, install = by_path[("Guide",)], by_path[("Guide", "Install")]
    assert MARKDOWN[guide.start :].startswith("# Guide #")
    assert guide.end == MARKDOWN.index("# Appendix")
    assert install.end == MARKDOWN.index("## Use")
    assert by_path[("Guide", "Install", "Linux")].end == MARKDOWN.index("## Use")
    assert by_path[("Appendix",)].end == len(MARKDOWN)
    assert doc.section_at(MARKDOWN.index("Use apt")) == ("Guide", "Install", "Linux")
    assert doc.section_at(MARKDOWN.index("not a heading")) == ("Guide",)
    assert doc.section_at(0) == ()


def test_restructured_text_is_read_as_plain_text_with_exact_spans(tmp_path):
    text = "mpmath\n======\n\nA Python library for *arbitrary-precision* arithmetic.\n"
    doc = _only(_write(tmp_path / "METADATA.rst", text))
    assert (doc.text, doc.title) == (text, "METADATA")


def test_markdown_without_headings_is_titled_by_its_file_name(tmp_path):
    doc = _only(_write(tmp_path / "plain-notes.markdown", "Just text, #nottag.\n"))
    assert (doc.title, doc.sections) == ("plain-notes", ())


SETEXT = """Beekeeping
==========

Bees make honey.

Hives and
frames
------
A hive holds frames.

---

Text after a thematic break.

- a list item
---

> a quote
---
"""


def test_setext_headings_are_sections_and_a_break_after_a_blank_line_is_not(tmp_path):
    doc = _only(_write(tmp_path / "setext.md", SETEXT))
    assert doc.title == "Beekeeping"
    assert [(s.path, s.start) for s in doc.sections] == [
        (("Beekeeping",), 0),
        (("Beekeeping", "Hives and frames"), SETEXT.index("Hives and")),
    ]
    assert doc.sections[0].end == len(SETEXT)
    assert doc.section_at(SETEXT.index("Text after")) == ("Beekeeping", "Hives and frames")


@pytest.mark.parametrize(
    ("text", "paths"),
    [
        ("Title\n=\n", [("Title",)]),
        ("Title\n   ---  \n", [("Title",)]),
        ("# Top\n\nSub\n---\nbody\n", [("Top",), ("Top", "Sub")]),
        ("Text.\n\n---\n", []),
        ("---\nText.\n", []),
        ("    indented code\n===\n", []),
        ("```\nin a fence\n---\n```\n", []),
        ("Para\n- list item\n---\n", []),
        ("# Heading\n---\n", [("Heading",)]),
    ],
)
def test_setext_underlines_follow_commonmark(text, paths):
    _, sections = _markdown.markdown_sections(text)
    assert [section.path for section in sections] == paths


def test_a_setext_heading_is_chunked_with_its_body(tmp_path):
    text = "Bees\n====\n\nHives\n-----\n\nA hive holds bees.\n"
    doc = _only(_write(tmp_path / "setext.md", text))
    (chunk,) = chunker.Chunker().run(doc)
    assert chunk.text == "Bees\n====\n\nHives\n-----\n\nA hive holds bees."
    assert chunk.section == ("Bees", "Hives")


# --- HTML ----------------------------------------------------------------------------------------
HTML = """<!DOCTYPE html>
<html><head><title>The  Page</title><style>p { color: red }</style>
<script>var secret = "<p>hidden</p>";</script></head>
<body>
<nav>Home</nav>
<h1>Bees &amp; wasps</h1>
<p>Bees   make
honey.<br>Wasps do&nbsp;not.</p>
<h2>Hives</h2><p>A hive holds <b>thousands</b> of bees.</p>
<ul><li>Queen</li><li>Workers</li></ul>
<h2>Stings</h2><p>Only females sting &lt;ouch&gt;.</p>
<script>document.write("also hidden")</script>
</body></html>"""


def test_html_text_skips_head_and_scripts_and_breaks_blocks(tmp_path):
    doc = _only(_write(tmp_path / "bees.html", HTML))
    assert doc.title == "The Page"
    assert "hidden" not in doc.text
    assert "color" not in doc.text
    assert "secret" not in doc.text
    assert doc.text == (
        "Home\n\nBees & wasps\n\nBees make honey.\nWasps do\xa0not.\n\nHives\n\n"
        "A hive holds thousands of bees.\n\nQueen\nWorkers\n\nStings\n\n"
        "Only females sting <ouch>."
    )


def test_html_headings_are_sections_over_the_extracted_text(tmp_path):
    doc = _only(_write(tmp_path / "bees.htm", HTML))
    spans = {section.path: section for section in doc.sections}
    assert list(spans) == [("Bees & wasps",), ("Bees & wasps", "Hives"), ("Bees & wasps", "Stings")]
    hives = spans[("Bees & wasps", "Hives")]
    assert doc.text[hives.start : hives.end].startswith("Hives\n\nA hive")
    assert hives.end == doc.text.index("Stings")
    assert spans[("Bees & wasps",)].end == len(doc.text)
    assert doc.section_at(doc.text.index("Workers")) == ("Bees & wasps", "Hives")
    assert doc.section_at(doc.text.index("Home")) == ()


def test_html_title_falls_back_to_first_h1_then_file_name(tmp_path):
    h1 = _only(_write(tmp_path / "a.html", "<h2>Second</h2><h1>First <i>one</i></h1><p>x</p>"))
    assert h1.title == "First one"
    plain = _only(_write(tmp_path / "b.html", "<p>No headings here.</p>"))
    assert plain.title == "b"


def test_html_pre_keeps_its_whitespace(tmp_path):
    doc = _only(_write(tmp_path / "code.html", "<p>Code:</p><pre>def f():\n    return 1</pre>"))
    assert doc.text == "Code:\n\ndef f():\n    return 1"


# --- PDF -----------------------------------------------------------------------------------------
def test_pdf_pages_are_spans_over_text_joined_by_blank_lines(tmp_path, make_pdf):
    path = make_pdf(tmp_path / "report.pdf", ["Alpha page.", "", "Gamma page."], title="Annual")
    doc = _only(path)
    assert doc.title == "Annual"
    assert doc.text == "Alpha page.\n\n\n\nGamma page."
    assert [page.number for page in doc.pages] == [1, 2, 3]
    assert [doc.text[page.start : page.end] for page in doc.pages] == [
        "Alpha page.",
        "",
        "Gamma page.",
    ]
    assert doc.page_at(doc.text.index("Gamma")) == 3
    untitled = _only(make_pdf(tmp_path / "untitled.pdf", ["Hello."]))
    assert untitled.title == "untitled"


def test_pdf_without_text_says_it_may_need_ocr(tmp_path, make_pdf):
    error = _reason(make_pdf(tmp_path / "scan.pdf", ["", ""]), "empty")
    assert "scanned" in str(error)
    assert "OCR" in str(error)


@pytest.mark.parametrize(
    "content", [b"%PDF-1.7\n1 0 obj garbage without end", b"this is not a pdf at all"]
)
def test_corrupt_pdf_is_refused(tmp_path, content):
    error = _reason(_write(tmp_path / "broken.pdf", content), "corrupt_pdf")
    assert "repair" in str(error)


def test_truncated_pdf_is_corrupt(tmp_path, make_pdf):
    data = make_pdf(tmp_path / "whole.pdf", ["Some text here."]).read_bytes()
    path = _write(tmp_path / "cut.pdf", data[: len(data) // 3])
    _reason(path, "corrupt_pdf")


@pytest.mark.parametrize("cut", [8, 30], ids=["no-eof-marker", "no-trailer"])
def test_pypdf_log_lines_do_not_leak_only_our_error_does(tmp_path, make_pdf, cut):
    import logging

    class Collect(logging.Handler):
        def __init__(self) -> None:
            super().__init__(logging.DEBUG)
            self.messages: list[str] = []

        def emit(self, record: logging.LogRecord) -> None:
            self.messages.append(record.getMessage())

    data = make_pdf(tmp_path / "whole.pdf", ["Some text here."]).read_bytes()
    path = _write(tmp_path / "cut.pdf", data[:-cut])
    logger = logging.getLogger("pypdf")
    collect = Collect()
    logger.addHandler(collect)
    logger.setLevel(logging.INFO)  # whatever the application chose
    try:
        with pytest.raises(DocumentError) as caught:
            load_file(path)
        assert logger.level == logging.INFO  # given back after the read
    finally:
        logger.removeHandler(collect)
        logger.setLevel(logging.NOTSET)
    assert caught.value.reason == "corrupt_pdf"
    assert collect.messages == []


def test_pypdf_warnings_and_records_are_silenced_only_during_a_read(
    tmp_path, make_pdf, monkeypatch, caplog, recwarn
):
    import logging
    import warnings

    import pypdf

    real_reader = pypdf.PdfReader

    def noisy_reader(*args, **kwargs):  # as pypdf does when it repairs a file
        logging.getLogger("pypdf._reader").warning("EOF marker not found")
        warnings.warn("pypdf: something odd", UserWarning, stacklevel=2)
        return real_reader(*args, **kwargs)

    monkeypatch.setattr(pypdf, "PdfReader", noisy_reader)
    path = make_pdf(tmp_path / "ok.pdf", ["Readable text."])
    with caplog.at_level(logging.WARNING):
        assert _only(path).text == "Readable text."
        assert [r for r in caplog.records if r.name.startswith("pypdf")] == []
        assert len(recwarn) == 0
        logging.getLogger("pypdf._reader").warning("after the read")  # not silenced any more
    assert [r.getMessage() for r in caplog.records] == ["after the read"]


# --- JSONL ---------------------------------------------------------------------------------------
def test_jsonl_gives_one_document_per_line(tmp_path):
    lines = [
        {
            "id": "a",
            "text": "Alpha text.",
            "title": "Alpha",
            "metadata": {"year": 2020, "ok": True},
        },
        {"id": "b", "text": "Beta text.", "metadata": {"score": 0.5, "note": None}},
    ]
    body = "\n".join(json.dumps(line) for line in lines) + "\n\n"
    path = _write(tmp_path / "docs.jsonl", body)
    result = load_file(path)
    assert result.failures == ()
    a, b = result.documents
    assert (a.id, a.title, a.text, dict(a.metadata)) == (
        "a",
        "Alpha",
        "Alpha text.",
        {"year": 2020, "ok": True},
    )
    assert (b.id, b.title, dict(b.metadata)) == ("b", "b", {"score": 0.5, "note": None})
    assert a.source == f"{path}:1"
    assert b.source == f"{path}:2"


@pytest.mark.parametrize(
    ("line", "needle"),
    [
        ("{not json", "not valid JSON"),
        ('["id", "text"]', "not an object"),
        ('{"text": "no id"}', "'id'"),
        ('{"id": 7, "text": "numeric id"}', "'id' must be a string"),
        ('{"id": "x"}', "'text'"),
        ('{"id": "x", "text": "   "}', "'text' is empty"),
        ('{"id": "x", "text": 5}', "'text' must be a string"),
        ('{"id": "x", "text": "t", "title": 3}', "'title' must be a string"),
        ('{"id": "x", "text": "t", "metadata": {"tags": ["a"]}}', "metadata key 'tags'"),
        ('{"id": "x", "text": "t", "metadata": [1]}', "'metadata' must be an object"),
    ],
)
def test_bad_jsonl_line_fails_alone_and_names_line_and_field(tmp_path, line, needle):
    good = json.dumps({"id": "good", "text": "Fine."})
    path = _write(tmp_path / "mixed.jsonl", f"{good}\n{line}\n{good.replace('good', 'also')}\n")
    result = load_file(path)
    assert [doc.id for doc in result.documents] == ["good", "also"]
    (failure,) = result.failures
    assert failure.reason == "bad_line"
    assert failure.path == f"{path}:2"
    assert "line 2" in str(failure)
    assert needle in str(failure)


def test_duplicate_jsonl_id_names_both_lines(tmp_path):
    rows = [
        {"id": "x", "text": "first"},
        {"id": "y", "text": "other"},
        {"id": "x", "text": "again"},
    ]
    path = _write(tmp_path / "dup.jsonl", "\n".join(json.dumps(r) for r in rows))
    result = load_file(path)
    assert [(d.id, d.text) for d in result.documents] == [("x", "first"), ("y", "other")]
    (failure,) = result.failures
    assert failure.reason == "duplicate_id"
    assert failure.path == f"{path}:3"
    assert "line 3" in str(failure)
    assert "line 1" in str(failure)


def test_jsonl_with_only_blank_lines_is_empty(tmp_path):
    _reason(_write(tmp_path / "blank.jsonl", "\n  \n"), "empty")


# --- bad input -----------------------------------------------------------------------------------
def test_missing_file(tmp_path):
    _reason(tmp_path / "nope.txt", "missing")
    _reason(tmp_path / "nope.docx", "missing")


def test_folder_is_unreadable(tmp_path):
    (tmp_path / "folder.txt").mkdir()
    error = _reason(tmp_path / "folder.txt", "unreadable")
    assert "folder" in str(error)


def test_file_without_read_permission_is_unreadable(tmp_path, monkeypatch):
    path = _write(tmp_path / "secret.txt", "hidden")
    if os.geteuid() == 0:  # root reads anything: make the OS answer as it would for a user
        real_open = Path.open

        def denied(self, *args, **kwargs):
            if self == path:
                raise PermissionError(13, "Permission denied", str(self))
            return real_open(self, *args, **kwargs)

        monkeypatch.setattr(Path, "open", denied)
    path.chmod(0)
    try:
        error = _reason(path, "unreadable")
    finally:
        path.chmod(0o600)
    assert "permission denied" in str(error)


@pytest.mark.parametrize(
    "content",
    [
        b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR",
        bytes(range(1, 32)) * 50,
        random.Random(0).randbytes(4000).replace(b"\x00", b"\x01"),
    ],
    ids=["nul", "controls", "random"],
)
def test_binary_content_is_refused(tmp_path, content):
    error = _reason(_write(tmp_path / "image.txt", content), "binary")
    assert "binary" in str(error)


def test_text_in_another_encoding_is_undecodable_with_a_fix(tmp_path):
    for encoding in ("latin-1", "cp1251"):
        text = "Café crème, déjà vu." if encoding == "latin-1" else "Привет, мир! Как дела?"
        path = _write(tmp_path / f"{encoding}.md", text.encode(encoding))
        error = _reason(path, "undecodable")
        assert "UTF-8" in str(error)
        assert "iconv" in str(error)


@pytest.mark.parametrize("name", ["empty.txt", "blank.md", "nothing.html"])
def test_files_without_text_are_empty(tmp_path, name):
    content = {
        "empty.txt": "",
        "blank.md": " \n\t\n",
        "nothing.html": "<html><script>x()</script></html>",
    }
    _reason(_write(tmp_path / name, content[name]), "empty")


def test_a_100_mb_file_is_refused_without_reading_it(tmp_path):
    path = tmp_path / "huge.txt"
    with path.open("wb") as handle:  # sparse: no 100 MB written to disk
        handle.truncate(100 * 1024 * 1024)
    began = time.perf_counter()
    error = _reason(path, "too_large")
    assert time.perf_counter() - began < 1.0
    assert f"{defaults.MAX_FILE_BYTES:,}" in str(error)
    assert "split" in str(error)


def test_size_limit_is_exact(tmp_path, monkeypatch):
    monkeypatch.setattr(defaults, "MAX_FILE_BYTES", 64)
    at_limit = _write(tmp_path / "at.txt", "a" * 64)
    over = _write(tmp_path / "over.txt", "a" * 65)
    assert _only(at_limit).text == "a" * 64
    error = _reason(over, "too_large")
    assert "65 bytes" in str(error)
    assert "64 bytes" in str(error)
    _reason(at_limit, "too_large", max_bytes=63)


def test_unknown_extension_lists_the_supported_ones(tmp_path):
    error = _reason(_write(tmp_path / "report.docx", "x"), "unknown_extension")
    for extension in LOADERS:
        assert extension in str(error)
    error = _reason(_write(tmp_path / "README", "x"), "unknown_extension")
    assert "no file extension" in str(error)


def test_extension_match_ignores_case(tmp_path):
    assert _only(_write(tmp_path / "LOUD.TXT", "Hello.")).text == "Hello."


def test_parse_file_reads_given_bytes_without_touching_the_disk(tmp_path):
    result = parse_file(tmp_path / "never-written.md", b"# T\nbody", root=tmp_path)
    assert result.documents[0].id == "never-written.md"
    assert read_file(_write(tmp_path / "x.txt", b"abc")) == b"abc"


# --- finding files -------------------------------------------------------------------------------
def test_iter_files_expands_folders_sorted_and_skips_hidden_and_unknown(tmp_path):
    docs = tmp_path / "docs"
    for name in ["b.txt", "a.md", "sub/c.html", "sub/deeper/d.pdf", "z.jsonl", "image.png",
                 ".hidden.txt", ".git/config.txt", "sub/.cache/e.md"]:  # fmt: skip
        _write(docs / name, "x")
    explicit = _write(tmp_path / "notes.docx", "x")
    found = iter_files([docs, explicit, docs / "a.md"])
    assert [p.relative_to(tmp_path).as_posix() for p in found] == [
        "docs/a.md",
        "docs/b.txt",
        "docs/sub/c.html",
        "docs/sub/deeper/d.pdf",
        "docs/z.jsonl",
        "notes.docx",
    ]


def test_iter_files_refuses_a_missing_path(tmp_path):
    with pytest.raises(DocumentError) as caught:
        iter_files([tmp_path / "gone"])
    assert caught.value.reason == "missing"


def test_html_body_starts_without_a_body_tag(tmp_path):
    doc = _only(_write(tmp_path / "lazy.html", "<head><title>Lazy</title><p>Body text.</p>"))
    assert (doc.title, doc.text) == ("Lazy", "Body text.")


def test_iter_files_refuses_a_folder_it_cannot_list(tmp_path, monkeypatch):
    locked = tmp_path / "docs" / "locked"
    _write(locked / "a.txt", "x")
    real_scandir = os.scandir

    def scandir(path):  # what the OS does for a folder without read permission
        if Path(path) == locked:
            raise PermissionError(13, "Permission denied", str(path))
        return real_scandir(path)

    monkeypatch.setattr(os, "scandir", scandir)
    with pytest.raises(DocumentError) as caught:
        iter_files([tmp_path / "docs"])
    assert caught.value.reason == "unreadable"
    assert caught.value.path == str(locked)


def test_root_must_contain_the_file(tmp_path):
    path = _write(tmp_path / "a" / "x.txt", "text")
    with pytest.raises(OptionError, match="root="):
        load_file(path, root=tmp_path / "b")


# --- files that are not regular files ------------------------------------------------------------
def _fifo(path: Path) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    os.mkfifo(path)
    return path


def _socket(path: Path) -> Path:
    import socket

    server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    server.bind(str(path))
    server.close()  # the socket file stays behind
    return path


@pytest.mark.parametrize(
    ("make", "kind"),
    [(_fifo, "named pipe"), (_socket, "socket")],
    ids=["fifo", "socket"],
)
def test_a_pipe_or_socket_is_refused_without_being_opened(tmp_path, bounded, make, kind):
    path = make(tmp_path / "notes.txt")
    with pytest.raises(DocumentError) as caught:
        bounded(5, lambda: load_file(path))
    assert caught.value.reason == "special_file"
    assert kind in str(caught.value)
    assert "regular file" in str(caught.value)
    with pytest.raises(DocumentError, match="not a regular file"):
        bounded(5, lambda: read_file(path))


@pytest.mark.parametrize(
    ("device", "kind"),
    [("/dev/zero", "character device"), ("/dev/null", "character device")],
)
def test_a_device_is_refused_without_reading_it(bounded, device, kind):
    if not Path(device).exists():
        pytest.skip(f"{device} does not exist here")
    with pytest.raises(DocumentError) as caught:
        bounded(5, lambda: read_file(device))
    assert caught.value.reason == "special_file"
    assert kind in str(caught.value)


def test_standard_input_through_dev_stdin_is_refused(tmp_path, bounded, monkeypatch):
    fifo = _fifo(tmp_path / "stdin-pipe")
    if not Path("/dev/stdin").exists():
        pytest.skip("no /dev/stdin here")
    real_stat = os.stat

    def stat(path, *args, **kwargs):  # /dev/stdin -> a pipe nobody writes to, as in `cmd |`
        return real_stat(fifo if str(path) == "/dev/stdin" else path, *args, **kwargs)

    monkeypatch.setattr(os, "stat", stat)
    with pytest.raises(DocumentError) as caught:
        bounded(5, lambda: read_file("/dev/stdin"))
    assert caught.value.reason == "special_file"


def test_a_fifo_in_a_folder_is_listed_and_then_refused(tmp_path, bounded):
    docs = tmp_path / "docs"
    _write(docs / "a.txt", "A regular file.")
    fifo = _fifo(docs / "pipe.txt")
    assert iter_files([docs]) == [docs / "a.txt", fifo]
    with pytest.raises(DocumentError, match="named pipe"):
        bounded(5, lambda: load_file(fifo, root=docs))


def test_find_files_collects_every_bad_path_and_goes_on(tmp_path, monkeypatch):
    docs = tmp_path / "docs"
    for name in ["a.txt", "locked/b.txt", "open/c.md"]:
        _write(docs / name, "x")
    real_scandir = os.scandir

    def scandir(path):
        if Path(path) == docs / "locked":
            raise PermissionError(13, "Permission denied", str(path))
        return real_scandir(path)

    monkeypatch.setattr(os, "scandir", scandir)
    found = find_files([tmp_path / "gone", docs, tmp_path / "gone.md"])
    assert list(found.files) == [docs / "a.txt", docs / "open" / "c.md"]
    assert [(f.path, f.reason) for f in found.failures] == [
        (str(tmp_path / "gone"), "missing"),
        (str(docs / "locked"), "unreadable"),
        (str(tmp_path / "gone.md"), "missing"),
    ]
    with pytest.raises(DocumentError) as caught:
        iter_files([docs, tmp_path / "gone"])
    assert caught.value.path == str(docs / "locked")


# --- symbolic links that loop (Harden-2 #13) -------------------------------------------------


def test_a_given_link_that_loops_is_called_a_loop_not_missing(tmp_path):
    (tmp_path / "b").symlink_to("c")
    (tmp_path / "c").symlink_to("b")
    found = find_files([tmp_path / "b"])
    assert found.files == ()
    [error] = found.failures
    assert error.reason == "symlink_loop"
    assert f"{tmp_path / 'b'} -> c -> b" in str(error)
    assert "does not exist" not in str(error)
    with pytest.raises(DocumentError, match="is a symbolic link that loops") as raised:
        read_file(tmp_path / "b")
    assert raised.value.reason == "symlink_loop"


def test_links_in_a_folder_that_loop_or_lead_nowhere_are_named_not_skipped_silently(tmp_path):
    (tmp_path / "a.md").write_text("Bees dance.")
    (tmp_path / "loop").symlink_to("loop")  # no extension: was skipped silently
    (tmp_path / "loop.md").symlink_to("loop.md")
    (tmp_path / "gone.md").symlink_to("nowhere.md")
    (tmp_path / "gone.png").symlink_to("nowhere.png")  # not a format read: left alone
    (tmp_path / "up").symlink_to(".")  # a folder link: never followed
    found = find_files([tmp_path])
    assert found.files == (tmp_path / "a.md",)
    assert sorted((Path(e.path).name, e.reason) for e in found.failures) == [
        ("gone.md", "missing"),
        ("loop", "symlink_loop"),
        ("loop.md", "symlink_loop"),
    ]
    gone = next(e for e in found.failures if e.reason == "missing")
    assert "is a symbolic link to a path that does not exist" in str(gone)
