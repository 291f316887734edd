"""Fixtures that test folders share: a real browser (Playwright driving the machine's Chromium,
the Debian package `chromium`; Playwright's own browser download is never used), and tiny static
embedders (model2vec models of ten words and random vectors, made in the test).

A test that asks for ``browser`` skips, saying how to install what is missing, on a machine
without Chromium or without Playwright (the [dev] extra).
"""

from __future__ import annotations

import shutil
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from veracity.testing import save_tiny_static_model

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    if CHROMIUM is None:
        pytest.skip(
            "no Chromium on this machine: install it with `apt-get install -y "
            "chromium` (Debian; `make test` does this when it can), then run again"
        )
    sync_api = pytest.importorskip(
        "playwright.sync_api", reason="install the [dev] extra: pip install -e '.[dev]'"
    )
    with sync_api.sync_playwright() as playwright:
        opened = playwright.chromium.launch(
            executable_path=CHROMIUM, args=["--no-sandbox", "--disable-gpu"]
        )
        yield opened
        opened.close()


@pytest.fixture
def static_model() -> Callable[..., Path]:
    """``static_model(folder, seed=0)`` saves a tiny model2vec static model of
    :data:`veracity.testing.STATIC_WORDS` with random 8-dimensional vectors into ``folder``
    (skips without the [static] extra)."""
    pytest.importorskip("model2vec")
    return save_tiny_static_model
