"""Swapped roles: a claim that names the same two things as its aligned evidence sentence, with
the same verb, each in the other's place.

"str is a subclass of Markup" against "Markup is a subclass of str", "The libevent library
depends on tmux" against "tmux depends on the libevent library", "Slackware was forked by
Tukaani" against "Tukaani forked Slackware": every word agrees, so neither word overlap nor a
network trained on word overlap sees the difference. A parse does.

Each sentence is read into *frames*: a verb (for "is a fork of", the copula with its predicate
noun: ``be fork``) and its *slots*, the noun phrases that fill it, named by their role:

- ``agent``: the active subject, or the object of a passive's "by";
- ``patient``: the direct object, or the passive subject;
- ``<slot>.<preposition>``: the object of a preposition after the verb (``verb.on``: "depends
  *on* X"), after the predicate noun (``attr.of``: "a fork *of* X"), after the object
  (``patient.into``), or after a participle that qualifies either (``attr.from``: "an
  implementation derived *from* X").

A phrase is compared by its head word with its compound and adjective modifiers, lower-cased
("the Tukaani distribution" is ``tukaani distribution``). A claim frame *swaps* an evidence frame
of the same verb when two of its slots hold, exactly, what the evidence holds in the other two
("A … B" against "B … A") and the two phrases differ. Verbs whose roles can be exchanged
without changing the meaning ("marry", "meet", "border", ...) and the copula's subject against
its predicate noun ("Paris is the capital" / "The capital is Paris") are never read.

The rule speaks only when both sentences parse into such frames, which is rare; when it does,
the claim says what the evidence does not: a finding of kind ``roles``, status ``mismatch``.
It needs spaCy's English pipeline with its parser (the ``[nlp]`` extra): without it, it finds
nothing.

>>> reader = RoleReader.load()  # doctest: +SKIP
>>> [c.text for c in reader.conflicts("str is a subclass of Markup.",
...                                     "Markup is a subclass of str.")]  # doctest: +SKIP
['str is a subclass of Markup']
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from veracity import defaults
from veracity._deps import require
from veracity.errors import MissingDependencyError
from veracity.rules.align import aligned_sentences, join_hyphenated
from veracity.rules.entities import load_pipeline
from veracity.types import Chunk, Span, ValueCheck

__all__ = ["SYMMETRIC_VERBS", "Frame", "RoleReader", "frames"]

#: Verbs whose subject and object can be exchanged without changing the meaning.
SYMMETRIC_VERBS = frozenset(
    """marry meet resemble equal match join collaborate partner merge share play face fight
    battle tie draw border touch neighbour neighbor coincide overlap intersect correspond
    compete date divorce befriend accompany combine mix connect link pair swap exchange
    interact communicate agree disagree differ compare contrast""".split()
)
#: Predicate nouns whose two sides can be exchanged ("A is a sibling of B").
SYMMETRIC_NOUNS = frozenset(
    """sibling peer equivalent twin counterpart synonym neighbour neighbor partner relative
    cousin friend colleague rival match equal contemporary""".split()
)
#: Prepositions whose object can trade places with the subject.
_PREPOSITIONS = frozenset({"of", "from", "by", "than", "on", "into", "to", "over", "for"})
#: Words a phrase is compared by: its head and these modifiers.
_MODIFIERS = frozenset({"compound", "amod", "nmod", "nummod", "poss", "flat"})
#: Subjects that stand for the noun their relative clause qualifies.
_RELATIVE = frozenset({"which", "that", "who"})
#: Slot pairs never read as a swap (the copula's two sides name the same thing).
_NOT_SWAPS = frozenset({frozenset({"agent", "attr"})})

#: Parses a text into a spaCy ``Doc`` (tokens with ``dep_``, ``head``, ``children``, ...).
Parser = Callable[[str], Any]


@dataclass(frozen=True)
class Phrase:
    """A slot's filler: its head word (lower-cased), its character span in the parsed text and
    the words that modify the head (compounds, adjectives, numbers, possessives)."""

    head: str
    span: Span
    modifiers: frozenset[str] = frozenset()

    @property
    def key(self) -> str:
        return " ".join([*sorted(self.modifiers), self.head])

    def names(self, other: Phrase) -> bool:
        """Whether the two phrases name the same thing: the same head, and the modifiers of one
        among the other's ("the libevent library" and "the libevent 2.x library")."""
        return self.head == other.head and (
            self.modifiers <= other.modifiers or other.modifiers <= self.modifiers
        )


@dataclass(frozen=True)
class Frame:
    """A verb (``be fork`` for a copula with a predicate noun) and the phrases of its slots."""

    verb: str
    slots: tuple[tuple[str, Phrase], ...]

    def slot(self, name: str) -> Phrase | None:
        return next((p for n, p in self.slots if n == name), None)


def _modifiers(token: Any) -> list[Any]:
    """The modifiers before ``token`` that name it, and theirs ("the Python wrapper gmpy")."""
    found = []
    for left in token.lefts:
        if left.dep_ in _MODIFIERS:
            found.extend([*_modifiers(left), left])
    return found


def _phrase(token: Any) -> Phrase:
    modifiers = _modifiers(token)
    words = sorted([*modifiers, token], key=lambda t: t.i)
    start = words[0].idx
    end = max(t.idx + len(t.text) for t in words)
    return Phrase(
        token.text.lower(),
        Span(start, end),
        frozenset(t.text.lower() for t in modifiers),
    )


def _objects(token: Any, prefix: str) -> Iterator[tuple[str, Any]]:
    """The prepositional objects after ``token`` (and after a participle that qualifies it),
    as ``prefix.<preposition>`` slots."""
    for child in token.children:
        if child.dep_ == "prep" and child.text.lower() in _PREPOSITIONS:
            for obj in child.children:
                if obj.dep_ == "pobj":
                    name = f"{prefix}.{child.text.lower()}"
                    yield name, obj
                    for clause in obj.children:
                        if clause.dep_ == "acl" and clause.tag_ == "VBN":
                            yield from _objects(clause, name)
        elif child.dep_ == "acl" and child.tag_ == "VBN":
            yield from _objects(child, prefix)


def _subject(token: Any, verb: Any) -> Any:
    """The subject, with a relative pronoun read as the noun its clause qualifies ("the
    Tukaani distribution, which was a Slackware fork")."""
    if token.lower_ in _RELATIVE and verb.dep_ == "relcl":
        return verb.head
    return token


def _frame(verb: Any) -> Frame | None:
    slots: list[tuple[str, Any]] = []
    key = verb.lemma_.lower()
    for child in verb.children:
        if child.dep_ == "nsubj":
            slots.append(("agent", _subject(child, verb)))
        elif child.dep_ == "nsubjpass":
            slots.append(("patient", _subject(child, verb)))
        elif child.dep_ == "dobj":
            slots.append(("patient", child))
            slots.extend(_objects(child, "patient"))
        elif child.dep_ == "agent":
            slots.extend(("agent", o) for o in child.children if o.dep_ == "pobj")
        elif child.dep_ == "attr":
            if child.lemma_.lower() in SYMMETRIC_NOUNS:
                return None
            key = f"{key} {child.lemma_.lower()}"
            slots.append(("attr", child))
            of = list(_objects(child, "attr"))
            slots.extend(of)
            # "a Slackware fork" is "a fork of Slackware" (when no "of" follows)
            named = [
                c
                for c in child.lefts
                if c.dep_ == "compound" or (c.dep_ == "amod" and c.text[:1].isupper())
            ]
            if named and not any(name == "attr.of" for name, _ in of):
                slots.append(("attr.of", named[-1]))
    slots.extend(
        (f"verb.{c.text.lower()}", o)
        for c in verb.children
        if c.dep_ == "prep" and c.text.lower() in _PREPOSITIONS
        for o in c.children
        if o.dep_ == "pobj"
    )
    if len(slots) < 2:
        return None
    return Frame(key, tuple((name, _phrase(token)) for name, token in slots))


def frames(doc: Any) -> tuple[Frame, ...]:
    """The frames of a parsed sentence: one per verb with a subject and another slot."""
    found = []
    for token in doc:
        if token.pos_ not in {"VERB", "AUX"} or token.lemma_.lower() in SYMMETRIC_VERBS:
            continue
        if not any(c.dep_ in {"nsubj", "nsubjpass"} for c in token.children):
            continue
        frame = _frame(token)
        if frame is not None:
            found.append(frame)
    return tuple(found)


def _swaps(claim: Frame, evidence: Frame) -> Iterator[tuple[Phrase, Phrase, Phrase, Phrase]]:
    """(claim's first, claim's second, evidence's first, evidence's second) phrase of each swap."""
    if claim.verb != evidence.verb:
        return
    names = [n for n, _ in claim.slots]
    for i, first in enumerate(names):
        for second in names[i + 1 :]:
            if first == second or frozenset({first, second}) in _NOT_SWAPS:
                continue
            a, b = claim.slot(first), claim.slot(second)
            x, y = evidence.slot(first), evidence.slot(second)
            if a is None or b is None or x is None or y is None or a.names(b):
                continue
            if a.names(y) and b.names(x) and not a.names(x):
                yield a, b, x, y


class RoleReader:
    """Reads swapped roles of a claim against its passages with a parser (see the module
    docstring); :meth:`load` makes one with spaCy's English pipeline, or one that finds nothing
    when the ``[nlp]`` extra is missing (``available`` then says so)."""

    def __init__(self, parse: Parser | None) -> None:
        self._parse = parse

    @property
    def available(self) -> bool:
        return self._parse is not None

    @classmethod
    def load(cls, model: str = defaults.KNOWLEDGE_SPACY_MODEL) -> RoleReader:
        try:
            return cls(_parser(model))
        except MissingDependencyError:
            return cls(None)

    def checks(self, claim: str, passages: Sequence[Chunk]) -> list[ValueCheck]:
        """The swapped roles of ``claim`` against the sentences of ``passages`` aligned with it
        (spans into each passage's document)."""
        if self._parse is None:
            return []
        found: list[ValueCheck] = []
        for chunk in passages:
            found.extend(self.conflicts(claim, chunk.text, doc_id=chunk.doc_id, offset=chunk.start))
        return found

    def conflicts(
        self, claim: str, premise: str, *, doc_id: str | None = None, offset: int = 0
    ) -> tuple[ValueCheck, ...]:
        """The swapped roles of ``claim`` against the sentences of ``premise`` aligned with
        it; empty without a parser, an aligned sentence or a swap."""
        if self._parse is None:
            return ()
        joined = join_hyphenated(premise)
        sentences = aligned_sentences(claim, joined.text)
        if not sentences:
            return ()
        claim_frames = frames(self._parse(claim))
        if not claim_frames:
            return ()
        found: list[ValueCheck] = []
        for sentence in sentences:
            text = sentence.of(joined.text)
            for mine in claim_frames:
                for theirs in frames(self._parse(text)):
                    for a, b, x, y in _swaps(mine, theirs):
                        span = Span(min(a.span.start, b.span.start), max(a.span.end, b.span.end))
                        words = Span(
                            sentence.start + min(x.span.start, y.span.start),
                            sentence.start + max(x.span.end, y.span.end),
                        )
                        evidence = joined.source_span(words)
                        around = joined.source_span(sentence)
                        found.append(
                            ValueCheck(
                                kind="roles",
                                text=span.of(claim),
                                span=span,
                                value=f"{a.key} / {b.key}",
                                status="mismatch",
                                found=evidence.of(premise),
                                doc_id=doc_id,
                                evidence=Span(offset + evidence.start, offset + evidence.end),
                                aligned=True,
                                sentence=Span(offset + around.start, offset + around.end),
                            )
                        )
                        break
            if found:
                break
        return tuple(found)


@functools.cache
def _parser(model: str) -> Parser:
    """spaCy's pipeline ``model`` with its parser (once per process), each text's parse kept."""
    purpose = "reading swapped roles"
    require("spacy", extra="nlp", purpose=purpose)
    package = require(model, extra="nlp", purpose=purpose)
    return functools.lru_cache(maxsize=2048)(load_pipeline(model, package, exclude=("ner",)))
