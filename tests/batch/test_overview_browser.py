"""The overview page in a real browser (tests/conftest.py's ``browser``: Playwright driving the
machine's Chromium): its plots and tables render, a hostile answer's script never runs, the page
asks for nothing but itself, and the screenshot shows the verdict colours. The screenshot goes
to .cache/test-artifacts/batch/overview.png."""

from __future__ import annotations

from importlib.util import find_spec
from pathlib import Path
from typing import Any

import pytest

from veracity.assets import VERDICTS_CSS
from veracity.batch.overview import BatchOverview
from veracity.batch.overview_page import verdict_colours

from .test_overview import HOSTILE, failed, record

pytestmark = [
    pytest.mark.integration,
    pytest.mark.skipif(
        find_spec("matplotlib") is None,
        reason="install the [report] extra: pip install -e '.[report]'",
    ),
]
ARTIFACTS = Path(__file__).resolve().parents[2] / ".cache" / "test-artifacts" / "batch"
LABELS = ("supported", "contradicted", "unsupported", "supported")


def test_the_page_renders_its_plots_and_tables_offline(browser: Any, tmp_path: Path) -> None:
    records = [
        record(
            f"q{i}",
            i + 1,
            [LABELS[(i + j) % 4] for j in range(3)],
            supports=[((i * 7 + j * 13) % 100) / 100 for j in range(3)],
            doc=f"doc-{i % 5}.md",
            model=f"model-{i % 3}",
        )
        for i in range(200)
    ]
    records.append(
        record("evil", 201, ["contradicted"], answer=HOSTILE + " Bees dance.", model=HOSTILE)
    )
    records.append(failed("broken", 202, HOSTILE))
    path = BatchOverview(by=["model"]).run(records).save(tmp_path / "overview.html")
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    page = context.new_page()
    errors: list[str] = []
    requests: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.on("request", lambda request: requests.append(request.url))
    page.goto(path.as_uri())
    page.wait_for_load_state("load")

    assert requests == [path.as_uri()]  # no script, style, font or image fetched
    assert errors == []
    assert page.evaluate("window.pwned") is None  # the hostile answer stayed text
    assert page.locator("svg").count() == 3  # support histogram, evidence document, model
    for selector in (
        "#support svg",
        "#by-evidence-document svg",
        "#by-model svg",
        "table.counts",
        "#by-model table.breakdown",
        "table.failures",
    ):
        assert page.locator(selector).first.is_visible(), selector
    box = page.locator("#support svg").bounding_box()
    assert box["width"] > 400
    assert box["height"] > 100
    assert page.locator("#by-model tbody tr").count() == 5  # 3 models, the hostile one, (missing)
    contradicted = page.locator("#worst .sentence.verdict-contradicted").first
    assert (
        contradicted.evaluate("e => getComputedStyle(e).backgroundColor") == "rgb(255, 224, 224)"
    )  # the web page's shade (verdicts.css)

    shot = ARTIFACTS / "overview.png"
    page.screenshot(path=str(shot), full_page=True)
    context.close()
    image = _image(shot)
    assert image.width == 1280
    assert image.height > 2000  # counts, three plots, tables, worst answers
    colours = {_hex(rgb) for _, rgb in image.convert("RGB").getcolors(maxcolors=1 << 24)}
    assert len(colours) > 50  # text, plots and shading, not a blank page
    drawn = verdict_colours(VERDICTS_CSS.read_text(encoding="utf-8"))
    assert {drawn["supported"], drawn["contradicted"], drawn["unsupported"]} <= colours


def _image(path: Path) -> Any:
    image_module = pytest.importorskip("PIL.Image", reason="Pillow comes with matplotlib")
    return image_module.open(path)


def _hex(rgb: tuple[int, int, int]) -> str:
    return "#{:02x}{:02x}{:02x}".format(*rgb)
