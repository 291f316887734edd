"""What the knowledge rules find about a claim: each value, token, name or polarity of it checked
against the evidence (:class:`ValueCheck`), and the kinds of finding a decision reads.

Spans follow the rule of :mod:`veracity.types`: a check's ``span`` indexes its claim, its
``evidence`` and ``sentence`` the evidence document.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal, get_args

from veracity._json import Fields
from veracity.types.spans import Span, _optional_span, _pair, _span

__all__ = ["FINDING_KINDS", "ValueCheck", "ValueStatus"]

#: How the value of a claim compares with the evidence (see :class:`ValueCheck`).
ValueStatus = Literal["match", "mismatch", "absent"]


@dataclass(frozen=True, slots=True)
class ValueCheck:
    """A number, date, amount, code-like token or named entity of a claim compared exactly with
    the evidence, or a polarity, scope or roles finding.

    ``kind`` is one of ``number``, ``percent``, ``money``, ``quantity``, ``date``, ``year``,
    ``code`` (a path, URL, identifier, flag, version or quoted string), ``entity``,
    ``negation``, ``antonym``, ``quantifier``, ``scope``, ``roles``; ``value`` the normalised
    form (``"1200"``, ``"2022-09-20"``, ``"usd 5000000"``, ``"/bin/sync"``); ``unit`` the base
    unit of a quantity, the currency of money or the class of a code token (``"version"``,
    ``"flag"``, ...).
    ``status``: ``match`` (the evidence states it), ``mismatch`` (the evidence sentence aligned
    with the claim states a different value in the same slot: ``found`` and ``evidence`` say
    which), ``absent`` (no source states it; ``found`` and ``evidence`` may name a different
    value that stands elsewhere, not in the aligned sentence).
    ``aligned`` says whether ``evidence`` lies in the evidence sentence aligned with the claim,
    in the claim value's slot (``None``: nothing found); ``sentence`` is that evidence
    sentence (document coordinates). ``source`` is ``"evidence"`` or ``"knowledge_base"``.
    :attr:`finding` names the kind of finding for a decision that reads it.
    """

    kind: str
    text: str
    span: Span
    value: str
    status: ValueStatus
    found: str | None = None
    doc_id: str | None = None
    evidence: Span | None = None
    source: str = "evidence"
    unit: str = ""
    aligned: bool | None = None
    sentence: Span | None = None

    @property
    def finding(self) -> str:
        """The kind of finding, one of :data:`FINDING_KINDS`: ``number`` (a number, percent or
        amount of money), ``date`` (a date or year), ``unit`` (a quantity with its unit),
        ``version``, ``option`` (a command-line flag), ``code`` (another code token),
        ``entity``, ``negation``, ``antonym``, ``quantifier``, ``roles`` (two phrases of the
        same verb in each other's places), ``scope`` (all, always, only beyond the evidence)."""
        if self.kind in ("number", "percent", "money"):
            return "number"
        if self.kind in ("date", "year"):
            return "date"
        if self.kind == "quantity":
            return "unit"
        if self.kind == "code":
            return {"version": "version", "flag": "option"}.get(self.unit, "code")
        return self.kind if self.kind in FINDING_KINDS else "code"

    def to_dict(self) -> dict[str, Any]:
        return {
            "kind": self.kind,
            "text": self.text,
            "span": _pair(self.span),
            "value": self.value,
            "status": self.status,
            "found": self.found,
            "doc_id": self.doc_id,
            "evidence": _pair(self.evidence),
            "source": self.source,
            "unit": self.unit,
            "finding": self.finding,
            "aligned": self.aligned,
            "sentence": _pair(self.sentence),
        }


#: The kinds of knowledge-rule findings (:attr:`ValueCheck.finding`).
FINDING_KINDS: tuple[str, ...] = (
    "number",
    "date",
    "unit",
    "version",
    "option",
    "code",
    "entity",
    "negation",
    "antonym",
    "quantifier",
    "roles",
    "scope",
)


def _value_check(fields: Fields) -> ValueCheck:
    # ``unit``, ``aligned`` and ``sentence`` are read when present (older reports lack them).
    return ValueCheck(
        kind=fields.text("kind"),
        text=fields.text("text"),
        span=_span(fields, "span"),
        value=fields.text("value"),
        status=fields.choice("status", get_args(ValueStatus)),
        found=fields.optional_text("found"),
        doc_id=fields.optional_text("doc_id"),
        evidence=_optional_span(fields, "evidence"),
        source=fields.text("source"),
        unit=fields.text("unit") if fields.has("unit") else "",
        aligned=(
            fields.boolean("aligned")
            if fields.has("aligned") and fields.value("aligned") is not None
            else None
        ),
        sentence=_optional_span(fields, "sentence") if fields.has("sentence") else None,
    )
