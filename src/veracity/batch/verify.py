"""Verify one batch item in a worker: the models loaded once, the report as an output record.

:class:`VerifySettings` is what every worker needs to build the same pipeline (it crosses
process boundaries, so the verifier comes as a factory, e.g. ``functools.partial(make_verifier,
"embedded")``). :class:`ItemVerifier` is the worker's stage: ``load()`` makes the verifier, the
knowledge layer and the index retriever once; ``run(item)`` returns the item's record, the same
``to_dict()`` as ``veracity verify --json`` with the ``id`` and ``line`` of the item in front,
or an error record that says why the item could not be verified.

>>> from functools import partial
>>> from veracity.testing import TablePairScorer
>>> settings = VerifySettings(partial(TablePairScorer, {}), layers=("nli",))
>>> worker = ItemVerifier(settings).load()
>>> record = worker.run(BatchItem("q1", 1, "Bees dance.", sources=("Bees dance.",)))
>>> record.key, record.data["summary"]["claims"]
('id:q1', 1)
"""

from __future__ import annotations

import traceback
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from veracity import defaults
from veracity._json import strict_json
from veracity.batch.items import BadLine, BatchItem
from veracity.defaults import EvidenceWindow
from veracity.errors import InputError, OptionError, VeracityError
from veracity.models.pairs.base import PairScorer
from veracity.types import Chunk

__all__ = ["BatchRecord", "ItemVerifier", "VerifySettings"]

#: The layers a batch can run: the consistency layer needs a chat model per worker, which
#: verify-batch does not make.
BATCH_LAYERS = ("nli", "knowledge")


@dataclass(frozen=True)
class VerifySettings:
    """How every worker verifies: the verifier ``factory`` (called once per worker), the
    ``index`` to retrieve evidence from (``None``: each line brings its sources), the search
    ``mode``, the ``layers`` and ``rule`` that decide, ``k`` and ``tau``, and the NLI layer's
    ``window`` (``passage`` or ``claim``, see :mod:`veracity.verify.nli`)."""

    verifier: Callable[[], PairScorer]
    index: Path | None = None
    mode: str = defaults.SEARCH_MODE
    layers: tuple[str, ...] = defaults.VERIFY_LAYERS
    rule: str = defaults.VERIFY_RULE
    k: int = defaults.VERIFY_TOP_K
    tau: float = defaults.VERIFY_TAU
    window: EvidenceWindow = defaults.NLI_WINDOW

    def __post_init__(self) -> None:
        from veracity.verify.nli import WINDOWS

        if self.window not in WINDOWS:
            raise OptionError("window", self.window, f"one of {', '.join(WINDOWS)}")
        if not callable(self.verifier):
            raise OptionError(
                "verifier",
                self.verifier,
                "a factory that makes a PairScorer",
                "For example functools.partial(make_verifier, 'embedded').",
            )
        unknown = [name for name in self.layers if name not in BATCH_LAYERS]
        if unknown or not self.layers:
            raise OptionError(
                "layers",
                ",".join(self.layers),
                f"one or more of {', '.join(BATCH_LAYERS)} in a batch",
                "The consistency layer needs a chat model; verify those answers "
                "with `veracity verify --llm ...`.",
            )

    def check(self) -> None:
        """Fail now, before any worker starts, on options no worker could run with."""
        from veracity.verify.pipeline import make_answer_verifier

        if self.index is not None:
            from veracity.retrieve.open import open_retriever

            open_retriever(self.index, mode=self.mode)
        make_answer_verifier(
            self.verifier(),
            sources=(),
            layers=self.layers,
            rule=self.rule,
            k=self.k,
            tau=self.tau,
            window=self.window,
        )


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

    def __init__(self, settings: VerifySettings) -> None:
        if not isinstance(settings, VerifySettings):
            raise InputError(f"settings must be VerifySettings, got {type(settings).__name__}")
        self.settings = settings
        self._parts: _Parts | None = None

    def load(self) -> ItemVerifier:
        """Make the verifier, the knowledge layer and the retriever; repeat calls are free."""
        self._load()
        return self

    def _load(self) -> _Parts:
        if self._parts is None:
            self._parts = _Parts.make(self.settings)
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
        self,
        settings: VerifySettings,
        scorer: PairScorer,
        knowledge: Any,
        index_verifier: Any,
        store: Any,
    ) -> None:
        self.settings = settings
        self.scorer = scorer
        self.knowledge = knowledge
        self.index_verifier = index_verifier
        self.store = store

    @classmethod
    def make(cls, settings: VerifySettings) -> _Parts:
        from veracity.rules import KnowledgeLayer

        scorer = settings.verifier()
        scorer.load()
        knowledge = KnowledgeLayer().load() if "knowledge" in settings.layers else None
        index_verifier = store = None
        if settings.index is not None:
            from veracity.corpus.index_dir import STORE, IndexDir
            from veracity.corpus.store import ChunkStore
            from veracity.retrieve.open import open_retriever

            retriever = open_retriever(settings.index, mode=settings.mode)
            retriever.load()
            index_verifier = _pipeline(settings, scorer, knowledge, retriever=retriever)
            store = ChunkStore.open(IndexDir(settings.index).current() / STORE)
        return cls(settings, scorer, knowledge, index_verifier, store)

    def verify(self, item: BatchItem) -> Any:
        if self.index_verifier is not None:
            cited = self._cited(item, self._index_chunk)
            return self.index_verifier.run(item.answer, question=item.question, cited=cited)
        from veracity.verify.gather import source_chunks, source_documents

        chunks = source_chunks(source_documents(texts=item.sources))
        by_id = {chunk.id: chunk for chunk in chunks}
        cited = self._cited(item, lambda chunk_id: by_id.get(chunk_id))
        pipeline = _pipeline(self.settings, self.scorer, self.knowledge, sources=chunks)
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


def _pipeline(
    settings: VerifySettings,
    scorer: PairScorer,
    knowledge: Any,
    *,
    retriever: Any = None,
    sources: tuple[Chunk, ...] = (),
) -> Any:
    from veracity.verify.pipeline import make_answer_verifier

    return make_answer_verifier(
        scorer,
        retriever=retriever,
        sources=sources,
        layers=settings.layers,
        rule=settings.rule,
        k=settings.k,
        tau=settings.tau,
        knowledge=knowledge,
        window=settings.window,
    )
