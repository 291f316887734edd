"""A small index made in the test, fake models, and a client of the app over httpx's ASGI
transport (the app's lifespan runs, as under uvicorn)."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Iterator, Sequence
from pathlib import Path
from typing import Any, TypeVar

import httpx
import pytest

from veracity.corpus.indexer import Indexer
from veracity.models import Models
from veracity.models.chat.base import ChatRequest, ChatResponse
from veracity.models.pairs.base import SpanDetector
from veracity.retrieve.bm25 import BM25Builder
from veracity.server.app import create_app
from veracity.server.settings import Limits, Settings
from veracity.testing import TablePairScorer
from veracity.types import PairScores

T = TypeVar("T")

DANCE = (
    "# The Waggle Dance\n\nKarl von Frisch decoded the waggle dance of honeybees. "
    "He shared the Nobel Prize in Physiology or Medicine in 1973.\n"
)
WINGS = "Honeybee wings beat about 230 times per second.\n"
REPLY = (
    "Karl von Frisch decoded the waggle dance [1]. Bees hum [2]. It was <script>x</script> [bold]."
)


class FixedChat:
    """A streaming chat model that always gives ``reply``; ``pieces`` counts what it wrote."""

    model_id = "fixed"

    def __init__(self, reply: str = REPLY, *, delay: float = 0.0) -> None:
        self.reply = reply
        self.delay = delay
        self.pieces = 0
        self.closed = 0

    def run(self, request: ChatRequest) -> ChatResponse:
        return ChatResponse(self.reply, self.model_id)

    def stream(self, request: ChatRequest) -> Iterator[str]:
        import time

        try:
            for start in range(0, len(self.reply), 5):
                time.sleep(self.delay)
                self.pieces += 1
                yield self.reply[start : start + 5]
        finally:
            self.closed += 1


class SlowScorer(TablePairScorer):
    """Supports everything, ``delay`` seconds per batch and ``per_pair`` more per pair; raises
    ``error`` when given. ``scored`` counts the pairs scored."""

    def __init__(
        self, delay: float = 0.0, error: Exception | None = None, *, per_pair: float = 0.0
    ) -> None:
        super().__init__({}, default=(0.9, 0.05, 0.05))
        self.delay = delay
        self.per_pair = per_pair
        self.error = error

    @property
    def scored(self) -> int:
        return sum(self.calls)

    def run(self, premises: Sequence[str], hypotheses: Sequence[str]) -> PairScores:
        import time

        time.sleep(self.delay + self.per_pair * len(premises))
        if self.error is not None:
            raise self.error
        return super().run(premises, hypotheses)


class HeldScorer(SlowScorer):
    """Supports everything, and holds every batch until :meth:`release`: a test knows that a
    job holds the models (``running`` batches in the scorer, ``started`` in all) without
    waiting a guessed time for it. A batch held past ``limit`` seconds fails the test."""

    def __init__(self, *, limit: float = 30.0) -> None:
        import threading

        super().__init__()
        self.limit = limit
        self.running = 0
        self.most = 0
        self.started = 0
        self._free = threading.Event()
        self._lock = threading.Lock()

    def release(self) -> None:
        """Let every batch, held now or later, finish."""
        self._free.set()

    def run(self, premises: Sequence[str], hypotheses: Sequence[str]) -> PairScores:
        with self._lock:
            self.started += 1
            self.running += 1
            self.most = max(self.most, self.running)
        try:
            if not self._free.wait(self.limit):
                raise AssertionError(f"a batch was held for {self.limit} s: release() it")
            return super().run(premises, hypotheses)
        finally:
            with self._lock:
                self.running -= 1


async def until(condition: Callable[[], bool], what: str, *, limit: float = 30.0) -> None:
    """Wait until ``condition()`` holds (looked at every few milliseconds), failing the test
    after ``limit`` seconds: a test waits for a state, never for a guessed time."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + limit
    while not condition():
        if loop.time() > deadline:
            raise AssertionError(f"still not {what} after {limit} s")
        await asyncio.sleep(0.005)


def gate_of(client: httpx.AsyncClient) -> Any:
    """The gate of the app that ``client`` (made by :func:`serve`) talks to."""
    transport = client._transport
    assert isinstance(transport, httpx.ASGITransport)
    return transport.app.state.gate  # type: ignore[attr-defined]


@pytest.fixture(scope="session")
def index_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("corpus")
    (root / "biology").mkdir()
    (root / "biology" / "waggle_dance.md").write_text(DANCE, encoding="utf-8")
    (root / "wings.txt").write_text(WINGS, encoding="utf-8")
    index = tmp_path_factory.mktemp("index") / "idx"
    Indexer(builders=[BM25Builder()]).run([root], index)
    return index


@pytest.fixture(scope="session", autouse=True)
def warm_service(index_dir: Path) -> None:
    """One search and one check through the app before the first test: the first app of a
    process takes seconds (imports, the index's first opening in a worker thread) that no test
    should count as its own."""

    async def work(client: httpx.AsyncClient) -> None:
        await client.post("/v1/search", json={"query": "waggle dance", "k": 1})
        await client.post("/v1/check", json={"pairs": [{"premise": "a", "claim": "b"}]})

    serve(settings_for(index_dir), work)


def settings_for(
    index: Path,
    *,
    scorer: TablePairScorer | None = None,
    chat: FixedChat | None = None,
    token: str | None = None,
    allowed_hosts: tuple[str, ...] = (),
    spans: SpanDetector | None = None,
    **limits: Any,
) -> Settings:
    """Settings over the test index with fake models (the CLI's factories, as build_app);
    ``spans``: the span detector of every verify request. One worker unless ``limits`` say
    otherwise, whatever the machine's cores, so that tests of the queue hold everywhere; the
    time per pair starts at 1 ms rather than measured at start-up (a fake that sleeps would make
    every start slow)."""
    limits.setdefault("workers", 1)
    limits.setdefault("pair_ms", 1)  # the fakes' own time is measured as they score
    made_scorer = scorer or SlowScorer()
    made_chat = chat or FixedChat()

    def made_spans(name: str) -> SpanDetector:
        if spans is None:
            raise AssertionError(f"no span detector was asked for, yet {name!r} was made")
        return spans

    models = Models(
        verifier=lambda name: made_scorer,
        chat=lambda spec, model: made_chat,
        spans=made_spans,
    )
    return Settings(
        index=index,
        mode="bm25",
        limits=Limits(**limits),
        models=models,
        llm="openai:http://127.0.0.1:9/v1",  # the fake chat (extractive is no chat model)
        token=token,
        allowed_hosts=allowed_hosts,
        spans=None if spans is None else "hf:fake",
    )


def serve(settings: Settings, work: Callable[[httpx.AsyncClient], Awaitable[T]]) -> T:
    """Run ``work(client)`` against the app of ``settings``, its lifespan included."""
    app = create_app(settings)

    async def main() -> T:
        async with app.router.lifespan_context(app):
            transport = httpx.ASGITransport(app=app)
            async with httpx.AsyncClient(
                transport=transport, base_url="http://127.0.0.1"
            ) as client:
                return await work(client)

    return asyncio.run(main())


def events(text: str) -> list[tuple[str, Any]]:
    """The (event, data) pairs of a Server-Sent Events body."""
    import json

    found = []
    for block in text.split("\n\n"):
        name, data = "message", []
        for line in block.splitlines():
            if line.startswith("event:"):
                name = line[6:].strip()
            elif line.startswith("data:"):
                data.append(line[5:].strip())
        if data:
            found.append((name, json.loads("\n".join(data))))
    return found


# --- integration: uvicorn on 127.0.0.1, the real shipped models, the sample corpus --------------
EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
#: Screenshots and other artifacts of the browser test.
ARTIFACTS = Path(__file__).resolve().parents[2] / ".cache" / "test-artifacts" / "server"


class LiveServer:
    """The app under uvicorn in a thread; ``url`` is where it listens."""

    def __init__(self, settings: Settings) -> None:
        import socket
        import threading

        import uvicorn

        from veracity.server.connections import uvicorn_options

        with socket.socket() as probe:
            probe.bind(("127.0.0.1", 0))
            port = probe.getsockname()[1]
        self.app = create_app(settings)
        self.port = port
        self.url = f"http://127.0.0.1:{port}"
        config = uvicorn.Config(
            self.app,
            host=settings.host,
            port=port,
            log_level="warning",
            access_log=False,
            lifespan="on",
            **uvicorn_options(settings.limits),
        )
        self.server = uvicorn.Server(config)
        self.thread = threading.Thread(target=self.server.run, daemon=True)

    def __enter__(self) -> LiveServer:
        import time

        self.thread.start()
        deadline = time.monotonic() + 300  # the lifespan loads the real models
        while not self.server.started:
            if not self.thread.is_alive() or time.monotonic() > deadline:
                raise RuntimeError("the server did not start")
            time.sleep(0.1)
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.should_exit = True
        self.thread.join(timeout=30)


@pytest.fixture(scope="session")
def sample_index(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The sample corpus indexed as `make demo` does (BM25 and dense vectors)."""
    from veracity.retrieve.dense import DenseBuilder

    index = tmp_path_factory.mktemp("sample") / "index"
    Indexer(builders=[BM25Builder(), DenseBuilder()]).run([EXAMPLES / "sample_corpus"], index)
    return index


@pytest.fixture(scope="session")
def live(sample_index: Path) -> Iterator[LiveServer]:
    """`veracity serve --index ...` with the real models (extractive answers)."""
    with LiveServer(Settings(index=sample_index)) as server:
        yield server
