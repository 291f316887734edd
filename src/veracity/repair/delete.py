"""Delete: take unsupported claims out of an answer, keeping each sentence whole.

A sentence whose every claim goes is deleted with the space after it. One claim of a compound
sentence goes with the words that join it to the claim before it ("..., and it X" goes from
"A does B, and it X."); a claim that opens its sentence goes with the words up to the next
claim, whose first letter is then capitalised. A claim that is not a verbatim part of its
sentence (the decomposer rewrote it) cannot be cut out without cutting the claims beside it:
such a claim is left, and :class:`Deleter` says why.

>>> from veracity.verify.claims import ClaimExtractor
>>> answer = "Bees dance. Karl von Frisch was born in 1886 and he died in 1983."
>>> claims = ClaimExtractor().run(answer).claims
>>> plan = Deleter().run(answer, claims, {2})
>>> answer[:plan.cuts[0].span.start] + plan.cuts[0].replacement + answer[plan.cuts[0].span.end:]
'Bees dance. Karl von Frisch was born in 1886.'
"""

from __future__ import annotations

import re
from collections.abc import Collection, Sequence
from dataclasses import dataclass

from veracity.repair.revise import Placement
from veracity.types import Claim, Span
from veracity.verify.claims.split import split_answer

__all__ = ["Deleter", "DeletionPlan"]


@dataclass(frozen=True)
class DeletionPlan:
    """The cuts to make (one per sentence touched, with the claims each removes) and the claims
    that could not be cut out, with why."""

    cuts: tuple[Placement, ...]
    removes: tuple[tuple[int, ...], ...]
    kept: dict[int, str]


class Deleter:
    """Plans the deletion of claims (by index) from an answer (see the module docstring)."""

    def run(self, answer: str, claims: Sequence[Claim], delete: Collection[int]) -> DeletionPlan:
        spans = {sentence.index: sentence.span for sentence in split_answer(answer)}
        by_sentence: dict[int, list[Claim]] = {}
        for claim in claims:
            by_sentence.setdefault(claim.sentence, []).append(claim)
        cuts: list[Placement] = []
        removes: list[tuple[int, ...]] = []
        kept: dict[int, str] = {}
        for number, members in sorted(by_sentence.items()):
            going = [claim for claim in members if claim.index in delete]
            if not going:
                continue
            sentence = spans[number]
            if len(going) == len(members):
                cuts.append(Placement(_with_space(answer, sentence), ""))
                removes.append(tuple(claim.index for claim in going))
                continue
            staying = [claim for claim in members if claim.index not in delete]
            whole = [
                claim
                for claim in going
                if claim.span == sentence or any(claim.span == other.span for other in staying)
            ]
            if (
                whole
                and all(
                    claim.span != sentence and claim.span.end <= sentence.end for claim in staying
                )
                and not any(claim.span == other.span for claim in whole for other in staying)
            ):
                # "A was born in X and he died in Y.": the second claim was rewritten ("he" ->
                # "A"), so it spans the sentence; the sentence keeps the verbatim parts.
                cuts.append(Placement(sentence, _kept_parts(answer, sentence, staying)))
                removes.append(tuple(claim.index for claim in going))
                continue
            for claim in whole:
                kept[claim.index] = (
                    "the claim is not a verbatim part of its sentence: cutting "
                    "it would cut the supported claims beside it"
                )
            parts = [claim for claim in going if claim not in whole]
            if not parts:
                continue
            cuts.append(Placement(sentence, _cut(answer, sentence, members, parts)))
            removes.append(tuple(claim.index for claim in parts))
        return DeletionPlan(tuple(cuts), tuple(removes), kept)


def _with_space(answer: str, span: Span) -> Span:
    end = span.end
    while end < len(answer) and answer[end] in " \t":
        end += 1
    if end < len(answer):
        return Span(span.start, end)
    start = span.start
    while start > 0 and answer[start - 1].isspace():
        start -= 1
    return Span(start, span.end)


_TAIL = re.compile(r"(?:\s*\[[^\]]*\])*\s*[.!?…]*(?:\s*\[[^\]]*\])*\s*\Z")


def _kept_parts(answer: str, sentence: Span, staying: Sequence[Claim]) -> str:
    """The verbatim parts that stay, joined by "and", with the sentence's end mark and
    citation markers."""
    parts = [
        claim.span.of(answer).strip().rstrip(",;:.!?…")
        for claim in sorted(staying, key=lambda claim: claim.span.start)
    ]
    text = sentence.of(answer)
    tail = _TAIL.search(text)
    joined = " and ".join(parts)
    joined = joined[:1].upper() + joined[1:]
    return joined + (tail.group() if tail is not None else "")


def _cut(answer: str, sentence: Span, members: Sequence[Claim], parts: Sequence[Claim]) -> str:
    """The sentence without ``parts`` and the words joining them to their neighbours."""
    ordered = sorted(members, key=lambda claim: claim.span.start)
    removed: list[tuple[int, int]] = []
    capitalise = False
    for part in parts:
        before = [c for c in ordered if c.span.end <= part.span.start]
        after = [c for c in ordered if c.span.start >= part.span.end]
        if before:
            removed.append((before[-1].span.end, part.span.end))
        elif after:
            removed.append((part.span.start, after[0].span.start))
            capitalise = True
        else:
            removed.append((part.span.start, part.span.end))
    text = []
    cursor = sentence.start
    for start, end in sorted(removed):
        if start > cursor:
            text.append(answer[cursor:start])
        cursor = max(cursor, end)
    text.append(answer[cursor : sentence.end])
    result = "".join(text)
    if capitalise:
        stripped = result.lstrip()
        lead = len(result) - len(stripped)
        result = result[:lead] + stripped[:1].upper() + stripped[1:]
    return result
