"""Claim verification: the claims of an answer, how each passage bears on each claim, the
exact value checks, each layer's finding, the unsupported spans, the verdicts and the report.

Spans index the verified answer text (``Report.answer``) unless they say otherwise; an
:class:`EvidenceJudgement`'s ``start``/``end``/``evidence`` and a :class:`ValueCheck`'s
``evidence`` index the source document's text, and a :class:`ValueCheck`'s ``span`` indexes
its claim's ``text``.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal, get_args

from veracity._json import Fields
from veracity.errors import InputError
from veracity.types.decision import DecisionResult, decision_from
from veracity.types.findings import ValueCheck, _value_check
from veracity.types.spans import Span, _pair, _span, _spans

__all__ = [
    "NOT_CHECKABLE",
    "VERDICT_LABELS",
    "Claim",
    "ClaimSet",
    "ClaimSpans",
    "ClaimVerdict",
    "EvidenceJudgement",
    "LayerResult",
    "Report",
    "SkipReason",
    "SkippedSentence",
    "UnsupportedSpan",
    "VerdictLabel",
]


#: A claim's verdict. ``unsupported``: the evidence does not mention it; ``unchecked``: no layer
#: could judge it (each abstained, as the knowledge layer does on a claim without values): it is
#: not checked, never reported as supported; ``error``: a layer failed.
VerdictLabel = Literal["supported", "contradicted", "unsupported", "unchecked", "error"]


VERDICT_LABELS: tuple[VerdictLabel, ...] = (
    "supported",
    "contradicted",
    "unsupported",
    "unchecked",
    "error",
)


#: Why a sentence of an answer was not verified (see :class:`SkippedSentence`): it needs no
#: verification (``question`` ... ``empty``), or it cannot be verified (:data:`NOT_CHECKABLE`).
SkipReason = Literal[
    "question",
    "greeting",
    "meta",
    "opinion",
    "refusal",
    "code",
    "heading",
    "empty",
    "fragment",
    "vague",
    "unreadable",
]

#: The reasons of a sentence that reads as if it said something but states nothing a source
#: could support: ``fragment`` (one word, a list number, a few words without a verb: "docs.",
#: "2."), ``vague`` (only generic words: "The system works as documented."), ``unreadable``
#: (mostly letters of a script other than Latin, which the shipped models cannot read, or a
#: run of one repeated character). Reported as *not checkable*, never judged, never supported.
NOT_CHECKABLE: tuple[SkipReason, ...] = ("fragment", "vague", "unreadable")


@dataclass(frozen=True, slots=True)
class Claim:
    """One atomic, self-contained claim taken from an answer.

    ``text`` is what the verifier checks (decomposed and decontextualized); ``span`` the
    characters of the answer it came from (a part of the sentence when it was cut out verbatim,
    also when the rules then replaced a reference in it; the whole sentence when the claim was
    rewritten otherwise); ``sentence`` the 0-based index of that sentence. ``markers`` are the
    citation numbers written on that sentence; ``edits`` record every rewrite, e.g.
    ``("decomposed", "decontextualized: 'He' -> 'Karl von Frisch'")``; without one, ``text`` is
    the span's words as written (``veracity.verify.claims.draft.written``: no character changes
    but citation markers, a list bullet, bold marks, whitespace runs and the end mark).
    """

    index: int
    text: str
    span: Span
    sentence: int
    markers: tuple[int, ...] = ()
    edits: tuple[str, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        return {
            "index": self.index,
            "text": self.text,
            "span": _pair(self.span),
            "sentence": self.sentence,
            "markers": list(self.markers),
            "edits": list(self.edits),
        }


@dataclass(frozen=True, slots=True)
class SkippedSentence:
    """A sentence of the answer that was not verified, and why (``reason``): it needs no
    verification, or it is not checkable (``reason in NOT_CHECKABLE``)."""

    sentence: int
    span: Span
    text: str
    reason: SkipReason

    @property
    def checkable(self) -> bool:
        """Whether the sentence could have been checked had it needed it: ``False`` for a
        reason of :data:`NOT_CHECKABLE` ("docs.", "The system works as documented.")."""
        return self.reason not in NOT_CHECKABLE

    def to_dict(self) -> dict[str, Any]:
        return {
            "sentence": self.sentence,
            "span": _pair(self.span),
            "text": self.text,
            "reason": self.reason,
        }


@dataclass(frozen=True)
class ClaimSet:
    """The claims of ``answer`` and the sentences skipped, with how they were made.

    ``method`` is ``"rules"`` or ``"llm"``; ``model`` and ``prompt`` (``id@version``) name the
    chat model and prompts when an LLM decomposed or decontextualized.
    """

    answer: str
    claims: tuple[Claim, ...]
    skipped: tuple[SkippedSentence, ...] = ()
    sentences: int = 0
    method: str = "rules"
    model: str | None = None
    prompt: str | None = None


@dataclass(frozen=True, slots=True)
class EvidenceJudgement:
    """How one passage bears on one claim: the verifier's probabilities and the exact spans.

    ``start``/``end`` index the passage (a chunk) in its document; ``evidence`` the document
    spans the verifier read. ``page`` and ``page_end`` are the passage's first and last page
    (``None`` for unpaginated documents). ``cited`` is true when the answer cited this passage;
    otherwise ``query`` is the retrieval query that found it. ``cannot_state`` says why the
    passage cannot state the claim (``"heading"``, ``"fragment"``, ``"other subject"``; see
    :mod:`veracity.verify.fragments`): its ``contradicted`` is then the verifier's reading, kept
    as given, but never counts against the claim. ``None`` when it can.
    """

    chunk_id: str
    doc_id: str
    title: str
    section: tuple[str, ...]
    page: int | None
    start: int
    end: int
    text: str
    supported: float
    contradicted: float
    neither: float
    evidence: tuple[Span, ...] = ()
    cited: bool = False
    query: str = ""
    error: str | None = None
    cannot_state: str | None = None
    page_end: int | None = None

    def to_dict(self) -> dict[str, Any]:
        return {
            "chunk_id": self.chunk_id,
            "doc_id": self.doc_id,
            "title": self.title,
            "section": list(self.section),
            "page": self.page,
            "page_end": self.page_end,
            "start": self.start,
            "end": self.end,
            "supported": self.supported,
            "contradicted": self.contradicted,
            "neither": self.neither,
            "evidence": [_pair(span) for span in self.evidence],
            "cited": self.cited,
            "query": self.query,
            "error": self.error,
            "cannot_state": self.cannot_state,
            "text": self.text,
        }


@dataclass(frozen=True, slots=True)
class LayerResult:
    """One detection layer's finding for one claim.

    ``score`` is the layer's risk that the claim is not supported, in [0, 1] (``None`` when the
    layer has no score, or failed). ``flagged`` is the layer's own decision; ``error`` is set
    when the layer could not judge the claim (then it neither flags nor clears it). A layer that
    had nothing to judge *abstains*: label ``unchecked``, not flagged, no score.
    """

    layer: str
    label: VerdictLabel
    flagged: bool
    score: float | None
    detail: str = ""
    error: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return dataclasses.asdict(self)


@dataclass(frozen=True, slots=True)
class UnsupportedSpan:
    """Characters ``span`` of a named string (a claim, or the answer it came from) that the
    evidence does not support: ``text`` is exactly those characters, ``confidence`` the mean
    probability of their tokens being unsupported."""

    span: Span
    text: str
    confidence: float

    def shifted(self, offset: int) -> UnsupportedSpan:
        """The same characters counted ``offset`` further on (from a claim into its answer)."""
        return UnsupportedSpan(
            Span(self.span.start + offset, self.span.end + offset), self.text, self.confidence
        )

    def to_dict(self) -> dict[str, Any]:
        return {
            "start": self.span.start,
            "end": self.span.end,
            "text": self.text,
            "confidence": self.confidence,
        }


@dataclass(frozen=True, slots=True)
class ClaimSpans:
    """The unsupported spans of one claim (indexing ``claim``), in order, and how many evidence
    windows were read."""

    claim: str
    spans: tuple[UnsupportedSpan, ...]
    windows: int

    def to_dict(self) -> dict[str, Any]:
        return {
            "claim": self.claim,
            "windows": self.windows,
            "unsupported": [span.to_dict() for span in self.spans],
        }


@dataclass(frozen=True)
class ClaimVerdict:
    """The combined verdict on one claim, each layer's finding, and the evidence for it.

    ``citations`` are the passages that support the claim, ``anti_citations`` those that
    contradict it, best first; ``values`` the knowledge layer's exact comparisons.
    ``unsupported_spans`` are the characters of the answer (not of the rewritten claim) that a
    span detector found unsupported by the claim's evidence: ``None`` when no detector ran (and
    then ``to_dict`` leaves the field out), ``()`` when it found none. ``decision`` is the one
    fitted decision's probabilities and each input's contribution (:mod:`veracity.decision`).
    """

    claim: Claim
    label: VerdictLabel
    layers: tuple[LayerResult, ...]
    citations: tuple[EvidenceJudgement, ...] = ()
    anti_citations: tuple[EvidenceJudgement, ...] = ()
    evidence: tuple[EvidenceJudgement, ...] = ()
    values: tuple[ValueCheck, ...] = ()
    unsupported_spans: tuple[UnsupportedSpan, ...] | None = None
    decision: DecisionResult | None = None

    @property
    def flagged(self) -> bool:
        """Whether a reader should be warned: every label but ``supported`` (an ``unchecked``
        claim is not known to be right)."""
        return self.label != "supported"

    @property
    def contested(self) -> bool:
        """Whether some passages support the claim and others contradict it (conflicting
        sources: a reader should see both, whatever the label)."""
        return bool(self.citations) and bool(self.anti_citations)

    def layer(self, name: str) -> LayerResult | None:
        """The finding of layer ``name``, or ``None`` when that layer did not run."""
        return next((result for result in self.layers if result.layer == name), None)

    def to_dict(self) -> dict[str, Any]:
        """The claim's fields, then its verdict, each layer's finding and the evidence, and
        ``unsupported_spans`` when a span detector ran."""
        found: dict[str, Any] = (
            {}
            if self.unsupported_spans is None
            else {"unsupported_spans": [span.to_dict() for span in self.unsupported_spans]}
        )
        if self.decision is not None:
            found["decision"] = self.decision.to_dict()
        return (
            self.claim.to_dict()
            | {
                "label": self.label,
                "contested": self.contested,
                "layers": [result.to_dict() for result in self.layers],
                "citations": [item.to_dict() for item in self.citations],
                "anti_citations": [item.to_dict() for item in self.anti_citations],
                "values": [value.to_dict() for value in self.values],
                "evidence": [item.to_dict() for item in self.evidence],
            }
            | found
        )


@dataclass(frozen=True)
class Report:
    """Everything verifying one answer found, claim by claim, with its provenance.

    ``rule`` is the declared combination rule (``any``, ``all``, ``cascade`` or ``logistic``);
    ``timings`` the seconds spent per stage; ``calls`` the model calls per model
    (``{"verifier": 42, "chat": 6}``); ``span_detector`` the model id of the span detector that
    found each claim's ``unsupported_spans`` (``None``, and left out of ``to_dict``, when none
    ran); ``config`` the saved config that made the report (``VerifyConfig.to_dict()``, with
    ``k``, ``tau``, ``window`` and ``aggregation``; ``None``, and left out of ``to_dict``, for a
    report made by hand), from which ``veracity verify --config`` runs it again.
    """

    answer: str
    verdicts: tuple[ClaimVerdict, ...]
    skipped: tuple[SkippedSentence, ...] = ()
    question: str | None = None
    layers: tuple[str, ...] = ()
    rule: str = "any"
    query_mode: str = "claim"
    claims_method: str = "rules"
    verifier: str = ""
    verifier_version: str = ""
    timings: Mapping[str, float] = field(default_factory=dict)
    calls: Mapping[str, int] = field(default_factory=dict)
    warnings: tuple[str, ...] = ()
    span_detector: str | None = None
    config: Mapping[str, Any] | None = None

    def count(self, label: VerdictLabel) -> int:
        return sum(verdict.label == label for verdict in self.verdicts)

    @property
    def failures(self) -> int:
        """How many claims could not be judged (label ``error``)."""
        return self.count("error")

    @property
    def summary(self) -> dict[str, int]:
        """Claims, then how many were supported, contradicted, unsupported and unchecked (no
        layer could judge them), sentences skipped, claims failed, and how many claims have
        conflicting sources (``contested``, counted within the others)."""
        return {
            "claims": len(self.verdicts),
            "supported": self.count("supported"),
            "contradicted": self.count("contradicted"),
            "unsupported": self.count("unsupported"),
            "unchecked": self.count("unchecked"),
            "skipped": len(self.skipped),
            "failed": self.failures,
            "contested": sum(verdict.contested for verdict in self.verdicts),
        }

    def to_dict(self) -> dict[str, Any]:
        """Summary, provenance, claims and skipped sentences (what ``veracity verify --json``
        prints). Claim and skipped-sentence spans index ``answer``; evidence spans index the
        source document named by ``doc_id``; a value's ``span`` indexes its claim's ``text``;
        a claim's ``unsupported_spans`` (with a span detector) index ``answer``.
        """
        detector = {} if self.span_detector is None else {"span_detector": self.span_detector}
        return (
            {
                "summary": self.summary,
                "answer": self.answer,
                "question": self.question,
                "layers": list(self.layers),
                "rule": self.rule,
                "query_mode": self.query_mode,
                "claims_method": self.claims_method,
                "verifier": self.verifier,
                "verifier_version": self.verifier_version,
            }
            | detector
            | {
                "claims": [verdict.to_dict() for verdict in self.verdicts],
                "skipped": [sentence.to_dict() for sentence in self.skipped],
                "timings": dict(self.timings),
                "calls": dict(self.calls),
                "warnings": list(self.warnings),
            }
            | ({} if self.config is None else {"config": dict(self.config)})
        )

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Report:
        """The report :meth:`to_dict` wrote (``veracity verify --json``, a line of
        ``verify-batch``'s output); derived fields such as ``summary`` are not read. A missing
        or mistyped field raises :class:`~veracity.errors.InputError` naming it.

        >>> Report.from_dict(Report("Bees dance.", ()).to_dict()).answer
        'Bees dance.'
        """
        fields = Fields(data, "report")
        return cls(
            answer=fields.text("answer"),
            verdicts=tuple(_verdict(item) for item in fields.children("claims")),
            skipped=tuple(_skipped(item) for item in fields.children("skipped")),
            question=fields.optional_text("question"),
            layers=fields.texts("layers"),
            rule=fields.text("rule"),
            query_mode=fields.text("query_mode"),
            claims_method=fields.text("claims_method"),
            verifier=fields.text("verifier"),
            verifier_version=fields.text("verifier_version"),
            timings=fields.numbers_by_name("timings"),
            calls=fields.integers_by_name("calls"),
            warnings=fields.texts("warnings"),
            span_detector=fields.optional_text("span_detector")
            if fields.has("span_detector")
            else None,
            config=_config(data),
        )


# --- from_dict: each reader takes the object its type's to_dict() wrote --------------------------


def _config(data: Mapping[str, Any]) -> Mapping[str, Any] | None:
    """The ``config`` a report carries (older reports have none)."""
    config = data.get("config")
    if config is None or isinstance(config, Mapping):
        return config
    raise InputError(f"report: config must be an object, not {config!r}")


def _judgement(fields: Fields) -> EvidenceJudgement:
    return EvidenceJudgement(
        chunk_id=fields.text("chunk_id"),
        doc_id=fields.text("doc_id"),
        title=fields.text("title"),
        section=fields.texts("section"),
        page=fields.optional_integer("page"),
        start=fields.integer("start"),
        end=fields.integer("end"),
        text=fields.text("text"),
        supported=fields.number("supported", null_is_nan=True),
        contradicted=fields.number("contradicted", null_is_nan=True),
        neither=fields.number("neither", null_is_nan=True),
        evidence=_spans(fields, "evidence"),
        cited=fields.boolean("cited"),
        query=fields.text("query"),
        error=fields.optional_text("error"),
        cannot_state=fields.optional_text("cannot_state"),
        page_end=fields.optional_integer("page_end"),
    )


def _layer_result(fields: Fields) -> LayerResult:
    return LayerResult(
        layer=fields.text("layer"),
        label=fields.choice("label", VERDICT_LABELS),
        flagged=fields.boolean("flagged"),
        score=fields.optional_number("score"),
        detail=fields.text("detail"),
        error=fields.optional_text("error"),
    )


def _unsupported(fields: Fields) -> UnsupportedSpan:
    start, end = fields.integer("start"), fields.integer("end")
    try:
        span = Span(start, end)
    except ValueError as exc:
        raise InputError(f"{fields.path}: {exc}") from None
    return UnsupportedSpan(span, fields.text("text"), fields.number("confidence"))


def _verdict(fields: Fields) -> ClaimVerdict:
    claim = Claim(
        index=fields.integer("index"),
        text=fields.text("text"),
        span=_span(fields, "span"),
        sentence=fields.integer("sentence"),
        markers=fields.integers("markers"),
        edits=fields.texts("edits"),
    )
    spans = (
        None
        if not fields.has("unsupported_spans")
        else tuple(_unsupported(item) for item in fields.children("unsupported_spans"))
    )
    return ClaimVerdict(
        claim=claim,
        label=fields.choice("label", VERDICT_LABELS),
        layers=tuple(_layer_result(item) for item in fields.children("layers")),
        citations=tuple(_judgement(item) for item in fields.children("citations")),
        anti_citations=tuple(_judgement(item) for item in fields.children("anti_citations")),
        evidence=tuple(_judgement(item) for item in fields.children("evidence")),
        values=tuple(_value_check(item) for item in fields.children("values")),
        unsupported_spans=spans,
        decision=decision_from(fields.child("decision")) if fields.has("decision") else None,
    )


def _skipped(fields: Fields) -> SkippedSentence:
    return SkippedSentence(
        fields.integer("sentence"),
        _span(fields, "span"),
        fields.text("text"),
        fields.choice("reason", get_args(SkipReason)),
    )
