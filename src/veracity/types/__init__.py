"""Frozen result types shared by every stage, one module per stage.

Every span is a pair of character offsets into a named string: a ``Chunk``'s ``start``/``end``
index its document's ``text`` so that ``document.text[chunk.start:chunk.end] == chunk.text``.

The results have ``to_dict()``: plain JSON-ready values (lists for tuples, ``[start, end]`` for
spans), the one shape that ``veracity ... --json``, the Python API and the service print.
:class:`Answer` and :class:`Report` read it back with ``from_dict()``
(``Report.from_dict(report.to_dict()) == report``), from JSON too: a score written ``null`` by
the strict JSON writer reads as ``nan``.

The modules, in the order of a question's way through veracity: :mod:`.spans` (``Span``),
:mod:`.corpus` (documents and chunks), :mod:`.retrieval` (hits, search results, relevance
scores), :mod:`.pairs` (what a pair verifier says of a premise and a claim), :mod:`.findings`
(what the knowledge rules find of a claim), :mod:`.answers` (grounded answers and their
citations) and :mod:`.verification` (claims, verdicts, the
report). Every name is imported here: ``from veracity.types import Chunk`` is the import to
write.
"""

from veracity.types.answers import (
    SENTENCE_STATUSES,
    AbstentionCheck,
    Answer,
    Citation,
    GenerationProvenance,
    InvalidCitation,
    Refusal,
    SentenceCheck,
    SentenceStatus,
    Timings,
)
from veracity.types.corpus import Chunk, Document, MetadataValue, Page, Section
from veracity.types.decision import ClaimSignals, DecisionResult, Reading
from veracity.types.findings import ValueCheck, ValueStatus
from veracity.types.pairs import Label, PairLabel, PairScore, PairScores, ScoredPair
from veracity.types.retrieval import (
    Confidence,
    Hit,
    RelevanceScore,
    RelevanceScores,
    SearchResult,
)
from veracity.types.spans import Span
from veracity.types.verification import (
    NOT_CHECKABLE,
    VERDICT_LABELS,
    Claim,
    ClaimSet,
    ClaimSpans,
    ClaimVerdict,
    EvidenceJudgement,
    LayerResult,
    Report,
    SkippedSentence,
    SkipReason,
    UnsupportedSpan,
    VerdictLabel,
)

__all__ = [
    "NOT_CHECKABLE",
    "SENTENCE_STATUSES",
    "VERDICT_LABELS",
    "AbstentionCheck",
    "Answer",
    "Chunk",
    "Citation",
    "Claim",
    "ClaimSet",
    "ClaimSignals",
    "ClaimSpans",
    "ClaimVerdict",
    "Confidence",
    "DecisionResult",
    "Document",
    "EvidenceJudgement",
    "GenerationProvenance",
    "Hit",
    "InvalidCitation",
    "Label",
    "LayerResult",
    "MetadataValue",
    "Page",
    "PairLabel",
    "PairScore",
    "PairScores",
    "Reading",
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
