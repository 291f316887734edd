"""The page in a real browser (Playwright driving the machine's Chromium, Debian package
`chromium`; Playwright's own browser download is never used): click [1] and see exactly the
cited characters; paste the demo's wrong answer and see its 1983 claim contradicted.
Screenshots go to .cache/test-artifacts/server/."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from .conftest import ARTIFACTS, EXAMPLES, LiveServer

pytestmark = pytest.mark.integration

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")


@pytest.fixture(scope="module")
def page(live: LiveServer) -> Iterator[Any]:
    if CHROMIUM is None:
        pytest.skip("no Chromium on this machine: install it with `apt-get install -y "
                    "chromium` (Debian; `make test` does this when it can), then run again")
    sync_api = pytest.importorskip("playwright.sync_api",
                                   reason="install the [dev] extra: pip install -e '.[dev]'")
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    with sync_api.sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM,
                                             args=["--no-sandbox", "--disable-gpu"])
        opened = browser.new_page()
        errors: list[str] = []
        opened.on("pageerror", lambda error: errors.append(str(error)))
        opened.goto(live.url + "/")
        yield opened
        browser.close()
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
    answer = httpx.post(f"{live.url}/v1/ask", json={
        "question": "How many days does a queen take to develop from egg to adult?"},
        timeout=120).json()
    citation = answer["sentences"][0]["citations"][0]
    document = httpx.get(f"{live.url}/v1/documents/{citation['doc_id']}", timeout=30).json()
    assert page.inner_text("#cited") == document["text"][citation["start"]:citation["end"]]
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
    page.fill("#verify-answer", "Bees <script>window.pwned = 1</script> dance [bold]. "
                                "<img src=x onerror=window.pwned=2>")
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
    assert page.locator("#repaired del").all_inner_texts() == ["1983"]
    assert page.locator("#repaired ins").all_inner_texts() == ["1973"]
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
    shown = [line for line in page.inner_text("#claim-detail").splitlines()
             if line.startswith(("supports: ", "contradicts: "))]
    assert shown
    assert all(dance["title"] in line for line in shown)
