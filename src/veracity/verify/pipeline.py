"""Verify any answer claim by claim: claims, evidence, layers, one combined verdict each.

:class:`AnswerVerifier` is the pipeline behind ``veracity verify`` (DESIGN.md calls it the
``Verifier``; the longer name keeps it apart from the pair verifiers that
:func:`~veracity.verify.make_verifier` builds):

1. claims: split, filter, decompose and decontextualize the answer
   (:class:`~veracity.verify.claims.ClaimExtractor`);
2. evidence: the passages each claim's sentence cites, or passages retrieved for it from an
   index or the given source texts (:class:`~veracity.verify.gather.EvidenceGatherer`);
3. layers: ``nli`` (the verifier against the evidence), ``knowledge`` (numbers, dates, amounts
   and names compared exactly) and ``consistency`` (sampled answers from a chat model);
4. combination: the declared rule (:class:`~veracity.verify.rules.LayerCombiner`).

The verifier scores every (passage, claim) pair even when the ``nli`` layer is not among
``layers``, so that every verdict shows the passages that support and contradict its claim; the
layers listed decide the label.

>>> from veracity.testing import TablePairScorer
>>> from veracity.types import Chunk
>>> source = Chunk("bees.md#0", "bees.md", 0, "Honey bees dance.", 0, 17)
>>> scorer = TablePairScorer({("Honey bees dance.", "Honey bees dance."): (0.9, 0.0, 0.1)})
>>> report = AnswerVerifier(scorer, sources=[source], layers=("nli",)).run("Honey bees dance.")
>>> report.summary["supported"], report.verdicts[0].citations[0].doc_id
(1, 'bees.md')
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping, Sequence
from typing import TypeVar

from veracity import defaults
from veracity.errors import InputError, OptionError
from veracity.llm.base import ChatModel
from veracity.retrieve.base import Retriever
from veracity.types import Chunk, ClaimSet, ClaimVerdict, LayerResult, Report
from veracity.verifiers.base import PairScorer
from veracity.verify.claims import ClaimExtractor
from veracity.verify.consistency import ConsistencyLayer, ConsistencyResult
from veracity.verify.gather import EvidenceGatherer, EvidenceSet
from veracity.verify.knowledge import KnowledgeLayer, KnowledgeResult
from veracity.verify.nli import Aggregation, NLILayer, NLIResult
from veracity.verify.questions import QueryMaker, QueryMode
from veracity.verify.rules import LayerCombiner

__all__ = ["LAYERS", "AnswerVerifier"]

LAYERS = ("nli", "knowledge", "consistency")
T = TypeVar("T")


def _check_layers(layers: Sequence[str]) -> tuple[str, ...]:
    if isinstance(layers, str):
        layers = tuple(part.strip() for part in layers.split(",") if part.strip())
    chosen = tuple(dict.fromkeys(layers))
    unknown = [name for name in chosen if name not in LAYERS]
    if unknown or not chosen:
        raise OptionError("layers", ",".join(layers), f"one or more of {', '.join(LAYERS)}",
                          "For example layers=('nli', 'knowledge').")
    return chosen


class AnswerVerifier:
    """Checks every claim of an answer (see the module docstring).

    Evidence comes from ``retriever`` (e.g. ``open_retriever(index)``), from ``sources``
    (passages; see :func:`~veracity.verify.gather.source_chunks`), or only from the passages
    the answer cites (``cited`` in :meth:`run`). ``chat`` enables the LLM claim decomposer and
    the consistency layer; ``consistency`` overrides the consistency layer's settings.
    """

    def __init__(
        self,
        scorer: PairScorer,
        *,
        retriever: Retriever | None = None,
        sources: Sequence[Chunk] = (),
        layers: Sequence[str] = defaults.VERIFY_LAYERS,
        rule: str | LayerCombiner = defaults.VERIFY_RULE,
        chat: ChatModel | None = None,
        extractor: ClaimExtractor | None = None,
        knowledge: KnowledgeLayer | None = None,
        consistency: ConsistencyLayer | None = None,
        query: QueryMode = "claim",
        k: int = defaults.VERIFY_TOP_K,
        aggregation: Aggregation = defaults.VERIFY_AGGREGATION,  # type: ignore[assignment]
        tau: float = defaults.VERIFY_TAU,
        decompose: bool = True,
        decontextualize: bool = True,
    ) -> None:
        self.layers = _check_layers(layers)
        if "consistency" in self.layers and consistency is None and chat is None:
            raise OptionError("layers", ",".join(self.layers), "a chat model for 'consistency'",
                              "Pass chat=make_chat(...) (--llm on the command line) or drop the "
                              "consistency layer.")
        self.nli = NLILayer(scorer, aggregation=aggregation, tau=tau)
        self.gatherer = EvidenceGatherer(retriever=retriever, sources=sources, k=k,
                                         queries=QueryMaker(query, chat=None))
        self.has_sources = retriever is not None or bool(sources)
        self.extractor = extractor or ClaimExtractor(decompose=decompose,
                                                     decontextualize=decontextualize)
        self.knowledge = knowledge or (KnowledgeLayer() if "knowledge" in self.layers else None)
        self.consistency = consistency
        if "consistency" in self.layers and consistency is None and chat is not None:
            self.consistency = ConsistencyLayer(chat, scorer)
        self.combiner = rule if isinstance(rule, LayerCombiner) else LayerCombiner(
            rule, order=self.layers)
        self.scorer = scorer

    def load(self) -> AnswerVerifier:
        """Load the verifier (and the knowledge layer's NER); repeat calls are free."""
        self.nli.load()
        if self.knowledge is not None and "knowledge" in self.layers:
            self.knowledge.load()
        return self

    def run(self, answer: str, *, question: str | None = None,
            cited: Mapping[int, Chunk] | None = None) -> Report:
        """The report on ``answer``: one verdict per claim, the skipped sentences, a summary.

        ``cited`` maps the answer's citation numbers to the passages they name (``[2]`` ->
        the second context block given to the model that wrote it).
        """
        if not isinstance(answer, str) or not answer.strip():
            raise InputError("the answer is empty: give the text to verify "
                             "(--answer FILE or --answer TEXT)")
        timings: dict[str, float] = {}
        claims = _timed(timings, "claims", lambda: self.extractor.run(answer))
        return self.verify_claims(claims, question=question, cited=cited, timings=timings)

    def verify_claims(self, claims: ClaimSet, *, question: str | None = None,
                      cited: Mapping[int, Chunk] | None = None,
                      timings: Mapping[str, float] | None = None) -> Report:
        """The report for claims already extracted (the streaming entry point uses this)."""
        timings = dict(timings or {})
        if not self.has_sources and not cited:
            raise InputError("no sources to verify against: pass an index (--index DIR), "
                             "source texts (--sources FILE ...), or the cited passages")
        if "consistency" in self.layers and not (question and question.strip()):
            raise InputError("the consistency layer needs the question the answer replies to: "
                             "pass question=... (--question TEXT) or drop the layer")
        self.load()
        evidence = _timed(timings, "evidence", lambda: self.gatherer.run(claims.claims,
                                                                         cited=cited))
        nli = _timed(timings, "nli", lambda: self.nli.run(evidence))
        knowledge = self._knowledge(evidence, timings)
        consistency = self._consistency(question, claims, timings)
        verdicts = []
        for i, claim in enumerate(claims.claims):
            findings: list[LayerResult] = []
            if "nli" in self.layers:
                findings.append(nli.results[i])
            if knowledge is not None:
                findings.append(knowledge.results[i])
            if consistency is not None:
                findings.append(consistency.results[i])
            verdicts.append(ClaimVerdict(
                claim=claim,
                label=self.combiner.run(findings),
                layers=tuple(findings),
                citations=nli.citations[i],
                anti_citations=nli.anti_citations[i],
                evidence=nli.judgements[i],
                values=() if knowledge is None else knowledge.values[i],
            ))
        return Report(
            answer=claims.answer,
            verdicts=tuple(verdicts),
            skipped=claims.skipped,
            question=question,
            layers=self.layers,
            rule=self.combiner.description,
            query_mode=evidence.query_mode,
            claims_method=claims.method,
            verifier=nli.model_id,
            verifier_version=nli.model_version,
            timings=timings,
            calls=_calls(evidence, nli, consistency),
            warnings=_warnings(nli, consistency),
        )

    def _knowledge(self, evidence: EvidenceSet,
                   timings: dict[str, float]) -> KnowledgeResult | None:
        layer = self.knowledge
        if layer is None or "knowledge" not in self.layers:
            return None
        claims = [item.claim for item in evidence.items]
        passages = [item.passages for item in evidence.items]
        return _timed(timings, "knowledge", lambda: layer.run(claims, passages))

    def _consistency(self, question: str | None, claims: ClaimSet,
                     timings: dict[str, float]) -> ConsistencyResult | None:
        layer = self.consistency
        if layer is None or "consistency" not in self.layers or question is None:
            return None
        return _timed(timings, "consistency", lambda: layer.run(question, claims.claims))


def _timed(timings: dict[str, float], stage: str, work: Callable[[], T]) -> T:
    start = time.perf_counter()
    result = work()
    timings[stage] = timings.get(stage, 0.0) + time.perf_counter() - start
    return result


def _calls(evidence: EvidenceSet, nli: NLIResult,
           consistency: ConsistencyResult | None) -> dict[str, int]:
    calls = {"searches": evidence.searches, "verifier_calls": nli.calls,
             "verifier_pairs": nli.pairs}
    if consistency is not None:
        calls["chat"] = consistency.calls.get("chat", 0)
        calls["verifier_pairs"] += consistency.calls.get("verifier", 0)
    return calls


def _warnings(nli: NLIResult, consistency: ConsistencyResult | None) -> tuple[str, ...]:
    warnings = []
    if nli.failures:
        warnings.append(f"the verifier could not score {nli.failures} of {nli.pairs} pair(s)")
    if consistency is not None:
        warnings.extend(consistency.warnings)
    return tuple(warnings)
