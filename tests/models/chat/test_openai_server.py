"""The OpenAI-compatible backend against a real server: llama-cpp-python's own
``python -m llama_cpp.server`` serving the bundled SmolLM2 on loopback."""

from __future__ import annotations

import importlib.util
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from veracity.models.chat import ChatRequest, OpenAIChat, ServerStatusError, bundled_gguf
from veracity.models.chat.openai import HttpPolicy

pytestmark = pytest.mark.integration

#: Loading a 100 MB model on a busy 2-core machine can take a while.
STARTUP_S = 180.0
ALIAS = "smollm2"


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


def tail(log: Path, lines: int = 30) -> str:
    return "\n".join(log.read_text(errors="replace").splitlines()[-lines:])


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """The base URL of a llama.cpp server started for these tests, stopped afterwards."""
    for module in (
        "llama_cpp",
        "fastapi",
        "uvicorn",
        "sse_starlette",
        "starlette_context",
        "pydantic_settings",
    ):
        if importlib.util.find_spec(module) is None:
            pytest.skip(f"needs the [llm] extra ({module} is missing): pip install 'veracity[llm]'")
    port = free_port()
    log = tmp_path_factory.mktemp("llama-server") / "server.log"
    command = [
        sys.executable,
        "-m",
        "llama_cpp.server",
        "--model",
        str(bundled_gguf()),
        "--model_alias",
        ALIAS,
        "--host",
        "127.0.0.1",
        "--port",
        str(port),
        "--n_ctx",
        "2048",
        "--n_threads",
        "2",
    ]
    base_url = f"http://127.0.0.1:{port}/v1"
    with log.open("w") as out:
        process = subprocess.Popen(
            command, stdout=out, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL
        )
    try:
        deadline = time.monotonic() + STARTUP_S
        while True:
            if process.poll() is not None:
                pytest.fail(f"llama_cpp.server exited with {process.returncode}:\n{tail(log)}")
            try:
                if httpx.get(f"{base_url}/models", timeout=2.0).status_code == 200:
                    break
            except httpx.TransportError:
                pass
            if time.monotonic() > deadline:
                pytest.fail(f"llama_cpp.server did not answer within {STARTUP_S:g} s:\n{tail(log)}")
            time.sleep(0.25)
        yield base_url
    finally:
        process.terminate()
        try:
            process.wait(timeout=15)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(timeout=15)


@pytest.fixture
def chat(server: str) -> Iterator[OpenAIChat]:
    with OpenAIChat(
        model=ALIAS, base_url=server, api_key=None, env={}, policy=HttpPolicy(max_retries=1)
    ) as client:
        yield client


QUESTION = ChatRequest.of(
    "What is the capital of France? Answer in one word.", temperature=0.0, seed=0, max_tokens=16
)


def test_lists_the_served_model(chat: OpenAIChat) -> None:
    assert ALIAS in chat.list_models()


def test_chat_completion_from_a_real_server(chat: OpenAIChat) -> None:
    first = chat.run(QUESTION)
    assert first.text.strip()
    assert "paris" in first.text.lower()
    assert first.model == ALIAS
    assert first.completion_tokens is not None
    assert 0 < first.completion_tokens <= 16
    assert first.finish_reason in ("stop", "length")
    assert (first.seed, first.temperature) == (0, 0.0)
    assert chat.run(QUESTION).text == first.text


def test_streaming_from_a_real_server_gives_the_same_text(chat: OpenAIChat) -> None:
    pieces = list(chat.stream(QUESTION))
    assert len(pieces) > 1
    assert "".join(pieces) == chat.run(QUESTION).text


def test_a_real_server_error_is_reported_with_its_status(chat: OpenAIChat) -> None:
    # Far more tokens than the 2048-token window: the server refuses the request.
    with pytest.raises(ServerStatusError) as error:
        chat.run(ChatRequest.of("bees " * 5000, max_tokens=4))
    assert 400 <= error.value.status < 600
    assert str(chat.url) in str(error.value)
