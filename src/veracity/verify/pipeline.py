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
4. combination: the declared rule (:class:`~veracity.verify.rules.LayerCombiner`);
5. spans, with a span detector only: the characters of each claim's place in the answer that
   its passages do not support (``unsupported_spans``, offsets into the answer). The detector
   reads the answer's own words (``claim.span`` of the answer), not the rewritten claim, so
   that every span is exact: ``answer[start:end] == text``; a claim rewritten from its sentence
   covers the whole sentence. The spans inform the reader and never change a label.

The verifier scores every (passage, claim) pair even when the ``nli`` layer is not among
``layers``, so that every verdict shows the passages that support and contradict its claim; the
layers listed decide the label.

>>> from veracity.testing import TablePairScorer
>>> from veracity.types import Chunk
>>> source = Chunk("bees.md#0", "bees.md", 0, "Honey bees dance.", 0, 17)
>>> scorer = TablePairScorer({("Honey bees dance.", "Honey bees dance."): (0.9, 0.0, 0.1)})
>>> verifier = make_answer_verifier(scorer, VerifyConfig().with_options(layers="nli"),
...                                 sources=[source])
>>> report = verifier.run("Honey bees dance.")
>>> report.summary["supported"], report.verdicts[0].citations[0].doc_id
(1, 'bees.md')
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any, TypeVar, get_args

from veracity import defaults
from veracity.config import CLAIM_METHODS, ClaimMethod, VerifyConfig, check_layers
from veracity.defaults import Layer
from veracity.errors import InputError, OptionError
from veracity.models.chat.base import ChatModel, Decoding
from veracity.models.pairs.base import PairScorer, SpanDetector
from veracity.retrieve.base import Retriever
from veracity.rules import KnowledgeLayer, KnowledgeResult
from veracity.types import Chunk, ClaimSet, ClaimVerdict, LayerResult, Report, UnsupportedSpan
from veracity.verify.claims import ClaimExtractor
from veracity.verify.consistency import ConsistencyLayer, ConsistencyResult
from veracity.verify.gather import EvidenceGatherer, EvidenceSet
from veracity.verify.nli import NLILayer, NLIResult
from veracity.verify.questions import QueryMaker
from veracity.verify.rules import LayerCombiner, LayerWeights
from veracity.verify.signals import claim_signals

__all__ = [
    "CLAIM_METHODS",
    "LAYERS",
    "AnswerVerifier",
    "ClaimMethod",
    "check_layers",
    "cited_blocks",
    "make_answer_verifier",
]

LAYERS: tuple[Layer, ...] = get_args(Layer)
T = TypeVar("T")


def cited_blocks(cited: Mapping[int, Chunk] | None) -> tuple[str, ...] | None:
    """The texts of the numbered blocks an answer was written over (``None`` without any): what
    tells a citation ``dance[1]`` from the source's own ``heap[0]``."""
    return None if cited is None else tuple(chunk.text for chunk in cited.values())


class AnswerVerifier:
    """Checks every claim of an answer (see the module docstring), composed of its parts.

    ``nli`` scores every (passage, claim) pair, so every verdict shows the passages that support
    and contradict its claim; ``evidence`` finds the passages; ``claims`` makes the claims
    (rules by default); ``knowledge`` and ``consistency`` are the other layers; ``rule`` combines
    the layers it names in its ``order`` (default: ``any`` over the layers given). A layer the
    rule names must be given, and a layer given must be one the rule names: either mismatch is
    an error, never a silent default. ``spans`` finds each claim's unsupported characters (step
    5 of the module docstring). :func:`make_answer_verifier` builds the common cases.
    """

    def __init__(
        self,
        nli: NLILayer,
        evidence: EvidenceGatherer,
        *,
        claims: ClaimExtractor | None = None,
        knowledge: KnowledgeLayer | None = None,
        consistency: ConsistencyLayer | None = None,
        rule: LayerCombiner | None = None,
        spans: SpanDetector | None = None,
    ) -> None:
        for name, part, kind in (
            ("nli", nli, NLILayer),
            ("evidence", evidence, EvidenceGatherer),
            ("claims", claims, ClaimExtractor),
            ("knowledge", knowledge, KnowledgeLayer),
            ("consistency", consistency, ConsistencyLayer),
            ("rule", rule, LayerCombiner),
            ("spans", spans, SpanDetector),
        ):
            if part is not None and not isinstance(part, kind):
                raise InputError(f"{name} must be a {kind.__name__}, got {type(part).__name__}")
        given = (
            "nli",
            *(["knowledge"] if knowledge is not None else []),
            *(["consistency"] if consistency is not None else []),
        )
        self.combiner = rule or LayerCombiner(defaults.VERIFY_RULE, order=given)
        self.layers = check_layers(self.combiner.order or given)
        missing = [name for name in self.layers if name not in given]
        if missing:
            raise OptionError(
                "layers",
                ",".join(self.layers),
                "layers that were given",
                f"The rule decides with {', '.join(missing)}, which was not given: "
                f"pass {missing[0]}=... or leave it out of the rule's order.",
            )
        unused = [name for name in given if name not in self.layers and name != "nli"]
        if unused:
            raise OptionError(
                "layers",
                ",".join(self.layers),
                "every layer given",
                f"{', '.join(unused)} was given but the rule does not decide with "
                f"it: add it to the rule's order or leave it out.",
            )
        self.nli = nli
        self.evidence = evidence
        self.extractor = claims or ClaimExtractor()
        self.knowledge = knowledge
        self.consistency = consistency
        self.spans = spans
        self.scorer = nli.scorer
        #: The saved config that made this verifier (``VerifyConfig.to_dict()``), which its
        #: reports carry; ``None`` for one composed by hand.
        self.config: dict[str, Any] | None = None

    def load(self) -> AnswerVerifier:
        """Load the verifier (and the knowledge layer's NER, and the span detector); repeat
        calls are free."""
        self.nli.load()
        if self.knowledge is not None:
            self.knowledge.load()
        if self.spans is not None:
            self.spans.load()
        return self

    def run(
        self, answer: str, *, question: str | None = None, cited: Mapping[int, Chunk] | None = None
    ) -> Report:
        """The report on ``answer``: one verdict per claim, the skipped sentences, a summary.

        ``cited`` maps the answer's citation numbers to the passages they name (``[2]`` ->
        the second context block given to the model that wrote it). Without it the answer came
        with no numbered blocks, and ``heap[5]`` is text, not a citation.
        """
        if not isinstance(answer, str) or not answer.strip():
            raise InputError(
                "the answer is empty: give the text to verify (--answer FILE or --answer TEXT)"
            )
        timings: dict[str, float] = {}
        claims = timed(
            timings, "claims", lambda: self.extractor.run(answer, blocks=cited_blocks(cited))
        )
        return self.verify_claims(claims, question=question, cited=cited, timings=timings)

    def verify_claims(
        self,
        claims: ClaimSet,
        *,
        question: str | None = None,
        cited: Mapping[int, Chunk] | None = None,
        timings: Mapping[str, float] | None = None,
    ) -> Report:
        """The report for claims already extracted (the streaming entry point uses this)."""
        timings = dict(timings or {})
        if self.evidence.retriever is None and not self.evidence.sources and not cited:
            raise InputError(
                "no sources to verify against: pass an index (--index DIR), "
                "source texts (--sources FILE ...), or the cited passages"
            )
        if "consistency" in self.layers and not (question and question.strip()):
            raise InputError(
                "the consistency layer needs the question the answer replies to: "
                "pass question=... (--question TEXT) or drop the layer"
            )
        self.load()
        evidence = timed(timings, "evidence", lambda: self.evidence.run(claims.claims, cited=cited))
        return self.judge(claims, evidence, question=question, timings=timings)

    def judge(
        self,
        claims: ClaimSet,
        evidence: EvidenceSet,
        *,
        question: str | None = None,
        timings: Mapping[str, float] | None = None,
    ) -> Report:
        """The report for claims whose evidence was gathered elsewhere (``evidence.items`` in
        the order of ``claims.claims``): repair researches its own evidence and judges it so."""
        timings = dict(timings or {})
        if len(evidence.items) != len(claims.claims):
            raise InputError(
                f"evidence for {len(evidence.items)} claims was given for "
                f"{len(claims.claims)} claims: give one item per claim, in order"
            )
        self.load()
        nli = timed(timings, "nli", lambda: self.nli.run(evidence))
        knowledge = self._knowledge(evidence, timings)
        consistency = self._consistency(question, claims, timings)
        unsupported = self._unsupported(claims.answer, evidence, timings)
        verdicts = []
        for i, claim in enumerate(claims.claims):
            findings: list[LayerResult] = []
            if "nli" in self.layers:
                findings.append(nli.results[i])
            if knowledge is not None:
                findings.append(knowledge.results[i])
            if consistency is not None:
                findings.append(consistency.results[i])
            values = () if knowledge is None else knowledge.values[i]
            decided = self.combiner.decide(claim_signals(claim.text, nli.judgements[i], values))
            verdicts.append(
                ClaimVerdict(
                    claim=claim,
                    label=self.combiner.run(findings, decided),
                    layers=tuple(findings),
                    citations=nli.citations[i],
                    anti_citations=nli.anti_citations[i],
                    evidence=nli.judgements[i],
                    values=values,
                    unsupported_spans=None if unsupported is None else unsupported[i],
                    decision=decided,
                )
            )
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
            span_detector=None if self.spans is None else self.spans.model_id,
            config=self.config,
        )

    def _unsupported(
        self, answer: str, evidence: EvidenceSet, timings: dict[str, float]
    ) -> list[tuple[UnsupportedSpan, ...]] | None:
        """Each claim's unsupported spans, as offsets into ``answer`` (one batched run)."""
        detector = self.spans
        if detector is None:
            return None
        items = evidence.items
        premises = ["\n\n".join(passage.text for passage in item.passages) for item in items]
        written = [item.claim.span.of(answer) for item in items]
        found = timed(timings, "spans", lambda: detector.run(premises, written)) if items else ()
        return [
            tuple(span.shifted(item.claim.span.start) for span in claim.spans)
            for item, claim in zip(items, found, strict=True)
        ]

    def _knowledge(
        self, evidence: EvidenceSet, timings: dict[str, float]
    ) -> KnowledgeResult | None:
        layer = self.knowledge
        if layer is None or "knowledge" not in self.layers:
            return None
        claims = [item.claim for item in evidence.items]
        passages = [item.passages for item in evidence.items]
        return timed(timings, "knowledge", lambda: layer.run(claims, passages))

    def _consistency(
        self, question: str | None, claims: ClaimSet, timings: dict[str, float]
    ) -> ConsistencyResult | None:
        layer = self.consistency
        if layer is None or "consistency" not in self.layers or question is None:
            return None
        return timed(timings, "consistency", lambda: layer.run(question, claims.claims))


def make_answer_verifier(
    scorer: PairScorer,
    config: VerifyConfig | None = None,
    *,
    retriever: Retriever | None = None,
    sources: Sequence[Chunk] = (),
    chat: ChatModel | None = None,
    knowledge: KnowledgeLayer | None = None,
    consistency: ConsistencyLayer | None = None,
    spans: SpanDetector | None = None,
) -> AnswerVerifier:
    """An :class:`AnswerVerifier` as ``config`` says (default :class:`VerifyConfig`), of the
    parts given made; its reports carry the config.

    ``chat`` writes the claims when ``config.claims.method="llm"``, the retrieval questions
    when ``config.evidence.query="question"``, and samples the answers of the consistency
    layer (unless ``consistency`` is given made); asking for any of these without a chat
    model, or giving one that nothing uses, is an error. Evidence comes from ``retriever``,
    from ``sources`` (passages, see :func:`~veracity.verify.gather.source_chunks`), or only
    from what the answer cites. ``knowledge`` is the knowledge layer (default: one without a
    knowledge base); ``spans`` adds each claim's ``unsupported_spans`` (see the module
    docstring). :func:`~veracity.verify.open.open_answer_verifier` makes the parts by name.

    >>> from veracity.testing import TablePairScorer
    >>> make_answer_verifier(TablePairScorer({}), VerifyConfig().with_options(
    ...     llm="extractive", claims="llm"))
    Traceback (most recent call last):
    ...
    veracity.errors.OptionError: claims='llm' is not allowed: a chat model to write the claims. \
Give one (--llm on the command line, chat in Python), or let rules write the claims.
    """
    config = config or VerifyConfig()
    chosen = config.decision.layers
    _check_parts(config, chat=chat, knowledge=knowledge, consistency=consistency)
    if chat is not None and "consistency" in chosen and consistency is None:
        decision = config.decision
        consistency = ConsistencyLayer(
            chat, scorer, samples=decision.samples, decoding=Decoding(decision.temperature)
        )
    claims, evidence, checking = config.claims, config.evidence, config.checking
    extractor = ClaimExtractor(
        decompose=claims.decompose,
        decontextualize=claims.decontextualize,
        chat=chat if claims.method == "llm" else None,
    )
    gatherer = EvidenceGatherer(
        retriever=retriever,
        sources=sources,
        k=evidence.k,
        queries=QueryMaker(evidence.query, chat=chat if evidence.query == "question" else None),
    )
    weights = config.decision.weights
    combiner = LayerCombiner(
        config.decision.rule,
        order=chosen,
        tau=checking.tau,
        weights=None if weights is None else LayerWeights.load(Path(weights)),
    )
    nli = NLILayer(
        scorer, aggregation=checking.aggregation, tau=checking.tau, window=checking.reads
    )
    verifier = AnswerVerifier(
        nli,
        gatherer,
        claims=extractor,
        knowledge=(knowledge or KnowledgeLayer()) if "knowledge" in chosen else None,
        consistency=consistency if "consistency" in chosen else None,
        rule=combiner,
        spans=spans,
    )
    verifier.config = config.to_dict()
    return verifier


def _check_parts(
    config: VerifyConfig,
    *,
    chat: ChatModel | None,
    knowledge: KnowledgeLayer | None,
    consistency: ConsistencyLayer | None,
) -> None:
    """The parts given made agree with the config: a chat model exactly where one is used, a
    knowledge or consistency layer only when the config's layers name it."""
    chosen = config.decision.layers
    needs = [
        need
        for need, wanted in (
            ("claims='llm'", config.claims.method == "llm"),
            ("query='question'", config.evidence.query == "question"),
            ("the consistency layer", "consistency" in chosen and consistency is None),
        )
        if wanted
    ]
    if chat is None and config.claims.method == "llm":
        raise OptionError(
            "claims",
            "llm",
            "a chat model to write the claims",
            "Give one (--llm on the command line, chat in Python), or let rules write the claims.",
        )
    if chat is None and "consistency" in chosen and consistency is None:
        raise OptionError(
            "layers",
            ",".join(chosen),
            "a chat model for 'consistency'",
            "Pass chat=make_chat(...) (--llm on the command line) or drop the consistency layer.",
        )
    if chat is None and config.evidence.query == "question":
        raise OptionError(
            "query",
            "question",
            "a chat model to write the questions",
            "Pass chat=make_chat(...) (--llm on the command line), or query by the claim.",
        )
    if chat is not None and not needs:
        raise OptionError(
            "chat",
            chat.model_id,
            "a chat model only where one is used",
            "It writes the claims (--llm-claims), the retrieval questions (--query "
            "question) or the consistency layer's samples (--layers with "
            "consistency); ask for one of them, or leave the chat model out "
            "(in Python: the claims, query and layers options).",
        )
    for name, part in (("knowledge", knowledge), ("consistency", consistency)):
        if part is not None and name not in chosen:
            raise OptionError(
                name,
                type(part).__name__,
                f"a {name} layer only when layers include '{name}'",
                f"Add '{name}' to layers.",
            )


def timed(timings: dict[str, float], stage: str, work: Callable[[], T]) -> T:
    """Run ``work`` and add its wall-clock seconds to ``timings[stage]``; shared with repair."""
    start = time.perf_counter()
    result = work()
    timings[stage] = timings.get(stage, 0.0) + time.perf_counter() - start
    return result


def _calls(
    evidence: EvidenceSet, nli: NLIResult, consistency: ConsistencyResult | None
) -> dict[str, int]:
    calls = {
        "searches": evidence.searches,
        "verifier_calls": nli.calls,
        "verifier_pairs": nli.pairs,
    }
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
