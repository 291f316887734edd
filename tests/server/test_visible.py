"""Invisible characters in a claim or its evidence are flagged in every verify report."""

from __future__ import annotations

from pathlib import Path

import httpx
import pytest

from veracity.server.visible import flag_report, invisible

from .conftest import events, serve, settings_for

pytestmark = pytest.mark.unit

HIDDEN = "The admin password is \u202eTERCES\u202c."


@pytest.mark.parametrize(
    ("text", "chars"),
    [
        ("pass \u202eTERCES\u202c", ["U+202E", "U+202C"]),
        ("zero\u200bwidth\u2060joiner\ufeff", ["U+200B", "U+2060", "U+FEFF"]),
        ("isolate \u2067x\u2069 and filler \u3164", ["U+2067", "U+2069", "U+3164"]),
        ("plain text, café, 東京, emoji 🐝", []),
    ],
)
def test_invisible_finds_format_characters_and_fillers(text: str, chars: list[str]) -> None:
    assert [found["char"] for found in invisible(text)] == chars


def test_a_claim_checked_against_a_hidden_passage_is_flagged() -> None:
    report = {
        "claims": [
            {"text": "The password is SECRET.", "evidence": [{"chunk_id": "a#0", "text": HIDDEN}]},
            {"text": "Bees fly.", "evidence": [{"chunk_id": "b#0", "text": "Bees fly."}]},
        ],
        "warnings": [],
    }
    flagged = flag_report(report)
    assert flagged["claims"][0]["invisible"] == {"characters": [], "passages": ["a#0"]}
    assert "invisible" not in flagged["claims"][1]
    assert flagged["warnings"][0].startswith("1 of 2 claims hold invisible characters")


def test_verify_and_its_stream_flag_a_claim_with_invisible_characters(index_dir: Path) -> None:
    """Before, "…TERCES." was reported supported with nothing to say that it shows as
    "SECRET"."""
    body = {"answer": HIDDEN, "sources": [HIDDEN]}

    async def work(client: httpx.AsyncClient) -> tuple[httpx.Response, httpx.Response]:
        return (
            await client.post("/v1/verify", json=body),
            await client.post("/v1/verify/stream", json=body),
        )

    whole, streamed = serve(settings_for(index_dir), work)
    assert whole.status_code == 200, whole.text
    claim = whole.json()["claims"][0]
    assert [c["char"] for c in claim["invisible"]["characters"]] == ["U+202E", "U+202C"]
    assert claim["invisible"]["passages"] == ["text-1#0"]
    assert any("invisible characters" in warning for warning in whole.json()["warnings"])
    found = events(streamed.text)
    sentence = next(data for name, data in found if name == "sentence")
    assert "invisible" in sentence["claims"][0]
    report = next(data for name, data in found if name == "report")
    assert report["claims"][0]["invisible"] == claim["invisible"]
