"""The knowledge layer: a claim's numbers, dates, amounts and names compared exactly.

For each claim, every value (:func:`~veracity.verify.knowledge.values.extract_values`) and,
with ``entities=True``, every named entity (:class:`~veracity.verify.knowledge.entities.
EntityRecognizer`) is looked up in the claim's passages:

- a value is ``match`` when some passage states an equal value of a comparable kind, at the
  precision the claim gives (see :func:`~veracity.verify.knowledge.values.compare`: "2022"
  matches "20 Sept 2022", "1,200" matches "1.2 thousand");
- ``mismatch`` when no passage matches but one states a conflicting value of the same kind
  *in a comparable context*: the passage value's sentence has, within ``context_words``
  content words of it, a content word that the claim has within ``context_words`` of its value
  (numbers, units and stopwords do not count; words are stemmed). For a plain number the
  counted thing must agree too: when both numbers are followed by content words (the first two
  within three words), they share one ("60,000 bees" is not contradicted by "60 frames"),
  and a number written like a year (four digits, 1000 to 2100, no comma) conflicts only with
  another such number ("three prizes" is not contradicted by "the 1911 prize").
  Money must be in the same currency and quantities in the same base unit to conflict at
  all. Of several conflicting values, the one whose context shares most words is reported
  (on a tie, the one nearest to those words);
- ``absent`` otherwise;
- a name is ``match`` when a passage contains it as whole words (case-insensitive, "U.S." =
  "US", see :func:`~veracity.verify.knowledge.entities.entity_key`), or when a name found in
  a passage is part of it ("Karl von Frisch" vs a passage that says "Frisch"); ``absent``
  otherwise. Names never ``mismatch``: a different name is the verifier's business.

With a :class:`~veracity.verify.knowledge.kb.KnowledgeBase`, each fact the claim mentions
(its entity and attribute) is compared with the claim's value of a comparable kind nearest to
the attribute word (a four-digit number of the knowledge base may conflict with a year); a
fact whose value is a name matches when the claim contains it, and mismatches when another
name of the claim fills the attribute (within ``KNOWLEDGE_SLOT_WORDS`` words after the
attribute word: "born in Munich"). These checks have ``source="knowledge_base"`` and ``doc_id``
names the fact's line; a value that the knowledge base confirms counts as matched even when
the passages do not state it.

The claim's :class:`~veracity.types.LayerResult`:

- ``contradicted`` (flagged, risk ``KNOWLEDGE_MISMATCH_RISK``) when any check mismatches;
- else ``unsupported`` (flagged) when a value is absent (risk ``KNOWLEDGE_ABSENT_VALUE_RISK``)
  or only a name is absent (the lower ``KNOWLEDGE_ABSENT_ENTITY_RISK``);
- else ``supported`` (risk ``KNOWLEDGE_MATCH_RISK``);
- a claim without any value or name: ``supported``, not flagged, risk ``None``, detail
  ``"no values to check"``: the layer abstains and the combiner ignores it.

>>> from veracity.types import Chunk, Claim, Span
>>> claim = Claim(0, "The colony has 60,000 bees.", Span(0, 27), 0)
>>> passage = Chunk("hive#0", "hive.md", 0, "In 2019 the colony had 50,000 bees.", 0, 35)
>>> result = KnowledgeLayer(entities=False).run([claim], [[passage]])
>>> result.results[0].label, result.values[0][0].found
('contradicted', '50,000')
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from veracity import defaults
from veracity.errors import InputError, OptionError
from veracity.text.sentences import split_sentences
from veracity.text.words import STOPWORDS, stem
from veracity.types import Chunk, Claim, LayerResult, Span, ValueCheck
from veracity.verify.knowledge.entities import Entity, EntityRecognizer, NerBackend, find_entity
from veracity.verify.knowledge.kb import KnowledgeBase, Mention
from veracity.verify.knowledge.values import Value, compare, extract_values, year_like

__all__ = ["KnowledgeLayer", "KnowledgeResult"]

_WORD = re.compile(r"[^\W_]+(?:['’][^\W_]+)*")
#: How many words after a number name the thing it counts ("60,000 worker bees").
_HEAD_WORDS = 3
_HEADS = 2


@dataclass(frozen=True)
class KnowledgeResult:
    """The knowledge layer's finding on each claim and its value checks, in claim order.

    ``ner`` names the entity recogniser that ran: ``"spacy"``, ``"rules"`` or ``"none"``.
    """

    results: tuple[LayerResult, ...]
    values: tuple[tuple[ValueCheck, ...], ...]
    ner: str

    def __len__(self) -> int:
        return len(self.results)

    @property
    def flagged(self) -> int:
        """How many claims the layer flags."""
        return sum(result.flagged for result in self.results)


@dataclass(frozen=True, slots=True)
class _Context:
    """Stemmed content words near a value (``window``, each with its distance in words) and
    right after it (``heads``)."""

    window: Mapping[str, int]
    heads: frozenset[str]


@dataclass(frozen=True, slots=True)
class _Found:
    """A value of a passage with its context."""

    value: Value
    context: _Context


@dataclass(frozen=True)
class _Passage:
    chunk: Chunk
    values: tuple[_Found, ...]


class KnowledgeLayer:
    """Compares the values and names of claims with their passages (see the module docstring).

    ``entities`` turns the named-entity checks on; ``ner`` picks the recogniser (``auto``:
    spaCy when the ``[nlp]`` extra is installed, rules otherwise), or ``recognizer`` gives one
    ready-made; ``knowledge_base`` adds the checks against known facts (names are then found
    even with ``entities=False``); ``context_words`` is the context width for a mismatch and
    ``slot_words`` the reach of a knowledge-base attribute word.

    >>> from veracity.types import Claim, Span
    >>> from veracity.verify.knowledge.kb import Fact
    >>> kb = KnowledgeBase([Fact("Eiffel Tower", "height", "330 m", "facts.csv:2")])
    >>> layer = KnowledgeLayer(ner="rules", knowledge_base=kb).load()
    >>> text = "The Eiffel Tower is 300 metres tall."
    >>> result = layer.run([Claim(0, text, Span(0, len(text)), 0)], [[]])
    >>> result.results[0].detail
    "'300 metres' contradicts the knowledge base, which says '330 m' (facts.csv:2)"
    """

    name = "knowledge"

    def __init__(
        self,
        *,
        entities: bool = True,
        knowledge_base: KnowledgeBase | None = None,
        ner: NerBackend = defaults.KNOWLEDGE_NER,  # type: ignore[assignment]
        context_words: int = defaults.KNOWLEDGE_CONTEXT_WORDS,
        slot_words: int = defaults.KNOWLEDGE_SLOT_WORDS,
        recognizer: EntityRecognizer | None = None,
    ) -> None:
        if context_words < 1:
            raise OptionError("context_words", context_words, "a positive number of words",
                              f"The default is {defaults.KNOWLEDGE_CONTEXT_WORDS}.")
        if slot_words < 1:
            raise OptionError("slot_words", slot_words, "a positive number of words",
                              f"The default is {defaults.KNOWLEDGE_SLOT_WORDS}.")
        if knowledge_base is not None and not isinstance(knowledge_base, KnowledgeBase):
            raise OptionError("knowledge_base", type(knowledge_base).__name__,
                              "a KnowledgeBase", "Read a file with KnowledgeBase.from_file(path).")
        self.entities = entities
        self.knowledge_base = knowledge_base
        self.context_words = context_words
        self.slot_words = slot_words
        # The recogniser validates ``ner``; it loads nothing until load().
        self.recognizer = recognizer or EntityRecognizer(ner=ner)

    @property
    def _needs_names(self) -> bool:
        return self.entities or self.knowledge_base is not None

    def load(self) -> KnowledgeLayer:
        """Load the entity recogniser (spaCy, when it is used); repeat calls are free."""
        if self._needs_names:
            self.recognizer.load()
        return self

    def run(self, claims: Sequence[Claim],
            evidence: Sequence[Sequence[Chunk]]) -> KnowledgeResult:
        """Check each claim against its passages: ``evidence[i]`` are claim ``i``'s passages."""
        if len(claims) != len(evidence):
            raise InputError(f"{len(claims)} claims but {len(evidence)} evidence lists: give "
                             "one list of passages per claim (an empty list when there is none)")
        self.load()
        names: tuple[tuple[Entity, ...], ...] = tuple(() for _ in claims)
        if self._needs_names:
            names = self.recognizer.run([claim.text for claim in claims])
        passages: dict[Chunk, _Passage] = {}
        checks: list[list[ValueCheck]] = []
        for claim, chunks in zip(claims, evidence, strict=True):
            found = [self._passage(chunk, passages) for chunk in chunks]
            claim_values = extract_values(claim.text)
            mine = [self._check_value(claim.text, value, claim_values, found)
                    for value in claim_values]
            checks.append(mine)
        if self.entities:
            self._check_names(claims, evidence, names, checks)
        if self.knowledge_base is not None:
            for claim, claim_names, mine in zip(claims, names, checks, strict=True):
                mine.extend(self._check_facts(claim.text, claim_names))
        values = tuple(tuple(sorted(mine, key=lambda c: (c.span.start, c.source)))
                       for mine in checks)
        results = tuple(self._result(mine) for mine in values)
        ner = self.recognizer.backend if self._needs_names else "none"
        return KnowledgeResult(results, values, ner)

    # --- values -------------------------------------------------------------------------------

    def _passage(self, chunk: Chunk, cache: dict[Chunk, _Passage]) -> _Passage:
        if chunk not in cache:
            values = extract_values(chunk.text)
            sentences = split_sentences(chunk.text) or [Span(0, len(chunk.text))]
            found = []
            for value in values:
                sentence = next((s for s in sentences
                                 if s.start <= value.span.start < s.end), sentences[-1])
                found.append(_Found(value, self._context(chunk.text, value, values, sentence)))
            cache[chunk] = _Passage(chunk, tuple(found))
        return cache[chunk]

    def _context(self, text: str, value: Value, values: Sequence[Value],
                 bounds: Span) -> _Context:
        taken = [other.span for other in values]
        before: list[tuple[str, int]] = []
        after: list[tuple[str, int]] = []
        heads: list[str] = []
        words = list(_WORD.finditer(text, bounds.start, max(bounds.end, value.span.end)))
        first = next((i for i, m in enumerate(words) if m.end() > value.span.start), len(words))
        last = next((i for i, m in enumerate(words) if m.start() >= value.span.end), len(words))
        for i, match in enumerate(words):
            word = match.group().lower().replace("’", "'")
            if (word in STOPWORDS or not any(c.isalpha() for c in word)
                    or any(s.start <= match.start() < s.end for s in taken)):
                continue
            if i < first:
                before.append((stem(word), first - i))
            elif i >= last:
                after.append((stem(word), i - last + 1))
                if i - last < _HEAD_WORDS and len(heads) < _HEADS:
                    heads.append(stem(word))
        width = self.context_words
        window: dict[str, int] = {}
        for word, distance in before[-width:] + after[:width]:
            window[word] = min(distance, window.get(word, distance))
        return _Context(window, frozenset(heads))

    def _check_value(self, claim: str, value: Value, claim_values: Sequence[Value],
                     passages: Sequence[_Passage]) -> ValueCheck:
        context = self._context(claim, value, claim_values, Span(0, len(claim)))
        best: tuple[tuple[int, int], _Passage, _Found] | None = None
        for passage in passages:
            for other in passage.values:
                relation = compare(value, other.value)
                if relation == "match":
                    return _value_check(value, "match", passage.chunk, other.value)
                if relation != "conflict":
                    continue
                shared = context.window.keys() & other.context.window.keys()
                if not shared:
                    continue
                if (value.kind == "number" and context.heads and other.context.heads
                        and not context.heads & other.context.heads):
                    continue  # "60,000 bees" against "60 frames": not the same thing
                if year_like(value) != year_like(other.value):
                    continue  # "three prizes" against "the 1911 prize": a year, not a count
                # Most shared words first, then the passage value closest to them.
                rank = (len(shared), -sum(other.context.window[word] for word in shared))
                if best is None or rank > best[0]:
                    best = (rank, passage, other)
        if best is not None:
            return _value_check(value, "mismatch", best[1].chunk, best[2].value)
        return ValueCheck(value.kind, value.text, value.span, value.value, "absent")

    # --- names --------------------------------------------------------------------------------

    def _check_names(self, claims: Sequence[Claim], evidence: Sequence[Sequence[Chunk]],
                     names: Sequence[Sequence[Entity]], checks: list[list[ValueCheck]]) -> None:
        pending: list[tuple[int, Entity]] = []
        for i, (claim_names, chunks) in enumerate(zip(names, evidence, strict=True)):
            values = [check.span for check in checks[i]]
            seen: set[str] = set()
            for name in claim_names:
                if name.value in seen or any(name.span.start < v.end and v.start < name.span.end
                                             for v in values):
                    continue
                seen.add(name.value)
                hit = next(((chunk, span) for chunk in chunks
                            if (span := find_entity(name.text, chunk.text)) is not None), None)
                if hit is not None:
                    checks[i].append(_name_check(name, "match", hit[0], hit[1]))
                else:
                    pending.append((i, name))
        if not pending:
            return
        # A passage name that is part of the claim's ("Frisch" for "Karl von Frisch"): the
        # passages' names are only needed now, for the claims that still miss one.
        chunks = list(dict.fromkeys(chunk for i, _ in pending for chunk in evidence[i]))
        found = dict(zip(chunks, self.recognizer.run([chunk.text for chunk in chunks],
                                                     sentence_openers=True), strict=True))
        for i, name in pending:
            hit = next(((chunk, other.span) for chunk in evidence[i] for other in found[chunk]
                        if find_entity(other.text, name.text) is not None), None)
            if hit is not None:
                checks[i].append(_name_check(name, "match", hit[0], hit[1]))
            else:
                checks[i].append(ValueCheck("entity", name.text, name.span, name.value,
                                            "absent"))

    # --- knowledge base -----------------------------------------------------------------------

    def _check_facts(self, claim: str, names: Sequence[Entity]) -> list[ValueCheck]:
        kb = self.knowledge_base
        if kb is None:  # pragma: no cover - the caller checks
            return []
        claim_values = extract_values(claim)
        checks = []
        for mention in kb.mentions(claim):
            fact = mention.fact
            known = extract_values(fact.value)
            where = fact.source or kb.name
            if known:
                check = self._fact_value(mention, known[0], claim_values, where)
            else:
                check = self._fact_name(claim, mention, names, where)
            if check is not None:
                checks.append(check)
        return checks

    @staticmethod
    def _fact_value(mention: Mention, known: Value, claim_values: Sequence[Value],
                    where: str) -> ValueCheck | None:
        candidates = [value for value in claim_values
                      if compare(value, known, years_as_numbers=True) != "incomparable"]
        if not candidates:
            return None
        cue = mention.cue
        value = min(candidates, key=lambda v: min(abs(v.span.start - cue.end),
                                                  abs(cue.start - v.span.end)))
        relation = compare(value, known, years_as_numbers=True)
        if relation not in ("match", "conflict"):
            return None
        return ValueCheck(value.kind, value.text, value.span, value.value,
                          "match" if relation == "match" else "mismatch",
                          found=mention.fact.value, doc_id=where, source="knowledge_base")

    def _fact_name(self, claim: str, mention: Mention, names: Sequence[Entity],
                   where: str) -> ValueCheck | None:
        fact = mention.fact
        span = find_entity(fact.value, claim)
        if span is not None:
            return ValueCheck("entity", span.of(claim), span, fact.value.lower(), "match",
                              found=fact.value, doc_id=where, source="knowledge_base")
        for name in names:
            if name.span.start < mention.entity.end and mention.entity.start < name.span.end:
                continue  # the fact's own entity
            between = claim[mention.cue.end:name.span.start]
            if name.span.start >= mention.cue.end and len(_WORD.findall(between)) < \
                    self.slot_words:
                return ValueCheck("entity", name.text, name.span, name.value, "mismatch",
                                  found=fact.value, doc_id=where, source="knowledge_base")
        return None

    # --- verdict ------------------------------------------------------------------------------

    @staticmethod
    def _result(checks: Sequence[ValueCheck]) -> LayerResult:
        if not checks:
            return LayerResult("knowledge", "supported", False, None, "no values to check")
        mismatches = [c for c in checks if c.status == "mismatch"]
        if mismatches:
            return LayerResult("knowledge", "contradicted", True,
                               defaults.KNOWLEDGE_MISMATCH_RISK,
                               "; ".join(_contradiction(c) for c in mismatches))
        confirmed = {(c.span.start, c.span.end) for c in checks if c.status == "match"}
        absent = [c for c in checks if c.status == "absent"
                  and (c.span.start, c.span.end) not in confirmed]
        values = [c.text for c in absent if c.kind != "entity"]
        names = [c.text for c in absent if c.kind == "entity"]
        if values or names:
            parts = []
            if values:
                parts.append("not stated in the evidence: " + ", ".join(map(repr, values)))
            if names:
                parts.append("names not in the evidence: " + ", ".join(map(repr, names)))
            risk = (defaults.KNOWLEDGE_ABSENT_VALUE_RISK if values
                    else defaults.KNOWLEDGE_ABSENT_ENTITY_RISK)
            return LayerResult("knowledge", "unsupported", True, risk, "; ".join(parts))
        return LayerResult("knowledge", "supported", False, defaults.KNOWLEDGE_MATCH_RISK,
                           f"all {len(confirmed)} values and names checked match")


def _value_check(value: Value, status: str, chunk: Chunk, other: Value) -> ValueCheck:
    return ValueCheck(value.kind, value.text, value.span, value.value,
                      "match" if status == "match" else "mismatch", found=other.text,
                      doc_id=chunk.doc_id, evidence=Span(chunk.start + other.span.start,
                                                         chunk.start + other.span.end))


def _name_check(name: Entity, status: str, chunk: Chunk, span: Span) -> ValueCheck:
    return ValueCheck("entity", name.text, name.span, name.value,
                      "match" if status == "match" else "absent", found=span.of(chunk.text),
                      doc_id=chunk.doc_id,
                      evidence=Span(chunk.start + span.start, chunk.start + span.end))


def _contradiction(check: ValueCheck) -> str:
    if check.source == "knowledge_base":
        return (f"{check.text!r} contradicts the knowledge base, which says {check.found!r} "
                f"({check.doc_id})")
    return f"{check.text!r} contradicts the evidence, which says {check.found!r} " \
           f"(document {check.doc_id!r})"
