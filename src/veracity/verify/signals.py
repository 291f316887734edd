"""A claim's signals for the decision, from what the answer pipeline found about it.

>>> from veracity.types import EvidenceJudgement
>>> judged = EvidenceJudgement("d#0", "d", "", (), None, 0, 16, "The sky is blue.", 0.2, 0.7, 0.1)
>>> signals = claim_signals("The sky is green.", (judged,), ())
>>> signals.readings[0].contradicted, round(signals.coverage, 2)
(0.7, 0.5)
"""

from __future__ import annotations

from collections.abc import Sequence

from veracity.decision import coverage, sentence_coverage
from veracity.types import ClaimSignals, EvidenceJudgement, Reading, ValueCheck

__all__ = ["claim_signals"]


def claim_signals(
    claim: str, judged: Sequence[EvidenceJudgement], checks: Sequence[ValueCheck]
) -> ClaimSignals:
    """The decision's inputs for ``claim``: one reading per passage read (failed ones left
    out), the rules' ``checks``, the coverage of the passage that supports it best, of all the
    passages read and of their sentence that holds most of it."""
    read = [j for j in judged if j.error is None]
    best = max(read, key=lambda j: j.supported, default=None)
    return ClaimSignals(
        readings=tuple(
            Reading(j.supported, j.contradicted, j.neither, can_state=j.cannot_state is None)
            for j in read
        ),
        checks=tuple(checks),
        coverage=None if best is None else coverage(claim, best.text),
        coverage_all=None if not read else coverage(claim, "\n\n".join(j.text for j in read)),
        coverage_sentence=None if not read else sentence_coverage(claim, [j.text for j in read]),
    )
