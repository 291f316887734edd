"""Agreement: does the research evidence agree with a claim?

Read off the verdict the answer verifier gives the claim on its research evidence (the
verifier's three-way scores and the knowledge layer's exact value comparison, combined by the
verifier's rule):

- ``conflict``: some passages support the claim and others contradict it (no edit: a person
  decides, with both sides);
- ``agrees``: supported;
- ``disagrees``: contradicted (by the verifier or by a mismatching value);
- ``missing``: no passage supports or contradicts it;
- ``error``: the claim could not be judged.

A passage that cannot state the claim (a heading, a title, a fragment without the claim's
subject) never contradicts it: the verifier's NLI layer drops it from the contradicting side
(:mod:`veracity.verify.fragments`), so it cannot make a claim ``disagrees`` or ``conflict``.

>>> from veracity.types import Claim, ClaimVerdict, Span
>>> agreement(ClaimVerdict(Claim(0, "Bees dance.", Span(0, 11), 0), "contradicted", ()))
'disagrees'
"""

from __future__ import annotations

from typing import Literal

from veracity.types import ClaimVerdict, ValueCheck

__all__ = ["AGREEMENTS", "Agreement", "agreement", "mismatches"]

Agreement = Literal["agrees", "disagrees", "conflict", "missing", "error"]
AGREEMENTS: tuple[Agreement, ...] = ("agrees", "disagrees", "conflict", "missing", "error")


def agreement(verdict: ClaimVerdict) -> Agreement:
    """How the evidence of ``verdict`` stands to its claim (see the module docstring)."""
    if verdict.label == "error":
        return "error"
    if verdict.contested:
        return "conflict"
    if verdict.label == "supported":
        return "agrees"
    if verdict.label == "contradicted":
        return "disagrees"
    return "missing"


#: A negation the claim states with one of these words is not a verb phrase: swapping in the
#: evidence's words would not read ("available even without SSL" -> "available even SSL").
_NOUN_NEGATIONS = ("without ", "no ", "none ", "neither ", "nor ", "nothing ", "nobody ")


def mismatches(verdict: ClaimVerdict) -> tuple[ValueCheck, ...]:
    """The knowledge layer's value checks that the evidence contradicts, with the value it
    states instead (those a value substitution can fix: not a name, nor a negation stated
    without a verb, such as "without SSL")."""
    return tuple(
        value
        for value in verdict.values
        if value.status == "mismatch"
        and value.found
        and value.kind != "entity"
        and not (value.kind == "negation" and value.text.lower().startswith(_NOUN_NEGATIONS))
    )
