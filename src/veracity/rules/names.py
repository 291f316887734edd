"""Names: a claim's named entities looked up in its passages (``match`` or ``absent``, never
``mismatch``: a different name is the verifier's business), and the claim's values and names
against the facts of a knowledge base.
"""

from __future__ import annotations

from collections.abc import Sequence

from veracity.rules.context import WORD
from veracity.rules.entities import Entity, EntityRecognizer, find_entity
from veracity.rules.kb import KnowledgeBase, Mention
from veracity.rules.values import Value, compare, extract_values
from veracity.types import Chunk, Claim, Span, ValueCheck

__all__ = ["check_facts", "check_names"]


def check_names(
    claims: Sequence[Claim],
    evidence: Sequence[Sequence[Chunk]],
    names: Sequence[Sequence[Entity]],
    checks: list[list[ValueCheck]],
    *,
    recognizer: EntityRecognizer,
) -> None:
    """Each claim's names (``names[i]``) looked up in its passages; a ``match`` or ``absent``
    check for each is added to ``checks[i]`` (a name inside a value already checked is not)."""
    pending: list[tuple[int, Entity]] = []
    for i, (claim_names, chunks) in enumerate(zip(names, evidence, strict=True)):
        values = [check.span for check in checks[i]]
        seen: set[str] = set()
        for name in claim_names:
            if name.value in seen or any(
                name.span.start < v.end and v.start < name.span.end for v in values
            ):
                continue
            seen.add(name.value)
            hit = next(
                (
                    (chunk, span)
                    for chunk in chunks
                    if (span := find_entity(name.text, chunk.text)) is not None
                ),
                None,
            )
            if hit is not None:
                checks[i].append(_name_check(name, "match", hit[0], hit[1]))
            else:
                pending.append((i, name))
    if not pending:
        return
    # A passage name that is part of the claim's ("Frisch" for "Karl von Frisch"): the
    # passages' names are only needed now, for the claims that still miss one.
    chunks = list(dict.fromkeys(chunk for i, _ in pending for chunk in evidence[i]))
    found = dict(
        zip(
            chunks,
            recognizer.run([chunk.text for chunk in chunks], sentence_openers=True),
            strict=True,
        )
    )
    for i, name in pending:
        hit = next(
            (
                (chunk, other.span)
                for chunk in evidence[i]
                for other in found[chunk]
                if find_entity(other.text, name.text) is not None
            ),
            None,
        )
        if hit is not None:
            checks[i].append(_name_check(name, "match", hit[0], hit[1]))
        else:
            checks[i].append(ValueCheck("entity", name.text, name.span, name.value, "absent"))


def check_facts(
    claim: str, names: Sequence[Entity], kb: KnowledgeBase, *, slot_words: int
) -> list[ValueCheck]:
    """The claim's values and names against the facts of ``kb`` that it mentions."""
    claim_values = extract_values(claim)
    checks = []
    for mention in kb.mentions(claim):
        fact = mention.fact
        known = extract_values(fact.value)
        where = fact.source or kb.name
        if known:
            check = _fact_value(mention, known[0], claim_values, where)
        else:
            check = _fact_name(claim, mention, names, where, slot_words=slot_words)
        if check is not None:
            checks.append(check)
    return checks


def _fact_value(
    mention: Mention, known: Value, claim_values: Sequence[Value], where: str
) -> ValueCheck | None:
    candidates = [
        value
        for value in claim_values
        if compare(value, known, years_as_numbers=True) != "incomparable"
    ]
    if not candidates:
        return None
    cue = mention.cue
    value = min(
        candidates, key=lambda v: min(abs(v.span.start - cue.end), abs(cue.start - v.span.end))
    )
    relation = compare(value, known, years_as_numbers=True)
    if relation not in ("match", "conflict"):
        return None
    return ValueCheck(
        value.kind,
        value.text,
        value.span,
        value.value,
        "match" if relation == "match" else "mismatch",
        found=mention.fact.value,
        doc_id=where,
        source="knowledge_base",
    )


def _fact_name(
    claim: str, mention: Mention, names: Sequence[Entity], where: str, *, slot_words: int
) -> ValueCheck | None:
    fact = mention.fact
    span = find_entity(fact.value, claim)
    if span is not None:
        return ValueCheck(
            "entity",
            span.of(claim),
            span,
            fact.value.lower(),
            "match",
            found=fact.value,
            doc_id=where,
            source="knowledge_base",
        )
    for name in names:
        if name.span.start < mention.entity.end and mention.entity.start < name.span.end:
            continue  # the fact's own entity
        between = claim[mention.cue.end : name.span.start]
        if name.span.start >= mention.cue.end and len(WORD.findall(between)) < slot_words:
            return ValueCheck(
                "entity",
                name.text,
                name.span,
                name.value,
                "mismatch",
                found=fact.value,
                doc_id=where,
                source="knowledge_base",
            )
    return None


def _name_check(name: Entity, status: str, chunk: Chunk, span: Span) -> ValueCheck:
    return ValueCheck(
        "entity",
        name.text,
        name.span,
        name.value,
        "match" if status == "match" else "absent",
        found=span.of(chunk.text),
        doc_id=chunk.doc_id,
        evidence=Span(chunk.start + span.start, chunk.start + span.end),
    )
