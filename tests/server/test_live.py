"""The live index: `veracity index` while the service runs; each request reads one generation,
and a generation in use is not removed under it."""

from __future__ import annotations

import asyncio
from pathlib import Path

import httpx
import pytest

from veracity.corpus.indexer import Indexer
from veracity.retrieve.bm25 import BM25Builder

from .conftest import HeldScorer, serve, settings_for, until

pytestmark = pytest.mark.unit

FIRST = "# Bees\n\nHoneybees dance to show where flowers are.\n"
EDITS = [
    "# Bees\n\nHoneybees dance to show where flowers are. The waggle run points at the sun, "
    "and its length says how far the flowers are.\n",
    "# Bees\n\nHoneybees hum. A waggle dance of ten seconds means flowers about ten "
    "kilometres away, a dance of one second a few hundred metres.\n",
]


def _index(tmp_path: Path, text: str) -> tuple[Path, Path]:
    corpus = tmp_path / "corpus"
    corpus.mkdir(exist_ok=True)
    (corpus / "a.md").write_text(text, encoding="utf-8")
    index = tmp_path / "idx"
    Indexer(builders=[BM25Builder()]).run([corpus], index)
    return corpus, index


def _reindex(corpus: Path, index: Path, text: str) -> None:
    (corpus / "a.md").write_text(text, encoding="utf-8")
    Indexer(builders=[BM25Builder()]).run([corpus], index)


def test_a_reindex_is_served_whole_from_the_new_generation(tmp_path: Path) -> None:
    """After two re-indexes of an edited file: the version, the document and a search in the
    server's mode and in another all read the newest generation, and a hit's offsets index
    that generation's text. Before, the document was the first text (its 48 characters, so
    offsets pointed past its end) and the version named a generation the indexer had
    removed."""
    corpus, index = _index(tmp_path, FIRST)

    async def work(client: httpx.AsyncClient) -> list[httpx.Response]:
        first = await client.get("/v1/version")
        for text in EDITS:
            await asyncio.to_thread(_reindex, corpus, index, text)
        return [
            first,
            await client.get("/v1/version"),
            await client.get("/v1/documents/a.md"),
            await client.post("/v1/search", json={"query": "waggle dance flowers"}),
            await client.post(
                "/v1/search", json={"query": "waggle dance flowers", "mode": "hybrid"}
            ),
        ]

    first, version, document, search, hybrid = serve(settings_for(index), work)
    assert first.json()["index"]["generation"] == "gen-000001"
    assert version.json()["index"]["generation"] == "gen-000003"
    text = document.json()["text"]
    assert text == EDITS[-1]
    for response in (version, document, search, hybrid):
        assert response.status_code == 200, response.text
        assert response.headers["X-Veracity-Generation"] == "gen-000003"
    for hit in search.json()["hits"] + hybrid.json()["hits"]:
        assert text[hit["start"] : hit["end"]] == hit["text"]


def test_a_generation_in_use_is_not_removed_until_its_request_ends(tmp_path: Path) -> None:
    """A request that began on gen-000001 holds it while two re-indexes run (each removes the
    generations older than the one before it); once it ended, the next write removes it.
    Before, the second re-index removed it under the request. (A generation is let go when
    its last request has ended and a later request has seen a newer one.)"""
    corpus, index = _index(tmp_path, FIRST)
    first = index / "gen-000001"

    scorer = HeldScorer()

    async def work(client: httpx.AsyncClient) -> tuple[bool, bool, str]:
        running = asyncio.create_task(
            client.post("/v1/check", json={"pairs": [{"premise": "a", "claim": "b"}]})
        )
        await until(lambda: scorer.running == 1, "holding the worker on gen-000001")
        for text in EDITS:
            await asyncio.to_thread(_reindex, corpus, index, text)
        during = first.is_dir()
        scorer.release()
        response = await running
        await client.get("/v1/version")  # the server moves to gen-000003, lets gen-000001 go
        await asyncio.to_thread(_reindex, corpus, index, FIRST)
        return during, first.is_dir(), response.headers["X-Veracity-Generation"]

    during, after, generation = serve(settings_for(index, scorer=scorer), work)
    assert during
    assert not after
    assert generation == "gen-000001"


def test_a_current_that_cannot_be_opened_keeps_the_generation_served(tmp_path: Path) -> None:
    """CURRENT replaced by one that names no generation (a damaged index): the requests are
    answered from the generation already open, as before the service followed CURRENT."""
    _, index = _index(tmp_path, FIRST)

    async def work(client: httpx.AsyncClient) -> list[httpx.Response]:
        (index / "CURRENT").write_text("gen-000099\n", encoding="utf-8")
        return [await client.get("/v1/documents/a.md"), await client.get("/v1/version")]

    document, version = serve(settings_for(index), work)
    assert document.status_code == 200
    assert document.json()["text"] == FIRST
    assert version.json()["index"]["generation"] == "gen-000001"
