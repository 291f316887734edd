"""Is an answer grounded in its sources? One pass/fail decision with the reasons a reader checks.

:class:`GroundingCheck` verifies an answer against source texts, files or passages (the answer
pipeline of :mod:`veracity.verify.pipeline`) and decides by one of two rules:

- ``"supported"``: at least ``threshold`` of the answer's claims are supported (1.0: all);
- ``"no-contradicted"``: no claim is contradicted (unsupported ones pass).

An answer with no claim to check passes only under ``"no-contradicted"``: under
``"supported"`` an answer that says nothing checkable is not shown to be grounded. A claim whose
verification failed (label ``error``) always fails the check: a failure is never a pass.
:meth:`Grounding.explain` names every failing claim, its label and scores, and the evidence span
behind it, which is what the pytest plugin (:mod:`veracity.adapters.pytest_plugin`) prints.

>>> from veracity.testing import TablePairScorer
>>> scorer = TablePairScorer({("Honey bees dance.", "Honey bees dance."): (0.9, 0.0, 0.1)})
>>> check = GroundingCheck(scorer, layers=("nli",))
>>> check.run("Honey bees dance.", ["Honey bees dance."]).passed
True
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from veracity import defaults
from veracity.config import VerifyConfig
from veracity.errors import InputError, OptionError
from veracity.models.pairs.base import PairScorer
from veracity.types import Chunk, ClaimVerdict, Document, EvidenceJudgement, Report
from veracity.verify.gather import source_chunks, source_documents
from veracity.verify.pipeline import AnswerVerifier, make_answer_verifier

__all__ = [
    "GROUNDING_MODES",
    "Grounding",
    "GroundingCheck",
    "GroundingMode",
    "Source",
    "check_options",
    "decide",
]

GroundingMode = Literal["supported", "no-contradicted"]
GROUNDING_MODES: tuple[GroundingMode, ...] = ("supported", "no-contradicted")
#: A source: a passage's text, a file or folder (a :class:`~pathlib.Path`), a document or a
#: passage of an index.
Source = str | Path | Document | Chunk
#: Characters of an evidence passage quoted in an explanation.
QUOTE_CHARS = 160


@dataclass(frozen=True)
class Grounding:
    """The decision on one answer: ``passed``, the claims that failed it, and the whole report."""

    passed: bool
    mode: GroundingMode
    threshold: float
    supported_share: float
    failing: tuple[ClaimVerdict, ...]
    report: Report

    def explain(self, *, every_claim: bool = False) -> str:
        """A reader's account: the decision, then each failing claim (``every_claim``: each
        claim) with its label, scores and evidence span."""
        claims = len(self.report.verdicts)
        if self.mode == "supported":
            rule = (
                "every claim supported"
                if self.threshold >= 1.0
                else f"at least {self.threshold:.0%} of the claims supported"
            )
        else:
            rule = "no claim contradicted"
        head = (
            f"{'grounded' if self.passed else 'not grounded'}: "
            f"{self.report.count('supported')} of {claims} claims supported, "
            f"{self.report.count('contradicted')} contradicted (needed: {rule})"
        )
        if not claims:
            head += "; the answer has no claim to check"
        shown = self.report.verdicts if every_claim else self.failing
        return "\n".join([head, *(line for verdict in shown for line in _claim_lines(verdict))])

    def to_dict(self) -> dict[str, Any]:
        return {
            "passed": self.passed,
            "mode": self.mode,
            "threshold": self.threshold,
            "supported_share": self.supported_share,
            "failing": [verdict.claim.index for verdict in self.failing],
            "report": self.report.to_dict(),
        }


class GroundingCheck:
    """Verifies an answer against its sources and decides whether it is grounded.

    ``scorer`` is any pair verifier (``make_verifier("embedded")`` for the shipped one);
    ``threshold`` the share of claims that must be supported in mode ``"supported"``;
    ``layers`` the answer pipeline's layers (``nli`` and ``knowledge`` by default).
    ``verifier`` replaces the answer pipeline whole, for callers who built their own.
    """

    def __init__(
        self,
        scorer: PairScorer,
        *,
        mode: GroundingMode = "supported",
        threshold: float = 1.0,
        layers: Sequence[str] = defaults.VERIFY_LAYERS,
        verifier: AnswerVerifier | None = None,
    ) -> None:
        self.mode, self.threshold = check_options(mode, threshold)
        self.scorer = scorer
        self.layers = tuple(layers)
        self.verifier = verifier

    def run(
        self, answer: str, sources: Sequence[Source], *, question: str | None = None
    ) -> Grounding:
        """The decision on ``answer`` checked against ``sources`` (see :data:`Source`)."""
        if isinstance(sources, str | Path | Document | Chunk):
            raise InputError("sources must be a list: wrap the one source as [source]")
        passages = _passages(sources)
        verifier = self.verifier or make_answer_verifier(
            self.scorer, VerifyConfig().with_options(layers=self.layers), sources=passages
        )
        report = verifier.run(answer, question=question)
        return decide(report, mode=self.mode, threshold=self.threshold)


def check_options(mode: str, threshold: float) -> tuple[GroundingMode, float]:
    """``mode`` and ``threshold`` if they are allowed; raises :class:`OptionError` if not."""
    if mode not in GROUNDING_MODES:
        raise OptionError("mode", mode, f"one of {', '.join(GROUNDING_MODES)}")
    if (
        isinstance(threshold, bool)
        or not isinstance(threshold, int | float)
        or not 0.0 < threshold <= 1.0
    ):
        raise OptionError(
            "threshold",
            threshold,
            "a share in (0, 1]",
            "1.0 asks for every claim to be supported, 0.8 for four in five.",
        )
    return mode, float(threshold)


def decide(
    report: Report, *, mode: GroundingMode = "supported", threshold: float = 1.0
) -> Grounding:
    """The decision on a finished report (see the module docstring for the rules)."""
    verdicts = report.verdicts
    supported = sum(verdict.label == "supported" for verdict in verdicts)
    share = supported / len(verdicts) if verdicts else 0.0
    errors = tuple(verdict for verdict in verdicts if verdict.label == "error")
    if mode == "supported":
        failing = tuple(verdict for verdict in verdicts if verdict.label != "supported")
        passed = bool(verdicts) and share >= threshold and not errors
    else:
        failing = tuple(
            verdict for verdict in verdicts if verdict.label in ("contradicted", "error")
        )
        passed = not failing
    return Grounding(
        passed=passed,
        mode=mode,
        threshold=threshold,
        supported_share=share,
        failing=failing,
        report=report,
    )


def _passages(sources: Sequence[Source]) -> tuple[Chunk, ...]:
    if not sources:
        raise InputError("no sources given: pass the passages the answer should stand on")
    chunks: list[Chunk] = []
    texts = [source for source in sources if isinstance(source, str)]
    paths = [source for source in sources if isinstance(source, Path)]
    documents = [source for source in sources if isinstance(source, Document)]
    unknown = [
        type(source).__name__
        for source in sources
        if not isinstance(source, str | Path | Document | Chunk)
    ]
    if unknown:
        raise InputError(
            f"a source of type {unknown[0]} cannot be read: give texts (str), "
            f"files or folders (pathlib.Path), Documents or Chunks"
        )
    documents.extend(source_documents(paths=paths, texts=texts))
    chunks.extend(source_chunks(documents))
    chunks.extend(source for source in sources if isinstance(source, Chunk))
    return tuple(chunks)


def _claim_lines(verdict: ClaimVerdict) -> list[str]:
    claim = verdict.claim
    best = max(verdict.evidence, key=lambda item: item.supported, default=None)
    scores = (
        ""
        if best is None
        else (f" (supported {best.supported:.2f}, contradicted {best.contradicted:.2f})")
    )
    lines = [
        f"- claim {claim.index + 1} [{claim.span.start}:{claim.span.end}] "
        f"{claim.text!r}: {verdict.label}{scores}"
    ]
    if verdict.label == "unchecked":
        lines.append("    no layer could judge it (nothing to compare)")
    closest = "supported by" if verdict.label == "supported" else "closest evidence"
    for title, items in (
        ("contradicted by", verdict.anti_citations[:1]),
        (closest, () if verdict.anti_citations or best is None else (best,)),
    ):
        lines.extend(f"    {title} {_where(item)}" for item in items)
    lines.extend(
        f"    {value.kind}: the claim says {value.text!r}, the source "
        f"{value.doc_id} [{value.evidence.start}:{value.evidence.end}] "
        f"says {value.found!r}"
        for value in verdict.values
        if value.status == "mismatch" and value.evidence
    )
    errors = {result.error for result in verdict.layers if result.error}
    lines.extend(f"    failed: {error}" for error in sorted(errors))
    return lines


def _where(item: EvidenceJudgement) -> str:
    span = item.evidence[0] if item.evidence else None
    start, end = (span.start, span.end) if span else (item.start, item.end)
    quoted = (
        item.text if span is None else item.text[span.start - item.start : span.end - item.start]
    )
    if len(quoted) > QUOTE_CHARS:
        quoted = quoted[: QUOTE_CHARS - 1] + "…"
    return f"{item.doc_id} [{start}:{end}] {quoted!r}"
