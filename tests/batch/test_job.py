"""VerifyBatch on the local engine with a table-driven verifier: one record per input line,
the same records from one process and from a pool, and a resumed run that finishes the job."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import Any

import pytest

from veracity.batch import LocalPool, VerifyBatch
from veracity.batch.engines import Engine
from veracity.config import BatchConfig
from veracity.errors import InputError, OptionError
from veracity.models import Models
from veracity.testing import TablePairScorer

pytestmark = pytest.mark.unit

SOURCE = "Honey bees perform a waggle dance to show other workers where food is."
TABLE = {
    (SOURCE, "Honey bees perform a waggle dance."): (0.9, 0.02, 0.08),
    ("Bumblebees do not dance.", "Bumblebees dance."): (0.05, 0.9, 0.05),
}
CONFIG = BatchConfig()


def models(table: dict[tuple[str, str], tuple[float, float, float]] = TABLE, **kw: Any) -> Models:
    """The verifier of every name scores by ``table``."""
    return Models(verifier=lambda name: TablePairScorer(table, **kw))


MODELS = models()


def _lines(count: int) -> list[str]:
    lines = []
    for number in range(count):
        row: dict[str, object]
        if number % 2:
            row = {
                "id": f"q{number}",
                "answer": "Bumblebees dance. They live in nests.",
                "sources": ["Bumblebees do not dance."],
                "question": "Do they dance?",
            }
        else:
            row = {
                "id": number,
                "answer": "Honey bees perform a waggle dance.",
                "sources": [SOURCE],
            }
        lines.append(json.dumps(row))
    return lines


def _write(path: Path, lines: Iterable[str]) -> Path:
    path.write_text("".join(line + "\n" for line in lines), encoding="utf-8")
    return path


def _records(path: Path) -> dict[str, dict[str, Any]]:
    """Records by id (or line), timings left out; fails on a repeated key."""
    found: dict[str, dict[str, Any]] = {}
    for text in path.read_text(encoding="utf-8").splitlines():
        record = json.loads(text)
        record.pop("timings", None)
        key = f"{record['id']}@{record['line']}"
        assert key not in found, f"{key} twice"
        found[key] = record
    return found


def test_every_line_gets_one_record(tmp_path: Path) -> None:
    source = _write(
        tmp_path / "in.jsonl",
        [*_lines(6), "{oops", "", json.dumps({"id": 0, "answer": "again", "sources": []})],
    )
    progress: list[tuple[int, int, int]] = []
    summary = VerifyBatch(CONFIG, MODELS, LocalPool(workers=1), answers_per_task=2).run(
        source, tmp_path / "out.jsonl", progress=lambda *args: progress.append(args)
    )
    records = _records(tmp_path / "out.jsonl")
    assert len(records) == 8
    assert summary.lines == 8
    assert summary.pending == 0
    assert summary.counts["answers"] == 6
    assert summary.counts["errors"] == 2
    assert summary.counts["claims"] == 9
    assert summary.counts["supported"] == 3
    assert summary.counts["contradicted"] == 3
    assert records["0@1"]["claims"][0]["label"] == "supported"
    assert records["q1@2"]["claims"][0]["label"] == "contradicted"
    assert records["None@7"]["error"]["reason"] == "bad_json"
    assert records["0@9"]["error"]["reason"] == "duplicate_id"
    assert progress[-1][0] == 8
    assert summary.failures == 2


def test_a_pool_writes_the_same_records_as_one_process(tmp_path: Path) -> None:
    source = _write(tmp_path / "in.jsonl", _lines(12))
    VerifyBatch(CONFIG, MODELS, LocalPool(workers=1)).run(source, tmp_path / "one.jsonl")
    summary = VerifyBatch(CONFIG, MODELS, LocalPool(workers=2), answers_per_task=1).run(
        source, tmp_path / "pool.jsonl"
    )
    assert summary.workers == 2
    assert _records(tmp_path / "pool.jsonl") == _records(tmp_path / "one.jsonl")


class _Crashing(LocalPool):
    """A local engine that dies after ``tasks`` tasks (a killed run, in-process)."""

    def __init__(self, tasks: int) -> None:
        super().__init__(workers=1)
        self.tasks = tasks

    def map(self, work: Callable[[Any, Any], Any], tasks: Iterable[Any]) -> Iterator[Any]:
        for count, result in enumerate(super().map(work, tasks)):
            if count == self.tasks:
                raise KeyboardInterrupt
            yield result


def test_a_run_stopped_halfway_is_finished_by_the_next(tmp_path: Path) -> None:
    source = _write(tmp_path / "in.jsonl", [*_lines(10), "{oops"])
    out = tmp_path / "out.jsonl"
    with pytest.raises(KeyboardInterrupt):
        VerifyBatch(CONFIG, MODELS, _Crashing(3), answers_per_task=2).run(source, out)
    first = _records(out)
    assert 0 < len(first) < 11
    with out.open("a", encoding="utf-8") as handle:  # and a line torn by the kill
        handle.write('{"id": "q9", "line": 10, "summ')
    summary = VerifyBatch(CONFIG, MODELS, LocalPool(workers=1)).run(source, out)
    assert summary.done_before == len(first)
    assert summary.written == 11 - len(first)
    assert summary.cut_bytes > 0
    VerifyBatch(CONFIG, MODELS, LocalPool(workers=1)).run(source, tmp_path / "whole.jsonl")
    assert _records(out) == _records(tmp_path / "whole.jsonl")
    again = VerifyBatch(CONFIG, MODELS, LocalPool(workers=1)).run(source, out)
    assert again.written == 0
    assert again.counts == summary.counts


def test_a_verifier_that_breaks_gives_error_records_not_a_stop(tmp_path: Path) -> None:
    source = _write(tmp_path / "in.jsonl", _lines(3))
    strict = BatchConfig().with_options(layers="nli")
    summary = VerifyBatch(strict, models({}, default=None), LocalPool(workers=1)).run(
        source, tmp_path / "out.jsonl"
    )
    reasons = {r["error"]["reason"] for r in _records(tmp_path / "out.jsonl").values()}
    assert reasons == {"InputError"}
    assert summary.counts["errors"] == 3


@pytest.mark.parametrize(
    ("make", "message"),
    [
        (
            lambda: BatchConfig().with_options(layers=("consistency",)),
            "chat model",
        ),
        (lambda: BatchConfig().with_options(rule="majority"), "any"),
        (
            lambda: BatchConfig().with_options(window="page"),
            "claim, focused, passage",
        ),
        (lambda: BatchConfig(sources_field=None), "sources_field"),
        (lambda: LocalPool(workers=0), "workers=0"),
    ],
)
def test_bad_options_fail_before_anything_runs(
    tmp_path: Path, make: Callable[[], Any], message: str
) -> None:
    def attempt() -> None:
        made = make()
        if isinstance(made, BatchConfig):
            VerifyBatch(made, MODELS, LocalPool(workers=1)).run(
                _write(tmp_path / "in.jsonl", _lines(1)), tmp_path / "out.jsonl"
            )

    with pytest.raises(OptionError, match=message):
        attempt()
    assert not (tmp_path / "out.jsonl").exists()


def test_the_input_must_exist_and_differ_from_the_output(tmp_path: Path) -> None:
    job = VerifyBatch(CONFIG, MODELS, LocalPool(workers=1))
    with pytest.raises(InputError, match="not a file"):
        job.run(tmp_path / "missing.jsonl", tmp_path / "out.jsonl")
    source = _write(tmp_path / "in.jsonl", _lines(1))
    with pytest.raises(InputError, match="is the input"):
        job.run(source, source)


def test_an_engine_is_any_object_with_start_map_close() -> None:
    engine: Engine = LocalPool(workers=1)
    assert engine.name == "local"


def test_a_ray_address_nobody_listens_on_is_an_option_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import sys
    import types

    from veracity.batch import RayData

    def refuse(**options: Any) -> None:
        raise ConnectionError(f"Failed to connect to Ray cluster at {options['address']}")

    fake = types.SimpleNamespace(is_initialized=lambda: False, init=refuse)
    monkeypatch.setitem(sys.modules, "ray", fake)
    with pytest.raises(OptionError, match="ray start --head"):
        RayData(address="127.0.0.1:6390", workers=1).start(lambda: None)


def test_a_batch_reads_one_window_per_claim_when_asked(tmp_path: Path) -> None:
    line = {
        "id": "two",
        "answer": "Honey bees perform a waggle dance. Bumblebees dance.",
        "sources": [SOURCE, "Bumblebees do not dance."],
    }
    source = _write(tmp_path / "in.jsonl", [json.dumps(line)])
    pairs = {}
    for window in ("passage", "claim"):
        config = BatchConfig().with_options(layers="nli", window=window)
        out = tmp_path / f"{window}.jsonl"
        VerifyBatch(config, MODELS, LocalPool(workers=1)).run(source, out)
        pairs[window] = _records(out)["two@1"]["calls"]["verifier_pairs"]
    assert pairs == {"passage": 4, "claim": 2}  # two claims, two sources each
