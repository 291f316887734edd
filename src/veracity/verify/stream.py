"""Verify an answer sentence by sentence while a streaming model is still writing it.

Text arrives in pieces (``chat.stream(request)``). A sentence is final once the next one has
begun; its claims are then extracted (with every earlier sentence as context, so "He" still
resolves) and verified at once, and the result is yielded before the model has finished. The
last sentence is verified when the stream ends.

>>> from veracity.testing import TablePairScorer
>>> from veracity.types import Chunk
>>> source = Chunk("d#0", "d", 0, "Bees dance. Bees sting.", 0, 23)
>>> table = {("Bees dance. Bees sting.", "Bees dance."): (0.9, 0.0, 0.1),
...          ("Bees dance. Bees sting.", "Bees sting."): (0.8, 0.0, 0.2)}
>>> from veracity.verify.pipeline import make_answer_verifier
>>> from veracity.config import VerifyConfig
>>> verifier = make_answer_verifier(TablePairScorer(table), VerifyConfig().with_options(
...     layers="nli"), sources=[source])
>>> [(s.text, s.verdicts[0].label) for s in StreamVerifier(verifier).run(
...     ["Bees da", "nce. Bees", " sting."])]
[('Bees dance.', 'supported'), ('Bees sting.', 'supported')]

A whole answer streams sentence by sentence when given as :func:`sentence_pieces`, and
:func:`merge_reports` joins what the sentences found into the report on the whole answer:

>>> answer = "Bees dance. Bees sting."
>>> streamed = list(StreamVerifier(verifier).run(sentence_pieces(answer)))
>>> merge_reports(answer, streamed).summary["supported"]
2
"""

from __future__ import annotations

from collections.abc import Generator, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass

from veracity.types import Chunk, ClaimSet, ClaimVerdict, Report, SkippedSentence, Span
from veracity.verify.claims import split_answer
from veracity.verify.pipeline import AnswerVerifier, cited_blocks

__all__ = ["StreamVerifier", "StreamedSentence", "merge_reports", "sentence_pieces"]


@dataclass(frozen=True)
class StreamedSentence:
    """One finished sentence of a streamed answer and what verifying it found.

    ``span`` indexes the answer as it stands when the stream ends (the text only grows);
    ``skipped`` is set instead of ``verdicts`` for a sentence that needs no verification.
    ``report`` is the report on this sentence's claims alone.
    """

    index: int
    span: Span
    text: str
    verdicts: tuple[ClaimVerdict, ...]
    skipped: SkippedSentence | None
    report: Report


class StreamVerifier:
    """Wraps an :class:`AnswerVerifier` to verify text as it streams in."""

    def __init__(self, verifier: AnswerVerifier) -> None:
        self.verifier = verifier

    def run(
        self,
        deltas: Iterable[str],
        *,
        question: str | None = None,
        cited: Mapping[int, Chunk] | None = None,
    ) -> Generator[StreamedSentence, None, None]:
        """Yield each sentence, verified, as soon as it is complete (see the module docstring)."""
        text = ""
        done = 0
        blocks = cited_blocks(cited)
        for delta in deltas:
            text += delta
            finished = len(split_answer(text, blocks=blocks)) - 1  # the last one may still grow
            if finished > done:
                yield from self._verify(text, done, finished, question, cited)
                done = finished
        total = len(split_answer(text, blocks=blocks)) if text.strip() else 0
        if total > done:
            yield from self._verify(text, done, total, question, cited)

    def _verify(
        self,
        text: str,
        first: int,
        last: int,
        question: str | None,
        cited: Mapping[int, Chunk] | None,
    ) -> Iterator[StreamedSentence]:
        blocks = cited_blocks(cited)
        sentences = split_answer(text, blocks=blocks)[:last]
        prefix = text[: sentences[-1].span.end]
        claims = self.verifier.extractor.run(prefix, blocks=blocks)
        wanted = range(first, last)
        subset = ClaimSet(
            answer=prefix,
            claims=tuple(c for c in claims.claims if c.sentence in wanted),
            skipped=tuple(s for s in claims.skipped if s.sentence in wanted),
            sentences=len(wanted),
            method=claims.method,
            model=claims.model,
            prompt=claims.prompt,
        )
        report = self.verifier.verify_claims(subset, question=question, cited=cited)
        for index in wanted:
            sentence = sentences[index]
            yield StreamedSentence(
                index=index,
                span=sentence.span,
                text=sentence.span.of(text),
                verdicts=tuple(v for v in report.verdicts if v.claim.sentence == index),
                skipped=next((s for s in report.skipped if s.sentence == index), None),
                report=report,
            )


def sentence_pieces(answer: str) -> list[str]:
    """``answer`` cut after each of its sentences (joined, the pieces are ``answer``), so that
    :class:`StreamVerifier` verifies and yields a finished answer one sentence at a time.

    >>> sentence_pieces("Bees dance. They sting.")
    ['Bees dance.', ' They sting.']
    """
    ends = [sentence.span.end for sentence in split_answer(answer)][:-1]
    starts = [0, *ends]
    return [answer[start:end] for start, end in zip(starts, [*ends, len(answer)], strict=True)]


def merge_reports(answer: str, streamed: Sequence[StreamedSentence]) -> Report:
    """The report on the whole ``answer`` from its streamed sentences: their verdicts and
    skipped sentences in order, timings and call counts added up, every warning once."""
    reports: list[Report] = []
    for sentence in streamed:  # sentences verified together share one report
        if not any(sentence.report is seen for seen in reports):
            reports.append(sentence.report)
    if not reports:
        return Report(answer=answer, verdicts=())
    timings: dict[str, float] = {}
    calls: dict[str, int] = {}
    for report in reports:
        for stage, seconds in report.timings.items():
            timings[stage] = timings.get(stage, 0.0) + seconds
        for model, count in report.calls.items():
            calls[model] = calls.get(model, 0) + count
    last = reports[-1]
    return Report(
        answer=answer,
        verdicts=tuple(v for report in reports for v in report.verdicts),
        skipped=tuple(s for report in reports for s in report.skipped),
        question=last.question,
        layers=last.layers,
        rule=last.rule,
        query_mode=last.query_mode,
        claims_method=last.claims_method,
        verifier=last.verifier,
        verifier_version=last.verifier_version,
        timings=timings,
        calls=calls,
        config=last.config,
        warnings=tuple(dict.fromkeys(w for report in reports for w in report.warnings)),
        span_detector=last.span_detector,
    )
