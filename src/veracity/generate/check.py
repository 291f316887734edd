"""Check an answer's citations against the blocks it was given: map, validate, verify, attach.

For each sentence (see :mod:`veracity.text.segment`):

- valid ``[n]`` markers become :class:`~veracity.types.Citation` s of block ``n``'s chunk (its
  document, section, page and exact character span); numbers that name no block become
  :class:`~veracity.types.InvalidCitation` s;
- a factual sentence with valid citations is verified against each cited passage: it is
  ``supported`` when its best citation reaches ``tau``, else ``contradicted`` when a cited
  passage contradicts it (P(contradicted) reaches ``contradiction`` and beats its support),
  else ``unsupported``;
- a factual sentence without a valid citation is scored against every block, and when the best
  block reaches ``tau`` that block is attached (``Citation.attached``): ``citation_attached``,
  or ``invalid_citation`` when it cited only blocks that do not exist; otherwise ``uncited`` (or
  ``invalid_citation``);
- non-factual sentences (refusals, questions, greetings, code, Markdown headings) are
  ``not_factual``.

All pairs of an answer go to the verifier in one batched call (pairs are deduplicated). A pair the
verifier could not score is reported on its sentence as ``failure``; a sentence none of whose
written citations could be scored is ``error``.

>>> from veracity.testing import TablePairScorer
>>> from veracity.types import Chunk, Hit
>>> hit = Hit(Chunk("d#0", "d", 0, "Bees dance.", 0, 11), 1.0, 1, "bm25")
>>> scorer = TablePairScorer({("Bees dance.", "Bees dance."): (0.9, 0.0, 0.1)})
>>> CitationChecker(scorer).run("Bees dance [1].", [hit]).sentences[0].status
'supported'
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from veracity import defaults
from veracity.errors import InputError, OptionError
from veracity.text.citations import resolve_markers
from veracity.text.segment import AnswerSentence, segment_answer
from veracity.types import (
    Citation,
    Hit,
    InvalidCitation,
    PairScore,
    SentenceCheck,
    SentenceStatus,
    Span,
)
from veracity.verifiers.base import PairScorer
from veracity.verifiers.scoring import score_groups

__all__ = ["CheckedAnswer", "CitationChecker"]


@dataclass(frozen=True)
class CheckedAnswer:
    """The sentences of an answer with their checks, every citation, and what verified them.

    ``pairs`` counts the (sentence, passage) pairs scored and ``failures`` those that failed;
    ``calls`` the verifier calls made (1, more only after a sentence too long for the verifier).
    """

    sentences: tuple[SentenceCheck, ...]
    citations: tuple[Citation, ...]
    invalid: tuple[InvalidCitation, ...]
    verifier: str
    verifier_version: str
    pairs: int
    failures: int
    calls: int


@dataclass(frozen=True)
class _Plan:
    sentence: AnswerSentence
    factual: bool
    cited: tuple[tuple[int, Span], ...]  # (block number, marker span), each block once
    invalid: tuple[InvalidCitation, ...]
    scored: tuple[int, ...]  # block numbers whose pairs are scored


class CitationChecker:
    """Maps, validates and verifies the citations of an answer (see the module docstring)."""

    def __init__(self, scorer: PairScorer, *, tau: float = defaults.CITATION_TAU,
                 attach: bool = True,
                 contradiction: float = defaults.VERIFY_CONTRADICTION) -> None:
        if not isinstance(scorer, PairScorer):
            raise InputError(f"scorer must be a PairScorer (with model_id, load() and run()), "
                             f"got {type(scorer).__name__}")
        if isinstance(tau, bool) or not isinstance(tau, int | float) or not 0.0 <= tau <= 1.0:
            raise OptionError("tau", tau, "a number from 0 to 1 (P(supported) to count a "
                              "sentence as supported)")
        if isinstance(contradiction, bool) or not isinstance(contradiction, int | float) or \
                not 0.0 <= contradiction <= 1.0:
            raise OptionError("contradiction", contradiction, "a number from 0 to 1 "
                              "(P(contradicted) to count a sentence as contradicted)")
        self.scorer = scorer
        self.tau = float(tau)
        self.attach = attach
        self.contradiction = float(contradiction)
        self._loaded = False

    def load(self) -> CitationChecker:
        if not self._loaded:
            self.scorer.load()
            self._loaded = True
        return self

    def run(self, text: str, hits: Sequence[Hit]) -> CheckedAnswer:
        """Check the citations of the answer ``text``, written over ``hits`` as blocks 1..n."""
        self.load()
        blocks = [hit.chunk.text for hit in hits]
        plans = [self._plan(sentence, len(hits))
                 for sentence in segment_answer(text, blocks=blocks)]
        # One group per distinct claim, so a claim too long for the verifier fails alone.
        groups: dict[str, dict[int, None]] = {}
        for plan in plans:
            for number in plan.scored:
                groups.setdefault(plan.sentence.claim, {})[number] = None
        keys = [(claim, number) for claim, numbers in groups.items() for number in numbers]
        scored = score_groups(self.scorer, [[(hits[n - 1].chunk.text, claim) for n in numbers]
                                            for claim, numbers in groups.items()])
        flat = [score for group in scored.groups for score in group]
        results = dict(zip(keys, flat, strict=True))
        sentences = tuple(self._check(i, plan, text, hits, results)
                          for i, plan in enumerate(plans))
        return CheckedAnswer(
            sentences=sentences,
            citations=tuple(c for s in sentences for c in s.citations),
            invalid=tuple(c for s in sentences for c in s.invalid),
            verifier=scored.model_id,
            verifier_version=scored.model_version,
            pairs=len(keys),
            failures=scored.failures,
            calls=scored.calls,
        )

    def _plan(self, sentence: AnswerSentence, blocks: int) -> _Plan:
        valid, invalid = resolve_markers(sentence.markers, blocks=blocks)
        cited: dict[int, Span] = {}
        for number, marker in valid:
            cited.setdefault(number, marker.span)
        factual = sentence.factual
        if not factual:
            scored: tuple[int, ...] = ()
        elif cited:
            scored = tuple(cited)
        else:
            scored = tuple(range(1, blocks + 1)) if self.attach else ()
        return _Plan(sentence, factual, tuple(cited.items()), tuple(invalid), scored)

    def _check(self, index: int, plan: _Plan, text: str, hits: Sequence[Hit],
               results: dict[tuple[str, int], PairScore]) -> SentenceCheck:
        claim = plan.sentence.claim
        scores = {n: results[(claim, n)] for n in plan.scored}
        failure = _failure(list(scores.values()))
        citations = tuple(_citation(n, span, hits[n - 1], scores.get(n))
                          for n, span in plan.cited)
        status: SentenceStatus
        support = _best(scores)
        if not plan.factual:
            status = "not_factual"
        elif plan.cited:
            if support is None:
                status = "error"
            elif support[1] >= self.tau:
                status = "supported"
            elif any(c.contradicted is not None and c.support is not None
                     and c.contradicted >= self.contradiction and c.contradicted > c.support
                     for c in citations):
                status = "contradicted"
            else:
                status = "unsupported"
        elif support is not None and support[1] >= self.tau:
            number = support[0]
            citations = (_citation(number, None, hits[number - 1], scores[number]),)
            status = "invalid_citation" if plan.invalid else "citation_attached"
        else:
            status = "invalid_citation" if plan.invalid else "uncited"
        return SentenceCheck(
            index=index,
            span=plan.sentence.span,
            text=plan.sentence.span.of(text),
            claim=claim,
            status=status,
            citations=citations,
            invalid=plan.invalid,
            support=None if support is None else support[1],
            failure=failure,
        )


def _best(scores: dict[int, PairScore]) -> tuple[int, float] | None:
    """The block with the highest P(supported) among pairs that were scored (first on ties)."""
    best: tuple[int, float] | None = None
    for number, score in scores.items():
        if score.error is None and (best is None or score.supported > best[1]):
            best = (number, score.supported)
    return best


def _failure(scores: Sequence[PairScore]) -> str | None:
    errors = [score.error for score in scores if score.error is not None]
    if not errors:
        return None
    return f"the verifier could not score {len(errors)} of {len(scores)} pair(s): {errors[0]}"


def _citation(number: int, span: Span | None, hit: Hit, score: PairScore | None) -> Citation:
    chunk = hit.chunk
    ok = score if score is not None and score.error is None else None
    return Citation(
        marker=number,
        span=span,
        chunk_id=chunk.id,
        doc_id=chunk.doc_id,
        title=chunk.title,
        section=chunk.section,
        page=chunk.page,
        page_end=chunk.page_end,
        start=chunk.start,
        end=chunk.end,
        attached=span is None,
        support=None if ok is None else ok.supported,
        contradicted=None if ok is None else ok.contradicted,
        evidence=() if ok is None else tuple(
            Span(chunk.start + part.start, chunk.start + part.end) for part in ok.evidence),
        error=None if score is None else score.error,
    )
