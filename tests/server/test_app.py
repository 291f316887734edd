"""The service on fake models over httpx's ASGI transport: shapes, streams, limits, the token."""

from __future__ import annotations

import asyncio
import json
import typing
from pathlib import Path
from typing import Any

import httpx
import pytest

from veracity import defaults
from veracity.errors import OptionError
from veracity.retrieve.open import open_retriever
from veracity.server.app import create_app
from veracity.server.settings import Settings

from .conftest import DANCE, FixedChat, SlowScorer, events, serve, settings_for

pytestmark = pytest.mark.unit

WRONG = ("Great question! Karl von Frisch decoded the waggle dance. "
         "He shared the Nobel Prize in 1983.")


def _without(payload: dict[str, Any], *keys: str) -> dict[str, Any]:
    return {key: value for key, value in payload.items() if key not in keys}


def test_search_is_the_shape_the_cli_prints(index_dir: Path) -> None:
    async def work(client: httpx.AsyncClient) -> httpx.Response:
        return await client.post("/v1/search", json={"query": "waggle dance", "k": 2})

    response = serve(settings_for(index_dir), work)
    assert response.status_code == 200
    expected = open_retriever(index_dir, mode="bm25").run("waggle dance", k=2).to_dict()
    assert response.json() == expected


def test_ask_and_its_stream_give_the_same_answer(index_dir: Path) -> None:
    async def work(client: httpx.AsyncClient) -> tuple[httpx.Response, httpx.Response]:
        body = {"question": "Who decoded the waggle dance?"}
        return (await client.post("/v1/ask", json=body),
                await client.post("/v1/ask/stream", json=body))

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
        return (await client.post("/v1/verify", json=body),
                await client.post("/v1/verify/stream", json=body))

    whole, streamed = serve(settings_for(index_dir), work)
    assert whole.status_code == 200, whole.text
    report = whole.json()
    assert set(report) >= {"summary", "answer", "claims", "skipped", "verifier"}
    found = events(streamed.text)
    assert [name for name, _ in found] == ["sentence", "sentence", "sentence", "report"]
    assert found[0][1]["skipped"]["reason"] == "greeting"
    assert _without(found[-1][1], "timings", "calls") == _without(report, "timings", "calls")


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


def test_verify_against_documents_of_the_index_by_id(index_dir: Path) -> None:
    async def work(client: httpx.AsyncClient) -> httpx.Response:
        return await client.post("/v1/verify", json={
            "answer": WRONG, "doc_ids": ["biology/waggle_dance.md"]})

    response = serve(settings_for(index_dir), work)
    assert response.status_code == 200, response.text
    cited = {c["doc_id"] for claim in response.json()["claims"] for c in claim["evidence"]}
    assert cited == {"biology/waggle_dance.md"}


def test_check_scores_pairs_in_one_batch(index_dir: Path) -> None:
    scorer = SlowScorer()

    async def work(client: httpx.AsyncClient) -> httpx.Response:
        return await client.post("/v1/check", json={"pairs": [
            {"premise": "Bees dance.", "claim": "Bees dance.", "id": "a"},
            {"premise": "Bees dance.", "claim": "Bees sing."}]})

    response = serve(settings_for(index_dir, scorer=scorer), work)
    assert response.status_code == 200
    payload = response.json()
    assert [row.get("id") for row in payload["pairs"]] == ["a", None]
    assert payload["pairs"][0]["label"] == "supported"
    assert scorer.calls[-1] == 2


def test_documents_by_id_only(index_dir: Path) -> None:
    async def work(client: httpx.AsyncClient) -> list[httpx.Response]:
        return [await client.get("/v1/documents/biology/waggle_dance.md"),
                await client.get("/v1/documents/biology%2Fwaggle_dance.md"),
                await client.get("/v1/documents/../../etc/passwd"),
                await client.get("/v1/documents/%2e%2e%2f%2e%2e%2fetc%2fpasswd"),
                await client.get("/v1/documents/" + str(index_dir.parent / "x")),
                await client.get("/v1/documents")]

    found, encoded, up, dotted, absolute, listing = serve(settings_for(index_dir), work)
    assert found.status_code == 200
    document = found.json()
    assert document["text"] == DANCE
    assert "source" not in document  # the server's file path is not shown
    assert encoded.json() == document
    for response in (up, dotted, absolute):
        assert response.status_code == 404
        assert "root:" not in response.text
    assert dotted.json()["error"]["message"].startswith("no document '../../etc/passwd'")
    assert {row["id"] for row in listing.json()["documents"]} == {
        "biology/waggle_dance.md", "wings.txt"}


def test_the_token_is_required_and_compared(index_dir: Path) -> None:
    settings = settings_for(index_dir, token="s3cret-token")

    async def work(client: httpx.AsyncClient) -> list[httpx.Response]:
        return [await client.get("/v1/version"),
                await client.get("/v1/version", headers={"Authorization": "Bearer wrong"}),
                await client.get("/v1/version", headers={"Authorization": "Basic s3cret-token"}),
                await client.get("/v1/version",
                                 headers={"Authorization": "Bearer s3cret-token"}),
                await client.get("/v1/health")]

    missing, wrong, basic, right, health = serve(settings, work)
    assert missing.status_code == 401
    assert missing.headers["www-authenticate"] == "Bearer"
    assert missing.json()["error"]["message"] == (
        "this server needs a bearer token: send Authorization: Bearer <token> (the --token "
        "it was started with)")
    assert wrong.status_code == basic.status_code == 401
    assert wrong.json()["error"]["message"] == "the bearer token is wrong"
    assert right.status_code == 200
    assert right.json()["api"] == "v1"
    assert health.json() == {"status": "ok", "auth": True, "busy": 0}


def test_another_address_than_loopback_needs_a_token(index_dir: Path) -> None:
    with pytest.raises(OptionError, match="unless a token is given"):
        Settings(index=index_dir, host="0.0.0.0")
    assert Settings(index=index_dir, host="0.0.0.0", token="long-enough").token


@pytest.mark.parametrize(("limits", "path", "body", "status", "message"), [
    ({"body_bytes": 100}, "/v1/verify", {"answer": "x" * 200, "sources": ["y"]}, 413,
     "the request body is larger, over this server's limit body_bytes = 100; send less (the "
     "server's operator sets the limit)"),
    ({"answer_chars": 10}, "/v1/verify", {"answer": "Bees dance a lot.", "sources": ["y"]},
     422, "the answer has 17 characters, over this server's limit answer_chars = 10; send "
     "less (the server's operator sets the limit)"),
    ({"sources": 2}, "/v1/verify", {"answer": "Bees dance.", "sources": ["a", "b", "c"]},
     422, "3 sources and document ids, over this server's limit sources = 2; send less (the "
     "server's operator sets the limit)"),
    ({"pairs": 1}, "/v1/check", {"pairs": [{"premise": "a", "claim": "b"}] * 2}, 422,
     "2 pairs, over this server's limit pairs = 1; send less (the server's operator sets "
     "the limit)"),
    ({"k": 3}, "/v1/search", {"query": "bees", "k": 4}, 422,
     "k = 4 passages, over this server's limit k = 3; send less (the server's operator sets "
     "the limit)"),
    ({"question_chars": 5}, "/v1/ask/stream", {"question": "Why do bees dance?"}, 422,
     "the question has 18 characters, over this server's limit question_chars = 5; send "
     "less (the server's operator sets the limit)"),
])
def test_every_limit_is_a_4xx_that_names_it(index_dir: Path, limits: dict[str, int],
                                             path: str, body: dict[str, Any], status: int,
                                             message: str) -> None:
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
        return await client.post("/v1/verify", content=chunks(),
                                 headers={"content-type": "application/json"})

    response = serve(settings_for(index_dir, body_bytes=100), work)
    assert response.status_code == 413
    assert response.json()["error"]["limit"]["name"] == "body_bytes"


def test_a_request_over_the_time_limit_is_408(index_dir: Path) -> None:
    async def work(client: httpx.AsyncClient) -> httpx.Response:
        return await client.post("/v1/check", json={"pairs": [{"premise": "a", "claim": "b"}]})

    response = serve(settings_for(index_dir, scorer=SlowScorer(delay=2.5), seconds=1), work)
    assert response.status_code == 408
    assert response.json()["error"]["message"] == (
        "the request took longer than the time limit, over this server's limit seconds = 1; "
        "send less (the server's operator sets the limit)")


def test_overload_is_503_with_retry_after(index_dir: Path) -> None:
    body = {"pairs": [{"premise": "a", "claim": "b"}]}

    async def work(client: httpx.AsyncClient) -> list[httpx.Response]:
        first = asyncio.create_task(client.post("/v1/check", json=body))
        await asyncio.sleep(0.3)  # the first one holds the models
        second = asyncio.create_task(client.post("/v1/check", json=body))
        await asyncio.sleep(0.1)  # the second one waits in the queue (queue = 1)
        third = await client.post("/v1/check", json=body)
        return [await first, await second, third]

    first, second, third = serve(settings_for(index_dir, scorer=SlowScorer(delay=1.0),
                                              queue=1), work)
    assert first.status_code == second.status_code == 200
    assert third.status_code == 503
    assert third.headers["retry-after"] == "5"
    assert third.json()["error"]["message"] == (
        "the server is busy (2 requests running or waiting, limit queue = 1); retry after 5 s")


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
        return [await client.post("/v1/verify", json={"answer": "   ", "sources": ["a"]}),
                await client.post("/v1/verify", json={"answer": "Bees.", "layers": ["x"]}),
                await client.post("/v1/ask", json={"question": "Why?", "extra": 1})]

    empty, layers, extra = serve(settings_for(index_dir), work)
    assert empty.status_code == 400
    assert empty.json()["error"] == {"status": 400, "type": "InputError",
                                     "message": "the answer is empty: give the text to verify"}
    assert layers.status_code == 400
    assert "the service runs nli, knowledge" in layers.json()["error"]["message"]
    assert extra.status_code == 422
    assert extra.json()["error"]["message"].startswith("the request is not valid: extra:")


def test_cors_is_off_and_the_page_is_locked_down(index_dir: Path) -> None:
    async def work(client: httpx.AsyncClient) -> list[httpx.Response]:
        origin = {"Origin": "http://evil.example"}
        return [await client.get("/v1/health", headers=origin),
                await client.options("/v1/ask", headers=origin | {
                    "Access-Control-Request-Method": "POST"}),
                await client.get("/"), await client.get("/static/app.js"),
                await client.get("/static/..%2Fapp.py")]

    health, preflight, page, script, outside = serve(settings_for(index_dir), work)
    for response in (health, preflight):
        assert "access-control-allow-origin" not in response.headers
    assert preflight.status_code == 405
    assert page.status_code == 200
    assert "<title>veracity</title>" in page.text
    assert "script-src 'self'" in page.headers["content-security-policy"]
    assert "innerHTML" not in script.text
    assert "http" not in script.text.replace(
        "text/event-stream", "")
    assert outside.status_code == 404


def test_repair_returns_the_repaired_answer_and_keeps_the_original(index_dir: Path) -> None:
    answer = "Karl von Frisch decoded the waggle dance. Bees hum in winter."

    async def work(client: httpx.AsyncClient) -> tuple[httpx.Response, ...]:
        return (await client.post("/v1/repair", json={"answer": answer, "policy": "delete"}),
                await client.post("/v1/repair", json={"answer": answer, "policy": "rewrite"}),
                await client.post("/v1/repair", json={"answer": " "}))

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

    async def send(message: dict[str, Any]) -> None:
        if message["type"] == "http.response.body" and b"event: sentence" in message.get(
                "body", b""):
            first_event.set()

    scope = {"type": "http", "asgi": {"version": "3.0", "spec_version": "2.3"},
             "http_version": "1.1", "method": "POST", "scheme": "http",
             "path": "/v1/ask/stream", "raw_path": b"/v1/ask/stream", "query_string": b"",
             "root_path": "", "headers": [(b"content-type", b"application/json"),
                                          (b"content-length", str(len(body)).encode())],
             "client": ("127.0.0.1", 1), "server": ("127.0.0.1", 8000)}

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
    settings = dataclasses.replace(base, reranker="embedded", rerank_depth=2, models=dataclasses
                                   .replace(base.models, reranker=lambda name:
                                            OverlapRelevanceScorer()))

    async def work(client: httpx.AsyncClient) -> tuple[httpx.Response, httpx.Response]:
        return (await client.post("/v1/search", json={"query": "waggle dance", "k": 2}),
                await client.get("/v1/version"))

    search, version = serve(settings, work)
    assert search.status_code == 200
    expected = RerankingRetriever(open_retriever(index_dir, mode="bm25"),
                                  OverlapRelevanceScorer(), depth=2).run("waggle dance", k=2)
    assert search.json() == expected.to_dict()
    assert search.json()["mode"] == "bm25+rerank"
    assert version.json()["reranker"] == "embedded"


def test_a_rerank_depth_without_a_reranker_is_refused(index_dir: Path) -> None:
    with pytest.raises(OptionError, match="rerank_depth"):
        Settings(index=index_dir, rerank_depth=5)


def test_a_request_can_choose_its_search_mode(index_dir: Path) -> None:
    from veracity.server.app import SearchMode

    assert typing.get_args(SearchMode) == defaults.SEARCH_MODES

    async def work(client: httpx.AsyncClient) -> list[httpx.Response]:
        return [await client.post("/v1/search", json={"query": "waggle dance", "mode": mode})
                for mode in ("hybrid", "dense", "fuzzy")] + [await client.get("/v1/version")]

    hybrid, dense, fuzzy, version = serve(settings_for(index_dir), work)
    # the test index has no dense vectors: hybrid falls back to BM25 and says so, as the CLI
    assert hybrid.status_code == 200
    expected = open_retriever(index_dir, mode="hybrid").run("waggle dance", k=defaults.TOP_K)
    assert hybrid.json() == expected.to_dict()
    assert hybrid.json()["notes"]
    assert any(note.startswith("requests with mode hybrid: ")
               for note in version.json()["notes"])
    assert dense.status_code == 400
    assert "send mode bm25" in dense.json()["error"]["message"]
    assert fuzzy.status_code == 422
    assert "bm25" in fuzzy.text


def test_verify_and_repair_search_with_the_requested_mode(index_dir: Path) -> None:
    async def work(client: httpx.AsyncClient) -> list[httpx.Response]:
        return [await client.post(path, json={"answer": WRONG, "mode": "dense"})
                for path in ("/v1/verify", "/v1/repair")]

    for response in serve(settings_for(index_dir), work):
        assert response.status_code == 400, response.text
        assert "send mode bm25" in response.json()["error"]["message"]
