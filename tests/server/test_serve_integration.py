"""The service under uvicorn on 127.0.0.1 with the real shipped models on the sample corpus."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import httpx
import pytest

from .conftest import EXAMPLES, LiveServer, events

pytestmark = pytest.mark.integration

QUESTION = "How many days does a queen take to develop from egg to adult?"


def rounded(value: Any) -> Any:
    """``value`` with floats to 3 places: the verifier batches a streamed answer's pairs
    otherwise than a whole one's, which moves its scores in the last digits."""
    if isinstance(value, float):
        return round(value, 3)
    if isinstance(value, dict):
        return {key: rounded(item) for key, item in value.items()}
    if isinstance(value, list):
        return [rounded(item) for item in value]
    return value


def test_an_answer_cites_exact_spans_of_stored_documents(live: LiveServer) -> None:
    with httpx.Client(base_url=live.url, timeout=120) as client:
        answer = client.post("/v1/ask", json={"question": QUESTION}).json()
        assert answer["status"] == "answered", answer
        assert answer["citations"]
        for citation in answer["citations"]:
            document = client.get(f"/v1/documents/{citation['doc_id']}").json()
            source = next(s for s in answer["sources"] if s["block"] == citation["marker"])
            assert document["text"][citation["start"] : citation["end"]] == source["text"]


def test_the_streamed_answer_matches_and_comes_sentence_first(live: LiveServer) -> None:
    with httpx.Client(base_url=live.url, timeout=120) as client:
        whole = client.post("/v1/ask", json={"question": QUESTION}).json()
        streamed = client.post("/v1/ask/stream", json={"question": QUESTION})
    found = events(streamed.text)
    assert found[-1][0] == "answer"
    assert rounded([data for name, data in found if name == "sentence"]) == rounded(
        whole["sentences"]
    )
    assert found[-1][1]["text"] == whole["text"]


def test_the_demo_answer_has_its_1983_claim_contradicted(live: LiveServer) -> None:
    answer = (EXAMPLES / "answer_to_check.md").read_text(encoding="utf-8")
    with httpx.Client(base_url=live.url, timeout=120) as client:
        report = client.post("/v1/verify", json={"answer": answer}).json()
        streamed = events(client.post("/v1/verify/stream", json={"answer": answer}).text)
    labels = {claim["text"]: claim["label"] for claim in report["claims"]}
    assert labels["He shared the Nobel Prize in Physiology or Medicine in 1983."] == "contradicted"
    assert streamed[-1][0] == "report"
    assert streamed[-1][1]["summary"] == report["summary"]


def test_a_client_that_leaves_a_stream_stops_its_work(live: LiveServer) -> None:
    answer = " ".join(["Karl von Frisch decoded the waggle dance."] * 30)
    gate = live.app.state.gate
    before = gate.stopped
    with (
        httpx.Client(base_url=live.url, timeout=120) as client,
        client.stream("POST", "/v1/verify/stream", json={"answer": answer}) as response,
    ):
        for line in response.iter_lines():
            if line.startswith("event: sentence"):
                break  # leave after the first sentence
    import time

    deadline = time.monotonic() + 60
    while gate.stopped == before and time.monotonic() < deadline:
        time.sleep(0.1)
    assert gate.stopped == before + 1
    while gate.pending and time.monotonic() < deadline:
        time.sleep(0.1)
    assert gate.pending == 0


def test_version_names_the_models(live: LiveServer, sample_index: Path) -> None:
    version = httpx.get(f"{live.url}/v1/version", timeout=30).json()
    assert version["verifier"]["model"]
    assert version["chat"]
    assert version["index"]["chunks"] > 0
