"""Grounded answers: each sentence with its citations checked, the abstention check made
before asking the model, a refusal, and what produced the answer.

Spans index the answer text (``Answer.text``) unless they say otherwise; a :class:`Citation`'s
``start``/``end`` and ``evidence`` index its source document's text.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from veracity._json import Fields
from veracity.types.decision import DecisionResult, decision_from
from veracity.types.findings import ValueCheck, _value_check
from veracity.types.retrieval import Hit, _hit
from veracity.types.spans import Span, _optional_span, _pair, _span, _spans

__all__ = [
    "SENTENCE_STATUSES",
    "AbstentionCheck",
    "Answer",
    "Citation",
    "GenerationProvenance",
    "InvalidCitation",
    "Refusal",
    "SentenceCheck",
    "SentenceStatus",
    "Timings",
]


#: What the checks found for one sentence of an answer (see :class:`SentenceCheck`).
SentenceStatus = Literal[
    "supported",
    "contradicted",
    "unsupported",
    "invalid_citation",
    "uncited",
    "citation_attached",
    "not_factual",
    "error",
]


SENTENCE_STATUSES: tuple[SentenceStatus, ...] = (
    "supported",
    "contradicted",
    "unsupported",
    "invalid_citation",
    "uncited",
    "citation_attached",
    "not_factual",
    "error",
)


@dataclass(frozen=True, slots=True)
class Citation:
    """A citation of context block ``marker`` (1-based), resolved to the exact source passage.

    ``span`` is the marker group as written in the answer (``[1, 2]`` for both 1 and 2), or
    ``None`` for a citation the verifier ``attached`` after generation. ``start``/``end`` index
    the cited chunk in its document's text (``document.text[start:end] == chunk.text``);
    ``evidence`` holds the document spans the verifier read. ``support`` is the verifier's
    P(supported) of the sentence given the passage (``None`` when the pair was not scored, and
    then ``error`` says why), ``contradicted`` its P(contradicted).
    """

    marker: int
    span: Span | None
    chunk_id: str
    doc_id: str
    title: str
    section: tuple[str, ...]
    page: int | None
    page_end: int | None
    start: int
    end: int
    attached: bool = False
    support: float | None = None
    evidence: tuple[Span, ...] = ()
    error: str | None = None
    contradicted: float | None = None

    def to_dict(self) -> dict[str, Any]:
        return {
            "marker": self.marker,
            "span": _pair(self.span),
            "attached": self.attached,
            "support": self.support,
            "contradicted": self.contradicted,
            "error": self.error,
            "chunk_id": self.chunk_id,
            "doc_id": self.doc_id,
            "title": self.title,
            "section": list(self.section),
            "page": self.page,
            "page_end": self.page_end,
            "start": self.start,
            "end": self.end,
            "evidence": [_pair(span) for span in self.evidence],
        }


@dataclass(frozen=True, slots=True)
class InvalidCitation:
    """A citation marker that names no context block: ``marker`` as written (``"7"``, ``"3-1"``).

    ``span`` is the marker group in the answer; ``reason`` says why, e.g.
    ``"out of range: 4 blocks were given"``.
    """

    marker: str
    span: Span
    reason: str

    def to_dict(self) -> dict[str, Any]:
        return {"marker": self.marker, "span": _pair(self.span), "reason": self.reason}


@dataclass(frozen=True, slots=True)
class SentenceCheck:
    """One sentence of an answer and what verifying it found.

    ``span`` covers the sentence and the citation markers that follow it; ``claim`` is the text
    the verifier checked (markers removed). ``support`` is the best P(supported) over the
    sentence's citations (or, for a sentence without a valid citation, over every block);
    ``failure`` is set when the verifier could not score a pair (never turned into a score).
    Statuses:

    - ``supported`` / ``unsupported``: its best written citation reaches ``tau`` / does not;
    - ``contradicted``: no written citation reaches ``tau`` and one of them contradicts it (its
      P(contradicted) reaches the checker's ``contradiction`` threshold and beats its support);
    - ``invalid_citation``: it cites only blocks that do not exist (a block may be attached);
    - ``citation_attached``: no citation was written and the verifier attached the best block;
    - ``uncited``: no citation, and no block reaches ``tau``;
    - ``not_factual``: nothing to verify ("I don't know", a question, a greeting, code, a
      heading);
    - ``error``: its written citations could not be scored (see ``failure``).

    ``note`` says how it was read when that was out of the ordinary (a sentence too long for the
    verifier, read in parts). ``decision`` is the one fitted decision that set the status
    (:mod:`veracity.decision`): its probabilities and each input's contribution; ``checks``
    the knowledge rules' findings that it read (values, names, negation, scope, roles of
    ``claim`` against the passages scored; their spans are in ``claim``).
    """

    index: int
    span: Span
    text: str
    claim: str
    status: SentenceStatus
    citations: tuple[Citation, ...] = ()
    invalid: tuple[InvalidCitation, ...] = ()
    support: float | None = None
    failure: str | None = None
    note: str | None = None
    decision: DecisionResult | None = None
    checks: tuple[ValueCheck, ...] = ()

    @property
    def flagged(self) -> bool:
        """Whether a reader should be warned about this sentence."""
        return self.status in (
            "contradicted",
            "unsupported",
            "invalid_citation",
            "uncited",
            "error",
        )

    def to_dict(self) -> dict[str, Any]:
        return {
            "index": self.index,
            "span": _pair(self.span),
            "text": self.text,
            "claim": self.claim,
            "status": self.status,
            "support": self.support,
            "failure": self.failure,
            "note": self.note,
            "citations": [c.to_dict() for c in self.citations],
            "invalid": [item.to_dict() for item in self.invalid],
            "decision": None if self.decision is None else self.decision.to_dict(),
            "checks": [check.to_dict() for check in self.checks],
        }


@dataclass(frozen=True, slots=True)
class Refusal:
    """A reply recognised as the model declining to answer.

    ``pattern`` is the id of the matched entry of the refusal table, ``language`` its language
    code, and ``span`` the matched characters of the reply.
    """

    pattern: str
    language: str
    span: Span
    text: str

    def to_dict(self) -> dict[str, Any]:
        return {
            "pattern": self.pattern,
            "language": self.language,
            "span": _pair(self.span),
            "text": self.text,
        }


@dataclass(frozen=True, slots=True)
class AbstentionCheck:
    """The retrieval-confidence check made before calling the model.

    The model is skipped (``abstain``) when ``value`` of ``signal`` is below ``threshold``.
    ``source`` says where the threshold came from (a calibration file, or ``"given"``).
    ``error`` is set when the signal could not be computed; the check then does not abstain.
    """

    signal: str
    value: float | None
    threshold: float
    abstain: bool
    source: str = "given"
    error: str | None = None

    @property
    def reason(self) -> str:
        if self.error is not None:
            return f"{self.signal} could not be computed ({self.error}); not abstaining"
        relation = "is below" if self.abstain else "reaches"
        return f"{self.signal} = {self.value:.4g} {relation} the threshold {self.threshold:.4g}"

    def to_dict(self) -> dict[str, Any]:
        return dataclasses.asdict(self) | {"reason": self.reason}


@dataclass(frozen=True, slots=True)
class GenerationProvenance:
    """What produced an answer: chat model, prompt ``id@version``, sampling, verifier and tau.

    ``finish_reason`` is why the model stopped: ``"stop"``, or ``"length"`` when it reached
    ``max_tokens`` and the answer was cut (:attr:`truncated`).
    """

    model: str
    prompt_id: str
    prompt_version: int
    temperature: float
    seed: int | None
    max_tokens: int | None
    finish_reason: str
    verifier: str
    verifier_version: str
    tau: float

    @property
    def prompt(self) -> str:
        """``id@version``, or ``""`` for a text no prompt wrote (an extractive answer)."""
        return f"{self.prompt_id}@{self.prompt_version}" if self.prompt_id else ""

    @property
    def truncated(self) -> bool:
        """Whether the model was stopped by its token limit, so the answer was cut."""
        return self.finish_reason == "length"

    def to_dict(self) -> dict[str, Any]:
        return dataclasses.asdict(self) | {"prompt": self.prompt}


@dataclass(frozen=True, slots=True)
class Timings:
    """Seconds spent in each stage of answering one question."""

    retrieve: float = 0.0
    abstain: float = 0.0
    generate: float = 0.0
    verify: float = 0.0

    @property
    def total(self) -> float:
        return self.retrieve + self.abstain + self.generate + self.verify

    def to_dict(self) -> dict[str, Any]:
        return dataclasses.asdict(self) | {"total": self.total}


@dataclass(frozen=True)
class Answer:
    """A grounded answer to ``question``, sentence by sentence, with its citations checked.

    ``sources`` are the hits given to the model as numbered blocks (block ``n`` is
    ``sources[n - 1]``). ``abstained`` means no model was asked (see ``abstention``);
    ``refused`` means the model declined (see ``refusal``); neither has sentences to check.
    ``provenance`` is ``None`` when no model was called. ``truncated``: the model reached its
    token limit, so the answer was cut (its end may be missing, or a sentence repeated).
    ``config`` is the saved config that made it (``AskConfig.to_dict()``; ``None``, and left
    out of ``to_dict``, for an answer made by hand).
    """

    question: str
    text: str
    sentences: tuple[SentenceCheck, ...] = ()
    citations: tuple[Citation, ...] = ()
    invalid_citations: tuple[InvalidCitation, ...] = ()
    sources: tuple[Hit, ...] = ()
    abstained: bool = False
    abstention: AbstentionCheck | None = None
    refused: bool = False
    refusal: Refusal | None = None
    provenance: GenerationProvenance | None = None
    timings: Timings = field(default_factory=Timings)
    config: Mapping[str, Any] | None = None

    @property
    def answered(self) -> bool:
        """Whether this is an answer (neither abstained nor refused)."""
        return not (self.abstained or self.refused)

    @property
    def flagged(self) -> tuple[SentenceCheck, ...]:
        """Sentences a reader should be warned about (see :attr:`SentenceCheck.flagged`)."""
        return tuple(sentence for sentence in self.sentences if sentence.flagged)

    @property
    def failures(self) -> int:
        """How many sentences had a verifier failure."""
        return sum(sentence.failure is not None for sentence in self.sentences)

    @property
    def truncated(self) -> bool:
        """Whether the model stopped at its token limit (finish reason ``length``)."""
        return self.provenance is not None and self.provenance.truncated

    @property
    def status(self) -> Literal["answered", "abstained", "refused"]:
        return "abstained" if self.abstained else "refused" if self.refused else "answered"

    def to_dict(self) -> dict[str, Any]:
        """The answer, its sentences and citations, and the sources as numbered ``block``s."""
        return {
            "question": self.question,
            "status": self.status,
            "text": self.text,
            "truncated": self.truncated,
            "abstained": self.abstained,
            "abstention": None if self.abstention is None else self.abstention.to_dict(),
            "refused": self.refused,
            "refusal": None if self.refusal is None else self.refusal.to_dict(),
            "sentences": [sentence.to_dict() for sentence in self.sentences],
            "citations": [citation.to_dict() for citation in self.citations],
            "invalid_citations": [item.to_dict() for item in self.invalid_citations],
            "sources": [{"block": n} | hit.to_dict() for n, hit in enumerate(self.sources, 1)],
            "provenance": None if self.provenance is None else self.provenance.to_dict(),
            "timings": self.timings.to_dict(),
        } | ({} if self.config is None else {"config": dict(self.config)})

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Answer:
        """The answer :meth:`to_dict` wrote (derived fields such as ``status`` are not read);
        a missing or mistyped field raises :class:`~veracity.errors.InputError` naming it.

        >>> Answer.from_dict(Answer("Why?", "I don't know").to_dict()).text
        "I don't know"
        """
        fields = Fields(data, "answer")
        abstention = (
            None if fields.value("abstention") is None else _abstention(fields.child("abstention"))
        )
        refusal = None if fields.value("refusal") is None else _refusal(fields.child("refusal"))
        provenance = (
            None if fields.value("provenance") is None else _provenance(fields.child("provenance"))
        )
        timings = fields.child("timings")
        return cls(
            question=fields.text("question"),
            text=fields.text("text"),
            sentences=tuple(_sentence(item) for item in fields.children("sentences")),
            citations=tuple(_citation(item) for item in fields.children("citations")),
            invalid_citations=tuple(
                _invalid(item) for item in fields.children("invalid_citations")
            ),
            sources=tuple(_hit(item) for item in fields.children("sources")),
            abstained=fields.boolean("abstained"),
            abstention=abstention,
            refused=fields.boolean("refused"),
            refusal=refusal,
            provenance=provenance,
            timings=Timings(
                *(timings.number(stage) for stage in ("retrieve", "abstain", "generate", "verify"))
            ),
            config=data.get("config") if isinstance(data.get("config"), Mapping) else None,
        )


# --- from_dict: each reader takes the object its type's to_dict() wrote --------------------------


def _citation(fields: Fields) -> Citation:
    return Citation(
        marker=fields.integer("marker"),
        span=_optional_span(fields, "span"),
        chunk_id=fields.text("chunk_id"),
        doc_id=fields.text("doc_id"),
        title=fields.text("title"),
        section=fields.texts("section"),
        page=fields.optional_integer("page"),
        page_end=fields.optional_integer("page_end"),
        start=fields.integer("start"),
        end=fields.integer("end"),
        attached=fields.boolean("attached"),
        support=fields.optional_number("support"),
        evidence=_spans(fields, "evidence"),
        error=fields.optional_text("error"),
        contradicted=fields.optional_number("contradicted"),
    )


def _invalid(fields: Fields) -> InvalidCitation:
    return InvalidCitation(fields.text("marker"), _span(fields, "span"), fields.text("reason"))


def _sentence(fields: Fields) -> SentenceCheck:
    return SentenceCheck(
        index=fields.integer("index"),
        span=_span(fields, "span"),
        text=fields.text("text"),
        claim=fields.text("claim"),
        status=fields.choice("status", SENTENCE_STATUSES),
        citations=tuple(_citation(item) for item in fields.children("citations")),
        invalid=tuple(_invalid(item) for item in fields.children("invalid")),
        support=fields.optional_number("support"),
        failure=fields.optional_text("failure"),
        note=fields.optional_text("note"),
        decision=decision_from(fields.child("decision"))
        if fields.has("decision") and fields.value("decision") is not None
        else None,
        # Answers written before the rules ran in ask have no checks.
        checks=tuple(_value_check(item) for item in fields.children("checks"))
        if fields.has("checks")
        else (),
    )


def _abstention(fields: Fields) -> AbstentionCheck:
    return AbstentionCheck(
        signal=fields.text("signal"),
        value=fields.optional_number("value"),
        threshold=fields.number("threshold"),
        abstain=fields.boolean("abstain"),
        source=fields.text("source"),
        error=fields.optional_text("error"),
    )


def _refusal(fields: Fields) -> Refusal:
    return Refusal(
        fields.text("pattern"), fields.text("language"), _span(fields, "span"), fields.text("text")
    )


def _provenance(fields: Fields) -> GenerationProvenance:
    return GenerationProvenance(
        model=fields.text("model"),
        prompt_id=fields.text("prompt_id"),
        prompt_version=fields.integer("prompt_version"),
        temperature=fields.number("temperature"),
        seed=fields.optional_integer("seed"),
        max_tokens=fields.optional_integer("max_tokens"),
        finish_reason=fields.text("finish_reason"),
        verifier=fields.text("verifier"),
        verifier_version=fields.text("verifier_version"),
        tau=fields.number("tau"),
    )
