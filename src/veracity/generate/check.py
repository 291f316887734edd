"""Check an answer's citations against the blocks it was given: map, validate, verify, attach.

For each sentence (see :mod:`veracity.text.segment`):

- valid ``[n]`` markers become :class:`~veracity.types.Citation` s of block ``n``'s chunk (its
  document, section, page and exact character span); numbers that name no block become
  :class:`~veracity.types.InvalidCitation` s;
- a factual sentence with valid citations is verified against each cited passage, and the one
  fitted decision (:mod:`veracity.decision`, as ``veracity verify`` decides a claim) reads the
  verifier's readings of its cited passages, its word coverage and, when the checker is given
  ``rules`` (a :class:`~veracity.rules.KnowledgeLayer`), the rules' findings on the sentence
  against those passages: ``supported`` when its P(supported) reaches ``tau``, else
  ``contradicted`` when P(contradicted | not supported) reaches ``contradiction``, else
  ``unsupported``;
- a factual sentence without a valid citation is scored against every block, and when the
  decision over them finds it supported the best block is attached (``Citation.attached``):
  ``citation_attached``, or ``invalid_citation`` when it cited only blocks that do not exist;
  otherwise ``uncited`` (or ``invalid_citation``);
- non-factual sentences (refusals, questions, greetings, code, Markdown headings) are
  ``not_factual``.

All pairs of an answer go to the verifier in one batched call (pairs are deduplicated). A pair the
verifier could not score is reported on its sentence as ``failure``; a sentence none of whose
written citations could be scored is ``error``. A sentence longer than the verifier reads of a
claim is never an error for that alone: it is read in consecutive parts (:func:`claim_parts`)
that each fit, it is supported by a passage when every part is (its support the least of the
parts'), contradicted when any part is, and its ``note`` says so.

>>> from veracity.testing import TablePairScorer
>>> from veracity.types import Chunk, Hit
>>> hit = Hit(Chunk("d#0", "d", 0, "Bees dance.", 0, 11), 1.0, 1, "bm25")
>>> scorer = TablePairScorer({("Bees dance.", "Bees dance."): (0.9, 0.0, 0.1)})
>>> CitationChecker(scorer).run("Bees dance [1].", [hit]).sentences[0].status
'supported'
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from dataclasses import dataclass

from veracity import defaults
from veracity.decision import Decision, coverage, sentence_coverage
from veracity.errors import ClaimTooLongError, InputError, OptionError
from veracity.models.pairs.base import PairScorer
from veracity.models.pairs.scoring import score_groups
from veracity.rules import KnowledgeLayer
from veracity.text.citations import resolve_markers
from veracity.text.segment import AnswerSentence, segment_answer
from veracity.types import (
    Chunk,
    Citation,
    Claim,
    ClaimSignals,
    DecisionResult,
    Hit,
    InvalidCitation,
    PairScore,
    Reading,
    SentenceCheck,
    SentenceStatus,
    Span,
    ValueCheck,
)

__all__ = ["CheckedAnswer", "CitationChecker", "checker_of", "citation_checker", "claim_parts"]

#: A part of a long sentence is cut to this share of the verifier's claim budget (in its
#: tokens), so that word pieces counted by words rarely overflow it.
PART_SHARE = 0.8
#: The most parts a long sentence is read in; a longer one stays an error.
MAX_PARTS = 8
_CUT = re.compile(r"[;:,]\s+|\s+(?=(?:and|but|or|which|while|whereas|because|although)\s)")


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

    def __init__(
        self,
        scorer: PairScorer,
        *,
        tau: float = defaults.CITATION_TAU,
        attach: bool = True,
        contradiction: float = defaults.VERIFY_CONTRADICTION,
        decision: Decision | None = None,
        rules: KnowledgeLayer | None = None,
    ) -> None:
        if not isinstance(scorer, PairScorer):
            raise InputError(
                f"scorer must be a PairScorer (with model_id, load() and run()), "
                f"got {type(scorer).__name__}"
            )
        if isinstance(tau, bool) or not isinstance(tau, int | float) or not 0.0 <= tau <= 1.0:
            raise OptionError(
                "tau", tau, "a number from 0 to 1 (P(supported) to count a sentence as supported)"
            )
        if (
            isinstance(contradiction, bool)
            or not isinstance(contradiction, int | float)
            or not 0.0 <= contradiction <= 1.0
        ):
            raise OptionError(
                "contradiction",
                contradiction,
                "a number from 0 to 1 (P(contradicted) to count a sentence as contradicted)",
            )
        self.scorer = scorer
        self.tau = float(tau)
        self.attach = attach
        self.contradiction = float(contradiction)
        if rules is not None and not isinstance(rules, KnowledgeLayer):
            raise OptionError(
                "rules",
                type(rules).__name__,
                "a KnowledgeLayer, or None to decide without the knowledge rules",
            )
        self._decision = decision
        self.rules = rules
        self._loaded = False

    def with_scorer(self, scorer: PairScorer) -> CitationChecker:
        """A checker like this one (thresholds, decision, rules) that reads with ``scorer``."""
        return CitationChecker(
            scorer,
            tau=self.tau,
            attach=self.attach,
            contradiction=self.contradiction,
            decision=self._decision,
            rules=self.rules,
        )

    def load(self) -> CitationChecker:
        if not self._loaded:
            self.scorer.load()
            if self.rules is not None:
                self.rules.load()
            self._loaded = True
        return self

    def run(self, text: str, hits: Sequence[Hit]) -> CheckedAnswer:
        """Check the citations of the answer ``text``, written over ``hits`` as blocks 1..n."""
        self.load()
        blocks = [hit.chunk.text for hit in hits]
        plans = [
            self._plan(sentence, len(hits)) for sentence in segment_answer(text, blocks=blocks)
        ]
        # One group per distinct claim, so a claim too long for the verifier fails alone.
        groups: dict[str, dict[int, None]] = {}
        for plan in plans:
            for number in plan.scored:
                groups.setdefault(plan.sentence.claim, {})[number] = None
        keys = [(claim, number) for claim, numbers in groups.items() for number in numbers]
        scored = score_groups(
            self.scorer,
            [
                [(hits[n - 1].chunk.text, claim) for n in numbers]
                for claim, numbers in groups.items()
            ],
        )
        flat = [score for group in scored.groups for score in group]
        results = dict(zip(keys, flat, strict=True))
        # A long claim makes the verifier score group by group (score_groups): only then can a
        # group have failed for its length.
        notes, calls = self._read_long(groups, hits, results) if scored.calls > 1 else ({}, 0)
        checks = self._rules(plans, hits)
        sentences = tuple(
            self._check(i, plan, text, hits, results, notes.get(plan.sentence.claim), checks[i])
            for i, plan in enumerate(plans)
        )
        return CheckedAnswer(
            sentences=sentences,
            citations=tuple(c for s in sentences for c in s.citations),
            invalid=tuple(c for s in sentences for c in s.invalid),
            verifier=scored.model_id,
            verifier_version=scored.model_version,
            pairs=len(keys),
            failures=sum(score.error is not None for score in results.values()),
            calls=scored.calls + calls,
        )

    def _read_long(
        self,
        groups: dict[str, dict[int, None]],
        hits: Sequence[Hit],
        results: dict[tuple[str, int], PairScore],
    ) -> tuple[dict[str, str], int]:
        """Score in parts every claim whose pairs all failed because it is too long for the
        verifier; replace its results by the combined ones. Returns a note per such claim and
        the verifier calls made."""
        notes: dict[str, str] = {}
        calls = 0
        for claim, numbers in groups.items():
            if not numbers or any(results[(claim, n)].error is None for n in numbers):
                continue
            premises = [hits[n - 1].chunk.text for n in numbers]
            try:
                self.scorer.run(premises[:1], [claim])
                calls += 1
                continue  # it fits: the failure has another cause, reported as it is
            except ClaimTooLongError as exc:
                calls += 1
                tokens, budget = exc.tokens, exc.budget
            if tokens <= 0 or budget <= 0:
                continue  # the verifier did not say how long: left as the error it is
            pieces = math.ceil(tokens / (PART_SHARE * budget))
            if pieces > MAX_PARTS:
                continue
            parts, scored = [claim], None
            while pieces <= MAX_PARTS:
                parts = claim_parts(claim, pieces)
                scored = score_groups(
                    self.scorer, [[(premise, part) for premise in premises] for part in parts]
                )
                calls += scored.calls
                if not scored.failures or len(parts) < pieces:
                    break
                pieces += 1
            if scored is None or scored.failures:
                continue
            for i, number in enumerate(numbers):
                results[(claim, number)] = _all_parts([group[i] for group in scored.groups])
            notes[claim] = (
                f"read in {len(parts)} parts: the sentence has {tokens} tokens and "
                f"the verifier reads at most {budget} of a claim"
            )
        return notes, calls

    def _rules(self, plans: Sequence[_Plan], hits: Sequence[Hit]) -> list[tuple[ValueCheck, ...]]:
        """The knowledge rules' findings on each factual sentence against the blocks it is
        scored with (none without ``rules``), in one call for the whole answer."""
        found: list[tuple[ValueCheck, ...]] = [() for _ in plans]
        if self.rules is None:
            return found
        read = [i for i, plan in enumerate(plans) if plan.factual and plan.scored]
        if not read:
            return found
        claims = [Claim(i, plans[i].sentence.claim, plans[i].sentence.span, i) for i in read]
        evidence: list[list[Chunk]] = [[hits[n - 1].chunk for n in plans[i].scored] for i in read]
        result = self.rules.run(claims, evidence)
        for i, values in zip(read, result.values, strict=True):
            found[i] = values
        return found

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

    def _check(
        self,
        index: int,
        plan: _Plan,
        text: str,
        hits: Sequence[Hit],
        results: dict[tuple[str, int], PairScore],
        note: str | None = None,
        checks: tuple[ValueCheck, ...] = (),
    ) -> SentenceCheck:
        claim = plan.sentence.claim
        scores = {n: results[(claim, n)] for n in plan.scored}
        failure = _failure(list(scores.values()))
        citations = tuple(_citation(n, span, hits[n - 1], scores.get(n)) for n, span in plan.cited)
        status: SentenceStatus
        support = _best(scores)
        decided = None if support is None else self._decide(claim, scores, hits, support[0], checks)
        if not plan.factual:
            status = "not_factual"
        elif plan.cited:
            status = "error" if decided is None else decided.label
        elif support is not None and decided is not None and decided.label == "supported":
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
            note=note,
            decision=decided if plan.factual else None,
            checks=checks,
        )

    def _decide(
        self,
        claim: str,
        scores: dict[int, PairScore],
        hits: Sequence[Hit],
        best: int,
        checks: tuple[ValueCheck, ...],
    ) -> DecisionResult:
        """The one decision over the readings of ``scores`` (failed ones left out), the rules'
        ``checks`` and the claim's coverage by its best block, by all blocks read and by their
        sentence that holds most of it."""
        decision = self._decision or Decision.shipped()
        readings = tuple(
            Reading(score.supported, score.contradicted, score.neither)
            for score in scores.values()
            if score.error is None
        )
        read = [hits[n - 1].chunk.text for n, s in scores.items() if s.error is None]
        signals = ClaimSignals(
            readings,
            checks,
            coverage(claim, hits[best - 1].chunk.text),
            coverage(claim, "\n\n".join(read)),
            sentence_coverage(claim, read),
        )
        return decision.run(signals, tau=self.tau, contradiction=self.contradiction)


def citation_checker(
    scorer: PairScorer, *, tau: float = defaults.CITATION_TAU, knowledge: bool = True
) -> CitationChecker:
    """The checker ``veracity ask`` and ``evolve`` use: citations read by ``scorer`` and, with
    ``knowledge``, the shipped knowledge rules, decided against P(supported) ``tau``."""
    return CitationChecker(scorer, tau=tau, rules=KnowledgeLayer() if knowledge else None)


def checker_of(
    scorer: PairScorer | CitationChecker, *, tau: float | None = None, attach: bool | None = None
) -> CitationChecker:
    """``scorer`` itself when it is a checker (``tau`` and ``attach`` must then be left out:
    they are the checker's), else a checker of citations by ``scorer`` against P(supported)
    ``tau`` (default ``defaults.CITATION_TAU``) that attaches a block to an uncited sentence
    unless ``attach`` is False."""
    if isinstance(scorer, CitationChecker):
        for name, value in (("tau", tau), ("attach", attach)):
            if value is not None:
                raise OptionError(
                    name,
                    value,
                    "left out when a CitationChecker is given",
                    f"Set {name} on the checker: CitationChecker(scorer, {name}=...).",
                )
        return scorer
    return CitationChecker(
        scorer,
        tau=defaults.CITATION_TAU if tau is None else tau,
        attach=True if attach is None else attach,
    )


def claim_parts(claim: str, pieces: int) -> list[str]:
    """``claim`` cut into at most ``pieces`` consecutive parts of about equal words, each cut
    at the clause boundary (``,``, ``;``, ``:``, "and", "which" ...) nearest its ideal place,
    or between words where there is none; all the words, in order.

    >>> claim_parts("Bees dance in the hive, and wasps build paper nests.", 2)
    ['Bees dance in the hive,', 'and wasps build paper nests.']
    """
    words = [m for m in re.finditer(r"\S+", claim)]
    if pieces <= 1 or len(words) < 2:
        return [claim]
    pieces = min(pieces, len(words))
    boundaries = {m.end() for m in _CUT.finditer(claim)}
    cuts: list[int] = []  # indexes of the words that start a new part
    for k in range(1, pieces):
        ideal = round(k * len(words) / pieces)
        low = cuts[-1] + 1 if cuts else 1
        candidates = [
            i
            for i in range(low, len(words))
            if words[i].start() in boundaries or words[i - 1].end() + 1 in boundaries
        ]
        near = [i for i in candidates if abs(i - ideal) <= max(1, len(words) // (3 * pieces))]
        cut = min(near, key=lambda i: abs(i - ideal)) if near else max(low, ideal)
        if cut < len(words):
            cuts.append(cut)
    starts = [0, *cuts]
    ends = [*cuts, len(words)]
    return [
        claim[words[a].start() : words[b - 1].end()]
        for a, b in zip(starts, ends, strict=True)
        if a < b
    ]


def _all_parts(scores: Sequence[PairScore]) -> PairScore:
    """One result for a sentence read in parts: supported as much as its least supported
    part, contradicted as much as its most contradicted one."""
    failed = [score for score in scores if score.error is not None]
    if failed:
        return failed[0]
    supported = min(score.supported for score in scores)
    contradicted = max(score.contradicted for score in scores)
    evidence = tuple(span for score in scores for span in score.evidence)
    return PairScore(
        supported,
        contradicted,
        max(0.0, 1.0 - supported - contradicted),
        scores[0].window,
        evidence=tuple(dict.fromkeys(evidence)),
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
        evidence=()
        if ok is None
        else tuple(Span(chunk.start + part.start, chunk.start + part.end) for part in ok.evidence),
        error=None if score is None else score.error,
    )
