"""Verify one batch item in a worker: the models loaded once, the report as an output record.

A :class:`~veracity.config.BatchConfig` and the :class:`~veracity.models.Models` that make its
models by name are what every worker needs to build the same pipeline (they cross process
boundaries). :class:`ItemVerifier` is the worker's stage: ``load()`` makes the verifier, the
knowledge layer and the index retriever once; ``run(item)`` returns the item's record, the same
``to_dict()`` as ``veracity verify --json`` (its ``config`` included) with the ``id`` and
``line`` of the item in front, or an error record that says why the item could not be verified.

>>> from veracity.config import BatchConfig
>>> from veracity.models import Models
>>> from veracity.testing import TablePairScorer
>>> models = Models(verifier=lambda name: TablePairScorer({}))
>>> worker = ItemVerifier(BatchConfig().with_options(layers="nli"), models).load()
>>> record = worker.run(BatchItem("q1", 1, "Bees dance.", sources=("Bees dance.",)))
>>> record.key, record.data["summary"]["claims"], record.data["config"]["pipeline"]
('id:q1', 1, 'verify')
"""

from __future__ import annotations

import dataclasses
import traceback
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from veracity._json import strict_json
from veracity.batch.items import BadLine, BatchItem
from veracity.config import BatchConfig
from veracity.errors import InputError, VeracityError
from veracity.types import Chunk

if TYPE_CHECKING:
    from veracity.models import Models

__all__ = ["BatchRecord", "ItemVerifier", "check_batch"]


def check_batch(config: BatchConfig, models: Models) -> None:
    """Fail now, before any worker starts, on a config no worker could run with (an index
    that cannot be opened, a weights file that cannot be read)."""
    from veracity.verify.open import open_answer_verifier

    open_answer_verifier(config.verify, models)


@dataclass(frozen=True)
class BatchRecord:
    """One output record: its key (see :func:`~veracity.batch.items.record_key`) and data."""

    key: str
    data: Mapping[str, Any]

    @property
    def failed(self) -> bool:
        """Whether the record is an error record."""
        return "error" in self.data

    def to_json(self) -> str:
        """The record's output line (strict JSON, no newline)."""
        return strict_json(self.data)

    @classmethod
    def of_bad_line(cls, bad: BadLine) -> BatchRecord:
        return cls(bad.key, bad.to_dict())


class ItemVerifier:
    """The worker's stage (see the module docstring)."""

    def __init__(self, config: BatchConfig, models: Models) -> None:
        if not isinstance(config, BatchConfig):
            raise InputError(f"config must be a BatchConfig, got {type(config).__name__}")
        self.config = config
        self.models = models
        self._parts: _Parts | None = None

    def load(self) -> ItemVerifier:
        """Make the verifier, the knowledge layer and the retriever; repeat calls are free."""
        self._load()
        return self

    def _load(self) -> _Parts:
        if self._parts is None:
            self._parts = _Parts.make(self.config, self.models)
        return self._parts

    def run(self, item: BatchItem) -> BatchRecord:
        """The record of ``item``: its report, or an error record saying why it failed."""
        parts = self._load()
        try:
            report = parts.verify(item)
        except VeracityError as exc:
            return BatchRecord.of_bad_line(
                BadLine(item.line, type(exc).__name__, str(exc), item.id)
            )
        except Exception as exc:  # one bad answer must not stop a long run
            where = traceback.extract_tb(exc.__traceback__)[-1]
            return BatchRecord.of_bad_line(
                BadLine(
                    item.line,
                    "unexpected",
                    f"{type(exc).__name__}: {exc} (at {where.filename}:"
                    f"{where.lineno}); please report it with this line",
                    item.id,
                )
            )
        return BatchRecord(item.key, {"id": item.id, "line": item.line} | report.to_dict())


class _Parts:
    """What a worker makes once: the scorer, the knowledge layer, the index and its store."""

    def __init__(
        self, config: BatchConfig, models: Models, knowledge: Any, retriever: Any, store: Any
    ) -> None:
        self.config = config.verify
        self.models = models  # its verifier made and loaded once, for every line
        self.knowledge = knowledge
        self.retriever = retriever
        self.store = store

    @classmethod
    def make(cls, config: BatchConfig, models: Models) -> _Parts:
        from veracity.rules import KnowledgeLayer

        verify = config.verify
        scorer = models.verifier(verify.models.verifier)
        scorer.load()
        models = dataclasses.replace(models, verifier=lambda _name: scorer)
        knowledge = KnowledgeLayer().load() if "knowledge" in verify.decision.layers else None
        retriever = store = None
        if verify.evidence.index is not None:
            from veracity.corpus.index_dir import STORE, IndexDir
            from veracity.corpus.store import ChunkStore
            from veracity.retrieve.open import open_retriever

            retriever = open_retriever(verify.evidence.index, mode=verify.evidence.mode)
            retriever.load()
            store = ChunkStore.open(IndexDir(verify.evidence.index).current() / STORE)
        return cls(config, models, knowledge, retriever, store)

    def verify(self, item: BatchItem) -> Any:
        from veracity.verify.open import open_answer_verifier

        made = self.models
        if self.retriever is not None:
            cited = self._cited(item, self._index_chunk)
            pipeline = open_answer_verifier(
                self.config, made, retriever=self.retriever, knowledge=self.knowledge
            )
            return pipeline.run(item.answer, question=item.question, cited=cited)
        from veracity.verify.gather import source_chunks, source_documents

        chunks = source_chunks(source_documents(texts=item.sources))
        by_id = {chunk.id: chunk for chunk in chunks}
        cited = self._cited(item, lambda chunk_id: by_id.get(chunk_id))
        pipeline = open_answer_verifier(self.config, made, sources=chunks, knowledge=self.knowledge)
        return pipeline.run(item.answer, question=item.question, cited=cited)

    def _index_chunk(self, chunk_id: str) -> Chunk | None:
        doc_id = chunk_id.rpartition("#")[0]
        found = [c for c in self.store.document_chunks(doc_id) if c.id == chunk_id]
        return found[0] if found else None

    @staticmethod
    def _cited(item: BatchItem, find: Callable[[str], Chunk | None]) -> dict[int, Chunk] | None:
        if not item.cited:
            return None
        cited: dict[int, Chunk] = {}
        for number, chunk_id in item.cited.items():
            chunk = find(chunk_id)
            if chunk is None:
                raise InputError(
                    f"cited [{number}] names the chunk {chunk_id!r}, which is not "
                    "among the line's sources or in the index (source texts are "
                    "chunked as text-1#0, text-1#1, text-2#0, ...)"
                )
            cited[number] = chunk
        return cited
