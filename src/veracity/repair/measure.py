"""How much a repair kept, and which passages its answer rests on.

Preservation is RARR's Pres_Lev, ``max(0, 1 - Levenshtein(x, y) / len(x))``, computed with
rapidfuzz's Levenshtein distance over characters and over words (``\\w+`` runs and single
punctuation marks), so that replacing one word counts once at word level.

>>> preservation("He won in 1983.", "He won in 1973.").chars
0.9333333333333333
>>> preservation("He won in 1983.", "He won in 1973.").words
0.8
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from rapidfuzz.distance import Levenshtein

from veracity import defaults
from veracity.repair.result import Preservation
from veracity.types import EvidenceJudgement, Report

__all__ = ["attribution_report", "pres_lev", "preservation", "word_pieces"]

_PIECE = re.compile(r"\w+|[^\w\s]")


def word_pieces(text: str) -> list[str]:
    """The words and punctuation marks of ``text``, in order."""
    return _PIECE.findall(text)


def pres_lev(original: Sequence[str] | str, revised: Sequence[str] | str) -> float:
    """``max(0, 1 - Levenshtein(original, revised) / len(original))``; 1.0 for two empties."""
    if len(original) == 0:
        return 1.0 if len(revised) == 0 else 0.0
    return max(0.0, 1.0 - Levenshtein.distance(original, revised) / len(original))


def preservation(original: str, revised: str) -> Preservation:
    """Pres_Lev of ``revised`` against ``original`` over characters and over words."""
    return Preservation(
        pres_lev(original, revised), pres_lev(word_pieces(original), word_pieces(revised))
    )


def attribution_report(
    report: Report | None, *, limit: int = defaults.REPAIR_ATTRIBUTION_PASSAGES
) -> tuple[EvidenceJudgement, ...]:
    """At most ``limit`` passages that together support the most claims of ``report``.

    Greedy set cover over each supported claim's citations: the passage supporting most of
    the claims not yet covered first (on a tie, the higher support).
    """
    if report is None:
        return ()
    best: dict[str, EvidenceJudgement] = {}
    covers: dict[str, set[int]] = {}
    for position, verdict in enumerate(report.verdicts):
        if verdict.label != "supported":
            continue
        for judgement in verdict.citations:
            covers.setdefault(judgement.chunk_id, set()).add(position)
            kept = best.get(judgement.chunk_id)
            if kept is None or judgement.supported > kept.supported:
                best[judgement.chunk_id] = judgement
    chosen: list[EvidenceJudgement] = []
    left = set().union(*covers.values()) if covers else set()
    while left and len(chosen) < limit:
        chunk_id = max(covers, key=lambda cid: (len(covers[cid] & left), best[cid].supported))
        if not covers[chunk_id] & left:
            break
        chosen.append(best[chunk_id])
        left -= covers.pop(chunk_id)
    return tuple(chosen)
