"""The service on fake models over httpx's ASGI transport: shapes, streams, limits, the token."""

from __future__ import annotations

import asyncio
import json
from collections.abc import MutableMapping
from pathlib import Path
from typing import Any

import httpx
import pytest

from veracity import defaults
from veracity.assets import VERDICTS_CSS
from veracity.config import VerifyConfig
from veracity.errors import OptionError
from veracity.retrieve.open import open_retriever
from veracity.server.app import create_app
from veracity.server.settings import Settings
from veracity.testing import OverlapSpanDetector

from .conftest import (
    DANCE,
    FixedChat,
    HeldScorer,
    SlowScorer,
    events,
    gate_of,
    serve,
    settings_for,
    until,
)

pytestmark = pytest.mark.unit

WRONG = (
    "Great question! Karl von Frisch decoded the waggle dance. He shared the Nobel Prize in 1983."
)


def _without(payload: dict[str, Any], *keys: str) -> dict[str, Any]:
    return {key: value for key, value in payload.items() if key not in keys}


def test_search_is_the_shape_the_cli_prints(index_dir: Path) -> None:
    async def work(client: httpx.AsyncClient) -> httpx.Response:
        return await client.post("/v1/search", json={"query": "waggle dance", "k": 2})

    response = serve(settings_for(index_dir), work)
    assert response.status_code == 200
    expected = open_retriever(index_dir, mode="bm25").run("waggle dance", k=2).to_dict()
    for hit in expected["hits"]:  # the file's name, never its path on the server
        hit["source"] = Path(hit["source"]).name
    served = response.json()
    config = served.pop("config")
    assert served == expected
    # the config names the index folder, never its path on the server
    assert (config["pipeline"], config["evidence"]["k"]) == ("search", 2)
    assert config["evidence"]["index"] == index_dir.resolve().name


def test_ask_and_its_stream_give_the_same_answer(index_dir: Path) -> None:
    async def work(client: httpx.AsyncClient) -> tuple[httpx.Response, httpx.Response]:
        body = {"question": "Who decoded the waggle dance?"}
        return (
            await client.post("/v1/ask", json=body),
            await client.post("/v1/ask/stream", json=body),
        )

    whole, streamed = serve(settings_for(index_dir), work)
    assert whole.status_code == 200, whole.text
    answer = whole.json()
    assert answer["status"] == "answered"
    assert streamed.headers["content-type"].startswith("text/event-stream")
    found = events(streamed.text)
    names = [name for name, _ in found]
    assert names == ["sentence"] * len(answer["sentences"]) + ["answer"]
    assert [data for name, data in found if name == "sentence"] == answer["sentences"]
    assert _without(found[-1][1], "timings") == _without(answer, "timings")
    # user text stays text: JSON strings, never markup
    assert "<script>x</script> [bold]" in answer["text"]


def test_verify_and_its_stream_give_the_same_report(index_dir: Path) -> None:
    body = {"answer": WRONG, "sources": [DANCE]}

    async def work(client: httpx.AsyncClient) -> tuple[httpx.Response, httpx.Response]:
        return (
            await client.post("/v1/verify", json=body),
            await client.post("/v1/verify/stream", json=body),
        )

    whole, streamed = serve(settings_for(index_dir), work)
    assert whole.status_code == 200, whole.text
    report = whole.json()
    assert set(report) >= {"summary", "answer", "claims", "skipped", "verifier"}
    found = events(streamed.text)
    assert [name for name, _ in found] == ["sentence", "sentence", "sentence", "report"]
    assert found[0][1]["skipped"]["reason"] == "greeting"
    assert _without(found[-1][1], "timings", "calls") == _without(report, "timings", "calls")


def test_verify_and_its_stream_pass_each_claim_s_unsupported_spans(index_dir: Path) -> None:
    body = {"answer": WRONG, "sources": [DANCE]}

    async def work(client: httpx.AsyncClient) -> list[httpx.Response]:
        return [
            await client.post("/v1/verify", json=body),
            await client.post("/v1/verify/stream", json=body),
            await client.get("/v1/version"),
        ]

    whole, streamed, version = serve(settings_for(index_dir, spans=OverlapSpanDetector()), work)
    assert whole.status_code == 200, whole.text
    report = whole.json()
    assert report["span_detector"] == version.json()["span_detector"] == "overlap-spans"
    found = [
        (item["start"], item["end"], item["text"])
        for claim in report["claims"]
        for item in claim["unsupported_spans"]
    ]
    assert [text for _, _, text in found] == ["1983"]  # the source says 1973
    assert all(WRONG[start:end] == text for start, end, text in found)
    sentences = [data for name, data in events(streamed.text) if name == "sentence"]
    streamed_spans = [
        item
        for sentence in sentences
        for claim in sentence["claims"]
        for item in claim["unsupported_spans"]
    ]
    assert streamed_spans == [
        item for claim in report["claims"] for item in claim["unsupported_spans"]
    ]


def test_without_a_span_detector_verify_has_no_spans(index_dir: Path) -> None:
    async def work(client: httpx.AsyncClient) -> httpx.Response:
        return await client.post("/v1/verify", json={"answer": WRONG, "sources": [DANCE]})

    report = serve(settings_for(index_dir), work).json()
    assert "span_detector" not in report
    assert all("unsupported_spans" not in claim for claim in report["claims"])


def test_verify_reports_a_claim_no_layer_checked_as_unchecked(index_dir: Path) -> None:
    # Harden-2 #5: layers ["knowledge"] on a claim without values said "supported"
    body = {"answer": "Bees can fly to the moon.", "sources": [DANCE], "layers": ["knowledge"]}

    async def work(client: httpx.AsyncClient) -> httpx.Response:
        return await client.post("/v1/verify", json=body)

    response = serve(settings_for(index_dir), work)
    assert response.status_code == 200, response.text
    report = response.json()
    assert report["claims"][0]["label"] == "unchecked"
    assert (report["summary"]["supported"], report["summary"]["unchecked"]) == (0, 1)


def test_a_verify_response_carries_the_config_that_made_it(index_dir: Path) -> None:
    body = {"answer": WRONG, "layers": ["nli"], "k": 2, "tau": 0.7}

    async def work(client: httpx.AsyncClient) -> httpx.Response:
        return await client.post("/v1/verify", json=body)

    response = serve(settings_for(index_dir), work)
    assert response.status_code == 200, response.text
    config = VerifyConfig.from_dict(response.json()["config"])
    assert config.decision.layers == ("nli",)
    assert (config.evidence.k, config.checking.tau) == (2, 0.7)
    assert config.evidence.index is not None  # no pasted sources: the index the service reads


def test_verify_against_documents_of_the_index_by_id(index_dir: Path) -> None:
    async def work(client: httpx.AsyncClient) -> httpx.Response:
        return await client.post(
            "/v1/verify", json={"answer": WRONG, "doc_ids": ["biology/waggle_dance.md"]}
        )

    response = serve(settings_for(index_dir), work)
    assert response.status_code == 200, response.text
    cited = {c["doc_id"] for claim in response.json()["claims"] for c in claim["evidence"]}
    assert cited == {"biology/waggle_dance.md"}


def test_check_scores_pairs_in_one_batch(index_dir: Path) -> None:
    scorer = SlowScorer()

    async def work(client: httpx.AsyncClient) -> httpx.Response:
        return await client.post(
            "/v1/check",
            json={
                "pairs": [
                    {"premise": "Bees dance.", "claim": "Bees dance.", "id": "a"},
                    {"premise": "Bees dance.", "claim": "Bees sing."},
                ]
            },
        )

    response = serve(settings_for(index_dir, scorer=scorer), work)
    assert response.status_code == 200
    payload = response.json()
    assert [row.get("id") for row in payload["pairs"]] == ["a", None]
    assert payload["pairs"][0]["label"] == "supported"
    assert scorer.calls[-1] == 2


def test_documents_by_id_only(index_dir: Path) -> None:
    async def work(client: httpx.AsyncClient) -> list[httpx.Response]:
        return [
            await client.get("/v1/documents/biology/waggle_dance.md"),
            await client.get("/v1/documents/biology%2Fwaggle_dance.md"),
            await client.get("/v1/documents/../../etc/passwd"),
            await client.get("/v1/documents/%2e%2e%2f%2e%2e%2fetc%2fpasswd"),
            await client.get("/v1/documents/" + str(index_dir.parent / "x")),
            await client.get("/v1/documents"),
        ]

    found, encoded, up, dotted, absolute, listing = serve(settings_for(index_dir), work)
    assert found.status_code == 200
    document = found.json()
    assert document["text"] == DANCE
    assert document["source"] == "waggle_dance.md"  # the file's name, never its path
    assert encoded.json() == document
    for response in (up, dotted, absolute):
        assert response.status_code == 404
        assert "root:" not in response.text
    assert dotted.json()["error"]["message"].startswith("no document of this index has the id")
    assert "passwd" not in dotted.text  # the id asked for is not echoed (see below)
    assert {row["id"] for row in listing.json()["documents"]} == {
        "biology/waggle_dance.md",
        "wings.txt",
    }


def test_the_token_is_required_and_compared(index_dir: Path) -> None:
    settings = settings_for(index_dir, token="s3cret-token")

    async def work(client: httpx.AsyncClient) -> list[httpx.Response]:
        return [
            await client.get("/v1/version"),
            await client.get("/v1/version", headers={"Authorization": "Bearer wrong"}),
            await client.get("/v1/version", headers={"Authorization": "Basic s3cret-token"}),
            await client.get("/v1/version", headers={"Authorization": "Bearer s3cret-token"}),
            await client.get("/v1/health"),
        ]

    missing, wrong, basic, right, health = serve(settings, work)
    assert missing.status_code == 401
    assert missing.headers["www-authenticate"] == "Bearer"
    assert missing.json()["error"]["message"] == (
        "this server needs a bearer token: send Authorization: Bearer <token> (the --token "
        "it was started with)"
    )
    assert wrong.status_code == basic.status_code == 401
    assert wrong.json()["error"]["message"] == "the bearer token is wrong"
    assert right.status_code == 200
    assert right.json()["api"] == "v1"
    assert health.json() == {"status": "ok", "auth": True, "busy": 0}


def test_another_address_than_loopback_needs_a_token(index_dir: Path) -> None:
    with pytest.raises(OptionError, match="unless a token is given"):
        Settings(index=index_dir, host="0.0.0.0")
    assert Settings(index=index_dir, host="0.0.0.0", token="long-enough").token


@pytest.mark.parametrize(
    ("limits", "path", "body", "status", "message"),
    [
        (
            {"body_bytes": 100},
            "/v1/verify",
            {"answer": "x" * 200, "sources": ["y"]},
            413,
            "the request body is larger, over this server's limit body_bytes = 100; send less (the "
            "server's operator sets the limit)",
        ),
        (
            {"answer_chars": 10},
            "/v1/verify",
            {"answer": "Bees dance a lot.", "sources": ["y"]},
            422,
            "the answer has 17 characters, over this server's limit answer_chars = 10; send "
            "less (the server's operator sets the limit)",
        ),
        (
            {"sources": 2},
            "/v1/verify",
            {"answer": "Bees dance.", "sources": ["a", "b", "c"]},
            422,
            "3 sources and document ids, over this server's limit sources = 2; send less (the "
            "server's operator sets the limit)",
        ),
        (
            {"pairs": 1},
            "/v1/check",
            {"pairs": [{"premise": "a", "claim": "b"}] * 2},
            422,
            "2 pairs, over this server's limit pairs = 1; send less (the server's operator sets "
            "the limit)",
        ),
        (
            {"k": 3},
            "/v1/search",
            {"query": "bees", "k": 4},
            422,
            "k = 4 passages, over this server's limit k = 3; send less (the server's operator sets "
            "the limit)",
        ),
        (
            {"question_chars": 5},
            "/v1/ask/stream",
            {"question": "Why do bees dance?"},
            422,
            "the question has 18 characters, over this server's limit question_chars = 5; send "
            "less (the server's operator sets the limit)",
        ),
    ],
)
def test_every_limit_is_a_4xx_that_names_it(
    index_dir: Path,
    limits: dict[str, Any],
    path: str,
    body: dict[str, Any],
    status: int,
    message: str,
) -> None:
    async def work(client: httpx.AsyncClient) -> httpx.Response:
        return await client.post(path, json=body)

    response = serve(settings_for(index_dir, **limits), work)
    assert response.status_code == status
    error = response.json()["error"]
    assert error["message"] == message
    name = next(iter(limits))
    assert error["limit"] == {"name": name, "value": limits[name]}


def test_a_chunked_body_over_the_limit_is_refused(index_dir: Path) -> None:
    async def chunks() -> Any:
        for _ in range(10):
            yield b"x" * 50

    async def work(client: httpx.AsyncClient) -> httpx.Response:
        return await client.post(
            "/v1/verify", content=chunks(), headers={"content-type": "application/json"}
        )

    response = serve(settings_for(index_dir, body_bytes=100), work)
    assert response.status_code == 413
    assert response.json()["error"]["limit"]["name"] == "body_bytes"


def test_a_request_over_the_time_limit_is_408(index_dir: Path) -> None:
    async def work(client: httpx.AsyncClient) -> httpx.Response:
        return await client.post("/v1/check", json={"pairs": [{"premise": "a", "claim": "b"}]})

    response = serve(settings_for(index_dir, scorer=SlowScorer(delay=2.5), seconds=0.3), work)
    assert response.status_code == 408
    assert response.json()["error"]["message"] == (
        "the request took longer than the time limit, over this server's limit seconds = 0.3; "
        "send less (the server's operator sets the limit)"
    )


def test_overload_is_503_with_retry_after(index_dir: Path) -> None:
    body = {"pairs": [{"premise": "a", "claim": "b"}]}

    scorer = HeldScorer()

    async def work(client: httpx.AsyncClient) -> list[httpx.Response]:
        gate = gate_of(client)
        first = asyncio.create_task(client.post("/v1/check", json=body))
        await until(lambda: scorer.running == 1, "holding the models")
        second = asyncio.create_task(client.post("/v1/check", json=body))
        await until(lambda: gate.pending == 2, "waiting in the queue (queue = 1)")
        third = await asyncio.wait_for(client.post("/v1/check", json=body), 30)
        scorer.release()
        return [await first, await second, third]

    first, second, third = serve(settings_for(index_dir, scorer=scorer, queue=1), work)
    assert first.status_code == second.status_code == 200
    assert third.status_code == 503
    assert third.headers["retry-after"] == "5"
    assert third.json()["error"]["message"] == (
        "the server is busy (2 requests running or waiting, limit queue = 1); retry after 5 s"
    )


def test_no_traceback_reaches_a_client(index_dir: Path) -> None:
    async def work(client: httpx.AsyncClient) -> httpx.Response:
        return await client.post("/v1/check", json={"pairs": [{"premise": "a", "claim": "b"}]})

    scorer = SlowScorer(error=RuntimeError("secret internal detail"))
    response = serve(settings_for(index_dir, scorer=scorer), work)
    assert response.status_code == 500
    text = response.text
    assert "Traceback" not in text
    assert "secret internal detail" not in text
    assert response.json()["error"]["message"].startswith("the server failed on this request")


def test_a_library_error_keeps_its_message(index_dir: Path) -> None:
    async def work(client: httpx.AsyncClient) -> list[httpx.Response]:
        return [
            await client.post("/v1/verify", json={"answer": "   ", "sources": ["a"]}),
            await client.post("/v1/verify", json={"answer": "Bees.", "layers": ["x"]}),
            await client.post("/v1/ask", json={"question": "Why?", "extra": 1}),
        ]

    empty, layers, extra = serve(settings_for(index_dir), work)
    assert empty.status_code == 400
    assert empty.json()["error"] == {
        "status": 400,
        "type": "InputError",
        "message": "the answer is empty: give the text to verify",
    }
    assert layers.status_code == 400
    assert "the service runs nli, knowledge" in layers.json()["error"]["message"]
    assert extra.status_code == 422
    assert extra.json()["error"]["message"].startswith("the request is not valid: extra:")


def test_cors_is_off_and_the_page_is_locked_down(index_dir: Path) -> None:
    async def work(client: httpx.AsyncClient) -> list[httpx.Response]:
        origin = {"Origin": "http://evil.example"}
        return [
            await client.get("/v1/health", headers=origin),
            await client.options(
                "/v1/ask", headers=origin | {"Access-Control-Request-Method": "POST"}
            ),
            await client.get("/"),
            await client.get("/static/app.js"),
            await client.get("/static/..%2Fapp.py"),
        ]

    health, preflight, page, script, outside = serve(settings_for(index_dir), work)
    for response in (health, preflight):
        assert "access-control-allow-origin" not in response.headers
    assert preflight.status_code == 405
    assert page.status_code == 200
    assert "<title>veracity</title>" in page.text
    assert "script-src 'self'" in page.headers["content-security-policy"]
    assert "innerHTML" not in script.text
    assert "http" not in script.text.replace("text/event-stream", "")
    assert outside.status_code == 404


def test_repair_returns_the_repaired_answer_and_keeps_the_original(index_dir: Path) -> None:
    answer = "Karl von Frisch decoded the waggle dance. Bees hum in winter."

    async def work(client: httpx.AsyncClient) -> tuple[httpx.Response, ...]:
        return (
            await client.post("/v1/repair", json={"answer": answer, "policy": "delete"}),
            await client.post("/v1/repair", json={"answer": answer, "policy": "rewrite"}),
            await client.post("/v1/repair", json={"answer": " "}),
        )

    done, bad_policy, empty = serve(settings_for(index_dir), work)
    assert done.status_code == 200, done.text
    payload = done.json()
    assert payload["original"] == answer
    assert payload["policy"] == "delete"
    assert isinstance(payload["text"], str)
    assert bad_policy.status_code == 400
    assert "revise" in bad_policy.text
    assert empty.status_code == 400
    assert "the answer is empty" in empty.text


def test_the_openapi_schema_is_pinned(index_dir: Path) -> None:
    """Changing the API changes this snapshot: regenerate it with
    ``python -m tests.server.snapshot`` and review the diff."""
    schema = create_app(settings_for(index_dir)).openapi()
    pinned = json.loads((Path(__file__).parent / "openapi.json").read_text(encoding="utf-8"))
    assert schema == pinned


def test_a_client_that_leaves_stops_the_stream(index_dir: Path) -> None:
    """Driven as an ASGI server would: the client disconnects after the first event."""
    chat = FixedChat("One bee dances [1]. " * 40, delay=0.01)
    app = create_app(settings_for(index_dir, chat=chat))
    body = json.dumps({"question": "Who decoded the waggle dance?"}).encode()
    first_event = asyncio.Event()
    sent: list[bytes] = []

    async def receive() -> dict[str, Any]:
        if not sent:
            sent.append(b"")
            return {"type": "http.request", "body": body, "more_body": False}
        await first_event.wait()
        return {"type": "http.disconnect"}

    async def send(message: MutableMapping[str, Any]) -> None:
        if message["type"] == "http.response.body" and b"event: sentence" in message.get(
            "body", b""
        ):
            first_event.set()

    scope = {
        "type": "http",
        "asgi": {"version": "3.0", "spec_version": "2.3"},
        "http_version": "1.1",
        "method": "POST",
        "scheme": "http",
        "path": "/v1/ask/stream",
        "raw_path": b"/v1/ask/stream",
        "query_string": b"",
        "root_path": "",
        "headers": [
            (b"host", b"127.0.0.1:8000"),
            (b"content-type", b"application/json"),
            (b"content-length", str(len(body)).encode()),
        ],
        "client": ("127.0.0.1", 1),
        "server": ("127.0.0.1", 8000),
    }

    async def main() -> None:
        async with app.router.lifespan_context(app):
            await asyncio.wait_for(app(scope, receive, send), 20)
            gate = app.state.gate
            for _ in range(100):  # the worker closes the model's stream after its item
                if chat.closed:
                    break
                await asyncio.sleep(0.05)
            assert gate.stopped == 1
            assert gate.pending == 0

    asyncio.run(main())
    assert chat.closed == 1
    total = -(-len(chat.reply) // 5)
    assert chat.pieces < total / 2


def test_a_reranking_server_reranks_every_search(index_dir: Path) -> None:
    import dataclasses

    from veracity.retrieve.rerank import RerankingRetriever
    from veracity.testing import OverlapRelevanceScorer

    base = settings_for(index_dir)
    settings = dataclasses.replace(
        base,
        reranker="embedded",
        rerank_depth=2,
        models=dataclasses.replace(base.models, reranker=lambda name: OverlapRelevanceScorer()),
    )

    async def work(client: httpx.AsyncClient) -> tuple[httpx.Response, httpx.Response]:
        return (
            await client.post("/v1/search", json={"query": "waggle dance", "k": 2}),
            await client.get("/v1/version"),
        )

    search, version = serve(settings, work)
    assert search.status_code == 200
    expected = RerankingRetriever(
        open_retriever(index_dir, mode="bm25"), OverlapRelevanceScorer(), depth=2
    ).run("waggle dance", k=2)
    assert [hit.pop("source") for hit in search.json()["hits"]] == [
        Path(hit.chunk.source).name for hit in expected.hits
    ]
    assert [_without(hit, "source") for hit in search.json()["hits"]] == [
        _without(hit, "source") for hit in expected.to_dict()["hits"]
    ]
    assert search.json()["mode"] == "bm25+rerank"
    assert version.json()["reranker"] == "embedded"


def test_a_rerank_depth_without_a_reranker_is_refused(index_dir: Path) -> None:
    with pytest.raises(OptionError, match="rerank_depth"):
        Settings(index=index_dir, rerank_depth=5)


def test_a_request_can_choose_its_search_mode(index_dir: Path) -> None:
    async def work(client: httpx.AsyncClient) -> list[httpx.Response]:
        return [
            await client.post("/v1/search", json={"query": "waggle dance", "mode": mode})
            for mode in ("hybrid", "dense", "fuzzy")
        ] + [await client.get("/v1/version")]

    hybrid, dense, fuzzy, version = serve(settings_for(index_dir), work)
    # the test index has no dense vectors: hybrid falls back to BM25 and says so, as the CLI
    assert hybrid.status_code == 200
    expected = open_retriever(index_dir, mode="hybrid").run("waggle dance", k=defaults.TOP_K)
    assert [_without(hit, "source") for hit in hybrid.json()["hits"]] == [
        _without(hit, "source") for hit in expected.to_dict()["hits"]
    ]
    assert hybrid.json()["notes"]
    assert any(note.startswith("requests with mode hybrid: ") for note in version.json()["notes"])
    assert dense.status_code == 400
    assert "send mode bm25" in dense.json()["error"]["message"]
    assert fuzzy.status_code == 422
    assert "bm25" in fuzzy.text


def test_verify_and_repair_search_with_the_requested_mode(index_dir: Path) -> None:
    async def work(client: httpx.AsyncClient) -> list[httpx.Response]:
        return [
            await client.post(path, json={"answer": WRONG, "mode": "dense"})
            for path in ("/v1/verify", "/v1/repair")
        ]

    for response in serve(settings_for(index_dir), work):
        assert response.status_code == 400, response.text
        assert "send mode bm25" in response.json()["error"]["message"]


@pytest.mark.parametrize(
    ("path", "body", "field"),
    [
        ("/v1/search", {"query": "bees", "k": True}, "k"),
        ("/v1/search", {"query": "bees", "k": "5"}, "k"),
        ("/v1/search", {"query": "bees", "k": 2.0}, "k"),
        ("/v1/search", {"query": 5}, "query"),
        ("/v1/ask", {"question": "Why?", "tau": "0.5"}, "tau"),
        ("/v1/ask", {"question": "Why?", "tau": True}, "tau"),
        ("/v1/ask/stream", {"question": ["Why?"]}, "question"),
        ("/v1/verify", {"answer": "Bees dance.", "sources": "Bees dance."}, "sources"),
        ("/v1/verify", {"answer": "Bees dance.", "sources": [1]}, "sources.0"),
        ("/v1/verify", {"answer": "Bees dance.", "layers": "nli"}, "layers"),
        ("/v1/verify/stream", {"answer": "Bees dance.", "question": 1}, "question"),
        ("/v1/repair", {"answer": "Bees dance.", "k": "3"}, "k"),
        ("/v1/repair", {"answer": "Bees dance.", "doc_ids": [True]}, "doc_ids.0"),
        ("/v1/check", {"pairs": [{"premise": "a", "claim": 1}]}, "pairs.0.claim"),
        ("/v1/check", {"pairs": [{"premise": "a", "claim": "b", "id": 7}]}, "pairs.0.id"),
    ],
)
def test_every_request_field_takes_only_its_own_type(
    index_dir: Path, path: str, body: dict[str, Any], field: str
) -> None:
    """``"k": true`` is not 1 and ``"k": "5"`` is not 5: a wrong JSON type is a 422 naming the
    field, for every endpoint."""

    async def work(client: httpx.AsyncClient) -> httpx.Response:
        return await client.post(path, json=body)

    response = serve(settings_for(index_dir), work)
    assert response.status_code == 422, response.text
    assert response.json()["error"]["message"].startswith(f"the request is not valid: {field}:")


def test_only_the_names_the_server_was_started_for_are_answered(index_dir: Path) -> None:
    """DNS rebinding: a page on evil.example whose name resolves to 127.0.0.1 must not read the
    token-less loopback service. The loopback names, --host and --allowed-host are served."""
    settings = settings_for(index_dir, allowed_hosts=("Box.Local",))

    async def work(client: httpx.AsyncClient) -> dict[str, httpx.Response]:
        names = (
            "evil.example",
            "evil.example:8000",
            "127.0.0.1.evil.example",
            "127.0.0.1:8000",
            "localhost",
            "[::1]:8000",
            "box.local:8000",
            "",
        )
        found = {}
        for name in names:
            found[name] = await client.get("/v1/documents", headers={"Host": name})
        found["page"] = await client.get("/", headers={"Host": "evil.example"})
        return found

    found = serve(settings, work)
    for name in ("evil.example", "evil.example:8000", "127.0.0.1.evil.example", "page"):
        assert found[name].status_code == 400, name
        assert "waggle" not in found[name].text
    message = found["evil.example:8000"].json()["error"]["message"]
    assert message == (
        "this server does not answer to the name 'evil.example' (the request's Host header), "
        "only to 127.0.0.1, ::1, box.local, localhost and the address a request arrives on; "
        "if clients reach it by that name, start it with --allowed-host evil.example"
    )
    assert found["page"].headers["content-security-policy"]  # still sent with its headers
    for name in ("127.0.0.1:8000", "localhost", "[::1]:8000", "box.local:8000"):
        assert found[name].status_code == 200, name
    assert found[""].status_code == 400
    assert "no Host header" in found[""].json()["error"]["message"]


def test_an_allowed_host_must_be_a_name(index_dir: Path) -> None:
    with pytest.raises(OptionError, match="allowed_host='http://box/' is not allowed"):
        Settings(index=index_dir, allowed_hosts=("http://box/",))


def test_a_body_shorter_than_it_declared_is_408_not_held_open(index_dir: Path) -> None:
    """``Content-Length: 500`` and 9 bytes sent: the service answers 408 after body_seconds
    instead of waiting for the rest for as long as the client keeps the connection."""
    app = create_app(settings_for(index_dir, body_seconds=0.3))
    never = asyncio.Event()
    parts = [{"type": "http.request", "body": b'{"query":', "more_body": True}]
    sent: list[MutableMapping[str, Any]] = []

    async def receive() -> dict[str, Any]:
        if parts:
            return parts.pop()
        await never.wait()  # the rest never comes, and the client does not leave
        return {"type": "http.disconnect"}

    async def send(message: MutableMapping[str, Any]) -> None:
        sent.append(message)

    scope = {
        "type": "http",
        "asgi": {"version": "3.0", "spec_version": "2.3"},
        "http_version": "1.1",
        "method": "POST",
        "scheme": "http",
        "path": "/v1/search",
        "raw_path": b"/v1/search",
        "query_string": b"",
        "root_path": "",
        "headers": [
            (b"host", b"127.0.0.1:8000"),
            (b"content-type", b"application/json"),
            (b"content-length", b"500"),
        ],
        "client": ("127.0.0.1", 1),
        "server": ("127.0.0.1", 8000),
    }

    async def main() -> float:
        async with app.router.lifespan_context(app):
            loop = asyncio.get_running_loop()
            started = loop.time()
            await asyncio.wait_for(app(scope, receive, send), 10)
            return loop.time() - started

    took = asyncio.run(main())
    assert took < 5
    start = next(m for m in sent if m["type"] == "http.response.start")
    assert start["status"] == 408
    body = json.loads(
        b"".join(m.get("body", b"") for m in sent if m["type"] == "http.response.body")
    )
    assert body["error"]["limit"] == {"name": "body_seconds", "value": 0.3}
    assert body["error"]["message"] == (
        "the request body was not all there after 0.3 s (9 bytes arrived), over this server's "
        "limit body_seconds = 0.3; send the whole body at once, as many bytes as its "
        "Content-Length says (the server's operator sets the limit)"
    )


def test_no_response_shows_a_path_on_the_server(index_dir: Path) -> None:
    """Hits, an answer's sources, notes, the abstention and error messages: the one rule of
    veracity.server.public, for JSON bodies and streamed events alike."""

    async def work(client: httpx.AsyncClient) -> list[httpx.Response]:
        return [
            await client.post("/v1/search", json={"query": "waggle dance"}),
            await client.post("/v1/search", json={"query": "waggle dance", "mode": "hybrid"}),
            await client.post("/v1/ask", json={"question": "Who decoded the dance?"}),
            await client.post("/v1/ask/stream", json={"question": "Who decoded the dance?"}),
            await client.post("/v1/ask", json={"question": "zzz qqq xxyyzz"}),
            await client.get("/v1/version"),
            await client.get("/v1/documents"),
            await client.get("/v1/documents/wings.txt"),
        ]

    responses = serve(settings_for(index_dir), work)
    folders = {str(index_dir.resolve()), str(index_dir), str(index_dir.resolve().parent)}
    corpus = Path(open_retriever(index_dir, mode="bm25").run("wings", k=1).hits[0].chunk.source)
    folders.add(str(corpus.parent))
    for response in responses:
        assert response.status_code == 200, response.text
        for folder in folders:
            assert folder not in response.text, (response.request.url, folder)
    search, hybrid, ask, streamed, abstained, version, listing, document = responses
    assert {hit["source"] for hit in search.json()["hits"]} <= {"waggle_dance.md", "wings.txt"}
    assert {s["source"] for s in ask.json()["sources"]} <= {"waggle_dance.md", "wings.txt"}
    final = events(streamed.text)[-1][1]
    assert {s["source"] for s in final["sources"]} <= {"waggle_dance.md", "wings.txt"}
    assert any(f"the index at {index_dir.name}" in note for note in hybrid.json()["notes"])
    assert any(f"the index at {index_dir.name}" in note for note in version.json()["notes"])
    assert f"no calibration was made for {index_dir.name};" in ask.json()["abstention"]["source"]
    assert abstained.json()["status"] == "abstained"
    assert {row["source"] for row in listing.json()["documents"]} == {
        "waggle_dance.md",
        "wings.txt",
    }
    assert document.json()["source"] == "wings.txt"


# --- budgets, and work nobody waits for ------------------------------------------------------
BEES = "Bees fly. " * 1999  # 20 KB, inside every size limit: 1,999 claims


def test_an_answer_over_the_claims_budget_is_refused_up_front(index_dir: Path) -> None:
    scorer = SlowScorer()

    async def work(client: httpx.AsyncClient) -> list[httpx.Response]:
        return [
            await client.post(path, json={"answer": "Bees fly. " * 30})
            for path in ("/v1/verify", "/v1/verify/stream", "/v1/repair")
        ]

    for response in serve(settings_for(index_dir, scorer=scorer, claims=20), work):
        assert response.status_code == 422, response.text
        assert response.json()["error"]["message"] == (
            "the answer has 30 claims, over this server's limit claims = 20; send less (the "
            "server's operator sets the limit)"
        )
        assert response.json()["error"]["limit"] == {"name": "claims", "value": 20}
    assert scorer.calls == []  # no model work was started


@pytest.mark.parametrize(
    ("body", "message"),
    [
        (
            {"answer": "Bees fly. " * 30, "k": 20},
            "30 claims with 20 passages each make 600 (passage, claim) pairs to score",
        ),
        (
            {"answer": "Bees fly. " * 30, "sources": ["Bees fly."] * 3, "k": 20, "limits": 60},
            "30 claims with 3 passages each make 90 (passage, claim) pairs to score",
        ),
    ],
)
def test_an_answer_over_the_pairs_budget_is_refused_up_front(
    index_dir: Path, body: dict[str, Any], message: str
) -> None:
    pairs = body.pop("limits", 500)

    async def work(client: httpx.AsyncClient) -> httpx.Response:
        return await client.post("/v1/verify", json=body)

    response = serve(settings_for(index_dir, pairs=pairs), work)
    assert response.status_code == 422, response.text
    assert response.json()["error"]["message"] == (
        f"{message}, over this server's limit pairs = {pairs}; send fewer claims or a smaller k "
        "(the server's operator sets the limit)"
    )


def test_a_refusal_never_waits_behind_model_work(index_dir: Path) -> None:
    """While a slow job holds the models, requests that fail their checks are answered before
    it ends: they never queue (before, a repair with a bad policy waited for the models)."""
    slow = {"pairs": [{"premise": "a", "claim": "b"}]}
    refused = [
        ("/v1/repair", {"answer": "Bees fly.", "policy": "rewrite"}, 400),
        ("/v1/verify", {"answer": BEES}, 422),
        ("/v1/search", {"query": "bees", "k": 99}, 422),
        ("/v1/ask/stream", {"question": "x" * 3000}, 422),
    ]

    scorer = HeldScorer()

    async def work(client: httpx.AsyncClient) -> tuple[list[int], bool]:
        running = asyncio.create_task(client.post("/v1/check", json=slow))
        await until(lambda: scorer.running == 1, "holding the models")
        found = []
        for path, body, _ in refused:  # a refusal that queued would wait for release()
            response = await asyncio.wait_for(client.post(path, json=body), 30)
            found.append(response.status_code)
        busy = scorer.running == 1 and not running.done()
        scorer.release()
        await running
        return found, busy

    found, busy = serve(settings_for(index_dir, scorer=scorer), work)
    assert busy  # the check still held the models when all the refusals came back
    assert found == [status for _, _, status in refused]


def _plain_request(
    app: Any, path: str, body: dict[str, Any], *, leave_after: float
) -> tuple[int, float]:
    """POST ``body`` as an ASGI server would, the client leaving after ``leave_after`` s;
    returns the status sent and the seconds until the gate was free again."""
    data = json.dumps(body).encode()
    left = asyncio.Event()
    sent: list[MutableMapping[str, Any]] = []
    calls = 0

    async def receive() -> dict[str, Any]:
        nonlocal calls
        calls += 1
        if calls == 1:
            return {"type": "http.request", "body": data, "more_body": False}
        await left.wait()
        return {"type": "http.disconnect"}

    async def send(message: MutableMapping[str, Any]) -> None:
        sent.append(message)

    scope = {
        "type": "http",
        "asgi": {"version": "3.0", "spec_version": "2.3"},
        "http_version": "1.1",
        "method": "POST",
        "scheme": "http",
        "path": path,
        "raw_path": path.encode(),
        "query_string": b"",
        "root_path": "",
        "headers": [
            (b"host", b"127.0.0.1:8000"),
            (b"content-type", b"application/json"),
            (b"content-length", str(len(data)).encode()),
        ],
        "client": ("127.0.0.1", 1),
        "server": ("127.0.0.1", 8000),
    }

    async def main() -> float:
        async with app.router.lifespan_context(app):
            loop = asyncio.get_running_loop()
            loop.call_later(leave_after, left.set)
            await asyncio.wait_for(app(scope, receive, send), 30)
            gone_at = loop.time()
            while app.state.gate.pending:
                await asyncio.sleep(0.02)
            return loop.time() - gone_at

    freed = asyncio.run(main())
    start = next(m for m in sent if m["type"] == "http.response.start")
    return start["status"], freed


def test_a_client_that_leaves_stops_the_work_of_a_plain_request(index_dir: Path) -> None:
    """verify (not streamed) of 40 claims against 5 pasted passages, 200 pairs at 20 ms each
    (4 s); the client gives up after 0.5 s. Before, the work went on to the last pair and held
    the models all that time."""
    scorer = SlowScorer(per_pair=0.02)
    app = create_app(settings_for(index_dir, scorer=scorer))
    sources = [f"Bees fly over field {n}." for n in range(5)]
    status, freed = _plain_request(
        app, "/v1/verify", {"answer": "Bees fly. " * 40, "sources": sources}, leave_after=0.5
    )
    assert status == 499
    assert app.state.gate.stopped == 1
    assert scorer.scored < 100  # of 200: it stopped at the first slice after the client left
    assert freed < 1.5  # one slice of 32 pairs is 0.64 s


def test_a_request_past_its_time_limit_stops_its_work(index_dir: Path) -> None:
    scorer = SlowScorer(per_pair=0.02)

    async def work(client: httpx.AsyncClient) -> tuple[httpx.Response, float]:
        loop = asyncio.get_running_loop()
        response = await client.post(
            "/v1/check",
            json={
                "pairs": [{"premise": f"Bees fly {n}.", "claim": "Bees fly."} for n in range(200)]
            },
        )
        answered = loop.time()
        while client._transport.app.state.gate.pending:  # type: ignore[attr-defined]
            await asyncio.sleep(0.02)
        return response, loop.time() - answered

    response, freed = serve(settings_for(index_dir, scorer=scorer, seconds=0.3), work)
    assert response.status_code == 408
    assert freed < 1.5  # before, the job kept the models until its last pair (4 s)
    assert scorer.scored < 100


def test_the_page_takes_its_verdict_colours_from_the_shared_stylesheet(index_dir: Path) -> None:
    """One stylesheet of verdict colours serves the page and the batch overview."""

    async def work(client: httpx.AsyncClient) -> list[httpx.Response]:
        return [await client.get("/"), await client.get("/static/verdicts.css")]

    page, css = serve(settings_for(index_dir), work)
    assert '<link rel="stylesheet" href="/static/verdicts.css">' in page.text
    assert css.status_code == 200
    assert css.headers["content-type"].startswith("text/css")
    assert css.text == VERDICTS_CSS.read_text(encoding="utf-8")
    assert ".sentence.verdict-contradicted" in css.text


@pytest.mark.parametrize("workers", [1, 2])
def test_workers_bound_the_model_jobs_at_once(index_dir: Path, workers: int) -> None:
    """Three checks at once: ``workers`` of them hold the models, the rest wait their turn."""
    body = {"pairs": [{"premise": "a", "claim": "b"}]}
    scorer = HeldScorer()

    async def work(client: httpx.AsyncClient) -> list[httpx.Response]:
        gate = gate_of(client)
        sent = [asyncio.create_task(client.post("/v1/check", json=body)) for _ in range(3)]
        await until(lambda: gate.pending == 3, "three checks admitted")
        await until(lambda: scorer.running == workers, f"{workers} checks holding the models")
        scorer.release()
        return list(await asyncio.gather(*sent))

    replies = serve(settings_for(index_dir, scorer=scorer, workers=workers), work)
    assert [reply.status_code for reply in replies] == [200, 200, 200]
    assert (scorer.started, scorer.most) == (3, workers)


def test_overload_counts_the_running_workers(index_dir: Path) -> None:
    body = {"pairs": [{"premise": "a", "claim": "b"}]}

    scorer = HeldScorer()

    async def work(client: httpx.AsyncClient) -> list[httpx.Response]:
        gate = gate_of(client)
        held = [asyncio.create_task(client.post("/v1/check", json=body)) for _ in range(3)]
        await until(lambda: scorer.running == 2, "two checks running")
        await until(lambda: gate.pending == 3, "one check waiting (queue = 1)")
        extra = await asyncio.wait_for(client.post("/v1/check", json=body), 30)
        scorer.release()
        return [*(await asyncio.gather(*held)), extra]

    *held, extra = serve(settings_for(index_dir, scorer=scorer, queue=1, workers=2), work)
    assert [reply.status_code for reply in held] == [200, 200, 200]
    assert extra.status_code == 503
    assert extra.json()["error"]["message"] == (
        "the server is busy (3 requests running or waiting, limit queue = 1); retry after 5 s"
    )


def test_workers_default_to_one_per_two_cores() -> None:
    from veracity.server.gate import serve_workers
    from veracity.server.settings import Limits

    assert Limits().workers == serve_workers() >= 1
    with pytest.raises(OptionError, match="workers"):
        Limits(workers=0)


def test_the_api_description_is_served_and_says_what_is_sent(index_dir: Path) -> None:
    """Before: /docs and /openapi.json were 404, 422 was declared as FastAPI's
    ``{detail: [...]}`` while the body is ``{"error": {...}}``, no bearer scheme, and no
    limit or allowed value in the schema."""

    async def work(client: httpx.AsyncClient) -> list[httpx.Response]:
        return [
            await client.get("/openapi.json"),
            await client.get("/v1/openapi.json"),
            await client.get("/docs"),
            await client.post(
                "/v1/search", json={"query": "bees", "k": "five"}, headers=BEARER_HEADER
            ),
        ]

    schema, versioned, docs, invalid = serve(settings_for(index_dir, k=7, token=TOKEN), work)
    assert schema.status_code == versioned.status_code == docs.status_code == 200
    assert schema.json() == versioned.json()
    assert "/static/docs.js" in docs.text
    spec = schema.json()
    assert spec["components"]["securitySchemes"]["HTTPBearer"]["scheme"] == "bearer"
    verify = spec["paths"]["/v1/verify"]["post"]
    assert verify["security"] == [{"HTTPBearer": []}]
    declared = verify["responses"]["422"]["content"]["application/json"]["schema"]
    assert declared == {"$ref": "#/components/schemas/ErrorBody"}
    assert "HTTPValidationError" not in spec["components"]["schemas"]
    assert set(invalid.json()) == set(spec["components"]["schemas"]["ErrorBody"]["properties"])
    fields = spec["components"]["schemas"]["VerifyRequest"]["properties"]
    assert fields["k"]["maximum"] == 7  # this server's limit, not the default's
    assert fields["answer"]["maxLength"] == 20_000
    assert fields["rule"]["enum"] == ["decision", "any", "all", "cascade"]
    assert fields["layers"]["items"]["enum"] == ["nli", "knowledge"]
    policy = spec["components"]["schemas"]["RepairRequest"]["properties"]["policy"]
    assert policy["enum"] == ["revise", "delete", "flag", "refuse"]
    tokenless = create_app(settings_for(index_dir)).openapi()  # nothing to send, none declared
    assert "securitySchemes" not in tokenless["components"]
    assert "security" not in tokenless["paths"]["/v1/verify"]["post"]


TOKEN = "s3cret-token"
BEARER_HEADER = {"Authorization": f"Bearer {TOKEN}"}


def test_smaller_defects_of_serve_2(index_dir: Path) -> None:
    """Issue 45's point 7, as a client meets them: a body that is not JSON, or nests too
    deep, gets a message that says so (before: "There was an error parsing the body" or
    "0: JSON decode error"); HEAD / is answered (before: 405); and an unknown document id is
    not echoed through the rule that rewrites the index's path (before, asking for
    "x" + <the index path> was answered "no document 'xidx'": an oracle for the server's
    folders)."""

    async def work(client: httpx.AsyncClient) -> list[httpx.Response]:
        json_type = {"content-type": "application/json"}
        return [
            await client.post("/v1/search", content=b'{"query": "x"', headers=json_type),
            await client.post(
                "/v1/search",
                content=b'{"query": ' + b"[" * 5000 + b"]" * 5000 + b"}",
                headers=json_type,
            ),
            await client.head("/"),
            await client.get(f"/v1/documents/x{index_dir}"),
            await client.post("/v1/verify", json={"answer": "Bees fly.", "doc_ids": ["nope"]}),
        ]

    cut, deep, head, guessed, unknown = serve(settings_for(index_dir), work)
    assert cut.status_code == 422
    assert "the body is not JSON (Expecting ',' delimiter at character 13)" in cut.text
    assert deep.status_code == 400
    assert "nested deeper than a JSON reader allows" in deep.text
    assert head.status_code == 200
    assert guessed.status_code == 404
    assert index_dir.name not in guessed.text
    assert unknown.status_code == 404
    assert "doc_ids[0] is not the id of a document" in unknown.text
