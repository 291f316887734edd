"""``VerifyBatch``: verify every answer of a JSONL file into a resumable JSONL of reports.

1. open the output (:class:`~veracity.batch.log.ResultLog`): cut a torn tail, collect the keys
   already written;
2. read the input line by line: lines already in the output are skipped, bad lines (and the
   second line of an id) become error records at once, the rest go to the engine in tasks of
   a few answers;
3. every finished task is committed to the output as it comes back.

Killed at any point and run again with the same output, it writes every input line's record
exactly once. The output is complete when the summary's ``pending`` is 0.

>>> import json, tempfile, pathlib
>>> from veracity.config import BatchConfig
>>> from veracity.models import Models
>>> from veracity.testing import TablePairScorer
>>> folder = pathlib.Path(tempfile.mkdtemp())
>>> _ = (folder / "in.jsonl").write_text(json.dumps(
...     {"id": "q1", "answer": "Bees dance.", "sources": ["Bees dance."]}) + "\\n{oops\\n")
>>> models = Models(verifier=lambda name: TablePairScorer({}))
>>> job = VerifyBatch(BatchConfig().with_options(layers="nli"), models, LocalPool(workers=1))
>>> summary = job.run(folder / "in.jsonl", folder / "out.jsonl")
>>> summary.counts["answers"], summary.counts["errors"], summary.pending
(1, 1, 0)
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any

from veracity import defaults
from veracity.batch.engines import Engine, LocalPool
from veracity.batch.items import BadLine, BatchItem, item_key, parse_line
from veracity.batch.log import ResultLog
from veracity.batch.verify import BatchRecord, ItemVerifier, check_batch
from veracity.config import BatchConfig
from veracity.errors import InputError, OptionError

if TYPE_CHECKING:
    from veracity.models import Models

__all__ = ["BatchProgress", "BatchSummary", "VerifyBatch"]

#: Called as ``progress(answers_done, answers_to_do, claims_done)`` after every task.
BatchProgress = Callable[[int, int, int], None]


@dataclass(frozen=True)
class BatchSummary:
    """What a run did and what the output holds.

    ``lines`` input lines (blank ones aside); ``done_before`` records were in the output when
    the run started; ``written`` records this run added; ``pending`` input lines still without
    a record (0 once the output is complete). ``counts`` totals the whole output: ``answers``
    verified, their ``claims`` by label, ``claim_failures`` (claims no layer could judge) and
    ``errors`` (lines that could not be verified). ``seconds``, ``answers_per_second`` and
    ``claims_per_second`` time this run's verification; ``cut_bytes`` is the torn tail of an
    interrupted run that was cut.
    """

    input: str
    output: str
    engine: str
    workers: int
    lines: int
    done_before: int
    written: int
    pending: int
    counts: dict[str, int]
    seconds: float
    answers_per_second: float
    claims_per_second: float
    cut_bytes: int

    @property
    def failures(self) -> int:
        """Error records plus claims that could not be judged, over the whole output."""
        return self.counts["errors"] + self.counts["claim_failures"]

    def to_dict(self) -> dict[str, Any]:
        return dict(self.__dict__) | {"counts": dict(self.counts)}


def _make_stage(config: BatchConfig, models: Models) -> ItemVerifier:
    return ItemVerifier(config, models).load()


def _verify_task(stage: ItemVerifier, items: list[BatchItem]) -> list[BatchRecord]:
    return [stage.run(item) for item in items]


class VerifyBatch:
    """Verifies a JSONL file of answers on an engine (see the module docstring).

    ``config`` says how each worker verifies (and where each line's sources are), ``models``
    make its models by name; ``engine`` is a :class:`~veracity.batch.engines.LocalPool` or
    :class:`~veracity.batch.engines.RayData`.
    """

    def __init__(
        self,
        config: BatchConfig,
        models: Models,
        engine: Engine | None = None,
        *,
        answers_per_task: int = defaults.BATCH_ANSWERS_PER_TASK,
    ) -> None:
        if not isinstance(config, BatchConfig):
            raise InputError(f"config must be a BatchConfig, got {type(config).__name__}")
        if answers_per_task < 1:
            raise OptionError("answers_per_task", answers_per_task, "1 or more")
        self.config = config
        self.models = models
        self.engine: Engine = engine or LocalPool()
        self.sources_field = config.sources_field
        self.answers_per_task = answers_per_task

    def run(
        self, source: str | Path, out: str | Path, *, progress: BatchProgress | None = None
    ) -> BatchSummary:
        """Verify every line of ``source`` that ``out`` lacks; append the records to ``out``."""
        source, out = Path(source), Path(out)
        if not source.is_file():
            raise InputError(
                f"the input {source} is not a file; give a JSONL file of "
                '{"id": ..., "answer": ...} lines'
            )
        if out.exists() and out.resolve() == source.resolve():
            raise InputError(f"--out {out} is the input file; write the reports elsewhere")
        check_batch(self.config, self.models)
        log = ResultLog(out)
        state = log.open()
        done_before = len(state.keys)
        lines = _count_lines(source)
        to_do = max(lines - done_before, 0)
        counts = state.counts
        written = answers = claims = 0

        def commit(records: list[BatchRecord]) -> None:
            nonlocal written
            log.append(record.to_json() for record in records)
            for record in records:
                state.keys.add(record.key)
                counts.add(record.data)
            written += len(records)

        start = time.perf_counter()
        try:
            tasks = self._tasks(source, state.keys, commit)
            with self.engine.start(partial(_make_stage, self.config, self.models)) as engine:
                for records in engine.map(_verify_task, tasks):
                    commit(records)
                    answers += len(records)
                    claims += sum(len(r.data.get("claims", ())) for r in records)
                    if progress is not None:
                        progress(written, to_do, claims)
            if progress is not None:  # the error records of the last lines
                progress(written, to_do, claims)
        finally:
            log.close()
        seconds = time.perf_counter() - start
        return BatchSummary(
            input=str(source),
            output=str(out),
            engine=self.engine.name,
            workers=self.engine.workers,
            lines=lines,
            done_before=done_before,
            written=written,
            pending=max(lines - len(state.keys), 0),
            counts=counts.to_dict(),
            seconds=round(seconds, 3),
            answers_per_second=round(answers / seconds, 3) if seconds > 0 else 0.0,
            claims_per_second=round(claims / seconds, 3) if seconds > 0 else 0.0,
            cut_bytes=state.cut_bytes,
        )

    def _tasks(
        self, source: Path, done: set[str], commit: Callable[[list[BatchRecord]], None]
    ) -> Iterator[list[BatchItem]]:
        """Tasks of the lines ``done`` lacks; bad lines are committed as error records here."""
        task: list[BatchItem] = []
        for parsed in _parse(source, self.sources_field):
            if parsed.key in done:
                continue
            if isinstance(parsed, BadLine):
                commit([BatchRecord.of_bad_line(parsed)])
                continue
            task.append(parsed)
            if len(task) >= self.answers_per_task:
                yield task
                task = []
        if task:
            yield task


def _parse(source: Path, sources_field: str | None) -> Iterator[BatchItem | BadLine]:
    """Every non-blank line of ``source`` parsed; a repeated id is a ``duplicate_id`` line."""
    first_line: dict[str, int] = {}
    with source.open("r", encoding="utf-8", errors="replace", newline="\n") as handle:
        for number, text in enumerate(handle, start=1):
            if not text.strip():
                continue
            parsed = parse_line(text, number, sources_field=sources_field)
            if parsed.id is not None:
                key = item_key(parsed.id)
                if key in first_line:
                    parsed = BadLine(
                        number,
                        "duplicate_id",
                        f"line {number} has the id "
                        f"{parsed.id!r} of line {first_line[key]}; give every "
                        "line its own id",
                        parsed.id,
                    )
                else:
                    first_line[key] = number
            yield parsed


def _count_lines(source: Path) -> int:
    """Non-blank lines of ``source`` (the progress bar's total)."""
    with source.open("rb") as handle:
        return sum(1 for raw in handle if raw.strip())
