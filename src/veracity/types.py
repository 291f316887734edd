"""Frozen result types shared by every stage.

Every span is a pair of character offsets into a named string: a ``Chunk``'s ``start``/``end``
index its document's ``text`` so that ``document.text[chunk.start:chunk.end] == chunk.text``.

The results have ``to_dict()``: plain JSON-ready values (lists for tuples, ``[start, end]`` for
spans), the one shape that ``veracity ... --json``, the Python API and the service print.
:class:`Answer` and :class:`Report` read it back with ``from_dict()``
(``Report.from_dict(report.to_dict()) == report``), from JSON too: a score written ``null`` by
the strict JSON writer reads as ``nan``.
"""

from __future__ import annotations

import bisect
import dataclasses
import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal, get_args

from veracity._json import Fields
from veracity.errors import InputError

__all__ = [
    "SENTENCE_STATUSES",
    "VERDICT_LABELS",
    "AbstentionCheck",
    "Answer",
    "Chunk",
    "Citation",
    "Claim",
    "ClaimSet",
    "ClaimSpans",
    "ClaimVerdict",
    "Confidence",
    "Document",
    "EvidenceJudgement",
    "GenerationProvenance",
    "Hit",
    "InvalidCitation",
    "Label",
    "LayerResult",
    "Page",
    "PairScore",
    "PairScores",
    "Refusal",
    "RelevanceScore",
    "RelevanceScores",
    "Report",
    "ScoredPair",
    "SearchResult",
    "Section",
    "SentenceCheck",
    "SentenceStatus",
    "SkipReason",
    "SkippedSentence",
    "Span",
    "Timings",
    "UnsupportedSpan",
    "ValueCheck",
    "ValueStatus",
    "VerdictLabel",
]

MetadataValue = str | int | float | bool | None
#: ``"error"`` marks a pair whose scoring failed (see :attr:`PairScore.error`); it is never a score.
Label = Literal["supported", "contradicted", "neither", "error"]


@dataclass(frozen=True, slots=True)
class Span:
    """Characters ``start`` (inclusive) to ``end`` (exclusive) of a named string."""

    start: int
    end: int

    def __post_init__(self) -> None:
        if not 0 <= self.start <= self.end:
            raise ValueError(f"invalid span [{self.start}, {self.end}): need 0 <= start <= end")

    def of(self, text: str) -> str:
        """The characters of ``text`` this span covers."""
        return text[self.start : self.end]

    def __len__(self) -> int:
        return self.end - self.start


def _pair(span: Span | None) -> list[int] | None:
    """``span`` as JSON: ``[start, end]`` (``None`` stays ``None``)."""
    return None if span is None else [span.start, span.end]


@dataclass(frozen=True, slots=True)
class Section:
    """A heading region of a document: ``path`` is the heading trail, outermost first."""

    start: int
    end: int
    path: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class Page:
    """A page (1-based ``number``) of a paginated document, as a span of its text."""

    number: int
    start: int
    end: int


@dataclass(frozen=True)
class Document:
    """One source document as plain text, with its structure as spans over that text."""

    id: str
    text: str
    title: str = ""
    source: str = ""
    sections: tuple[Section, ...] = ()
    pages: tuple[Page, ...] = ()
    metadata: Mapping[str, MetadataValue] = field(default_factory=dict)

    def section_at(self, offset: int) -> tuple[str, ...]:
        """Heading path of the innermost section that holds ``offset`` (empty if none)."""
        best: tuple[str, ...] = ()
        best_start = -1
        for section in self.sections:
            if section.start <= offset < section.end and section.start >= best_start:
                best, best_start = section.path, section.start
        return best

    def page_at(self, offset: int) -> int | None:
        """Number of the page that holds ``offset``, or ``None`` for unpaginated documents."""
        if not self.pages:
            return None
        starts = [page.start for page in self.pages]
        position = max(bisect.bisect_right(starts, offset) - 1, 0)
        return self.pages[position].number


@dataclass(frozen=True)
class Chunk:
    """A passage of a document with its exact character span and where it sits."""

    id: str
    doc_id: str
    index: int
    text: str
    start: int
    end: int
    title: str = ""
    section: tuple[str, ...] = ()
    page: int | None = None
    page_end: int | None = None
    source: str = ""

    @property
    def span(self) -> Span:
        return Span(self.start, self.end)


@dataclass(frozen=True)
class Confidence:
    """Retrieval confidence signals for abstention.

    ``top_bm25`` and ``top_cosine`` are raw scores of the best hit by that signal (``None`` when
    that signal was not computed); ``margin`` is the ranking score of the first hit minus the
    second's. Rank-only fusion scores such as RRF are not usable as thresholds.
    """

    top_bm25: float | None = None
    top_cosine: float | None = None
    margin: float | None = None
    #: The reranker's best P(relevant) among the reranked candidates (``None`` unless reranked).
    top_rerank: float | None = None

    def to_dict(self) -> dict[str, Any]:
        return {
            "top_bm25": self.top_bm25,
            "top_cosine": self.top_cosine,
            "margin": self.margin,
            "top_rerank": self.top_rerank,
        }


@dataclass(frozen=True)
class Hit:
    """One retrieved chunk with its ranking score, 1-based rank and per-signal scores."""

    chunk: Chunk
    score: float
    rank: int
    retriever: str
    scores: Mapping[str, float] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        """The hit with its chunk's text, document, section, pages and span."""
        chunk = self.chunk
        return {
            "rank": self.rank,
            "score": self.score,
            "scores": dict(self.scores),
            "retriever": self.retriever,
            "doc_id": chunk.doc_id,
            "title": chunk.title,
            "section": list(chunk.section),
            "page": chunk.page,
            "page_end": chunk.page_end,
            "start": chunk.start,
            "end": chunk.end,
            "chunk_id": chunk.id,
            "chunk_index": chunk.index,
            "source": chunk.source,
            "text": chunk.text,
        }


@dataclass(frozen=True)
class SearchResult:
    """Hits for one query, best first, with the confidence signals of the ranking.

    ``mode`` is the retriever that ranked them; ``notes`` say what a reader should know about
    how (for example that a hybrid search fell back to BM25 on an index without vectors).
    """

    query: str
    mode: str
    hits: tuple[Hit, ...]
    confidence: Confidence
    notes: tuple[str, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        return {
            "query": self.query,
            "mode": self.mode,
            "confidence": self.confidence.to_dict(),
            "notes": list(self.notes),
            "hits": [hit.to_dict() for hit in self.hits],
        }


@dataclass(frozen=True, slots=True)
class PairScore:
    """Probabilities that a premise supports, contradicts or says nothing of a hypothesis.

    ``window`` is the character span of the premise that covers the evidence the result was
    taken from (the whole premise when it fit), ``evidence`` the exact spans of that evidence
    (several when sentences were selected from a long premise), and ``window_index`` the position
    of that window among the ``windows`` tried.

    ``error`` is set when the pair could not be scored (for example a judge model's reply could
    not be parsed): the three probabilities are then ``nan`` and ``label`` is ``"error"``. Build
    such a result with :meth:`failure`.
    """

    supported: float
    contradicted: float
    neither: float
    window: Span
    window_index: int = 0
    windows: int = 1
    evidence: tuple[Span, ...] = ()
    error: str | None = None

    def __post_init__(self) -> None:
        if self.error is not None and not all(
            math.isnan(p) for p in (self.supported, self.contradicted, self.neither)
        ):
            raise ValueError(
                "a PairScore with an error must have nan probabilities: "
                "build it with PairScore.failure(error, window=...)"
            )

    @classmethod
    def failure(
        cls,
        error: str,
        *,
        window: Span,
        window_index: int = 0,
        windows: int = 1,
        evidence: tuple[Span, ...] = (),
    ) -> PairScore:
        """A result for a pair that could not be scored: ``nan`` probabilities and ``error``."""
        nan = float("nan")
        return cls(nan, nan, nan, window, window_index, windows, evidence, error)

    @property
    def label(self) -> Label:
        if self.error is not None:
            return "error"
        best = max(self.supported, self.contradicted, self.neither)
        if best == self.supported:
            return "supported"
        if best == self.contradicted:
            return "contradicted"
        return "neither"

    def to_dict(self) -> dict[str, Any]:
        """The scores with their spans (into the premise, which the score does not hold; see
        :class:`ScoredPair` for the pair with its evidence quoted)."""
        return {
            "label": self.label,
            "supported": self.supported,
            "contradicted": self.contradicted,
            "neither": self.neither,
            "window": _pair(self.window),
            "window_index": self.window_index,
            "windows": self.windows,
            "evidence": [_pair(s) for s in self.evidence],
            "error": self.error,
        }


@dataclass(frozen=True, slots=True)
class ScoredPair:
    """One (premise, claim) pair with its score, as ``veracity check`` reports it.

    ``probabilities`` says whether the scorer's numbers are probabilities: a similarity
    scorer's are not (``scores_are_probabilities = False``), so the pair has no label (``None``
    in :meth:`to_dict`) as there is no threshold to read one off. The premise is held to quote
    the evidence spans; it is not repeated in the output. ``rules`` are the mismatches the
    knowledge rules found (:class:`veracity.verify.pairs.PairChecker`): a negation, antonym,
    quantifier, value or duration of the claim that the premise states otherwise; any of them
    makes ``label`` ``contradicted`` (``verifier_label`` keeps the verifier's own).

    >>> pair = ScoredPair("Bees dance.", "Bees dance.", PairScore(0.9, 0.05, 0.05, Span(0, 11),
    ...                   evidence=(Span(0, 4),)))
    >>> pair.to_dict()["label"], pair.to_dict()["evidence"]
    ('supported', [{'start': 0, 'end': 4, 'text': 'Bees'}])
    """

    premise: str
    claim: str
    score: PairScore
    probabilities: bool = True
    rules: tuple[ValueCheck, ...] = ()

    @property
    def verifier_label(self) -> Label | None:
        """The verifier's own label (``None`` for a similarity, which has no threshold)."""
        score = self.score
        return score.label if self.probabilities or score.error is not None else None

    @property
    def label(self) -> Label | None:
        """The decision, as ``veracity verify``'s default rule (``any``) makes it: a rule's
        mismatch makes the pair ``contradicted`` whatever the verifier says (its scores are
        kept as they are); otherwise the verifier's label."""
        if self.rules and self.score.error is None:
            return "contradicted"
        return self.verifier_label

    def to_dict(self) -> dict[str, Any]:
        """A pair that could not be scored has ``null`` scores and its ``error``, never NaN."""
        score = self.score
        failed = score.error is not None
        return {
            "claim": self.claim,
            "label": self.label,
            "verifier_label": self.verifier_label,
            "probabilities": self.probabilities,
            "supported": None if failed else score.supported,
            "contradicted": None if failed else score.contradicted,
            "neither": None if failed else score.neither,
            "window": _pair(score.window),
            "windows": score.windows,
            "evidence": [
                {"start": s.start, "end": s.end, "text": s.of(self.premise)} for s in score.evidence
            ],
            "error": score.error,
            "rules": [
                {
                    "kind": rule.kind,
                    "claim": rule.text,
                    "claim_span": _pair(rule.span),
                    "premise": rule.found,
                    "premise_span": _pair(rule.evidence),
                }
                for rule in self.rules
            ],
        }


@dataclass(frozen=True)
class PairScores:
    """Scores of a batch of (premise, hypothesis) pairs, in input order, with provenance."""

    scores: tuple[PairScore, ...]
    model_id: str
    model_version: str

    def __len__(self) -> int:
        return len(self.scores)

    def supported(self) -> list[float]:
        return [score.supported for score in self.scores]

    @property
    def failures(self) -> int:
        """How many pairs could not be scored (their ``error`` is set)."""
        return sum(score.error is not None for score in self.scores)


@dataclass(frozen=True, slots=True)
class RelevanceScore:
    """How relevant one passage is to a query: the reranker's ``logit`` (it ranks) and its
    sigmoid ``relevance`` (P(relevant)).

    A passage longer than the reranker's window is scored by its best window: ``window`` is the
    character span of the passage that window covers (the whole passage when it fit) and
    ``windows`` how many windows were tried, so ``windowed`` says the passage did not fit.
    """

    logit: float
    window: Span
    windows: int = 1

    @property
    def relevance(self) -> float:
        return 0.5 * (1.0 + math.tanh(self.logit / 2.0))  # sigmoid, overflow-free

    @property
    def windowed(self) -> bool:
        return self.windows > 1

    def to_dict(self) -> dict[str, Any]:
        return {
            "logit": self.logit,
            "relevance": self.relevance,
            "window": [self.window.start, self.window.end],
            "windows": self.windows,
        }


@dataclass(frozen=True)
class RelevanceScores:
    """Relevance of a batch of passages to one query, in input order, with provenance."""

    query: str
    scores: tuple[RelevanceScore, ...]
    model_id: str
    model_version: str

    def __len__(self) -> int:
        return len(self.scores)

    def logits(self) -> list[float]:
        return [score.logit for score in self.scores]

    @property
    def windowed(self) -> int:
        """How many passages were longer than the window (each scored by its best window)."""
        return sum(score.windowed for score in self.scores)

    def to_dict(self) -> dict[str, Any]:
        return {
            "query": self.query,
            "model_id": self.model_id,
            "model_version": self.model_version,
            "windowed": self.windowed,
            "scores": [score.to_dict() for score in self.scores],
        }


# --- grounded generation ------------------------------------------------------------------------
# Spans below index the answer text (``Answer.text``) unless they say otherwise; a Citation's
# ``start``/``end`` and ``evidence`` index its source document's text.

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
    verifier, read in parts).
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
        return f"{self.prompt_id}@{self.prompt_version}"

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
        }

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
        )


# --- claim verification -------------------------------------------------------------------------
# Spans below index the verified answer text (``Report.answer``) unless they say otherwise; an
# ``EvidenceJudgement``'s ``start``/``end``/``evidence`` and a ``ValueCheck``'s ``evidence`` index
# the source document's text, and a ``ValueCheck``'s ``span`` indexes its claim's ``text``.

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
#: Why a sentence of an answer was not verified (see :class:`SkippedSentence`).
SkipReason = Literal[
    "question", "greeting", "meta", "opinion", "refusal", "code", "heading", "empty"
]
#: How the value of a claim compares with the evidence (see :class:`ValueCheck`).
ValueStatus = Literal["match", "mismatch", "absent"]


@dataclass(frozen=True, slots=True)
class Claim:
    """One atomic, self-contained claim taken from an answer.

    ``text`` is what the verifier checks (decomposed and decontextualized); ``span`` the
    characters of the answer it came from (the whole sentence when the claim was rewritten, a
    part of it when it was cut out verbatim); ``sentence`` the 0-based index of that sentence.
    ``markers`` are the citation numbers written on that sentence; ``edits`` record every
    rewrite, e.g. ``("decomposed", "decontextualized: 'He' -> 'Karl von Frisch'")``; without
    one, ``text`` is the span's words as written (``veracity.verify.claims.draft.written``).
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
    """A sentence of the answer that needs no verification, and why (``reason``)."""

    sentence: int
    span: Span
    text: str
    reason: SkipReason

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
class ValueCheck:
    """A number, date, amount, code-like token or named entity of a claim compared exactly with
    the evidence.

    ``kind`` is one of ``number``, ``percent``, ``money``, ``quantity``, ``date``, ``year``,
    ``code`` (a path, URL, identifier, flag, version, quoted string or a lower-case word in a
    slot), ``entity``; ``value`` the normalised form (``"1200"``, ``"2022-09-20"``,
    ``"usd 5000000"``, ``"/bin/sync"``).
    ``status``: ``match`` (the evidence states it), ``mismatch`` (the evidence states a different
    value of the same kind in the same place: ``found`` and ``evidence`` say which), ``absent``.
    ``source`` is ``"evidence"`` or ``"knowledge_base"``.
    """

    kind: str
    text: str
    span: Span
    value: str
    status: ValueStatus
    found: str | None = None
    doc_id: str | None = None
    evidence: Span | None = None
    source: str = "evidence"

    def to_dict(self) -> dict[str, Any]:
        return {
            "kind": self.kind,
            "text": self.text,
            "span": _pair(self.span),
            "value": self.value,
            "status": self.status,
            "found": self.found,
            "doc_id": self.doc_id,
            "evidence": _pair(self.evidence),
            "source": self.source,
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
    then ``to_dict`` leaves the field out), ``()`` when it found none.
    """

    claim: Claim
    label: VerdictLabel
    layers: tuple[LayerResult, ...]
    citations: tuple[EvidenceJudgement, ...] = ()
    anti_citations: tuple[EvidenceJudgement, ...] = ()
    evidence: tuple[EvidenceJudgement, ...] = ()
    values: tuple[ValueCheck, ...] = ()
    unsupported_spans: tuple[UnsupportedSpan, ...] | None = None

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
        found = (
            {}
            if self.unsupported_spans is None
            else {"unsupported_spans": [span.to_dict() for span in self.unsupported_spans]}
        )
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
    ran).
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
        )


# --- from_dict: each reader takes the object its type's to_dict() wrote ---------------------------


def _span(fields: Fields, key: str) -> Span:
    start, end = fields.pair(key)
    try:
        return Span(start, end)
    except ValueError as exc:
        raise InputError(f"{fields.path}.{key}: {exc}") from None


def _optional_span(fields: Fields, key: str) -> Span | None:
    return None if fields.value(key) is None else _span(fields, key)


def _spans(fields: Fields, key: str) -> tuple[Span, ...]:
    spans = []
    for i, (start, end) in enumerate(fields.pairs(key)):
        try:
            spans.append(Span(start, end))
        except ValueError as exc:
            raise InputError(f"{fields.path}.{key}[{i}]: {exc}") from None
    return tuple(spans)


def _hit(fields: Fields) -> Hit:
    chunk = Chunk(
        id=fields.text("chunk_id"),
        doc_id=fields.text("doc_id"),
        index=fields.integer("chunk_index"),
        text=fields.text("text"),
        start=fields.integer("start"),
        end=fields.integer("end"),
        title=fields.text("title"),
        section=fields.texts("section"),
        page=fields.optional_integer("page"),
        page_end=fields.optional_integer("page_end"),
        source=fields.text("source"),
    )
    return Hit(
        chunk,
        fields.number("score"),
        fields.integer("rank"),
        fields.text("retriever"),
        fields.numbers_by_name("scores"),
    )


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


def _value_check(fields: Fields) -> ValueCheck:
    return ValueCheck(
        kind=fields.text("kind"),
        text=fields.text("text"),
        span=_span(fields, "span"),
        value=fields.text("value"),
        status=fields.choice("status", get_args(ValueStatus)),
        found=fields.optional_text("found"),
        doc_id=fields.optional_text("doc_id"),
        evidence=_optional_span(fields, "evidence"),
        source=fields.text("source"),
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
    )


def _skipped(fields: Fields) -> SkippedSentence:
    return SkippedSentence(
        fields.integer("sentence"),
        _span(fields, "span"),
        fields.text("text"),
        fields.choice("reason", get_args(SkipReason)),
    )
