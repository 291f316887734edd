"""The library calls behind the endpoints, on models loaded once.

:class:`Service` is built from :class:`~veracity.server.settings.Settings` and loaded once (the
app's lifespan). Each endpoint's method checks its request at once, against the limits and the
budgets (the claims and the (passage, claim) pairs it would cost), and returns a :class:`Job`:
the model work, plain synchronous library calls that return the same ``to_dict()`` payloads the
CLI prints with ``--json``. The app checks outside the models' queue and runs the job in its
turn (:mod:`veracity.server.gate`), handing it a stop that its models look at between batches
(:mod:`veracity.server.stop`). Per-request options (``k``, ``tau``, layers, search ``mode``)
fill the configs of the library's entry points (:func:`~veracity.generate.open.open_search`,
:func:`~veracity.verify.open.open_answer_verifier`,
:func:`~veracity.repair.open.open_repairer`), which build cheap stage objects around the loaded
models and never change the loaded ones (every answer and report carries its config); a search
mode other than the server's own is opened at its first request and kept.

>>> service = Service(Settings(index="my-index")).load()    # doctest: +SKIP
>>> service.search("waggle dance", k=3).run()["hits"][0]     # doctest: +SKIP
"""

from __future__ import annotations

import copy
import dataclasses
import time
from collections.abc import Callable, Generator, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Generic, TypeVar

from veracity import __version__, defaults
from veracity.errors import IndexStoreError, InputError
from veracity.server.clock import Clock, measure_pairs
from veracity.server.errors import ServiceError
from veracity.server.settings import Limits, Settings
from veracity.server.stop import Stop, StoppingRetriever, StoppingScorer
from veracity.server.visible import flag_report
from veracity.types import Chunk, ClaimSet, Document
from veracity.verify.pairs import PairChecker

if TYPE_CHECKING:
    from veracity.config import RepairConfig, VerifyConfig
    from veracity.corpus.store import ChunkStore
    from veracity.generate.ask import Asker
    from veracity.generate.writers import Writer
    from veracity.models.pairs.base import PairScorer, SpanDetector
    from veracity.models.relevance.base import RelevanceScorer
    from veracity.retrieve.search import IndexSearch
    from veracity.rules import KnowledgeLayer
    from veracity.verify.pipeline import AnswerVerifier

__all__ = ["Job", "Service", "VerifyOptions", "document_payload"]

T = TypeVar("T")
S = TypeVar("S")

#: The layers the service runs (consistency needs sampled answers from a chat model: use the CLI).
SERVED_LAYERS = ("nli", "knowledge")
#: Combination rules the service offers (``logistic`` reads a weights file: use the CLI).
SERVED_RULES = ("decision", "any", "all", "cascade")


@dataclass(frozen=True)
class VerifyOptions:
    """One verify request: the answer, and where its evidence comes from (``sources`` texts,
    ``doc_ids`` of the index, or else the whole index searched per claim)."""

    answer: str
    question: str | None = None
    sources: tuple[str, ...] = ()
    doc_ids: tuple[str, ...] = ()
    layers: tuple[str, ...] = defaults.VERIFY_LAYERS
    rule: str = defaults.VERIFY_RULE
    k: int = defaults.VERIFY_TOP_K
    tau: float = defaults.VERIFY_TAU
    #: How the index is searched per claim (``None``: the server's ``--mode``).
    mode: str | None = None
    #: Repair only: what to do with a claim the sources do not support.
    policy: str = defaults.REPAIR_POLICY


@dataclass(frozen=True)
class Job(Generic[T]):
    """A request that passed its checks: its work, ``run(stop)``; in the models' turn when it
    needs ``models``, admitted by the estimated time of its ``pairs`` and its ``kind``
    (:class:`~veracity.server.clock.Clock`)."""

    work: Callable[[Stop], T]
    kind: str = "job"
    pairs: int = 0
    #: False: it reads the index only (BM25, the store), and runs beside the model work.
    models: bool = True

    def run(self, stop: Stop | None = None) -> T:
        return self.work(stop or Stop())


@dataclass(frozen=True)
class Checked(Generic[S]):
    """An answer to verify or repair that is within its budget: its claims (made by the same
    rules as the verifier's, so they are not made twice), its pasted or picked passages and
    the settings of its pipeline."""

    claims: ClaimSet
    chunks: tuple[Chunk, ...]
    seconds: float
    settings: S
    #: The (passage, claim) pairs it will have scored.
    pairs: int


def document_payload(document: Document) -> dict[str, Any]:
    """A stored document for the page: its text, title, sections and pages, and the file it
    was read from (which a response shows by its name only: :mod:`veracity.server.public`)."""
    return {
        "id": document.id,
        "title": document.title,
        "source": document.source,
        "text": document.text,
        "chars": len(document.text),
        "sections": [
            {"start": s.start, "end": s.end, "path": list(s.path)} for s in document.sections
        ],
        "pages": [{"number": p.number, "start": p.start, "end": p.end} for p in document.pages],
        "metadata": dict(document.metadata),
    }


class Service:
    """The loaded models and the index, and one method per endpoint (see the module docstring)."""

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self.limits: Limits = settings.limits
        self.notes: list[str] = []
        self._loaded = False
        self._searches: dict[str, IndexSearch] = {}
        self.generation = ""
        self.store: ChunkStore
        self.clock = Clock(
            1.0 if settings.limits.pair_ms is None else settings.limits.pair_ms / 1000
        )

    def load(self) -> Service:
        """Load the verifier, the reranker and the writer (the chat model, once), and open the
        index's live generation (:attr:`live`: each request leases the one it reads)."""
        if self._loaded:
            return self
        from veracity.generate.writers import make_writer
        from veracity.rules import KnowledgeLayer
        from veracity.server.live import Live

        settings = self.settings
        self.scorer: PairScorer = settings.models.verifier(settings.verifier).load()
        if settings.limits.pair_ms is None:  # the seconds per pair of this verifier, here
            self.clock = Clock(measure_pairs(self.scorer))
        self.reranker: RelevanceScorer | None = (
            None if settings.reranker is None else settings.models.reranker(settings.reranker)
        )
        self.writer: Writer = make_writer(
            settings.llm, model=settings.model, scorer=self.scorer, chat=settings.models.chat
        )
        load = getattr(self.writer, "load", None)
        if callable(load):
            load()
        self.knowledge: KnowledgeLayer = KnowledgeLayer().load()
        self.spans: SpanDetector | None = (
            None if settings.spans is None else settings.models.spans(settings.spans).load()
        )
        self.live: Live[Service] = Live(settings.index, self._on)
        self.live.load()
        self._loaded = True
        return self

    def _on(self, view: Path, name: str) -> Service:
        """This service on the generation ``name`` (opened through ``view``, a folder whose
        ``CURRENT`` names it): the loaded models shared, its own store and searches."""
        from veracity.corpus.index_dir import IndexDir

        served = copy.copy(self)
        served.settings = dataclasses.replace(self.settings, index=view)
        served.generation = name
        served.notes = []
        served._searches = {}
        served.store = IndexDir(view).store()
        served._search(self.settings.mode)
        return served

    # --- the endpoints: checks now, a Job for the models' turn --------------------------------
    def version(self) -> dict[str, Any]:
        return {
            "veracity": __version__,
            "api": "v1",
            "verifier": {
                "model": self.scorer.model_id,
                "version": str(getattr(self.scorer, "version", "")),
            },
            "chat": self.writer.model_id,
            "search_mode": self.settings.mode,
            "reranker": self.settings.reranker,
            "span_detector": None if self.spans is None else self.spans.model_id,
            "index": {"generation": self.generation, "chunks": len(self.store)},
            "notes": list(self.notes),
        }

    def search(self, query: str, k: int, mode: str | None = None) -> Job[dict[str, Any]]:
        self._check_text("query", query, "question_chars")
        k, mode = self._k(k), self._mode(mode)
        models = mode != "bm25" or self.reranker is not None  # a query embedder, a reranker
        return Job(
            lambda stop: self._search(mode).run(query, k=k).to_dict(),
            kind="search",
            models=models,
        )

    def ask(
        self, question: str, k: int, tau: float, mode: str | None = None
    ) -> Job[dict[str, Any]]:
        self._check_text("question", question, "question_chars")
        k, mode = self._k(k), self._mode(mode)
        return Job(
            lambda stop: self._asker(k, tau, mode, stop).run(question).to_dict(),
            kind="ask",
            pairs=k,
        )

    def ask_stream(
        self, question: str, k: int, tau: float, mode: str | None = None
    ) -> Job[Iterator[tuple[str, Any]]]:
        """``("sentence", SentenceCheck dict)`` as each is written and checked, then
        ``("answer", Answer dict)``."""
        self._check_text("question", question, "question_chars")
        k, mode = self._k(k), self._mode(mode)
        return Job(
            lambda stop: self._ask_events(self._asker(k, tau, mode, stop), question),
            kind="ask",
            pairs=k,
        )

    def verify(self, options: VerifyOptions) -> Job[dict[str, Any]]:
        checked = self._checked(options, "verify", lambda: self._verify_config(options))

        def work(stop: Stop) -> dict[str, Any]:
            verifier = self._verifier(checked, options.mode, stop)
            return flag_report(
                verifier.verify_claims(
                    checked.claims, question=options.question, timings={"claims": checked.seconds}
                ).to_dict()
            )

        return Job(work, kind="verify", pairs=checked.pairs)

    def verify_stream(self, options: VerifyOptions) -> Job[Iterator[tuple[str, Any]]]:
        """``("sentence", {...})`` per sentence of the answer as soon as it is verified: its
        span, text, the verdicts of its claims and why it was skipped (or ``null``); then
        ``("report", Report dict)``, the report on the whole answer."""
        checked = self._checked(options, "verify", lambda: self._verify_config(options))
        return Job(
            lambda stop: self._verify_events(self._verifier(checked, options.mode, stop), options),
            kind="verify",
            pairs=checked.pairs,
        )

    def repair(self, options: VerifyOptions) -> Job[dict[str, Any]]:
        """The repaired answer (a ``RepairResult``, as `veracity repair --json`), without a
        chat model: values substituted from the evidence, claims deleted, flagged or the
        answer refused, by ``options.policy``."""
        from veracity.models import Models
        from veracity.repair.open import open_repairer

        checked = self._checked(options, "repair", lambda: self._repair_config(options))

        def work(stop: Stop) -> dict[str, Any]:
            retriever = None if checked.chunks else self._retriever(options.mode, stop)
            repairer = open_repairer(
                checked.settings,
                Models(verifier=lambda _name: self._scorer(stop)),
                retriever=retriever,
                sources=checked.chunks,
            )
            return repairer.run(options.answer, question=options.question).to_dict()

        return Job(work, kind="repair", pairs=2 * checked.pairs)  # read again after its edits

    def check(self, pairs: Sequence[tuple[str, str, str | None]]) -> Job[dict[str, Any]]:
        """Score (premise, claim, id) pairs in one batch, each as ``veracity check`` prints it."""
        if not pairs:
            raise InputError("no pairs were given: send pairs = [{premise, claim}]")
        if len(pairs) > self.limits.pairs:
            raise ServiceError.over_limit("pairs", self.limits.pairs, f"{len(pairs)} pairs")
        for premise, claim, _ in pairs:
            if not premise.strip() or not claim.strip():
                raise InputError("a pair has an empty premise or claim: give both texts")

        def work(stop: Stop) -> dict[str, Any]:
            checker = PairChecker(self._scorer(stop))
            result = checker.run([p for p, _, _ in pairs], [c for _, c, _ in pairs])
            rows = []
            for (_, _, ident), pair in zip(pairs, result.pairs, strict=True):
                row = pair.to_dict()
                rows.append(row if ident is None else {"id": ident} | row)
            return {
                "model": result.model_id,
                "version": result.model_version,
                "pairs": rows,
                "failed": result.failures,
            }

        return Job(work, kind="check", pairs=len(pairs))

    # --- the endpoints without model work ------------------------------------------------------
    def document(self, doc_id: str) -> dict[str, Any]:
        """A stored document by its id (looked up in the index's store, never on disk)."""
        try:
            return document_payload(self.store.document(doc_id))
        except KeyError:
            raise ServiceError(
                404,
                "not_found",
                # the id is not echoed: a message passes through Public, which would rewrite a
                # server path in it, telling the caller which path it guessed right
                "no document of this index has the id asked for; GET /v1/documents lists the ids",
            ) from None

    def documents(self) -> dict[str, Any]:
        rows = [
            {"id": d.id, "title": d.title, "source": d.source, "chars": len(d.text)}
            for d in self.store.documents()
        ]
        return {"documents": rows, "count": len(rows)}

    # --- helpers ----------------------------------------------------------------------------
    def _search(self, mode: str) -> IndexSearch:
        """The index opened in a search mode (reranked when the server reranks) with the
        abstention that goes with it, as `veracity ask --mode` opens it; each mode is opened
        once."""
        from veracity.config import SearchConfig
        from veracity.models import Models
        from veracity.retrieve.search import open_search

        if mode not in self._searches:
            own = mode == self.settings.mode
            try:
                search = open_search(
                    SearchConfig().with_options(**self._search_options(mode)),
                    Models(verifier=lambda _name: self.scorer, reranker=self._loaded_reranker),
                )
                if not own:
                    search.retriever.load()
            except IndexStoreError as exc:
                if own:
                    raise
                raise InputError(
                    f"mode {mode!r} cannot search this server's index ({exc}); "
                    "send mode bm25, or leave mode out"
                ) from None
            self.notes.extend(
                note if own else f"requests with mode {mode}: {note}" for note in search.notes
            )
            search.retriever.load()
            self._searches[mode] = search
        return self._searches[mode]

    def _scorer(self, stop: Stop) -> StoppingScorer:
        return StoppingScorer(self.scorer, stop, clock=self.clock)

    def _retriever(self, mode: str | None, stop: Stop) -> StoppingRetriever:
        return StoppingRetriever(self._search(self._mode(mode)).retriever, stop)

    def _asker(self, k: int, tau: float, mode: str, stop: Stop) -> Asker:
        from veracity.config import AskConfig
        from veracity.generate.open import search_asker

        search = dataclasses.replace(self._search(mode), retriever=self._retriever(mode, stop))
        asker = search_asker(
            search, self.writer, self._scorer(stop), k=k, tau=tau, rules=self.knowledge
        )
        settings = self.settings
        config = AskConfig().with_options(
            **self._search_options(mode), k=k, tau=tau, llm=settings.llm, model=settings.model
        )
        asker.config = config.to_dict()  # the answers say how they were made
        return asker

    def _search_options(self, mode: str) -> dict[str, Any]:
        """The options of a search in ``mode`` over the service's index and models."""
        return {
            "index": str(self.settings.index),
            "mode": mode,
            "verifier": self.settings.verifier,
            "reranker": self.settings.reranker,
            "rerank_depth": self.settings.rerank_depth,
        }

    def _loaded_reranker(self, name: str) -> RelevanceScorer:
        """The reranker the service loaded (the one its settings name)."""
        if self.reranker is None:  # the config names one only when the settings do
            raise InputError(f"reranker {name!r}: the service runs no reranker")
        return self.reranker

    @staticmethod
    def _ask_events(asker: Asker, question: str) -> Iterator[tuple[str, Any]]:
        from veracity.generate.stream import StreamingAsker
        from veracity.types import Answer, SentenceCheck

        items: Generator[SentenceCheck | Answer, None, None] = StreamingAsker(asker).run(question)
        try:
            for item in items:
                yield ("answer" if isinstance(item, Answer) else "sentence"), item.to_dict()
        finally:
            items.close()

    @staticmethod
    def _verify_events(
        verifier: AnswerVerifier, options: VerifyOptions
    ) -> Iterator[tuple[str, Any]]:
        from veracity.verify.stream import (
            StreamedSentence,
            StreamVerifier,
            merge_reports,
            sentence_pieces,
        )

        streamed = []
        items: Generator[StreamedSentence, None, None] = StreamVerifier(verifier).run(
            sentence_pieces(options.answer), question=options.question
        )
        try:
            for sentence in items:
                streamed.append(sentence)
                yield (
                    "sentence",
                    {
                        "index": sentence.index,
                        "span": [sentence.span.start, sentence.span.end],
                        "text": sentence.text,
                        "claims": flag_report(
                            {"claims": [verdict.to_dict() for verdict in sentence.verdicts]}
                        )["claims"],
                        "skipped": None if sentence.skipped is None else sentence.skipped.to_dict(),
                    },
                )
        finally:
            items.close()
        yield "report", flag_report(merge_reports(options.answer, streamed).to_dict())

    def _verifier(
        self, checked: Checked[VerifyConfig], mode: str | None, stop: Stop
    ) -> AnswerVerifier:
        """The answer verifier of one checked request, over the loaded models."""
        from veracity.models import Models
        from veracity.verify.open import open_answer_verifier

        config = checked.settings
        return open_answer_verifier(
            config,
            Models(verifier=lambda _name: self._scorer(stop), spans=self._loaded_spans),
            retriever=None if checked.chunks else self._retriever(mode, stop),
            sources=checked.chunks,
            knowledge=self.knowledge if "knowledge" in config.decision.layers else None,
        )

    def _loaded_spans(self, name: str) -> SpanDetector:
        """The span detector the service loaded (the one its settings name)."""
        if self.spans is None:  # the config names one only when the settings do
            raise InputError(f"spans {name!r}: the service runs no span detector")
        return self.spans

    def _verify_config(self, options: VerifyOptions) -> VerifyConfig:
        """The config of a verify request: the layers and rules the service runs, over its
        models and its index (unless the request brings its passages)."""
        from veracity.config import VerifyConfig

        unknown = [name for name in options.layers if name not in SERVED_LAYERS]
        if unknown or not options.layers:
            raise InputError(
                f"layers {list(options.layers)}: the service runs "
                f"{', '.join(SERVED_LAYERS)} (the consistency layer needs "
                "`veracity verify --llm`)"
            )
        if options.rule not in SERVED_RULES:
            raise InputError(
                f"rule {options.rule!r}: the service offers "
                f"{', '.join(SERVED_RULES)} (logistic reads a weights file: use "
                "`veracity verify --rule logistic --weights W.json`)"
            )
        pasted = bool(options.sources or options.doc_ids)
        return VerifyConfig().with_options(
            verifier=self.settings.verifier,
            spans=self.settings.spans,
            index=None if pasted else str(self.settings.index),
            mode=self._mode(options.mode),
            layers=options.layers,
            rule=options.rule,
            k=options.k,
            tau=options.tau,
        )

    def _repair_config(self, options: VerifyOptions) -> RepairConfig:
        """The config of a repair request: no chat model, so no model-written questions."""
        from veracity.config import RepairConfig

        pasted = bool(options.sources or options.doc_ids)
        return RepairConfig().with_options(
            verifier=self.settings.verifier,
            index=None if pasted else str(self.settings.index),
            mode=self._mode(options.mode),
            policy=options.policy,
            k=options.k,
            tau=options.tau,
        )

    def _checked(
        self, options: VerifyOptions, verb: str, settings_of: Callable[[], S]
    ) -> Checked[S]:
        """An answer to verify or repair, checked against the limits and the budgets: its claims
        (``claims``) and the (passage, claim) pairs they would cost (``pairs``); and the
        settings of its pipeline (``settings_of``, which checks the request's options)."""
        from veracity.verify.claims import ClaimExtractor

        if not options.answer.strip():
            raise InputError(f"the answer is empty: give the text to {verb}")
        self._check_text("answer", options.answer, "answer_chars")
        if options.question is not None:
            self._check_text("question", options.question, "question_chars")
        settings = settings_of()
        chunks = self._sources(options)
        k = self._k(options.k)
        self._mode(options.mode)
        started = time.perf_counter()
        claims = ClaimExtractor().run(options.answer)  # the rules the answer verifier uses
        count = len(claims.claims)
        if count > self.limits.claims:
            raise ServiceError.over_limit(
                "claims", self.limits.claims, f"the answer has {count} claims"
            )
        each = len(chunks) if chunks and len(chunks) <= k else k
        if count * each > self.limits.pairs:
            raise ServiceError.over_limit(
                "pairs",
                self.limits.pairs,
                f"{count} claims with {each} passages each make "
                f"{count * each} (passage, claim) pairs to score",
                fix="send fewer claims or a smaller k",
            )
        return Checked(claims, chunks, time.perf_counter() - started, settings, count * each)

    def _sources(self, options: VerifyOptions) -> tuple[Chunk, ...]:
        """The chunks of a request's ``sources`` texts and ``doc_ids`` (none: search the index)."""
        from veracity.verify.gather import source_chunks, source_documents

        count = len(options.sources) + len(options.doc_ids)
        if count > self.limits.sources:
            raise ServiceError.over_limit(
                "sources", self.limits.sources, f"{count} sources and document ids"
            )
        chunks: tuple[Chunk, ...] = ()
        if options.sources or options.doc_ids:
            documents = list(source_documents(texts=options.sources))
            for place, doc_id in enumerate(options.doc_ids):
                try:
                    documents.append(self.store.document(doc_id))
                except KeyError:
                    raise ServiceError(
                        404,
                        "not_found",
                        f"doc_ids[{place}] is not the id of a document of this index; "
                        "GET /v1/documents lists the ids",
                    ) from None
            chunks = tuple(source_chunks(documents))
        return chunks

    def _k(self, k: int) -> int:
        if k > self.limits.k:
            raise ServiceError.over_limit("k", self.limits.k, f"k = {k} passages")
        return k

    def _mode(self, mode: str | None) -> str:
        mode = self.settings.mode if mode is None else mode
        if mode not in defaults.SEARCH_MODES:
            raise InputError(f"mode {mode!r}: one of {', '.join(defaults.SEARCH_MODES)}")
        return mode

    def _check_text(self, what: str, text: str, limit: str) -> None:
        most = int(getattr(self.limits, limit))
        if len(text) > most:
            raise ServiceError.over_limit(limit, most, f"the {what} has {len(text)} characters")
