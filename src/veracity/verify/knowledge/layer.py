"""The knowledge layer: a claim's numbers, dates, amounts, code-like tokens and names compared
exactly.

For each claim, every value (:func:`~veracity.verify.knowledge.values.extract_values`), every
code-like token (:func:`~veracity.verify.knowledge.tokens.extract_tokens`: paths, URLs,
identifiers, flags, versions, marked lower-case names, quoted strings) and, with
``entities=True``, every named entity (:class:`~veracity.verify.knowledge.entities.
EntityRecognizer`) is looked up in the claim's passages, read with their hyphenated line breaks
joined ("origi-\\nnal" is "original"; spans are mapped back to the text as written).

A value is compared first with the passage sentence *aligned* with the claim
(:func:`~veracity.verify.knowledge.align.aligned_sentences`: the sentence that states most of
the claim's other content words), since only that sentence speaks of the same thing:

- a value is ``match`` when an aligned sentence states an equal value of a comparable kind, at
  the precision the claim gives (see :func:`~veracity.verify.knowledge.values.compare`: "2022"
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
  :func:`~veracity.verify.knowledge.tokens.compare_tokens`): ``match`` when a passage has it
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
  "US", see :func:`~veracity.verify.knowledge.entities.entity_key`), or when a name found in
  a passage is part of it ("Karl von Frisch" vs a passage that says "Frisch"); ``absent``
  otherwise. Names never ``mismatch``: a different name is the verifier's business;
- negations, antonyms of the curated lexicon and contrary quantifiers are read against the
  aligned sentence by :mod:`~veracity.verify.knowledge.polarity`;
- a universal word ("all", "always", "only") that the aligned sentence limits or leaves out is
  a ``scope`` finding (:mod:`~veracity.verify.knowledge.scope`): ``mismatch`` or ``absent``,
  never a contradiction by itself;
- two phrases of the same verb in each other's places ("str is a subclass of Markup" against
  "Markup is a subclass of str") are a ``roles`` mismatch
  (:mod:`~veracity.verify.knowledge.roles`; needs spaCy's parser, so not with ``ner="rules"``).

Every check carries its claim span (in the claim), its evidence span and sentence (in the
document) and ``aligned``: a typed input for a decision (:attr:`~veracity.types.ValueCheck.
finding` names its kind).

With a :class:`~veracity.verify.knowledge.kb.KnowledgeBase`, each fact the claim mentions
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

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from veracity import defaults
from veracity.errors import InputError, OptionError
from veracity.text.words import STOPWORDS, stem
from veracity.types import Chunk, Claim, LayerResult, Span, ValueCheck
from veracity.types.verification import ValueStatus
from veracity.verify.knowledge.align import (
    JoinedText,
    aligned_sentences,
    claim_clause,
    join_hyphenated,
    passage_sentences,
    word_key,
)
from veracity.verify.knowledge.entities import Entity, EntityRecognizer, NerBackend, find_entity
from veracity.verify.knowledge.kb import KnowledgeBase, Mention
from veracity.verify.knowledge.polarity import polarity_checks
from veracity.verify.knowledge.roles import RoleReader
from veracity.verify.knowledge.scope import scope_checks
from veracity.verify.knowledge.tokens import compare_tokens, extract_tokens
from veracity.verify.knowledge.values import (
    Relation,
    Value,
    compare,
    extract_values,
    value_amount,
    year_like,
)

__all__ = ["KnowledgeLayer", "KnowledgeResult"]

_WORD = re.compile(r"[^\W_]+(?:['’][^\W_]+)*")
#: How many words after a number name the thing it counts ("60,000 worker bees").
_HEAD_WORDS = 3
_HEADS = 2
_ARTICLES = frozenset({"a", "an", "the"})
#: A slot's context must share this many content words (its own word among them).
_SLOT_SHARED = 2
#: Token classes that a lower-case word can stand against in a slot ("replacement for zip").
_WORDLIKE = frozenset({"word", "name", "symbol"})
_CLAUSE_BREAK = re.compile(r"[.,;:!?()\[\]{}\n]")
_LOWER_WORD = re.compile(r"[a-z][a-z0-9]*(?:-[a-z0-9]+)*")


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


@dataclass(frozen=True, slots=True)
class _Slot:
    """The place a word fills: the stem of the content word before it and the function words
    between (articles dropped): "a replacement for compress" -> ``("replacement", ("for",))``."""

    anchor: str
    between: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class _Filler:
    """What fills a slot in a passage: the token or lower-case word (``unit`` ``"word"``), the
    stems of the words from it to the clause's end (``words``), that text (``region``, lower
    case) and its context."""

    value: Value
    words: frozenset[str]
    region: str
    context: _Context


@dataclass(frozen=True)
class _Passage:
    """A passage read with its hyphenated line breaks joined: its values, tokens and sentences
    index ``joined.text``; :meth:`evidence` maps a span back to the document."""

    chunk: Chunk
    joined: JoinedText
    values: tuple[_Found, ...]
    numbers: tuple[Value, ...] = ()
    sentences: tuple[Span, ...] = ()

    @property
    def text(self) -> str:
        return self.joined.text

    def evidence(self, span: Span) -> Span:
        """``span`` of the joined text as a span of the chunk's document."""
        source = self.joined.source_span(span)
        return Span(self.chunk.start + source.start, self.chunk.start + source.end)

    def written(self, span: Span) -> str:
        """The characters of the chunk at ``span`` of the joined text, as written."""
        return self.joined.source_span(span).of(self.chunk.text)


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
        passages: dict[Chunk, _Passage] = {}
        checks: list[list[ValueCheck]] = []
        for claim, chunks in zip(claims, evidence, strict=True):
            found = [self._passage(chunk, passages) for chunk in chunks]
            claim_values = extract_values(claim.text)
            tokens = extract_tokens(claim.text, values=claim_values)
            subject = _Subject(claim.text, _anchors(claim.text, tokens))
            mine = [
                self._check_value(subject, value, claim_values, found) for value in claim_values
            ]
            for token in tokens:
                if (
                    token_check := self._check_token(subject, token, claim_values, found)
                ) is not None:
                    mine.append(token_check)
            mine.extend(polarity_checks(claim.text, chunks))
            mine.extend(scope_checks(claim.text, chunks))
            if self._roles is not None:
                mine.extend(self._roles.checks(claim.text, chunks))
            checks.append(mine)
        if self.entities:
            self._check_names(claims, evidence, names, checks)
        if self.knowledge_base is not None:
            for claim, claim_names, mine in zip(claims, names, checks, strict=True):
                mine.extend(self._check_facts(claim.text, claim_names))
        values = tuple(
            tuple(sorted(mine, key=lambda c: (c.span.start, c.source))) for mine in checks
        )
        results = tuple(self._result(mine) for mine in values)
        ner = self.recognizer.backend if self._needs_names else "none"
        return KnowledgeResult(results, values, ner)

    # --- values -------------------------------------------------------------------------------

    def _passage(self, chunk: Chunk, cache: dict[Chunk, _Passage]) -> _Passage:
        if chunk not in cache:
            joined = join_hyphenated(chunk.text)
            text = joined.text
            values = extract_values(text)
            sentences = passage_sentences(text)
            found = []
            # Code tokens get a context like any value; only numbers and amounts are left out
            # of contexts, since a token's words ("cache_effective_user") say what it is about.
            for value in (*values, *extract_tokens(text, values=values)):
                sentence = _sentence_of(sentences, value.span.start)
                found.append(_Found(value, self._context(text, value, values, sentence)))
            cache[chunk] = _Passage(chunk, joined, tuple(found), values, tuple(sentences))
        return cache[chunk]

    def _context(self, text: str, value: Value, values: Sequence[Value], bounds: Span) -> _Context:
        taken = [other.span for other in values]
        before: list[tuple[str, int]] = []
        after: list[tuple[str, int]] = []
        heads: list[str] = []
        words = list(_WORD.finditer(text, bounds.start, max(bounds.end, value.span.end)))
        first = next((i for i, m in enumerate(words) if m.end() > value.span.start), len(words))
        last = next((i for i, m in enumerate(words) if m.start() >= value.span.end), len(words))
        for i, match in enumerate(words):
            word = match.group().lower().replace("’", "'")
            if (
                word in STOPWORDS
                or not any(c.isalpha() for c in word)
                or any(s.start <= match.start() < s.end for s in taken)
            ):
                continue
            if i < first:
                before.append((word_key(word), first - i))
            elif i >= last:
                after.append((word_key(word), i - last + 1))
                if i - last < _HEAD_WORDS and len(heads) < _HEADS:
                    heads.append(word_key(word))
        width = self.context_words
        window: dict[str, int] = {}
        for word, distance in before[-width:] + after[:width]:
            window[word] = min(distance, window.get(word, distance))
        return _Context(window, frozenset(heads))

    def _check_value(
        self,
        subject: _Subject,
        value: Value,
        claim_values: Sequence[Value],
        passages: Sequence[_Passage],
    ) -> ValueCheck:
        """In order: ``match`` when a sentence aligned with the claim states the value, or
        another states it in the same context; ``mismatch`` when an aligned sentence states a
        conflicting value in the same context; ``match`` when any sentence states the value;
        ``absent`` otherwise (naming a conflicting value that stands elsewhere, if any)."""
        claim = subject.text
        context = self._context(claim, value, claim_values, Span(0, len(claim)))
        best: tuple[tuple[bool, int, int], _Passage, _Found] | None = None
        # a match outside the aligned sentences, in the same context (first) or any
        elsewhere: dict[bool, tuple[_Passage, Value]] = {}
        for passage in passages:
            bounds = _range_ends(value, passage)
            aligned = subject.aligned(value, passage)
            for index, other in enumerate(passage.values):
                relation = _relation(value, other.value)
                if relation == "match":
                    if _within(other.value.span, aligned):
                        return _value_check(value, "match", passage, other.value, True)
                    same = _same_context(value, context, other.context)
                    elsewhere.setdefault(same, (passage, other.value))
                    continue
                if relation != "conflict" or index in bounds:
                    continue  # "63" is no conflict with "62 to 64": it lies inside
                if any(
                    mine is not value and _relation(mine, other.value) == "match"
                    for mine in claim_values
                ):
                    continue  # the claim states that value too, in another slot
                shared = context.window.keys() & other.context.window.keys()
                if not _same_context(value, context, other.context) and not (
                    _within(other.value.span, aligned)
                    and _sole(claim, value, claim_values, passage, other.value)
                ):
                    continue  # "60,000 bees" against "60 frames": not the same thing
                if year_like(value) != year_like(other.value):
                    continue  # "three prizes" against "the 1911 prize": a year, not a count
                # In the aligned sentence first, then most shared words, then the passage
                # value closest to them.
                rank = (
                    _within(other.value.span, aligned),
                    len(shared),
                    -sum(other.context.window[word] for word in shared),
                )
                if best is None or rank > best[0]:
                    best = (rank, passage, other)
        if True in elsewhere:
            return _value_check(value, "match", *elsewhere[True], False)
        if best is not None and best[0][0]:
            return _value_check(value, "mismatch", best[1], best[2].value, True)
        if False in elsewhere:
            return _value_check(value, "match", *elsewhere[False], False)
        if best is None:
            return ValueCheck(
                value.kind, value.text, value.span, value.value, "absent", unit=value.unit
            )
        # Only the aligned sentence can contradict; a conflicting value elsewhere is reported
        # beside an absent value, for a decision to weigh.
        return _value_check(value, "absent", best[1], best[2].value, False)

    # --- code tokens and slots ------------------------------------------------------------------

    def _check_token(
        self,
        subject: _Subject,
        token: Value,
        claim_values: Sequence[Value],
        passages: Sequence[_Passage],
    ) -> ValueCheck | None:
        """A code token: ``match`` when a passage has it (as a token or in plain text),
        ``mismatch`` when one has another token of its class in a comparable context or another
        word in its slot, ``absent`` only when a passage fills its slot with nothing comparable;
        ``None`` (no check) when the passages say nothing about it."""
        claim = subject.text
        for passage in passages:
            span = _find_text(token, passage.text)
            if span is not None:
                found = Value(token.kind, span.of(passage.text), span, token.value, token.unit)
                aligned = _within(span, subject.aligned(token, passage))
                return _value_check(token, "match", passage, found, aligned)
        if not _in_quotes(claim, token.span):  # prose quotes: a title, a phrase, a term
            check = self._check_value(subject, token, claim_values, passages)
            if check.status != "absent" or check.found is not None:
                return check  # a match, a mismatch, or another token that stands elsewhere
        slot = self._slot(claim, token.span, Span(0, len(claim)))
        if slot is None:
            return None
        return self._slot_check(subject, token, slot, claim_values, passages)

    def _slot(self, text: str, span: Span, bounds: Span) -> _Slot | None:
        """The slot that the text at ``span`` fills: the nearest content word before it, with
        only function words (at most ``slot_words`` words in all) and no punctuation between."""
        before = list(_WORD.finditer(text, bounds.start, span.start))
        between: list[str] = []
        for k in range(len(before) - 1, max(-1, len(before) - 1 - self.slot_words), -1):
            match = before[k]
            gap_end = span.start if k == len(before) - 1 else before[k + 1].start()
            if _CLAUSE_BREAK.search(text, match.end(), gap_end):
                return None
            word = match.group().lower().replace("’", "'")
            if word in STOPWORDS:
                if word not in _ARTICLES:
                    between.insert(0, word)
                continue
            if not any(c.isalpha() for c in word):
                return None
            return _Slot(stem(word), tuple(between))
        return None

    def _fillers(self, passage: _Passage, slot: _Slot) -> list[_Filler]:
        """Where ``passage`` fills ``slot``: the token or lower-case word after each occurrence
        of its word and function words (capitalised words and numbers are not fillers)."""
        text = passage.text
        words = list(_WORD.finditer(text))
        fillers = []
        for i, match in enumerate(words):
            if stem(match.group().lower().replace("’", "'")) != slot.anchor:
                continue
            token = self._filler_after(passage, words, i, slot)
            if token is None:
                continue
            start = token.span.start
            sentence = _sentence_of(passage.sentences, start)
            words_after, region = _following(text, token, sentence, self.slot_words)
            fillers.append(
                _Filler(
                    token,
                    words_after,
                    region,
                    self._context(text, token, passage.numbers, sentence),
                )
            )
        return fillers

    def _filler_after(
        self, passage: _Passage, words: Sequence[re.Match[str]], anchor: int, slot: _Slot
    ) -> Value | None:
        """The token or lower-case word that follows ``words[anchor]`` and exactly the slot's
        function words (articles skipped), within ``slot_words`` words and one clause."""
        text = passage.text
        between: list[str] = []
        for j in range(anchor + 1, min(len(words), anchor + 1 + self.slot_words)):
            if _CLAUSE_BREAK.search(text, words[j - 1].end(), words[j].start()):
                return None
            word = words[j].group()
            if tuple(between) == slot.between:
                start = words[j].start()
                token = next(
                    (
                        f.value
                        for f in passage.values
                        if f.value.kind == "code" and f.value.span.start <= start < f.value.span.end
                    ),
                    None,
                )
                if token is not None:
                    return token
                if word.lower() not in STOPWORDS and _LOWER_WORD.fullmatch(word):
                    return Value("code", word, Span(start, words[j].end()), word.lower(), "word")
            if word.lower() not in STOPWORDS:
                return None
            if word.lower() not in _ARTICLES:
                between.append(word.lower())
            if len(between) > len(slot.between):
                return None
        return None

    def _slot_check(
        self,
        subject: _Subject,
        value: Value,
        slot: _Slot,
        claim_values: Sequence[Value],
        passages: Sequence[_Passage],
    ) -> ValueCheck | None:
        """A token in a slot: ``mismatch`` when the aligned sentence of a passage fills the
        slot with another token of its class; ``absent`` when a passage fills it otherwise (or
        elsewhere); ``None`` when no passage fills it."""
        claim = subject.text
        context = self._context(claim, value, claim_values, Span(0, len(claim)))
        mine, region = _following(claim, value, Span(0, len(claim)), self.slot_words)
        best: tuple[tuple[bool, int], _Passage, _Filler] | None = None
        talked_about = False
        for passage in passages:
            aligned = subject.aligned(value, passage)
            for filler in self._fillers(passage, slot):
                shared = len(context.window.keys() & filler.context.window.keys())
                if shared < _SLOT_SHARED:
                    continue
                if (
                    mine & filler.words
                    or _contains(region, filler.value.text.lower())
                    or _contains(filler.region, value.text.lower())
                ):
                    return None  # the passage fills the slot with this word
                if filler.value.unit == "word":
                    # A plain word fills a prepositional slot ("as an unprivileged user"), not
                    # a noun's ("the file system"); against a token it is no value, only talk.
                    if not slot.between:
                        continue
                    comparable = value.unit == "word"
                else:  # a token of the class, or a name for a name
                    comparable = filler.value.unit == value.unit or (
                        value.unit in _WORDLIKE and filler.value.unit in _WORDLIKE
                    )
                talked_about = True
                rank = (_within(filler.value.span, aligned), shared)
                if comparable and (best is None or rank > best[0]):
                    best = (rank, passage, filler)
        if best is not None and best[0][0]:
            return _value_check(value, "mismatch", best[1], best[2].value, True)
        if best is not None:
            return _value_check(value, "absent", best[1], best[2].value, False)
        if talked_about:
            return ValueCheck(
                value.kind, value.text, value.span, value.value, "absent", unit=value.unit
            )
        return None

    # --- names --------------------------------------------------------------------------------

    def _check_names(
        self,
        claims: Sequence[Claim],
        evidence: Sequence[Sequence[Chunk]],
        names: Sequence[Sequence[Entity]],
        checks: list[list[ValueCheck]],
    ) -> None:
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
                self.recognizer.run([chunk.text for chunk in chunks], sentence_openers=True),
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
        self, claim: str, mention: Mention, names: Sequence[Entity], where: str
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
            if name.span.start >= mention.cue.end and len(_WORD.findall(between)) < self.slot_words:
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


@dataclass(frozen=True)
class _Subject:
    """A claim and what it is about (``anchors``): its code tokens and the lower-case name
    that opens it ("ctags recurses ..."). A value of a passage can contradict the claim only
    when the passage names every anchor, so that another command's page says nothing against
    this command's option."""

    text: str
    anchors: tuple[Value, ...]

    def aligned(self, value: Value, passage: _Passage) -> tuple[Span, ...]:
        """The sentences of ``passage`` aligned with the claim for ``value`` (none when the
        passage does not name what the claim is about)."""
        for anchor in self.anchors:
            overlaps = anchor.span.start < value.span.end and value.span.start < anchor.span.end
            if not overlaps and _find_text(anchor, passage.text) is None:
                return ()
        return aligned_sentences(
            self.text, passage.text, skip=(value.span,), sentences=passage.sentences
        )


def _anchors(text: str, tokens: Sequence[Value]) -> tuple[Value, ...]:
    """The claim's code tokens (not flags or versions, which are the values compared) and the
    lower-case name that opens it, if any ("gzip is ...")."""
    found = [token for token in tokens if token.unit not in ("flag", "version", "quoted")]
    first = _OPENING_NAME.match(text, len(text) - len(text.lstrip()))
    if (
        first is not None
        and _opens_lower(text, Span(0, len(text)))
        and not any(t.span.start <= first.start() < t.span.end for t in tokens)
    ):
        word = first.group()
        found.append(Value("code", word, Span(first.start(), first.end()), word.lower(), "word"))
    return tuple(found)


#: The lower-case name that opens a technical claim, hyphens and dots inside ("update-passwd").
_OPENING_NAME = re.compile(r"(?<![^\s])[a-z](?:[\w.+-]*[\w+])?")


def _same_context(value: Value, mine: _Context, theirs: _Context) -> bool:
    """Whether two values stand in the same context: a content word near both, and for a
    number, the same counted thing when both name one ("60,000 bees", "60 frames")."""
    if not mine.window.keys() & theirs.window.keys():
        return False
    return not (
        value.kind == "number" and mine.heads and theirs.heads and not mine.heads & theirs.heads
    )


def _sole(
    claim: str, value: Value, claim_values: Sequence[Value], passage: _Passage, other: Value
) -> bool:
    """Whether ``value`` and ``other`` fill the same slot by being alone: the only value of
    their kind in the claim's clause and in the aligned sentence ("... in June 2018" against
    "In December 2018, ..."), however far apart their words stand."""
    clause = claim_clause(claim, value.span)
    sentence = _sentence_of(passage.sentences, other.span.start)
    mine = [
        v
        for v in claim_values
        if clause.start <= v.span.start < clause.end and _relation(value, v) != "incomparable"
    ]
    theirs = [
        f.value
        for f in passage.values
        if sentence.start <= f.value.span.start < sentence.end
        and _relation(value, f.value) != "incomparable"
    ]
    return mine == [value] and theirs == [other]


def _within(span: Span, sentences: Sequence[Span]) -> bool:
    return any(s.start <= span.start and span.end <= s.end for s in sentences)


_RANGE_LINK = re.compile(r"\s*(?:to|-|–|—|and|or)\s*", re.IGNORECASE)


def _range_ends(value: Value, passage: _Passage) -> set[int]:
    """The positions in ``passage.values`` of the two ends of each range ("62 to 64",
    "between 5 and 9", "10–20 km") that holds ``value``."""
    if value.kind not in ("number", "percent", "money", "quantity"):
        return set()
    text = passage.text
    ends: set[int] = set()
    found = passage.values
    for index in range(len(found) - 1):
        low, high = found[index].value, found[index + 1].value
        # "5 and 9 percent": the unit is often written once, after the range's end
        same = (low.kind == high.kind and low.unit == high.unit) or (
            low.kind == "number" and high.kind == "percent"
        )
        if not (
            same
            and high.kind == value.kind
            and high.unit == value.unit
            and _RANGE_LINK.fullmatch(text[low.span.end : high.span.start])
        ):
            continue
        try:
            amount, first, last = value_amount(value), value_amount(low), value_amount(high)
        except (ArithmeticError, ValueError, IndexError):
            continue
        if min(first, last) <= amount <= max(first, last):
            ends.update((index, index + 1))
    return ends


def _relation(claim: Value, evidence: Value) -> Relation:
    if "code" in (claim.kind, evidence.kind):
        return compare_tokens(claim, evidence)
    return compare(claim, evidence)


def _sentence_of(sentences: Sequence[Span], position: int) -> Span:
    return next((s for s in sentences if s.start <= position < s.end), sentences[-1])


def _in_quotes(text: str, span: Span) -> bool:
    """Whether ``span`` is in prose quotation marks ("...", '...', “...”), not backticks."""
    before = text[: span.start].rstrip()
    return before[-1:] in ('"', "'", "“", "‘")


def _opens_lower(text: str, bounds: Span) -> bool:
    """Whether ``text`` opens with a lower-case content word, as a tool's name does ("gzip
    is ..."): a sign of a technical text, where lower-case words may be names."""
    first = _WORD.search(text, bounds.start, bounds.end)
    return (
        first is not None and first.group()[0].islower() and first.group().lower() not in STOPWORDS
    )


def _following(text: str, value: Value, bounds: Span, width: int) -> tuple[frozenset[str], str]:
    """What fills a slot: a token, or a lower-case word and the words after it to the end of
    its clause, at most ``width`` words ("compress program"); as stems and as lower-case text."""
    if value.unit != "word":
        return frozenset({value.value}), value.text.lower()
    stems, end, count = {stem(value.value)}, value.span.end, 1
    for match in _WORD.finditer(text, value.span.end, bounds.end):
        if count >= width or _CLAUSE_BREAK.search(text, end, match.start()):
            break
        end, count = match.end(), count + 1
        word = match.group().lower()
        if word not in STOPWORDS:
            stems.add(stem(word))
    return frozenset(stems), text[value.span.start : end].lower()


def _contains(text: str, part: str) -> bool:
    return re.search(r"(?<![\w-])" + re.escape(part) + r"(?![\w-])", text) is not None


def _find_text(token: Value, text: str) -> Span | None:
    """Where ``token`` is written in ``text`` as a whole (case aside for all but paths and
    flags; any spacing inside a quoted string)."""
    words = token.text.split()
    pattern = r"\s+".join(re.escape(word) for word in words) if words else re.escape(token.text)
    flags = 0 if token.unit in ("path", "flag") else re.IGNORECASE
    found = re.search(r"(?<![\w/\\-])" + pattern + r"(?![\w/\\-]|\.\w)", text, flags)
    return Span(found.start(), found.end()) if found else None


def _value_check(
    value: Value, status: ValueStatus, passage: _Passage, other: Value, aligned: bool
) -> ValueCheck:
    """``value`` of the claim against ``other`` of ``passage``: what the passage says (as
    written), where, in which sentence, and whether that sentence is aligned with the claim."""
    return ValueCheck(
        value.kind,
        value.text,
        value.span,
        value.value,
        status,
        found=passage.written(other.span),
        doc_id=passage.chunk.doc_id,
        evidence=passage.evidence(other.span),
        unit=value.unit,
        aligned=aligned,
        sentence=passage.evidence(_sentence_of(passage.sentences, other.span.start)),
    )


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
