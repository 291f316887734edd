"""The NLI layer: each claim scored against its evidence passages by the verifier.

All pairs of an answer go to the verifier in one batched call. ``window`` says what a pair is:

- ``passage`` (``defaults.NLI_WINDOW``): one pair per (passage, claim), each passage read on
  its own. A claim's support is then aggregated over its passages (below), and a passage that
  supports it beside one that contradicts it makes it contested.
- ``claim``: one pair per claim. Its passages are joined, each its own paragraph, into one
  premise, and the verifier's evidence selector picks the claim's best sentences across all of
  them into one window (a passage never shares a sentence with another, since a blank line
  always ends one). Every passage the window drew on is judged with the window's reading and
  its own exact spans; a passage it did not draw on was not read and is not in the claim's
  evidence. One reading per claim instead of one per passage: about k times fewer pairs, but
  one passage that supports a claim and another that contradicts it get the same reading, so
  such a claim can no longer be contested: on RGB's planted false passages beside the true ones
  this window catches 3% of the false answers, passage by passage 91% (bench/README.md,
  verify_rgb). The reading is attributed to the passages it drew on whose read sentences say
  the claim's words (:func:`_attributed`): those are its citations or anti-citations, not an
  unrelated passage the window also read; of them, only those that can state the claim are
  cited (not a heading), unless none can.
- ``focused``: the claim window's choice without its single reading. The evidence selector
  picks the claim's best sentences across all of its passages, as for ``claim``, but no window
  is read: each passage it drew on whose chosen sentences say the claim's words (the same
  attribution) is read on its own, as with ``passage``, and the others are not read. A claim
  costs one pair per such passage instead of one per passage, and a passage for it beside one
  against it still makes it contested, since both say its words.

How support is aggregated over passages:

- ``max`` (default): the best passage's P(supported), as MiniCheck does over chunks;
- ``noisy_or``: the evidence of several passages combined, ``1 - prod(1 - p_i')`` over the ``k``
  best passages, where ``p_i' = max(0, (p_i - b) / (1 - b))`` removes the background support
  ``b`` that the verifier gives unrelated text. Without that correction and the cap on ``k``,
  many weak passages would add up to a confident "supported".

With ``claim`` windows the support is the window's P(supported) (``aggregation`` must be
``max``: noisy-OR combines readings of separate passages, which the window already joins).

The label: ``supported`` when the support reaches ``tau``; ``contradicted`` when the best
P(contradicted) reaches ``contradiction`` and beats the support; ``unsupported`` otherwise (also
when no passage was found). A claim whose every pair failed is ``error`` (never a score). The
layer's risk score is ``1 - support``. Citations are the passages whose own support reaches
``tau``; anti-citations those whose P(contradicted) reaches ``contradiction`` and beats their
support.

A passage that cannot state the claim (a heading, a verbless fragment, a paragraph about another
subject: :func:`~veracity.verify.fragments.cannot_state`) never counts against it: it is no
anti-citation and cannot make the claim contradicted, whatever its P(contradicted). Its support
still counts. Its judgement says why (``cannot_state``). The rule sits here, not in the pair
scorers, so it holds for every verifier (embedded, Hugging Face, LLM judge) and leaves their
scores, which the benches measure, as they are.

>>> from veracity.testing import TablePairScorer
>>> from veracity.types import Chunk, Claim, Span
>>> from veracity.verify.gather import ClaimEvidence, EvidenceSet
>>> passage = Chunk("d#0", "d", 0, "Bees dance.", 0, 11)
>>> claim = Claim(0, "Bees dance.", Span(0, 11), 0)
>>> scorer = TablePairScorer({("Bees dance.", "Bees dance."): (0.9, 0.05, 0.05)})
>>> evidence = EvidenceSet((ClaimEvidence(claim, (passage,), (False,)),), "claim", 0)
>>> NLILayer(scorer).run(evidence).results[0].label
'supported'
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import get_args

from veracity import defaults
from veracity.defaults import Aggregation, EvidenceWindow
from veracity.errors import ClaimTooLongError, OptionError
from veracity.models.pairs.base import PairScorer
from veracity.models.pairs.scoring import score_groups
from veracity.models.pairs.windows import EvidenceSelector
from veracity.text.words import STOPWORDS, stem, word_tokens
from veracity.types import Chunk, EvidenceJudgement, LayerResult, PairScore, Span
from veracity.verify.fragments import cannot_state
from veracity.verify.gather import ClaimEvidence, EvidenceSet

__all__ = [
    "AGGREGATIONS",
    "WINDOWS",
    "Aggregation",
    "EvidenceWindow",
    "NLILayer",
    "NLIResult",
    "aggregate_support",
    "join_passages",
    "passage_spans",
]

AGGREGATIONS: tuple[Aggregation, ...] = get_args(Aggregation)
WINDOWS: tuple[EvidenceWindow, ...] = get_args(EvidenceWindow)
#: A claim window's reading is attributed to each passage it drew on whose read sentences share
#: at least this share of the best passage's count of the claim's content words.
ATTRIBUTION_SHARE = 2 / 3
#: Between two passages joined into one premise: a blank line, which always ends a sentence.
PASSAGE_BREAK = "\n\n"


@dataclass(frozen=True)
class NLIResult:
    """Per claim: the layer's finding, every passage's judgement, citations and anti-citations."""

    results: tuple[LayerResult, ...]
    judgements: tuple[tuple[EvidenceJudgement, ...], ...]
    citations: tuple[tuple[EvidenceJudgement, ...], ...]
    anti_citations: tuple[tuple[EvidenceJudgement, ...], ...]
    model_id: str
    model_version: str
    pairs: int
    calls: int
    failures: int


def aggregate_support(
    supported: Sequence[float],
    *,
    aggregation: Aggregation = "max",
    k: int = defaults.NOISY_OR_K,
    background: float = defaults.NOISY_OR_BACKGROUND,
) -> float:
    """One claim's support from its passages' P(supported) (see the module docstring).

    >>> aggregate_support([0.6, 0.6], aggregation="noisy_or", background=0.2)
    0.75
    """
    if not supported:
        return 0.0
    if aggregation == "max":
        return max(supported)
    corrected = [
        max(0.0, (p - background) / (1.0 - background)) for p in sorted(supported, reverse=True)[:k]
    ]
    return 1.0 - math.prod(1.0 - p for p in corrected)


def join_passages(texts: Sequence[str]) -> tuple[str, list[int]]:
    """The passages as one premise, each its own paragraph, and where each one starts in it.

    >>> join_passages(["Bees dance.", "Ants march."])
    ('Bees dance.\\n\\nAnts march.', [0, 13])
    """
    starts, position = [], 0
    for text in texts:
        starts.append(position)
        position += len(text) + len(PASSAGE_BREAK)
    return PASSAGE_BREAK.join(texts), starts


def passage_spans(spans: Sequence[Span], start: int, length: int) -> tuple[Span, ...]:
    """The parts of ``spans`` (of a joined premise) inside the passage at ``start`` of
    ``length`` characters, as spans of that passage.

    >>> passage_spans([Span(0, 24)], 13, 11)
    (Span(start=0, end=11),)
    """
    end = start + length
    return tuple(
        Span(max(span.start, start) - start, min(span.end, end) - start)
        for span in spans
        if span.start < end and span.end > start
    )


class NLILayer:
    """Scores claims against their evidence with a ``PairScorer`` (see the module docstring)."""

    name = "nli"

    def __init__(
        self,
        scorer: PairScorer,
        *,
        aggregation: Aggregation = defaults.VERIFY_AGGREGATION,
        tau: float = defaults.VERIFY_TAU,
        contradiction: float = defaults.VERIFY_CONTRADICTION,
        k: int = defaults.NOISY_OR_K,
        background: float = defaults.NOISY_OR_BACKGROUND,
        window: EvidenceWindow = defaults.NLI_WINDOW,
    ) -> None:
        if not isinstance(scorer, PairScorer):
            raise OptionError(
                "scorer",
                scorer,
                "a PairScorer (model_id, load(), run())",
                "Use veracity.verify.make_verifier('embedded').",
            )
        if aggregation not in AGGREGATIONS:
            raise OptionError("aggregation", aggregation, f"one of {', '.join(AGGREGATIONS)}")
        for name, value in (("tau", tau), ("contradiction", contradiction)):
            if not 0.0 <= value <= 1.0:
                raise OptionError(name, value, "a probability between 0 and 1")
        if not 0.0 <= background < 1.0:
            raise OptionError(
                "background",
                background,
                "at least 0 and below 1",
                "It is the support the verifier gives unrelated text, e.g. 0.1.",
            )
        if window not in WINDOWS:
            raise OptionError("window", window, f"one of {', '.join(WINDOWS)}")
        if window == "claim" and aggregation != "max":
            raise OptionError(
                "aggregation",
                aggregation,
                "max with one window per claim",
                "noisy-OR combines the readings of separate passages: pass "
                "window='passage' with it.",
            )
        if isinstance(k, bool) or not isinstance(k, int) or k < 1:
            raise OptionError("k", k, "a positive integer", "Cap noisy-OR at e.g. 3 passages.")
        self.scorer = scorer
        self.aggregation: Aggregation = aggregation
        self.tau = tau
        self.contradiction = contradiction
        self.k = k
        self.background = background
        self.window: EvidenceWindow = window

    def load(self) -> NLILayer:
        self.scorer.load()
        return self

    def _selector(self) -> EvidenceSelector:
        """The scorer's evidence selector (its window and tokenizer), looked for through the
        wrappers around it (each keeps the scorer it wraps as ``scorer``), or the default one."""
        scorer: object = self.scorer
        for _ in range(8):
            selector = getattr(scorer, "selector", None)
            if isinstance(selector, EvidenceSelector):
                return selector
            scorer = getattr(scorer, "scorer", None)
            if scorer is None:
                break
        return EvidenceSelector()

    def _focus(self, item: ClaimEvidence, selector: EvidenceSelector) -> ClaimEvidence:
        """``item`` with only the passages a ``focused`` window reads (see the module
        docstring): those the claim's window would draw on that say the claim's words."""
        if len(item.passages) < 2:
            return item
        text, starts = join_passages([passage.text for passage in item.passages])
        try:
            window = selector.run(text, item.claim.text)[0]
        except ClaimTooLongError:  # every pair will fail the same way: read them all
            return item
        read = [
            (i, passage_spans(window.spans, start, len(passage.text)))
            for i, (passage, start) in enumerate(zip(item.passages, starts, strict=True))
        ]
        drawn = [(i, spans) for i, spans in read if spans]
        texts = [
            " ".join(item.passages[i].text[s.start : s.end] for s in spans) for i, spans in drawn
        ]
        kept = [drawn[k][0] for k in _sharing(texts, item.claim.text)]
        return dataclasses.replace(
            item,
            passages=tuple(item.passages[i] for i in kept),
            cited=tuple(item.cited[i] for i in kept),
        )

    def run(self, evidence: EvidenceSet) -> NLIResult:
        """The finding for every claim of ``evidence``, from one batched verifier call."""
        if self.window == "focused":
            selector = self._selector()
            evidence = dataclasses.replace(
                evidence, items=tuple(self._focus(item, selector) for item in evidence.items)
            )
        if self.window == "claim":
            joined = [
                join_passages([passage.text for passage in item.passages])
                for item in evidence.items
            ]
            groups = [
                [(text, item.claim.text)] if item.passages else []
                for (text, _), item in zip(joined, evidence.items, strict=True)
            ]
        else:
            groups = [
                [(passage.text, item.claim.text) for passage in item.passages]
                for item in evidence.items
            ]
        scored = score_groups(self.scorer, groups)
        results, judgements, citations, anti = [], [], [], []
        for position, (item, scores) in enumerate(zip(evidence.items, scored.groups, strict=True)):
            if self.window == "claim":
                judged = _window_judgements(item, scores, joined[position][1])
            else:
                judged = tuple(
                    _judgement(passage, score, cited, item.query, item.claim.text)
                    for passage, score, cited in zip(item.passages, scores, item.cited, strict=True)
                )
            judgements.append(judged)
            results.append(self._finding(item, judged))
            # One window's reading covers every passage it drew on: it is attributed to those
            # whose read sentences say the claim's words (not an unrelated passage beside them)
            # and, for citations, that can state the claim (not a heading), if any can.
            owners = _attributed(judged, item.claim.text) if self.window == "claim" else judged
            cited = [j for j in owners if j.error is None and j.supported >= self.tau]
            if self.window == "claim":
                cited = [j for j in cited if j.cannot_state is None] or cited
            citations.append(tuple(sorted(cited, key=lambda j: -j.supported)))
            anti.append(
                tuple(
                    sorted(
                        (
                            j
                            for j in _against(owners)
                            if j.contradicted >= self.contradiction and j.contradicted > j.supported
                        ),
                        key=lambda j: -j.contradicted,
                    )
                )
            )
        return NLIResult(
            tuple(results),
            tuple(judgements),
            tuple(citations),
            tuple(anti),
            scored.model_id,
            scored.model_version,
            sum(map(len, groups)),
            scored.calls,
            scored.failures,
        )

    def _finding(self, item: ClaimEvidence, judged: Sequence[EvidenceJudgement]) -> LayerResult:
        if not judged:
            return LayerResult("nli", "unsupported", True, 1.0, "no evidence passage was found")
        scored = [j for j in judged if j.error is None]
        if not scored:
            return LayerResult(
                "nli",
                "error",
                False,
                None,
                error=f"the verifier could not score any of {len(judged)} "
                f"passage(s): {judged[0].error}",
            )
        support = aggregate_support(
            [j.supported for j in scored],
            aggregation=self.aggregation,
            k=self.k,
            background=self.background,
        )
        best = max(scored, key=lambda j: j.supported)
        against = max(_against(scored), key=lambda j: j.contradicted, default=None)
        failed = len(judged) - len(scored)
        note = f"; {failed} passage(s) could not be scored" if failed else ""
        if support >= self.tau:
            return LayerResult(
                "nli",
                "supported",
                False,
                1.0 - support,
                f"support {support:.2f} ({self.aggregation}), best passage {best.chunk_id}{note}",
            )
        if (
            against is not None
            and against.contradicted >= self.contradiction
            and against.contradicted > support
        ):
            return LayerResult(
                "nli",
                "contradicted",
                True,
                1.0 - support,
                f"contradicted {against.contradicted:.2f} by {against.chunk_id}, "
                f"support {support:.2f}{note}",
            )
        return LayerResult(
            "nli",
            "unsupported",
            True,
            1.0 - support,
            f"support {support:.2f} ({self.aggregation}) is below tau "
            f"{self.tau:.2f}; best passage {best.chunk_id}{note}",
        )


def _window_judgements(
    item: ClaimEvidence, scores: Sequence[PairScore], starts: Sequence[int]
) -> tuple[EvidenceJudgement, ...]:
    """The passages one claim's window drew on, each with the window's reading and its own
    spans of it (every passage, each with the failure, when the window could not be read)."""
    if not scores:
        return ()
    (score,) = scores
    judged = []
    for passage, cited, start in zip(item.passages, item.cited, starts, strict=True):
        # A scorer that reports no evidence spans read its whole window.
        spans = passage_spans(score.evidence or (score.window,), start, len(passage.text))
        if spans or score.error is not None:
            own = dataclasses.replace(score, evidence=spans)
            judged.append(_judgement(passage, own, cited, item.query, item.claim.text))
    return tuple(judged)


def _sharing(read: Sequence[str], claim: str) -> list[int]:
    """The positions of the texts in ``read`` that share at least :data:`ATTRIBUTION_SHARE` of
    the best one's count of the claim's content words (stems); all of them when the claim has
    no content word or none is shared.

    >>> _sharing(["Bees dance to show food.", "Bees fly.", "Ants march."], "Bees dance for food.")
    [0]
    """
    words = {stem(word) for word in word_tokens(claim) if word not in STOPWORDS}
    counts = [len(words & {stem(word) for word in word_tokens(text)}) for text in read]
    best = max(counts, default=0)
    if best == 0:
        return list(range(len(read)))
    return [i for i, count in enumerate(counts) if count >= ATTRIBUTION_SHARE * best]


def _attributed(judged: Sequence[EvidenceJudgement], claim: str) -> list[EvidenceJudgement]:
    """Of the passages one claim window drew on, those whose sentences the verifier read say
    the claim's words (:func:`_sharing`): the window's reading, for or against, is theirs."""
    read = [
        " ".join(
            judgement.text[span.start - judgement.start : span.end - judgement.start]
            for span in judgement.evidence
        )
        for judgement in judged
    ]
    return [judged[i] for i in _sharing(read, claim)]


def _against(judged: Sequence[EvidenceJudgement]) -> list[EvidenceJudgement]:
    """The judgements that may count against their claim: scored, and able to state it."""
    return [j for j in judged if j.error is None and j.cannot_state is None]


def _judgement(
    passage: Chunk, score: PairScore, cited: bool, query: str, claim: str
) -> EvidenceJudgement:
    context = "\n".join((passage.title, *passage.section))
    return EvidenceJudgement(
        chunk_id=passage.id,
        doc_id=passage.doc_id,
        title=passage.title,
        section=passage.section,
        page=passage.page,
        page_end=passage.page_end,
        start=passage.start,
        end=passage.end,
        text=passage.text,
        supported=score.supported,
        contradicted=score.contradicted,
        neither=score.neither,
        evidence=tuple(
            Span(passage.start + part.start, passage.start + part.end) for part in score.evidence
        ),
        cited=cited,
        query=query,
        error=score.error,
        cannot_state=cannot_state(passage.text, claim, context=context),
    )
