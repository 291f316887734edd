"""Ray Data against the local path, record by record, with the shipped models: verify-batch on
a local Ray (``ray.init(num_cpus=2)`` on 127.0.0.1) and the dense index built on Ray and on a
pool of processes."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from veracity import defaults
from veracity.batch import LocalPool, ParallelEmbedder, RayData, VerifyBatch
from veracity.config import BatchConfig
from veracity.corpus.index_dir import IndexDir
from veracity.corpus.indexer import Indexer
from veracity.models import Models
from veracity.retrieve.bm25 import BM25Builder
from veracity.retrieve.dense import DENSE_VECTORS, DenseBuilder

pytestmark = pytest.mark.integration

ray = pytest.importorskip("ray", reason="Ray is an extra: pip install 'veracity[ray]'")

SOURCES = [
    "Honey bees perform a waggle dance to show other workers where food is.",
    "A honey bee colony can hold about 60,000 workers in summer.",
    "Bumblebees do not perform a waggle dance; they live in small nests.",
]
ANSWERS = [
    "Honey bees perform a waggle dance. A colony holds 90,000 workers in summer.",
    "Bumblebees perform a waggle dance. They live in small nests.",
    "A colony can hold about 60,000 workers [1].",
    "Honey bees dance to show where food is. Bumblebees live in large hives.",
]


@pytest.fixture(scope="module")
def local_ray() -> Iterator[None]:
    ray.init(
        num_cpus=2,
        include_dashboard=False,
        _node_ip_address="127.0.0.1",
        configure_logging=False,
        log_to_driver=False,
    )
    yield
    ray.shutdown()


def _records(path: Path) -> dict[str, dict[str, Any]]:
    found = {}
    for text in path.read_text(encoding="utf-8").splitlines():
        record = json.loads(text)
        record.pop("timings")
        found[str(record["id"])] = record
    return found


def test_ray_writes_the_records_of_the_local_path(local_ray: None, tmp_path: Path) -> None:
    source = tmp_path / "answers.jsonl"
    with source.open("w", encoding="utf-8") as handle:
        for number in range(8):
            row: dict[str, Any] = {
                "id": number,
                "answer": ANSWERS[number % len(ANSWERS)],
                "sources": SOURCES[: 1 + number % 3],
            }
            if "[1]" in row["answer"]:
                row["cited"] = {"1": "text-1#0"}
            handle.write(json.dumps(row) + "\n")
    config, models = BatchConfig(), Models()  # the shipped verifier, by its name
    local = VerifyBatch(config, models, LocalPool(workers=1)).run(source, tmp_path / "local.jsonl")
    on_ray = VerifyBatch(config, models, RayData(workers=2), answers_per_task=2).run(
        source, tmp_path / "ray.jsonl"
    )
    assert on_ray.engine == "ray"
    assert on_ray.counts == local.counts
    assert local.counts["answers"] == 8
    assert _records(tmp_path / "ray.jsonl") == _records(tmp_path / "local.jsonl")
    assert ray.is_initialized()  # a Ray the engine did not start is left running


@pytest.fixture(scope="module")
def corpus(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, np.ndarray]:
    """A corpus of more texts than one task embeds, and its vectors from one process."""
    folder = tmp_path_factory.mktemp("corpus")
    for number in range(defaults.DENSE_BLOCK + 20):
        (folder / f"doc{number:03}.txt").write_text(
            f"Note {number}: {SOURCES[number % 3]}\n", encoding="utf-8"
        )
    index = tmp_path_factory.mktemp("one") / "index"
    Indexer(builders=[BM25Builder(), DenseBuilder()]).run([folder], index)
    return folder, _vectors(index)


def _vectors(index: Path) -> np.ndarray:
    return np.load(IndexDir(index).current() / DENSE_VECTORS)


@pytest.mark.parametrize("engine", ["ray", "pool"])
def test_the_dense_index_built_on_workers_is_the_same(
    local_ray: None, tmp_path: Path, corpus: tuple[Path, np.ndarray], engine: str
) -> None:
    folder, one = corpus
    workers = RayData(workers=2) if engine == "ray" else LocalPool(workers=2)
    with ParallelEmbedder(workers) as embedder:
        Indexer(
            builders=[BM25Builder(), DenseBuilder(embedder, block=defaults.BATCH_EMBED_BLOCK)]
        ).run([folder], tmp_path / "many")
    many = _vectors(tmp_path / "many")
    assert one.shape == (defaults.DENSE_BLOCK + 20, 384)
    assert np.array_equal(one, many)


def test_index_ray_from_the_command_line(
    local_ray: None, tmp_path: Path, corpus: tuple[Path, np.ndarray]
) -> None:
    from typer.testing import CliRunner

    from veracity import cli

    folder, one = corpus
    result = CliRunner().invoke(
        cli.app,
        [
            "index",
            str(folder),
            "--index",
            str(tmp_path / "index"),
            "--ray",
            "--workers",
            "2",
            "--json",
        ],
    )
    assert result.exit_code == 0, result.stderr
    assert json.loads(result.stdout)["builders"]["dense"]["embedded"] == len(one)
    assert np.array_equal(_vectors(tmp_path / "index"), one)
