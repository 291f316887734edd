"""The service's cost over the library, its streaming, and a bounded load test on loopback.

Command (from the repository root)::

    nice -n 5 .venv/bin/python bench/serve.py [--runs 7] [--requests 24] [--llm extractive]
                                              [--abandoned]

The sample corpus (``examples/sample_corpus``) is indexed as ``make demo`` does (BM25 and dense)
into ``.cache/bench-serve-index`` and served by ``veracity serve`` in its own process on
127.0.0.1 with the shipped verifier and the ``--llm`` chat model. Three measurements:

1. **Overhead.** ``/v1/verify`` (the demo's ``answer_to_check.md`` against the index) and
   ``/v1/search`` (three demo queries, k 5) over HTTP against the same library calls in this
   process (:class:`veracity.server.service.Service` on the same index and models), run in
   turns: the median of ``--runs`` timed runs each after one warm-up, and the ratio HTTP /
   in-process.
2. **Streaming.** ``/v1/ask/stream`` on three demo questions: seconds to the first ``sentence``
   event and to the final ``answer`` event (median over runs and questions).
3. **Load.** ``/v1/verify`` and ``/v1/ask`` at 1, 4 and 16 concurrent clients, ``--requests``
   requests each (a fixed number, capped at 300 s per level): requests/s, p50 / p95 latency,
   errors (any status but 200), and the server's resident memory before and after.

With ``--abandoned``, every load level runs twice in turn, the second time with the request of
issue Harden-2 sent once the level is half done: ``/v1/verify`` of ``"Bees fly. " * 1999`` (20 KB,
1,999 claims) from a client that gives up after 5 s. The p95 of the other requests is reported
with and without it. Then a second server, started with budgets raised so that it admits that
request (``--max-claims 2000 --max-pairs 20000``), is sent it again: the client gives up after
5 s, and the seconds from then until a ``/v1/search`` is answered measure how soon the stopped
work frees the models.

Writes ``bench/results/serve.json`` and its section of ``bench/README.md``.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import shlex
import socket
import statistics
import subprocess
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import httpx

BENCH = Path(__file__).resolve().parent
REPO = BENCH.parent
sys.path.insert(0, str(BENCH))

from _report import write_result  # noqa: E402

INDEX = REPO / ".cache" / "bench-serve-index"
ANSWER = (REPO / "examples" / "answer_to_check.md").read_text(encoding="utf-8")
QUERIES = (
    "How fast do honeybee wings beat?",
    "What treatment controls varroa mites?",
    "queen bee lifespan",
)
QUESTIONS = (
    "How many days does a queen take to develop from egg to adult?",
    "When was the first Asian hornet nest found in Britain?",
    "How fast do honeybee wings beat?",
)
LEVELS = (1, 4, 16)
CAP_SECONDS = 300.0
#: Issue Harden-2's request, and how long its client waits before it gives up.
ABANDONED = {"answer": "Bees fly. " * 1999}
GIVE_UP_S = 5.0


def command(argv: Sequence[str]) -> str:
    line = shlex.join([".venv/bin/python", "bench/serve.py", *argv])
    niceness = os.nice(0)
    return f"nice -n {niceness} {line}" if niceness else line


def build_index() -> None:
    from veracity.corpus.indexer import Indexer
    from veracity.retrieve.bm25 import BM25Builder
    from veracity.retrieve.dense import DenseBuilder

    Indexer(builders=[BM25Builder(), DenseBuilder()]).run(
        [REPO / "examples" / "sample_corpus"], INDEX
    )


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def rss_mib(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text(encoding="utf-8").splitlines():
        if line.startswith("VmRSS:"):
            return round(int(line.split()[1]) / 1024, 1)
    return float("nan")


def paired_medians(
    local: Callable[[], Any], remote: Callable[[], Any], runs: int
) -> tuple[float, float]:
    """Median seconds of ``local()`` and of ``remote()``, run in turns (after one warm-up
    each) so that a change in the machine's load falls on both alike."""
    local()
    remote()
    times: tuple[list[float], list[float]] = ([], [])
    for _ in range(runs):
        for work, found in ((local, times[0]), (remote, times[1])):
            started = time.perf_counter()
            work()
            found.append(time.perf_counter() - started)
    return statistics.median(times[0]), statistics.median(times[1])


def first_and_last(client: httpx.Client, question: str) -> tuple[float, float]:
    """Seconds to the first sentence event and to the answer event of one streamed ask."""
    started = time.perf_counter()
    first = last = float("nan")
    with client.stream("POST", "/v1/ask/stream", json={"question": question}) as response:
        for line in response.iter_lines():
            if line.startswith("event: sentence") and first != first:
                first = time.perf_counter() - started
            elif line.startswith("event: answer"):
                last = time.perf_counter() - started
    if first != first:  # abstained or refused: the answer is the first event
        first = last
    return first, last


async def abandon(url: str) -> dict[str, Any]:
    """Issue Harden-2's request from a client that gives up after ``GIVE_UP_S``: its status
    (``gave up`` when no answer came in time) and the seconds it waited."""
    started = time.perf_counter()
    try:
        async with httpx.AsyncClient(base_url=url, timeout=GIVE_UP_S) as client:
            outcome = str((await client.post("/v1/verify", json=ABANDONED)).status_code)
    except httpx.TimeoutException:
        outcome = "gave up"
    return {"outcome": outcome, "seconds": round(time.perf_counter() - started, 3)}


async def load(
    url: str,
    path: str,
    bodies: list[dict[str, Any]],
    clients: int,
    requests: int,
    *,
    abandoned: bool = False,
) -> dict[str, Any]:
    """``requests`` requests by ``clients`` concurrent clients; latencies and errors. With
    ``abandoned``, :func:`abandon` is sent once half of the requests are done (its latency is
    not among theirs)."""
    latencies: list[float] = []
    errors = 0
    todo = list(range(requests))
    extra: list[asyncio.Task[dict[str, Any]]] = []

    async def client_loop(client: httpx.AsyncClient) -> None:
        nonlocal errors
        while todo:
            number = todo.pop()
            started = time.perf_counter()
            try:
                response = await client.post(path, json=bodies[number % len(bodies)])
                ok = response.status_code == 200
            except httpx.HTTPError:
                ok = False
            latencies.append(time.perf_counter() - started)
            errors += not ok
            if abandoned and not extra and len(latencies) >= requests // 2:
                extra.append(asyncio.create_task(abandon(url)))

    limits = httpx.Limits(max_connections=clients)
    async with httpx.AsyncClient(base_url=url, timeout=CAP_SECONDS, limits=limits) as client:
        started = time.perf_counter()
        await asyncio.wait_for(
            asyncio.gather(*(client_loop(client) for _ in range(clients))), CAP_SECONDS
        )
        elapsed = time.perf_counter() - started
    ordered = sorted(latencies)
    row: dict[str, Any] = {
        "clients": clients,
        "requests": len(latencies),
        "seconds": round(elapsed, 2),
        "requests_per_s": round(len(latencies) / elapsed, 2),
        "p50_s": round(ordered[len(ordered) // 2], 3),
        "p95_s": round(ordered[min(len(ordered) - 1, int(len(ordered) * 0.95))], 3),
        "errors": errors,
    }
    if extra:
        row["abandoned"] = await extra[0]
    return row


def start_server(port: int, llm: str, *options: str) -> subprocess.Popen[bytes]:
    """``veracity serve`` on the bench index in its own process; returns once it answers."""
    env = dict(os.environ, PYTHONPATH=str(REPO / "src"))
    server = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "veracity.cli",
            "serve",
            "--index",
            str(INDEX),
            "--port",
            str(port),
            "--llm",
            llm,
            "--queue",
            "64",
            *options,
        ],
        env=env,
    )
    deadline = time.monotonic() + 300
    with httpx.Client(base_url=f"http://127.0.0.1:{port}", timeout=CAP_SECONDS) as client:
        while True:
            try:
                if client.get("/v1/health").status_code == 200:
                    return server
            except httpx.HTTPError:
                pass
            if time.monotonic() > deadline or server.poll() is not None:
                server.terminate()
                raise SystemExit("the server did not start")
            time.sleep(0.2)


def freed_after_abandoning(llm: str, tries: int) -> list[dict[str, Any]]:
    """On a server whose budgets admit issue Harden-2's request: send it, let its client give
    up, then time a search (how soon the stopped work frees the models)."""
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    server = start_server(port, llm, "--max-claims", "2000", "--max-pairs", "20000")
    rows = []
    try:
        with httpx.Client(base_url=url, timeout=CAP_SECONDS) as client:
            client.post("/v1/search", json={"query": QUERIES[0]}).raise_for_status()  # warm
            for _ in range(tries):
                gave_up = asyncio.run(abandon(url))
                started = time.perf_counter()
                response = client.post("/v1/search", json={"query": QUERIES[0]})
                rows.append(
                    gave_up
                    | {
                        "search_status": response.status_code,
                        "search_after_s": round(time.perf_counter() - started, 3),
                        "busy_after": client.get("/v1/health").json()["busy"],
                    }
                )
    finally:
        server.terminate()
        server.wait(timeout=30)
    return rows


# --- lanes and slow clients (issue Serve-2), before and after ----------------------------------
LANE_PAIRS = 500
SLOWLORIS = 1100
SLOW_HEAD = b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nX: "


def start_tree(port: int, src: Path, index: Path = INDEX) -> subprocess.Popen[bytes]:
    """``veracity serve`` from the source tree ``src`` (this checkout's or an older one's)."""
    env = dict(os.environ, PYTHONPATH=str(src))
    server = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "veracity.cli",
            "serve",
            "--index",
            str(index),
            "--port",
            str(port),
            "--llm",
            "extractive",
        ],
        env=env,
        stderr=subprocess.DEVNULL,
    )
    deadline = time.monotonic() + 300
    with httpx.Client(base_url=f"http://127.0.0.1:{port}", timeout=10) as client:
        while True:
            try:
                if client.get("/v1/health").status_code == 200:
                    return server
            except httpx.HTTPError:
                pass
            if time.monotonic() > deadline or server.poll() is not None:
                server.terminate()
                raise SystemExit("the server did not start")
            time.sleep(0.2)


def quantiles(seconds: list[float]) -> dict[str, float]:
    ordered = sorted(seconds)
    return {
        "n": len(ordered),
        "p50_s": round(statistics.median(ordered), 3),
        "p95_s": round(ordered[min(len(ordered) - 1, int(0.95 * len(ordered)))], 3),
        "max_s": round(ordered[-1], 3),
    }


def lanes(url: str) -> dict[str, Any]:
    """A /v1/check of LANE_PAIRS pairs (the pairs limit) in the background; meanwhile BM25
    searches and health checks one after another until it ends (at most 120 s)."""
    corpus = REPO / "examples" / "sample_corpus"
    premise = sorted(corpus.rglob("*.md"))[0].read_text(encoding="utf-8")[:1500]
    pairs = [
        {"premise": premise, "claim": f"Honeybee wings beat {n} times."} for n in range(LANE_PAIRS)
    ]
    search = {"query": QUERIES[0], "k": 5, "mode": "bm25"}
    with httpx.Client(base_url=url, timeout=130) as client:
        client.post("/v1/search", json=search)  # the bm25 mode opens at its first request
        outcome: dict[str, Any] = {}

        def check() -> None:
            started = time.perf_counter()
            response = client.post("/v1/check", json={"pairs": pairs})
            outcome.update(
                status=response.status_code, seconds=round(time.perf_counter() - started, 2)
            )

        import threading

        runner = threading.Thread(target=check)
        runner.start()
        time.sleep(0.5)
        searches: list[float] = []
        healths: list[float] = []
        stop_at = time.monotonic() + 120
        while runner.is_alive() and time.monotonic() < stop_at:
            for path, body, into in (
                ("/v1/search", search, searches),
                ("/v1/health", None, healths),
            ):
                started = time.perf_counter()
                if body is None:
                    client.get(path)
                else:
                    client.post(path, json=body)
                into.append(time.perf_counter() - started)
        runner.join()
    return {"check": outcome, "search_bm25": quantiles(searches), "health": quantiles(healths)}


def slowloris(url: str, port: int, count: int = SLOWLORIS, watch: float = 30.0) -> dict[str, Any]:
    """``count`` sockets from 127.0.0.2 that send SLOW_HEAD and nothing more; /v1/health from
    127.0.0.1 every 0.2 s for ``watch`` s; and when the held sockets were closed."""
    held = []
    refused = 0
    for _ in range(count):
        sock = socket.socket()
        sock.bind(("127.0.0.2", 0))
        sock.settimeout(2)
        try:
            sock.connect(("127.0.0.1", port))
            sock.sendall(SLOW_HEAD)
        except OSError:
            refused += 1
            sock.close()
            continue
        sock.setblocking(False)
        held.append(sock)
    opened = time.monotonic()
    healths: list[float] = []
    failed = 0
    open_socks = set(held)
    all_closed_at = None
    with httpx.Client(base_url=url, timeout=5) as client:
        while time.monotonic() - opened < watch:
            started = time.perf_counter()
            try:
                client.get("/v1/health").raise_for_status()
                healths.append(time.perf_counter() - started)
            except httpx.HTTPError:
                failed += 1
            for sock in list(open_socks):  # (select() takes no descriptor over 1023)
                try:
                    data = sock.recv(65536)
                except BlockingIOError:
                    continue
                except OSError:
                    data = b""
                if not data:
                    open_socks.discard(sock)
                    sock.close()
            if not open_socks and all_closed_at is None:
                all_closed_at = round(time.monotonic() - opened, 1)
            time.sleep(0.2)
    still = len(open_socks)
    for sock in open_socks:
        sock.close()
    return {
        "sockets": count,
        "connect_failed": refused,
        "health": quantiles(healths) if healths else {},
        "health_failed": failed,
        "all_closed_after_s": all_closed_at,
        f"still_open_after_{int(watch)}s": still,
    }


REINDEX_SECONDS = 20.0
LANES_NOTES = """\
`before` is commit 07e6e32's `src` (`git archive 07e6e32 src`), `after` this commit's; both
served by `veracity serve` (shipped verifier, `--llm extractive`, defaults otherwise), one after
the other, while the 2 cores were shared with a training job. Lanes: on the sample corpus, the
searches (mode bm25) and health checks run one after another from one client until the check
ends; before, the first search waited for the whole check. The check's 503 is the shipped
decision file of this main, which does not match the code (`coverage_all`): the verifier
scores the 500 pairs before the decision refuses them. Slowloris: the sockets come from
127.0.0.2 and health from 127.0.0.1; after, 32 are held until the 10 s header limit and the
other 1,068 are answered 503 at once (the per-client cap); at this machine's 20,000-descriptor
limit health stayed up before too, but nothing was ever closed. Re-index: a 2-file BM25 index
re-indexed every second with an edited file while 4 clients search it in mode bm25 and read
the edited document; each answer is checked against the text of the generation it names
(before, none named one: the generation opened at start-up is assumed, and the bm25 mode,
opened at its first request, read a later one)."""


def reindex_under_load(src: Path, clients: int = 4) -> dict[str, Any]:
    """A small BM25 index re-indexed every second with an edited file while ``clients``
    clients search it (``mode`` bm25, which the server opens at its first request) and read the
    file's document for ``REINDEX_SECONDS``: each answer is checked against the text of the
    generation it names (``X-Veracity-Generation``; before, no answer named one, so the
    generation the server opened at its start is assumed)."""
    import tempfile
    import threading

    from veracity.corpus.index_dir import IndexDir
    from veracity.corpus.indexer import Indexer
    from veracity.retrieve.bm25 import BM25Builder

    root = Path(tempfile.mkdtemp(prefix="bench-reindex-"))
    corpus, index = root / "corpus", root / "idx"
    corpus.mkdir()
    (corpus / "other.md").write_text("Wasps build paper nests.\n", encoding="utf-8")
    texts: dict[str, str] = {}

    def write(n: int) -> None:
        text = f"# Bees {n}\n\n" + " ".join(
            f"The waggle dance number {n}.{m} points at flowers." for m in range(1 + n % 7)
        )
        (corpus / "a.md").write_text(text + "\n", encoding="utf-8")
        Indexer(builders=[BM25Builder()]).run([corpus], index)
        texts[IndexDir(index).current().name] = text + "\n"

    write(0)
    port = free_port()
    server = start_tree(port, src, index)
    write(1)  # after the server opened gen-000001 (the bm25 mode opens at its first request)
    counts = {"answers": 0, "mixed": 0, "errors": 0, "generations_named": 0}
    seen: set[str] = set()
    lock = threading.Lock()
    ends = time.monotonic() + REINDEX_SECONDS

    answers: list[tuple[str | None, str, Any]] = []  # checked once every text is known

    def client_loop() -> None:
        with httpx.Client(base_url=f"http://127.0.0.1:{port}", timeout=30) as client:
            while time.monotonic() < ends:
                search = client.post(
                    "/v1/search", json={"query": "waggle dance", "k": 3, "mode": "bm25"}
                )
                document = client.get("/v1/documents/a.md")
                for kind, response in (("search", search), ("document", document)):
                    with lock:
                        if response.status_code != 200:
                            counts["errors"] += 1
                            continue
                        named = response.headers.get("x-veracity-generation")
                        answers.append((named, kind, response.json()))

    threads = [threading.Thread(target=client_loop) for _ in range(clients)]
    try:
        for thread in threads:
            thread.start()
        n = 0
        while time.monotonic() < ends:
            n += 1
            write(n)
            time.sleep(1.0)
        for thread in threads:
            thread.join()
        with httpx.Client(base_url=f"http://127.0.0.1:{port}", timeout=30) as client:
            served = client.get("/v1/version").json()["index"]["generation"]
    finally:
        server.terminate()
        server.wait(timeout=30)
    for named, kind, payload in answers:
        counts["answers"] += 1
        if named:
            seen.add(named)
        text = texts[named or "gen-000001"]
        if kind == "document":
            good = payload["text"] == text
        else:
            good = all(
                text[hit["start"] : hit["end"]] == hit["text"]
                for hit in payload["hits"]
                if hit["doc_id"] == "a.md"
            )
        counts["mixed"] += 0 if good else 1
    counts["generations_named"] = len(seen)
    live = IndexDir(index).current().name
    return {"reindexes": n + 1, "clients": clients, "version_names": served, "live": live} | counts


def serve2(argv: Sequence[str], before: Path | None) -> None:
    """The lanes and slowloris figures for this checkout, and for the tree ``before``."""
    if not (INDEX / "CURRENT").is_file():
        build_index()
    trees = {"after": REPO / "src"} | ({} if before is None else {"before": before})
    figures: dict[str, Any] = {}
    for name, src in trees.items():
        port = free_port()
        url = f"http://127.0.0.1:{port}"
        server = start_tree(port, src)
        try:
            figures[name] = {"lanes": lanes(url), "slowloris": slowloris(url, port)}
            figures[name]["rss_mib"] = rss_mib(server.pid)
        finally:
            server.terminate()
            server.wait(timeout=30)
        figures[name]["reindex"] = reindex_under_load(src)
    rows = [
        "| tree | check 500 pairs | bm25 search p50 / p95 / max (s) | health p50 / p95 / max (s) "
        "| slowloris 1,100: health p95 / max (s), failed | held sockets closed after |",
        "| --- | --- | --- | --- | --- | --- |",
    ]
    for name, found in figures.items():
        lane, slow = found["lanes"], found["slowloris"]
        s, h, sh = lane["search_bm25"], lane["health"], slow["health"]
        closed = slow["all_closed_after_s"]
        still = slow["still_open_after_30s"]
        shut = f"never ({still} open at 30 s)" if closed is None else f"{closed} s"
        rows.append(
            f"| {name} | {lane['check'].get('status')} in {lane['check'].get('seconds')} s "
            f"| {s['p50_s']} / {s['p95_s']} / {s['max_s']} (n {s['n']}) "
            f"| {h['p50_s']} / {h['p95_s']} / {h['max_s']} "
            f"| {sh.get('p95_s')} / {sh.get('max_s')}, {slow['health_failed']} "
            f"| {shut} |"
        )
    rows += [
        "",
        "| tree | re-indexes in 20 s | answers | answered from another generation's text "
        "| errors | generations named | /v1/version at the end / live |",
        "| --- | --- | --- | --- | --- | --- | --- |",
    ]
    for name, found in figures.items():
        r = found["reindex"]
        rows.append(
            f"| {name} | {r['reindexes']} | {r['answers']} | {r['mixed']} | {r['errors']} "
            f"| {r['generations_named']} | {r['version_names']} / {r['live']} |"
        )
    rows += ["", LANES_NOTES]
    write_result("serve_lanes", figures, "\n".join(rows), command(argv))


def main(argv: Sequence[str]) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--requests", type=int, default=24)
    parser.add_argument("--llm", default="extractive")
    parser.add_argument(
        "--abandoned",
        action="store_true",
        help="also run each load level with issue Harden-2's abandoned request",
    )
    parser.add_argument(
        "--lanes",
        action="store_true",
        help="only the lanes and slowloris figures of issue Serve-2 (section serve_lanes)",
    )
    parser.add_argument(
        "--before", type=Path, help="with --lanes: the src folder of the code to compare"
    )
    args = parser.parse_args(argv)
    if args.lanes:
        serve2(argv, args.before)
        return

    from veracity.server.service import Service, VerifyOptions
    from veracity.server.settings import Settings

    if not (INDEX / "CURRENT").is_file():
        build_index()
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    server = start_server(port, args.llm)
    try:
        with httpx.Client(base_url=url, timeout=CAP_SECONDS) as client:
            version = client.get("/v1/version").json()

            # 1. overhead: the same calls in this process and over HTTP
            service = Service(Settings(index=INDEX, llm=args.llm)).load()
            options = VerifyOptions(answer=ANSWER)
            overhead = {}
            for name, local, remote in (
                (
                    "verify",
                    lambda: service.verify(options).run(),
                    lambda: client.post("/v1/verify", json={"answer": ANSWER}).raise_for_status(),
                ),
                (
                    "search",
                    lambda: [service.search(q, 5).run() for q in QUERIES],
                    lambda: [
                        client.post("/v1/search", json={"query": q, "k": 5}).raise_for_status()
                        for q in QUERIES
                    ],
                ),
            ):
                in_process, http = paired_medians(local, remote, args.runs)
                calls = 1 if name == "verify" else len(QUERIES)
                overhead[name] = {
                    "in_process_s": round(in_process / calls, 4),
                    "http_s": round(http / calls, 4),
                    "ratio": round(http / in_process, 3),
                    "overhead_ms": round((http - in_process) / calls * 1000, 1),
                }

            # 2. streaming: first sentence event against the whole answer
            firsts, lasts = [], []
            first_and_last(client, QUESTIONS[0])  # warm-up
            for _ in range(max(1, args.runs // 2)):
                for question in QUESTIONS:
                    first, last = first_and_last(client, question)
                    firsts.append(first)
                    lasts.append(last)
            streaming = {
                "first_event_s": round(statistics.median(firsts), 3),
                "answer_s": round(statistics.median(lasts), 3),
                "asks": len(firsts),
            }

            # 3. load at 1, 4 and 16 clients
            loads: dict[str, list[dict[str, Any]]] = {}
            for path, bodies in (
                ("/v1/verify", [{"answer": ANSWER}]),
                ("/v1/ask", [{"question": q} for q in QUESTIONS]),
            ):
                rows = []
                for clients in LEVELS:
                    before = rss_mib(server.pid)
                    row = asyncio.run(load(url, path, bodies, clients, args.requests))
                    row |= {"rss_before_mib": before, "rss_after_mib": rss_mib(server.pid)}
                    if args.abandoned:  # the same level again, in turn, with the request
                        other = asyncio.run(
                            load(url, path, bodies, clients, args.requests, abandoned=True)
                        )
                        row["with_abandoned"] = other
                        row["p95_moved_s"] = round(other["p95_s"] - row["p95_s"], 3)
                    rows.append(row)
                loads[path] = rows
    finally:
        server.terminate()
        server.wait(timeout=30)
    freed = freed_after_abandoning(args.llm, 3) if args.abandoned else []

    figures = {
        "llm": args.llm,
        "runs": args.runs,
        "requests": args.requests,
        "verifier": version["verifier"],
        "chat": version["chat"],
        "overhead": overhead,
        "streaming": streaming,
        "load": loads,
        "abandoned": {
            "request": "POST /v1/verify {answer: 'Bees fly. ' * 1999}",
            "client_gives_up_s": GIVE_UP_S,
            "admitted_then_abandoned": freed,
        }
        if args.abandoned
        else None,
    }
    lines = [
        f"`veracity serve` on the sample corpus (hybrid search, verifier "
        f"{version['verifier']['model']}, chat model {version['chat']}), client and server on "
        "the same machine over loopback; medians of "
        f"{args.runs} runs after a warm-up, the two ways run in turns.",
        "",
        "| call | in process (s) | over HTTP (s) | HTTP / in process | overhead (ms) |",
        "| --- | --- | --- | --- | --- |",
    ]
    for name, row in overhead.items():
        lines.append(
            f"| /v1/{name} | {row['in_process_s']} | {row['http_s']} | "
            f"{row['ratio']} | {row['overhead_ms']} |"
        )
    lines += [
        "",
        f"`/v1/ask/stream` over {streaming['asks']} asks: first `sentence` event after "
        f"{streaming['first_event_s']} s, the whole `answer` after "
        f"{streaming['answer_s']} s (median).",
        "",
        f"Load: {args.requests} requests per level, one model job at a time in the "
        "server (the rest queue).",
        "",
        "| endpoint | clients | requests/s | p50 (s) | p95 (s) | errors | RSS before → "
        "after (MiB) |",
        "| --- | --- | --- | --- | --- | --- | --- |",
    ]
    for path, rows in loads.items():
        for row in rows:
            lines.append(
                f"| {path} | {row['clients']} | {row['requests_per_s']} | "
                f"{row['p50_s']} | {row['p95_s']} | {row['errors']} | "
                f"{row['rss_before_mib']} → {row['rss_after_mib']} |"
            )
    if args.abandoned:
        lines += [
            "",
            "The same levels again, run in turn with the ones above, with issue "
            'Harden-2\'s request (`/v1/verify` of `"Bees fly. " * 1999`, 20 KB, from a '
            f"client that gives up after {GIVE_UP_S:g} s) sent once half of the level's "
            "requests were done; p95 of the other requests, with the default budgets:",
            "",
            "| endpoint | clients | p95 without (s) | p95 with (s) | moved (s) | "
            "errors | the abandoned request |",
            "| --- | --- | --- | --- | --- | --- | --- |",
        ]
        for path, rows in loads.items():
            for row in rows:
                other = row["with_abandoned"]
                gave = other.get("abandoned", {})
                lines.append(
                    f"| {path} | {row['clients']} | {row['p95_s']} | "
                    f"{other['p95_s']} | {row['p95_moved_s']:+} | {other['errors']} | "
                    f"{gave.get('outcome')} after {gave.get('seconds')} s |"
                )
        lines += [
            "",
            "With budgets raised so that the server admits it (`--max-claims 2000 "
            "--max-pairs 20000`), the request was sent and abandoned after "
            f"{GIVE_UP_S:g} s; then one `/v1/search`:",
            "",
            "| try | the abandoned request | search answered after (s) | status | "
            "requests still running after |",
            "| --- | --- | --- | --- | --- |",
        ]
        for number, row in enumerate(freed, 1):
            lines.append(
                f"| {number} | {row['outcome']} after {row['seconds']} s | "
                f"{row['search_after_s']} | {row['search_status']} | "
                f"{row['busy_after']} |"
            )
    write_result("serve", figures, "\n".join(lines), command(argv))
    print("\n".join(lines))


if __name__ == "__main__":
    main(sys.argv[1:])
