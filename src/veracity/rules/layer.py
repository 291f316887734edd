"""The knowledge layer: a claim's numbers, dates, amounts, code-like tokens and names compared
exactly.

For each claim, every value (:func:`~veracity.rules.values.extract_values`), every
code-like token (:func:`~veracity.rules.tokens.extract_tokens`: paths, URLs,
identifiers, flags, versions, marked lower-case names, quoted strings) and, with
``entities=True``, every named entity (:class:`~veracity.rules.entities.
EntityRecognizer`) is looked up in the claim's passages, read with their hyphenated line breaks
joined ("origi-\\nnal" is "original"; spans are mapped back to the text as written).

A value is compared first with the passage sentence *aligned* with the claim
(:func:`~veracity.rules.align.aligned_sentences`: the sentence that states most of
the claim's other content words), since only that sentence speaks of the same thing:

- a value is ``match`` when an aligned sentence states an equal value of a comparable kind, at
  the precision the claim gives (see :func:`~veracity.rules.values.compare`: "2022"
  matches "20 Sept 2022", "1,200" matches "1.2 thousand");
- ``mismatch`` when an aligned sentence states a conflicting value of the same kind *in the
  same slot*: the passage value has, within ``context_words`` content words of it, a content
  word that the claim has within ``context_words`` of its value (numbers, units and stopwords
  do not count). For a plain number the counted thing must agree too: when both numbers are
  followed by content words (the first two within three words), they share one ("60,000 bees"
  is not contradicted by "60 frames"), and a number written like a year (four digits, 1000 to
  2100, no comma) conflicts only with another such number ("three prizes" is not contradicted
  by "the 1911 prize"). Money must be in the same currency and quantities in the same base
  unit to conflict at all. Of several conflicting values, the one whose context shares most
  words is reported (on a tie, the one nearest to those words). A passage that does not name
  what the claim is about (its code tokens, the lower-case name that opens it: "ctags ...")
  has no aligned sentence, so another command's page cannot contradict this command's option;
- ``match`` when another sentence states the value;
- ``absent`` (the value is not stated: *unsupported*, never contradicted) otherwise. A
  conflicting value that stands outside the aligned sentence (an older entry of the same NEWS
  file, a copyright line's year) is named in ``found``, with ``aligned`` false, for a decision
  to weigh;
- a code token is compared the same way with the passages' tokens of its class (see
  :func:`~veracity.rules.tokens.compare_tokens`): ``match`` when a passage has it
  (also as plain text: "the www-data user"), ``mismatch`` when an aligned sentence has another
  token of its class in the same slot ("/bin/bash" against "/bin/sync" near "shell").
  A token in prose quotes ("...", '...', a title or a term) is compared only in its *slot*.
  Unlike a number, a token the passages say nothing about is not reported (no check): code
  tokens are often paraphrased ("the login shell" for "/bin/sh");
- a *slot* is the content word before a token and the function words between (at most
  ``slot_words`` words, one clause, articles skipped): "a replacement *for* X" is
  ``("replacement", ("for",))``. Where an aligned sentence fills the same slot, in a context
  sharing at least two content words, with another token of its class (or a name for a name),
  the claim's token mismatches; a passage that fills it with words, or elsewhere, leaves it
  ``absent``. Ordinary words are never values: a content word against another content word
  ("'compression' contradicts 'different'") is no finding;
- a name is ``match`` when a passage contains it as whole words (case-insensitive, "U.S." =
  "US", see :func:`~veracity.rules.entities.entity_key`), or when a name found in
  a passage is part of it ("Karl von Frisch" vs a passage that says "Frisch"); ``absent``
  otherwise. Names never ``mismatch``: a different name is the verifier's business;
- negations, antonyms of the curated lexicon and contrary quantifiers are read against the
  aligned sentence by :mod:`~veracity.rules.polarity`;
- a universal word ("all", "always", "only") that the aligned sentence limits or leaves out is
  a ``scope`` finding (:mod:`~veracity.rules.scope`): ``mismatch`` or ``absent``, never a
  contradiction by itself;
- two phrases of the same verb in each other's places ("str is a subclass of Markup" against
  "Markup is a subclass of str") are a ``roles`` mismatch (:mod:`~veracity.rules.roles`; needs
  spaCy's parser, so not with ``ner="rules"``).

Every check carries its claim span (in the claim), its evidence span and sentence (in the
document) and ``aligned``: a typed input for a decision (:attr:`~veracity.types.ValueCheck.
finding` names its kind).

With a :class:`~veracity.rules.kb.KnowledgeBase`, each fact the claim mentions
(its entity and attribute) is compared with the claim's value of a comparable kind nearest to
the attribute word (a four-digit number of the knowledge base may conflict with a year); a
fact whose value is a name matches when the claim contains it, and mismatches when another
name of the claim fills the attribute (within ``KNOWLEDGE_SLOT_WORDS`` words after the
attribute word: "born in Munich"). These checks have ``source="knowledge_base"`` and ``doc_id``
names the fact's line; a value that the knowledge base confirms counts as matched even when
the passages do not state it.

The claim's :class:`~veracity.types.LayerResult`:

- ``contradicted`` (flagged, risk ``KNOWLEDGE_MISMATCH_RISK``) when any check but a scope
  finding mismatches;
- else ``unsupported`` (flagged, "value not stated") when a value is absent or a scope
  finding stands (risk
  ``KNOWLEDGE_ABSENT_VALUE_RISK``)
  or only a name is absent (the lower ``KNOWLEDGE_ABSENT_ENTITY_RISK``);
- else ``supported`` (risk ``KNOWLEDGE_MATCH_RISK``);
- a claim without any value or name: ``unchecked``, not flagged, risk ``None``, detail
  ``"no values to check"``: the layer abstains and the combiner ignores it.

>>> from veracity.types import Chunk, Claim, Span
>>> claim = Claim(0, "The colony has 60,000 bees.", Span(0, 27), 0)
>>> passage = Chunk("hive#0", "hive.md", 0, "In 2019 the colony had 50,000 bees.", 0, 35)
>>> result = KnowledgeLayer(entities=False).run([claim], [[passage]])
>>> result.results[0].label, result.values[0][0].found
('contradicted', '50,000')
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from veracity import defaults
from veracity.errors import InputError, OptionError
from veracity.rules.context import Passage, Subject, anchors_of, read_passage
from veracity.rules.entities import Entity, EntityRecognizer, NerBackend
from veracity.rules.kb import KnowledgeBase
from veracity.rules.names import check_facts, check_names
from veracity.rules.polarity import polarity_checks
from veracity.rules.roles import RoleReader
from veracity.rules.scope import scope_checks
from veracity.rules.slots import check_token
from veracity.rules.tokens import extract_tokens
from veracity.rules.value_checks import check_value
from veracity.rules.values import extract_values
from veracity.types import Chunk, Claim, LayerResult, ValueCheck

__all__ = ["KnowledgeLayer", "KnowledgeResult"]


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


class KnowledgeLayer:
    """Compares the values and names of claims with their passages (see the module docstring).

    ``entities`` turns the named-entity checks on; ``ner`` picks the recogniser (``auto``:
    spaCy when the ``[nlp]`` extra is installed, rules otherwise), or ``recognizer`` gives one
    ready-made; ``knowledge_base`` adds the checks against known facts (names are then found
    even with ``entities=False``); ``context_words`` is the context width for a mismatch and
    ``slot_words`` the reach of a knowledge-base attribute word.

    >>> from veracity.types import Claim, Span
    >>> from veracity.rules.kb import Fact
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
        ner: NerBackend = defaults.KNOWLEDGE_NER,
        context_words: int = defaults.KNOWLEDGE_CONTEXT_WORDS,
        slot_words: int = defaults.KNOWLEDGE_SLOT_WORDS,
        recognizer: EntityRecognizer | None = None,
    ) -> None:
        if context_words < 1:
            raise OptionError(
                "context_words",
                context_words,
                "a positive number of words",
                f"The default is {defaults.KNOWLEDGE_CONTEXT_WORDS}.",
            )
        if slot_words < 1:
            raise OptionError(
                "slot_words",
                slot_words,
                "a positive number of words",
                f"The default is {defaults.KNOWLEDGE_SLOT_WORDS}.",
            )
        if knowledge_base is not None and not isinstance(knowledge_base, KnowledgeBase):
            raise OptionError(
                "knowledge_base",
                type(knowledge_base).__name__,
                "a KnowledgeBase",
                "Read a file with KnowledgeBase.from_file(path).",
            )
        self.entities = entities
        self.knowledge_base = knowledge_base
        self.context_words = context_words
        self.slot_words = slot_words
        # The recogniser validates ``ner``; it loads nothing until load().
        self.recognizer = recognizer or EntityRecognizer(ner=ner)
        # Swapped roles need spaCy's parser: read where spaCy may run (not with ner="rules").
        self._roles: RoleReader | None = (
            None if self.recognizer.ner != "rules" else RoleReader(None)
        )

    @property
    def _needs_names(self) -> bool:
        return self.entities or self.knowledge_base is not None

    def load(self) -> KnowledgeLayer:
        """Load the entity recogniser (spaCy, when it is used); repeat calls are free."""
        if self._needs_names:
            self.recognizer.load()
        if self._roles is None:
            self._roles = RoleReader.load(self.recognizer.model)
        return self

    def run(self, claims: Sequence[Claim], evidence: Sequence[Sequence[Chunk]]) -> KnowledgeResult:
        """Check each claim against its passages: ``evidence[i]`` are claim ``i``'s passages."""
        if len(claims) != len(evidence):
            raise InputError(
                f"{len(claims)} claims but {len(evidence)} evidence lists: give "
                "one list of passages per claim (an empty list when there is none)"
            )
        self.load()
        names: tuple[tuple[Entity, ...], ...] = tuple(() for _ in claims)
        if self._needs_names:
            names = self.recognizer.run([claim.text for claim in claims])
        passages: dict[Chunk, Passage] = {}
        checks: list[list[ValueCheck]] = []
        for claim, chunks in zip(claims, evidence, strict=True):
            found = [read_passage(chunk, passages, width=self.context_words) for chunk in chunks]
            claim_values = extract_values(claim.text)
            tokens = extract_tokens(claim.text, values=claim_values)
            subject = Subject(claim.text, anchors_of(claim.text, tokens))
            mine = [
                check_value(subject, value, claim_values, found, width=self.context_words)
                for value in claim_values
            ]
            for token in tokens:
                if (
                    token_check := check_token(
                        subject,
                        token,
                        claim_values,
                        found,
                        width=self.context_words,
                        slot_words=self.slot_words,
                    )
                ) is not None:
                    mine.append(token_check)
            mine.extend(polarity_checks(claim.text, chunks))
            mine.extend(scope_checks(claim.text, chunks))
            if self._roles is not None:
                mine.extend(self._roles.checks(claim.text, chunks))
            checks.append(mine)
        if self.entities:
            check_names(claims, evidence, names, checks, recognizer=self.recognizer)
        if self.knowledge_base is not None:
            for claim, claim_names, mine in zip(claims, names, checks, strict=True):
                mine.extend(
                    check_facts(
                        claim.text, claim_names, self.knowledge_base, slot_words=self.slot_words
                    )
                )
        values = tuple(
            tuple(sorted(mine, key=lambda c: (c.span.start, c.source))) for mine in checks
        )
        results = tuple(self._result(mine) for mine in values)
        ner = self.recognizer.backend if self._needs_names else "none"
        return KnowledgeResult(results, values, ner)

    # --- values -------------------------------------------------------------------------------

    # --- code tokens and slots ------------------------------------------------------------------

    # --- names --------------------------------------------------------------------------------

    # --- knowledge base -----------------------------------------------------------------------

    # --- verdict ------------------------------------------------------------------------------

    @staticmethod
    def _result(checks: Sequence[ValueCheck]) -> LayerResult:
        if not checks:
            return LayerResult("knowledge", "unchecked", False, None, "no values to check")
        mismatches = [
            c
            for c in checks
            if c.status == "mismatch" and c.aligned is not False and c.kind != "scope"
        ]
        if mismatches:
            return LayerResult(
                "knowledge",
                "contradicted",
                True,
                defaults.KNOWLEDGE_MISMATCH_RISK,
                "; ".join(_contradiction(c) for c in mismatches),
            )
        confirmed = {(c.span.start, c.span.end) for c in checks if c.status == "match"}
        absent = [
            c
            for c in checks
            if c.status == "absent" and (c.span.start, c.span.end) not in confirmed
        ]
        values = [c.text for c in absent if c.kind not in ("entity", "scope")]
        names = [c.text for c in absent if c.kind == "entity"]
        scope = [c for c in checks if c.kind == "scope"]
        if values or names or scope:
            parts = [_scope(c) for c in scope]
            if values:
                parts.append("value not stated in the evidence: " + ", ".join(map(repr, values)))
            if names:
                parts.append("names not in the evidence: " + ", ".join(map(repr, names)))
            risk = (
                defaults.KNOWLEDGE_ABSENT_VALUE_RISK
                if values or scope
                else defaults.KNOWLEDGE_ABSENT_ENTITY_RISK
            )
            return LayerResult("knowledge", "unsupported", True, risk, "; ".join(parts))
        return LayerResult(
            "knowledge",
            "supported",
            False,
            defaults.KNOWLEDGE_MATCH_RISK,
            f"all {len(confirmed)} values and names checked match",
        )


def _scope(check: ValueCheck) -> str:
    if check.status == "mismatch":
        return f"{check.text!r} goes beyond the evidence, which says {check.found!r}"
    return f"{check.text!r} is not stated in the evidence"


def _contradiction(check: ValueCheck) -> str:
    if check.source == "knowledge_base":
        return (
            f"{check.text!r} contradicts the knowledge base, which says {check.found!r} "
            f"({check.doc_id})"
        )
    return (
        f"{check.text!r} contradicts the evidence, which says {check.found!r} "
        f"(document {check.doc_id!r})"
    )
