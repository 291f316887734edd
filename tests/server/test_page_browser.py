"""The page in a real browser (Playwright driving the machine's Chromium, Debian package
`chromium`; Playwright's own browser download is never used): click [1] and see exactly the
cited characters; paste the demo's wrong answer and see its 1983 claim contradicted.
Screenshots go to .cache/test-artifacts/server/."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import httpx
import pytest

from veracity.corpus.indexer import Indexer
from veracity.retrieve.bm25 import BM25Builder
from veracity.testing import OverlapSpanDetector, TablePairScorer
from veracity.types import PairScore, PairScores, Span

from .conftest import ARTIFACTS, EXAMPLES, FixedChat, LiveServer, settings_for

pytestmark = pytest.mark.integration

# `browser` (the machine's Chromium through Playwright) comes from tests/conftest.py.


@pytest.fixture(scope="module")
def page(browser: Any, live: LiveServer) -> Iterator[Any]:
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    opened = browser.new_page()
    errors: list[str] = []
    opened.on("pageerror", lambda error: errors.append(str(error)))
    opened.goto(live.url + "/")
    yield opened
    opened.close()
    assert errors == []


def test_clicking_a_marker_highlights_exactly_the_cited_span(page: Any, live: LiveServer) -> None:
    page.fill("#question", "How many days does a queen take to develop from egg to adult?")
    page.click("#ask-button")
    page.wait_for_selector("#ask-status:has-text('answered')", timeout=120_000)
    marker = page.locator("#answer button.marker").first
    assert marker.inner_text() == "[1]"
    marker.focus()
    page.keyboard.press("Enter")  # keyboard, as a reader without a mouse would
    page.wait_for_selector("#cited", timeout=30_000)
    answer = httpx.post(
        f"{live.url}/v1/ask",
        json={"question": "How many days does a queen take to develop from egg to adult?"},
        timeout=120,
    ).json()
    citation = answer["sentences"][0]["citations"][0]
    document = httpx.get(f"{live.url}/v1/documents/{citation['doc_id']}", timeout=30).json()
    assert page.inner_text("#cited") == document["text"][citation["start"] : citation["end"]]
    assert page.inner_text("#doc-title") == document["title"]
    assert " › ".join(citation["section"]) in page.inner_text("#doc-where")
    assert page.evaluate("document.activeElement.id") == "cited"
    in_view = page.evaluate("""() => { const r = document.getElementById('cited')
        .getBoundingClientRect(); const p = document.getElementById('doc-text')
        .getBoundingClientRect(); return r.top >= p.top - 1 && r.top <= p.bottom; }""")
    assert in_view
    page.screenshot(path=str(ARTIFACTS / "ask-cited-span.png"), full_page=True)


def test_the_verify_view_shows_the_1983_claim_contradicted(page: Any) -> None:
    page.click("#tab-verify")
    answer = (EXAMPLES / "answer_to_check.md").read_text(encoding="utf-8")
    page.fill("#verify-answer", answer)
    page.click("#verify-button")
    page.wait_for_selector("#verify-status:has-text('claims:')", timeout=120_000)
    claim = page.locator("#claims button.claim", has_text="1983")
    assert claim.get_attribute("data-label") == "contradicted"
    claim.click()
    assert "contradicts:" in page.inner_text("#claim-detail")
    page.screenshot(path=str(ARTIFACTS / "verify-contradicted.png"), full_page=True)


def test_user_text_is_shown_as_text_never_markup(page: Any) -> None:
    page.click("#tab-verify")
    page.check("input[name=against][value=pasted]")
    page.fill(
        "#verify-answer",
        "Bees <script>window.pwned = 1</script> dance [bold]. <img src=x onerror=window.pwned=2>",
    )
    page.fill("#verify-sources", "Bees dance.")
    page.click("#verify-button")
    page.wait_for_selector("#verify-status:has-text('claims:')", timeout=120_000)
    shown = page.inner_text("#verified")
    assert "<script>window.pwned = 1</script>" in shown
    assert "[bold]" in shown
    assert page.evaluate("window.pwned === undefined")
    assert page.locator("#verified script, #verified img, #claims img").count() == 0


def test_the_repair_view_shows_1983_replaced_by_1973_as_a_diff(page: Any) -> None:
    page.click("#tab-repair")
    assert page.is_visible("#view-repair #against")  # the sources choice moved with the view
    page.check("input[name=against][value=index]")
    page.fill("#repair-answer", (EXAMPLES / "answer_to_check.md").read_text(encoding="utf-8"))
    page.select_option("#repair-policy", "revise")
    page.click("#repair-button")
    page.wait_for_selector("#repair-status:has-text('supported before')", timeout=120_000)
    # The first change is the year (a falsely contradicted claim would follow, replaced by the
    # source's own words, see tests/repair).
    assert page.locator("#repaired del").all_inner_texts()[0] == "1983"
    assert page.locator("#repaired ins").all_inner_texts()[0] == "1973"
    revised = page.locator("#edits button.claim", has_text="1983")
    assert revised.get_attribute("data-action") == "revised"
    revised.click()
    detail = page.inner_text("#edit-detail")
    assert "“1983” → “1973”" in detail
    assert "contradicts:" in detail
    page.screenshot(path=str(ARTIFACTS / "repair-diff.png"), full_page=True)


def test_verifying_against_picked_documents_uses_only_them(page: Any, live: LiveServer) -> None:
    page.click("#tab-verify")
    page.check("input[name=against][value=picked]")
    page.wait_for_selector("#doc-pick input[type=checkbox]", timeout=30_000)
    documents = httpx.get(f"{live.url}/v1/documents", timeout=30).json()["documents"]
    assert page.locator("#doc-pick input[type=checkbox]").count() == len(documents)
    page.fill("#verify-answer", "Karl von Frisch shared the Nobel Prize in 1983.")
    page.click("#verify-button")  # nothing picked yet: the page says what to do
    page.wait_for_selector("#verify-status:has-text('pick at least one document')")
    dance = next(d for d in documents if "waggle" in (d["title"] or "").lower())
    page.check(f"#doc-pick input[value='{dance['id']}']")
    page.click("#verify-button")
    page.wait_for_selector("#verify-status:has-text('claims:')", timeout=120_000)
    claim = page.locator("#claims button.claim", has_text="1983")
    assert claim.get_attribute("data-label") == "contradicted"
    claim.click()
    shown = [
        line
        for line in page.inner_text("#claim-detail").splitlines()
        if line.startswith(("supports: ", "contradicts: "))
    ]
    assert shown
    assert all(dance["title"] in line for line in shown)


# --- the page's defects found by new users (issue Harden-2), on fake models -------------------
# A small hostile corpus: an index document whose id is "text-1" (the ids pasted sources get),
# two documents with the same title, and a long one whose cited passage lies far down.
AIRSHIPS = "# Airships\n\n" + "".join(
    (
        f"Paragraph {n} tells of the weather over the moor in plain words, as the log kept it.\n\n"
        if n != 45
        else "The hangar at Cardington is 247 metres long. It housed the R101 airship "
        "from 1929. Its doors weigh many tonnes.\n\n"
    )
    for n in range(90)
)
LIGHTHOUSE = (
    "The Fastnet lighthouse stands on a rock off the south coast of Ireland. Its light "
    "flashes every five seconds."
)


class SentenceScorer(TablePairScorer):
    """Supports every claim; its evidence is the premise's sentence that shares the most words
    with the claim (as the shipped verifier names the sentences it read)."""

    def __init__(self) -> None:
        super().__init__({}, default=(0.9, 0.05, 0.05))

    def run(self, premises: Sequence[str], hypotheses: Sequence[str]) -> PairScores:
        scores = []
        for premise, claim in zip(premises, hypotheses, strict=True):
            words = set(re.findall(r"\w+", claim.lower()))
            best = max(
                re.finditer(r"[^.!?\n]+[.!?]", premise),
                default=None,
                key=lambda m: len(words & set(re.findall(r"\w+", m.group().lower()))),
            )
            evidence = () if best is None else (Span(best.start(), best.end()),)
            scores.append(
                PairScore(0.9, 0.05, 0.05, window=Span(0, len(premise)), evidence=evidence)
            )
        return PairScores(tuple(scores), "sentences", "0")


@pytest.fixture(scope="module")
def hostile_index(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("hostile")
    (root / "collide.jsonl").write_text(
        json.dumps({"id": "text-1", "title": "Lighthouse notes", "text": LIGHTHOUSE}) + "\n",
        encoding="utf-8",
    )
    for folder, place, count in (("a", "Ohio", "forty"), ("b", "Kent", "three")):
        (root / folder).mkdir()
        (root / folder / "notes.md").write_text(
            f"# Hive notes\n\nThe beekeeper in {place} keeps {count} hives of bees.\n",
            encoding="utf-8",
        )
    (root / "long.md").write_text(AIRSHIPS, encoding="utf-8")
    index = tmp_path_factory.mktemp("hostile-index") / "index"
    Indexer(builders=[BM25Builder()]).run([root], index)
    return index


@pytest.fixture(scope="module")
def chat() -> FixedChat:
    return FixedChat()


@pytest.fixture(scope="module")
def hostile(hostile_index: Path, chat: FixedChat) -> Iterator[LiveServer]:
    with LiveServer(
        settings_for(hostile_index, scorer=SentenceScorer(), chat=chat, question_chars=200)
    ) as server:
        yield server


@pytest.fixture(scope="module")
def locked(hostile_index: Path) -> Iterator[LiveServer]:
    with LiveServer(settings_for(hostile_index, token="s3cret-token")) as server:
        yield server


@pytest.fixture
def fresh(browser: Any) -> Iterator[Any]:
    """A new page (1280 x 720, clipboard allowed) that fails the test on a script error or a
    failed request; open it with ``fresh.goto(url)``."""
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    context = browser.new_context(
        viewport={"width": 1280, "height": 720}, permissions=["clipboard-read", "clipboard-write"]
    )
    opened = context.new_page()
    errors: list[str] = []
    opened.on("pageerror", lambda error: errors.append(str(error)))
    opened.on(
        "response",
        lambda r: errors.append(f"{r.status} {r.url}") if r.status in (404, 500) else None,
    )
    yield opened
    context.close()
    assert errors == []


def ask_and_open(page: Any, question: str) -> None:
    page.click("#tab-ask")
    page.fill("#question", question)
    page.click("#ask-button")
    page.wait_for_selector("#ask-status:has-text('answered')", timeout=30_000)
    page.locator("#answer button.marker").first.click()
    page.wait_for_selector("#cited", timeout=30_000)


def verify_pasted(page: Any, answer: str, sources: str) -> None:
    page.click("#tab-verify")
    page.check("input[name=against][value=pasted]")
    page.fill("#verify-answer", answer)
    page.fill("#verify-sources", sources)
    page.click("#verify-button")
    page.wait_for_selector("#verify-status:has-text('claims:')", timeout=30_000)


def test_a_cited_index_document_is_not_taken_for_a_pasted_source(
    fresh: Any, hostile: LiveServer, chat: FixedChat
) -> None:
    """The index's document text-1 is cited after pasted sources (ids text-1, ...) were
    verified: the page opens the index's document, not the pasted text."""
    fresh.goto(hostile.url + "/")
    verify_pasted(fresh, "Bees dance in the hive.", "Bees dance in the hive to show food.")
    chat.reply = "The Fastnet lighthouse stands off the coast of Ireland [1]."
    ask_and_open(fresh, "Where does the Fastnet lighthouse stand?")
    assert "Fastnet lighthouse" in fresh.inner_text("#doc-text")
    assert "Bees dance" not in fresh.inner_text("#doc-text")
    assert fresh.inner_text("#doc-title") == "Lighthouse notes"


def test_a_very_long_word_does_not_widen_the_page(fresh: Any, hostile: LiveServer) -> None:
    fresh.goto(hostile.url + "/")
    verify_pasted(fresh, "Bees dance. The word " + "x" * 3000 + " is long.", "Bees dance.")
    fresh.locator("#claims button.claim").last.click()
    width = fresh.evaluate("[document.documentElement.scrollWidth, window.innerWidth]")
    assert width[0] <= width[1], width  # before: 28,563 px wide


def test_the_document_panel_stays_hidden_until_a_passage_is_opened(
    fresh: Any, hostile: LiveServer
) -> None:
    fresh.goto(hostile.url + "/")
    assert not fresh.locator("#document").is_visible()  # before: an empty panel showed


def test_the_status_is_not_left_red_after_a_later_success(
    fresh: Any, hostile: LiveServer, chat: FixedChat
) -> None:
    fresh.goto(hostile.url + "/")
    fresh.fill("#question", "Why? " * 60)  # over this server's question_chars = 200
    fresh.click("#ask-button")
    fresh.wait_for_selector("#ask-status:has-text('question_chars')", timeout=30_000)
    assert fresh.get_attribute("#ask-status", "class") == "error"
    chat.reply = "The Fastnet lighthouse stands off the coast of Ireland [1]."
    fresh.fill("#question", "Where does the Fastnet lighthouse stand?")
    fresh.click("#ask-button")
    fresh.wait_for_selector("#ask-status:has-text('answered')", timeout=30_000)
    assert fresh.get_attribute("#ask-status", "class") != "error"
    color = fresh.evaluate("getComputedStyle(document.getElementById('ask-status')).color")
    assert color != "rgb(176, 0, 32)"  # .error's red


def test_the_verify_view_has_a_legend_for_every_verdict(fresh: Any, hostile: LiveServer) -> None:
    fresh.goto(hostile.url + "/")
    verify_pasted(fresh, "Bees dance.", "Bees dance.")
    legend = fresh.locator("#view-verify .legend")
    assert legend.is_visible()
    for label in ("supported", "contradicted", "unsupported", "error"):
        swatch = legend.locator(f".verdict-{label}")
        assert swatch.inner_text() == label
        claim_style = fresh.evaluate(
            """label => { const b = document.createElement('button');
            b.className = 'claim verdict-' + label; document.body.append(b);
            const color = getComputedStyle(b).borderLeftColor; b.remove(); return color; }""",
            label,
        )
        assert swatch.evaluate("s => getComputedStyle(s).borderLeftColor") == claim_style


def test_a_citation_highlights_the_sentence_that_supports_it_in_its_passage(
    fresh: Any, hostile: LiveServer, chat: FixedChat
) -> None:
    chat.reply = "The hangar at Cardington is 247 metres long [1]."
    fresh.goto(hostile.url + "/")
    ask_and_open(fresh, "How long is the hangar at Cardington?")
    answer = httpx.post(
        f"{hostile.url}/v1/ask",
        json={"question": "How long is the hangar at Cardington?"},
        timeout=30,
    ).json()
    citation = answer["sentences"][0]["citations"][0]
    text = httpx.get(f"{hostile.url}/v1/documents/{citation['doc_id']}", timeout=30).json()["text"]
    assert citation["evidence"]
    assert fresh.locator("#doc-text mark").all_inner_texts() == [
        text[start:end] for start, end in citation["evidence"]
    ]
    assert fresh.locator("#doc-text mark").all_inner_texts() == [
        "The hangar at Cardington is 247 metres long."
    ]
    # the whole passage is still shown, shaded around the marked sentence
    assert fresh.inner_text("#cited") == text[citation["start"] : citation["end"]]
    assert len(fresh.inner_text("#cited")) > 2 * len("The hangar at Cardington is 247 metres.")


@pytest.mark.parametrize("size", [(1280, 720), (1024, 450), (800, 450)])
def test_opening_a_passage_keeps_its_title_in_view(
    fresh: Any, hostile: LiveServer, chat: FixedChat, size: tuple[int, int]
) -> None:
    chat.reply = "The hangar at Cardington is 247 metres long [1]."
    fresh.set_viewport_size({"width": size[0], "height": size[1]})
    fresh.goto(hostile.url + "/")
    ask_and_open(fresh, "How long is the hangar at Cardington?")
    seen = fresh.evaluate("""() => {
        const rect = (id) => document.getElementById(id).getBoundingClientRect();
        const mark = document.querySelector('#doc-text mark').getBoundingClientRect();
        return {title: rect('doc-title'), text: rect('doc-text'), mark: mark,
                height: window.innerHeight}; }""")
    assert seen["title"]["top"] >= 0, seen
    assert seen["title"]["bottom"] <= seen["height"], seen
    assert seen["text"]["top"] <= seen["mark"]["top"] <= seen["text"]["bottom"], seen
    fresh.screenshot(path=str(ARTIFACTS / f"long-document-title-in-view-{size[0]}.png"))


def test_the_page_has_an_icon(fresh: Any, hostile: LiveServer) -> None:
    icon = httpx.get(f"{hostile.url}/favicon.ico", timeout=30)
    assert icon.status_code == 200
    assert icon.headers["content-type"].startswith("image/")
    fresh.goto(hostile.url + "/")
    declared = fresh.evaluate("document.querySelector('link[rel=icon]').href")
    assert httpx.get(declared, timeout=30).status_code == 200


def test_without_a_token_the_page_points_at_its_token_box(fresh: Any, locked: LiveServer) -> None:
    fresh.goto(locked.url + "/")
    fresh.wait_for_selector("#token-box", state="visible")
    fresh.fill("#question", "Where does the Fastnet lighthouse stand?")
    fresh.click("#ask-button")
    fresh.wait_for_selector("#ask-status.error", timeout=30_000)
    status = fresh.inner_text("#ask-status")
    assert "Token box" in status
    assert "Authorization" not in status
    assert fresh.evaluate("document.activeElement.id") == "token"
    fresh.fill("#token", "s3cret-token")
    fresh.click("#ask-button")
    fresh.wait_for_selector("#ask-status:has-text('answered')", timeout=30_000)


def test_repair_gives_the_repaired_text_and_a_copy_button(fresh: Any, hostile: LiveServer) -> None:
    fresh.goto(hostile.url + "/")
    fresh.click("#tab-repair")
    fresh.check("input[name=against][value=pasted]")
    answer = "Bees dance in the hive. The moon is made of cheese."
    fresh.fill("#repair-answer", answer)
    fresh.fill("#verify-sources", "Bees dance in the hive.")
    fresh.select_option("#repair-policy", "delete")
    fresh.click("#repair-button")
    fresh.wait_for_selector("#repair-status:has-text('supported before')", timeout=30_000)
    repaired = httpx.post(
        f"{hostile.url}/v1/repair",
        json={"answer": answer, "sources": ["Bees dance in the hive."], "policy": "delete"},
        timeout=30,
    ).json()["text"]
    assert fresh.is_visible("#repaired-text")
    assert fresh.inner_text("#repaired-text") == repaired
    fresh.click("#copy-repaired")
    fresh.wait_for_selector("#copy-status:has-text('copied')")
    assert fresh.evaluate("navigator.clipboard.readText()") == repaired


def test_documents_with_the_same_title_are_told_apart(fresh: Any, hostile: LiveServer) -> None:
    fresh.goto(hostile.url + "/")
    fresh.click("#tab-verify")
    fresh.check("input[name=against][value=picked]")
    fresh.wait_for_selector("#doc-pick input[type=checkbox]", timeout=30_000)
    labels = [
        fresh.inner_text(f"#doc-pick label:has(input[value='{doc_id}'])")
        for doc_id in ("a/notes.md", "b/notes.md")
    ]
    assert all("Hive notes" in label for label in labels)
    assert "a/notes.md" in labels[0]
    assert "b/notes.md" in labels[1]
    fresh.check("#doc-pick input[value='a/notes.md']")
    fresh.check("#doc-pick input[value='b/notes.md']")
    fresh.fill("#verify-answer", "The beekeeper keeps hives.")
    fresh.click("#verify-button")
    fresh.wait_for_selector("#verify-status:has-text('claims:')", timeout=30_000)
    fresh.locator("#claims button.claim").first.click()
    shown = [
        line
        for line in fresh.inner_text("#claim-detail").splitlines()
        if line.startswith("supports: ")
    ]
    assert len(shown) == 2  # each note read on its own, each a support of its own
    assert any("a/notes.md" in line for line in shown)
    assert any("b/notes.md" in line for line in shown)


@pytest.fixture(scope="module")
def spotting(hostile_index: Path) -> Iterator[LiveServer]:
    """The server with a span detector (the overlap fake: a claim's words its passages lack)."""
    with LiveServer(
        settings_for(hostile_index, scorer=SentenceScorer(), spans=OverlapSpanDetector())
    ) as server:
        yield server


def test_the_words_no_passage_supports_are_marked_inside_their_claim(
    fresh: Any, spotting: LiveServer
) -> None:
    fresh.goto(spotting.url + "/")
    answer = "The beacon flashes every ten seconds. Its keeper wrote <b>loud</b> [/notes]."
    verify_pasted(fresh, answer, "The beacon flashes every five seconds. Its keeper wrote.")
    marks = fresh.locator("#verified mark.unsupported-span")
    report = httpx.post(
        f"{spotting.url}/v1/verify",
        json={
            "answer": answer,
            "sources": ["The beacon flashes every five seconds. Its keeper wrote."],
        },
        timeout=60,
    ).json()
    expected = [item["text"] for claim in report["claims"] for item in claim["unsupported_spans"]]
    assert expected[0] == "ten"
    assert marks.all_inner_texts() == expected
    assert fresh.locator("#verified b").count() == 0  # user text is text, never markup
    assert fresh.inner_text("#verified").split() == answer.split()
    fresh.locator("#claims button.claim", has_text="ten").click()
    assert fresh.locator("#claim-detail mark.unsupported-span").all_inner_texts() == ["ten"]
    fresh.screenshot(path=str(ARTIFACTS / "verify-unsupported-spans.png"), full_page=True)


def test_invisible_characters_are_shown_as_marks_never_applied(
    fresh: Any, hostile: LiveServer
) -> None:
    """A bidi override shows "TERCES" as "SECRET"; the page shows the override and its end as
    marks, so the reader sees the characters the verifier read. Before, the verified answer
    and the claims read "SECRET"."""
    fresh.goto(hostile.url + "/")
    hidden = "The admin password is \u202eTERCES\u202c and the file is \u202eevil.exe\u202c."
    verify_pasted(fresh, hidden, hidden)
    for where in ("#verified", "#claims"):  # (the claims are split at "and")
        text = fresh.inner_text(where)
        assert not {"\u202e", "\u202c"} & set(text), where
        assert "⟨U+202E⟩TERCES" in text, where
        assert "⟨U+202E⟩evil.exe" in text, where
    assert "⟨U+202E⟩TERCES⟨U+202C⟩" in fresh.inner_text("#verified")
    marks = fresh.locator("#verified .invisible")
    assert marks.count() == 4
    assert "U+202E" in (marks.first.get_attribute("title") or "")


def test_the_api_page_lists_every_endpoint_with_its_limits(fresh: Any, hostile: LiveServer) -> None:
    """/docs reads /openapi.json with its own script (the page's CSP allows no other)."""
    fresh.goto(hostile.url + "/docs")
    fresh.wait_for_selector("#docs-status:has-text('endpoints')", timeout=30_000)
    text = fresh.inner_text("#docs-endpoints")
    assert "POST /v1/verify" in text
    assert "one of decision, any, all, cascade" in text
    assert "maximum 20" in text


class WindowScorer(TablePairScorer):
    """Supports every claim; its evidence is the whole premise, as the shipped verifier names
    the window of several sentences it read."""

    def __init__(self) -> None:
        super().__init__({}, default=(0.9, 0.05, 0.05))

    def run(self, premises: Sequence[str], hypotheses: Sequence[str]) -> PairScores:
        return PairScores(
            tuple(
                PairScore(0.9, 0.05, 0.05, window=Span(0, len(p)), evidence=(Span(0, len(p)),))
                for p in premises
            ),
            "windows",
            "0",
        )


LONG_LINE = (
    "Moor weather notes. "
    + "The wind came over the moor all day and the men waited by the mast " * 60
    + "and the hangar at Cardington is 247 metres long, longer than any ship of its time, "
    + "while the wind kept on over the moor and the men went home at dusk " * 60
    + "\n\nThe doors were shut at night. The airship stayed inside."
)


@pytest.fixture(scope="module")
def windows(tmp_path_factory: pytest.TempPathFactory, chat: FixedChat) -> Iterator[LiveServer]:
    root = tmp_path_factory.mktemp("windows")
    (root / "hangar.md").write_text(
        "# Hangar\n\nThe doors were painted grey. The hangar at Cardington is 247 metres "
        "long. It housed the R101. Its doors weigh many tonnes. The roof was mended in "
        "1990.\n\n" + LONG_LINE + "\n",
        encoding="utf-8",
    )
    index = tmp_path_factory.mktemp("windows-index") / "index"
    Indexer(builders=[BM25Builder()]).run([root], index)
    with LiveServer(settings_for(index, scorer=WindowScorer(), chat=chat)) as server:
        yield server


def test_a_citation_marks_one_sentence_of_the_window_bounded(
    fresh: Any, windows: LiveServer, chat: FixedChat
) -> None:
    """The verifier reads a window of several sentences; the page marks the one that shares
    the most words with the claim, at most 400 characters of it. Before, the whole window was
    marked (3-7 times the sentence; a 48,000-character line whole)."""
    chat.reply = "The hangar at Cardington is 247 metres long [1]."
    fresh.goto(windows.url + "/")
    ask_and_open(fresh, "How long is the hangar at Cardington?")
    marked = fresh.locator("#doc-text mark").all_inner_texts()
    cited = fresh.inner_text("#cited")
    assert len(marked) == 1
    assert len(marked[0]) <= 400
    assert "hangar at Cardington is 247 metres" in marked[0]
    assert len(cited) > 2 * len(marked[0])  # the rest of the passage is still shown, shaded


def test_a_sentence_of_a_very_long_line_is_marked_at_most_400_characters(
    fresh: Any, windows: LiveServer, chat: FixedChat
) -> None:
    chat.reply = "The hangar was longer than any ship of its time [1]."
    fresh.goto(windows.url + "/")
    ask_and_open(fresh, "Was the hangar longer than any ship of its time?")
    marked = fresh.locator("#doc-text mark").all_inner_texts()
    assert len(marked) == 1
    assert len(marked[0]) == 400  # of a sentence of 8,000 characters
    assert "longer than any ship of its time" in marked[0]
