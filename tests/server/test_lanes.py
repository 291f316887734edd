"""The lanes: requests that need no model beside the model work, model work admitted by its
estimated time, and a stream whose reader stops reading gives the models back."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from veracity.server.clock import Clock
from veracity.server.gate import Gate

from .conftest import HeldScorer, serve, settings_for, until

pytestmark = pytest.mark.unit


def _pairs(count: int) -> dict[str, list[dict[str, str]]]:
    return {"pairs": [{"premise": f"Bees fly {n}.", "claim": "Bees fly."} for n in range(count)]}


def test_requests_without_model_work_never_wait_behind_it(index_dir: Path) -> None:
    """A check holds the one worker until the test lets it go; BM25 search, the documents,
    health and version come back meanwhile. Before, a search queued behind it for the models
    it does not use."""
    cheap = [
        ("POST", "/v1/search", {"query": "waggle dance", "k": 2}),
        ("GET", "/v1/documents", None),
        ("GET", "/v1/documents/wings.txt", None),
        ("GET", "/v1/health", None),
        ("GET", "/v1/version", None),
    ]

    scorer = HeldScorer()

    async def work(client: httpx.AsyncClient) -> tuple[list[int], bool]:
        running = asyncio.create_task(client.post("/v1/check", json=_pairs(1)))
        await until(lambda: scorer.running == 1, "holding the models")
        found = []
        for method, path, body in cheap:  # one that queued would wait for release()
            response = await asyncio.wait_for(client.request(method, path, json=body), 30)
            found.append(response.status_code)
        busy = scorer.running == 1 and not running.done()
        scorer.release()
        await running
        return found, busy

    found, busy = serve(settings_for(index_dir, scorer=scorer), work)
    assert busy  # the check still held the models when every cheap call had come back
    assert found == [200] * len(cheap)


def test_model_work_is_admitted_by_its_estimated_time(index_dir: Path) -> None:
    """At 100 ms a pair (as estimated) and a time limit of 5 s: 60 pairs (6 s) can never
    finish and are refused at once, without scoring; 30 pairs (3 s) behind another 30 that
    hold the models would end at about 6 s, so they get 503 with the seconds after which they
    would fit. Before, both were admitted and the models ran until the time limit cut them
    off."""
    scorer = HeldScorer()

    async def work(client: httpx.AsyncClient) -> list[httpx.Response]:
        found = [await asyncio.wait_for(client.post("/v1/check", json=_pairs(60)), 30)]
        running = asyncio.create_task(client.post("/v1/check", json=_pairs(30)))
        await until(lambda: scorer.running == 1, "the first 30 pairs holding the models")
        found.append(await asyncio.wait_for(client.post("/v1/check", json=_pairs(30)), 30))
        scorer.release()
        await running
        return found

    never, busy = serve(settings_for(index_dir, scorer=scorer, pair_ms=100, seconds=5), work)
    assert never.status_code == 422
    assert never.json()["error"]["limit"] == {"name": "seconds", "value": 5}
    assert "estimated at 6.0 s (60 pairs at 100 ms each" in never.json()["error"]["message"]
    assert busy.status_code == 503
    assert busy.json()["error"]["limit"] == {"name": "seconds", "value": 5}
    assert int(busy.headers["Retry-After"]) == 1  # under 3 s left + 3 s - 5 s
    assert scorer.calls == [30]  # only the admitted check was scored


def test_the_clock_follows_what_the_verifier_takes() -> None:
    clock = Clock(0.001)
    for _ in range(6):
        clock.record_pairs(32, 32 * 0.05)
    assert clock.per_pair == pytest.approx(0.05, rel=0.05)
    assert clock.estimate("verify", 100) == pytest.approx(5.0, rel=0.05)


def test_a_stream_whose_reader_stops_reading_gives_the_models_back() -> None:
    """The reader takes one event and then none (its client's socket buffers are full, as
    when a client stops reading without closing). Before, the worker made all 100 events
    (5 s) into an unbounded queue, holding the models; now it makes ``ahead`` more, waits
    ``stall`` seconds and stops."""
    made = 0

    def items() -> Iterator[int]:
        nonlocal made
        for n in range(100):
            time.sleep(0.05)
            made += 1
            yield n

    async def main() -> tuple[float, int]:
        gate = Gate(queue=1, seconds=30, tick=0.05, stall=0.5, ahead=2)

        async def never() -> bool:
            return False

        turn = await gate.enter(kind="verify", pairs=0)
        stop = gate.stop_at(turn)
        reader = gate.stream(items(), stop, turn, gone=never)
        started = time.monotonic()
        first = await reader.__anext__()  # then the reader takes nothing more
        assert first == 0
        while gate.pending and time.monotonic() - started < 10:
            await asyncio.sleep(0.02)
        freed = time.monotonic() - started
        assert gate.stopped == 1
        assert stop.reason == "the client stopped reading"
        return freed, made

    freed, made_then = asyncio.run(main())
    assert freed < 1.5  # 2 more events (0.1 s), then 0.5 s of stall
    assert made_then <= 5
