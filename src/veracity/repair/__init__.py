"""Repair: research and revise what the sources do not support (RARR), delete it, or refuse.

:func:`open_repairer` makes the pipeline as a :class:`~veracity.config.RepairConfig` says (see
:mod:`veracity.repair.open`); :func:`make_repairer` composes parts you made yourself.

>>> from veracity.config import RepairConfig
>>> from veracity.models import Models
>>> from veracity.repair import open_repairer
>>> config = RepairConfig().with_options(policy="revise", sources=["notes.md"])
>>> result = open_repairer(config, Models()).run(
...     "Karl von Frisch won the Nobel Prize in 1983.")               # doctest: +SKIP
>>> result.text, [edit.method for edit in result.edits]             # doctest: +SKIP
('Karl von Frisch won the Nobel Prize in 1973.', ['value_substitution@1'])
"""

from veracity.repair.agreement import AGREEMENTS, agreement, mismatches
from veracity.repair.delete import Deleter, DeletionPlan
from veracity.repair.formats import render_like
from veracity.repair.measure import attribution_report, pres_lev, preservation
from veracity.repair.open import open_repairer
from veracity.repair.pipeline import POLICIES, Policy, Repairer, make_repairer
from veracity.repair.questions import QuestionMaker, parse_questions, rule_questions
from veracity.repair.research import Research, Researcher
from veracity.repair.result import (
    ACTIONS,
    Attribution,
    ClaimRepair,
    Edit,
    Preservation,
    RepairResult,
)
from veracity.repair.revise import (
    SUBSTITUTION_RULE,
    EditLimits,
    LLMEditor,
    ValueSubstitution,
    parse_edit,
    place,
)

__all__ = [
    "ACTIONS",
    "AGREEMENTS",
    "POLICIES",
    "SUBSTITUTION_RULE",
    "Attribution",
    "ClaimRepair",
    "Deleter",
    "DeletionPlan",
    "Edit",
    "EditLimits",
    "LLMEditor",
    "Policy",
    "Preservation",
    "QuestionMaker",
    "RepairResult",
    "Repairer",
    "Research",
    "Researcher",
    "ValueSubstitution",
    "agreement",
    "attribution_report",
    "make_repairer",
    "mismatches",
    "open_repairer",
    "parse_edit",
    "parse_questions",
    "place",
    "pres_lev",
    "preservation",
    "render_like",
    "rule_questions",
]
