"""Edits that need a sentence's parse: swapped roles and co-hyponyms.

The regular-expression twins of :mod:`.contrast` swap two capitalised names around a handful of
verbs ("Arsenal defeated Chelsea"); an answer's swapped roles are more often "A is a fork of B"
for "B is a fork of A" or "X depends on Y" for "Y depends on X", and its wrong words more often
a sibling than an antonym ("green" for "blue"). Both need to know which words are the subject,
the object and the nouns, which spaCy's small English pipeline (the ``[nlp]`` extra) tells.

- :meth:`ParsedEdits.swap_roles`: the subject and the object (direct object, the object of a
  preposition after the verb or after a predicate noun, or the agent of a passive) exchanged;
- :meth:`ParsedEdits.co_hyponym`: one common noun or colour word replaced by a WordNet sibling
  (:mod:`.wordnet`);
- :meth:`ParsedEdits.adjective_antonym`: one adjective replaced by its WordNet antonym.

>>> edits = ParsedEdits.load()  # doctest: +SKIP
>>> edits.swap_roles("Ubuntu is a fork of Debian.")  # doctest: +SKIP
'Debian is a fork of Ubuntu.'
"""

from __future__ import annotations

import random
from functools import lru_cache
from typing import Any

from veracity._deps import require
from veracity.defaults import KNOWLEDGE_SPACY_MODEL
from veracity_training.data.contrast import Edit
from veracity_training.data.schema import DataLabel
from veracity_training.data.wordnet import WordNet

__all__ = ["SYMMETRIC_VERBS", "ParsedEdits"]

#: Verbs whose subject and object can be exchanged without changing the meaning.
SYMMETRIC_VERBS = frozenset(
    """marry meet resemble equal match join collaborate partner merge share play face fight
    battle tie draw border touch neighbour neighbor coincide overlap intersect correspond
    compete date divorce befriend accompany""".split()
)
#: Prepositions whose object plays a role opposite the subject ("a fork *of* B", "older *than*
#: B"); "on" only after the verbs that take it so ("depends *on* B").
_ROLE_PREPOSITIONS = frozenset({"of", "from", "by", "than", "over"})
_ON_VERBS = frozenset({"depend", "rely", "base", "build", "draw", "prey", "feed"})
_MAX_ROLE_WORDS = 6


def _phrase(token: Any) -> tuple[int, int] | None:
    """The character span of ``token``'s noun phrase (its subtree), if it is a short, contiguous
    one with no verb, clause or comma inside."""
    tokens = list(token.subtree)
    if len(tokens) > _MAX_ROLE_WORDS or any(t.pos_ in {"VERB", "AUX", "PRON"} for t in tokens):
        return None
    if any(t.text in {",", ";", "(", ")", "and", "or"} for t in tokens):
        return None
    if token.pos_ not in {"NOUN", "PROPN"}:
        return None
    start, end = tokens[0].idx, tokens[-1].idx + len(tokens[-1].text)
    return start, end


class ParsedEdits:
    """Swapped roles and co-hyponym twins of a sentence, from spaCy's parse and WordNet."""

    def __init__(self, nlp: Any, wordnet: WordNet | None) -> None:
        self._nlp = nlp
        self._wordnet = wordnet
        self._parse = lru_cache(maxsize=4096)(self._nlp)

    @classmethod
    def load(cls, wordnet: WordNet | None = None) -> ParsedEdits:
        """spaCy's small English pipeline (without its entity recogniser) and ``wordnet``."""
        spacy = require("spacy", extra="nlp", purpose="swapped-role and co-hyponym training rows")
        nlp = spacy.load(KNOWLEDGE_SPACY_MODEL, disable=["ner"])
        return cls(nlp, wordnet)

    def swap_roles(self, sentence: str) -> tuple[str, bool] | None:
        """The sentence with its subject and object exchanged, and whether the verb is one-way
        (a contradicted twin) rather than merely unstated; None where no such pair is found."""
        doc = self._parse(sentence)
        for token in doc:
            if token.dep_ not in {"nsubj", "nsubjpass"}:
                continue
            head = token.head
            if head.lemma_.lower() in SYMMETRIC_VERBS or head.pos_ not in {"VERB", "AUX"}:
                continue
            subject = _phrase(token)
            target = self._object_of(head, passive=token.dep_ == "nsubjpass")
            if subject is None or target is None:
                continue
            obj = _phrase(target)
            if obj is None or obj[0] < subject[1]:
                continue
            passive = token.dep_ == "nsubjpass"
            if passive and {token.pos_, target.pos_} != {"PROPN"}:
                continue  # "the castle was built by the Normans": only names trade places
            if "PROPN" not in {token.pos_, target.pos_} and head.lemma_ not in _ON_VERBS:
                continue  # two common nouns exchanged read as nonsense, not as a claim
            if {token.text, target.text} & _NOT_ROLES:
                continue
            a, b = sentence[subject[0] : subject[1]], sentence[obj[0] : obj[1]]
            if a.lower() == b.lower():
                continue
            first_b = b[0].upper() + b[1:] if subject[0] == 0 else b
            first_a = a
            if subject[0] == 0 and doc[0].pos_ != "PROPN" and a[:1].isupper():
                first_a = a[0].lower() + a[1:]
            if subject[0] == 0 and target.pos_ != "PROPN" and not b[:1].isupper():
                first_b = b[0].upper() + b[1:]
            out = (
                sentence[: subject[0]]
                + first_b
                + sentence[subject[1] : obj[0]]
                + first_a
                + sentence[obj[1] :]
            )
            predicate = next((c for c in head.children if c.dep_ == "attr"), None)
            one_way = (
                head.lemma_.lower() in _ONE_WAY
                or (predicate is not None and predicate.lemma_.lower() in _ONE_WAY)
                or token.dep_ == "nsubjpass"
            )
            return out, one_way
        return None

    @staticmethod
    def _object_of(verb: Any, *, passive: bool) -> Any | None:
        for child in verb.children:
            if passive and child.dep_ == "agent":
                objects = [c for c in child.children if c.dep_ == "pobj"]
                return objects[0] if objects else None
            if not passive and child.dep_ == "dobj":
                return child
            preposition = child.text.lower()
            if (
                not passive
                and child.dep_ == "prep"
                and (
                    preposition in _ROLE_PREPOSITIONS
                    or (preposition == "on" and verb.lemma_ in _ON_VERBS)
                )
            ):
                objects = [c for c in child.children if c.dep_ == "pobj"]
                if objects:
                    return objects[0]
            if not passive and child.dep_ == "attr":
                # "A is a fork of B": the predicate noun's prepositional object
                for prep in child.children:
                    if prep.dep_ == "prep" and prep.text.lower() in _ROLE_PREPOSITIONS:
                        objects = [c for c in prep.children if c.dep_ == "pobj"]
                        if objects:
                            return objects[0]
        return None

    def co_hyponym(self, sentence: str, rng: random.Random) -> tuple[str, bool] | None:
        """One common noun or adjective replaced by a WordNet sibling ("blue" -> "green"), and
        whether it stands as the predicate or a modifier (the twin then contradicts: "the sky
        is green"); elsewhere the sibling is merely unstated ("a copper wire" -> "a silver
        wire")."""
        if self._wordnet is None:
            return None
        doc = self._parse(sentence)
        spots = []
        for token in doc:
            if token.pos_ not in {"NOUN", "ADJ"} or not token.text.isalpha():
                continue
            if token.text[:1].isupper() and token.i > 0:
                continue  # a name
            siblings = self._wordnet.co_hyponyms(token.text.lower())
            if token.tag_ == "NNS":
                continue  # plurals would need inflection; keep it exact
            if siblings:
                spots.append((token, siblings))
        if not spots:
            return None
        token, siblings = rng.choice(spots)
        new = rng.choice(siblings)
        if token.text[:1].isupper():
            new = new[:1].upper() + new[1:]
        contradicts = token.pos_ == "ADJ" or token.dep_ in {"acomp", "attr", "amod"}
        return _swap_word(sentence, token.idx, token.idx + len(token.text), new), contradicts

    def adjective_antonym(self, sentence: str, rng: random.Random) -> str | None:
        """One adjective replaced by its WordNet antonym ("optional" -> "obligatory")."""
        if self._wordnet is None:
            return None
        doc = self._parse(sentence)
        spots = [
            (token, names)
            for token in doc
            if token.pos_ == "ADJ"
            and token.text.isalpha()
            and token.text.islower()
            and (names := self._wordnet.antonyms(token.text))
        ]
        if not spots:
            return None
        token, names = rng.choice(spots)
        new = rng.choice(names)
        return _swap_word(sentence, token.idx, token.idx + len(token.text), new)


def _swap_word(sentence: str, start: int, end: int, new: str) -> str:
    """``sentence[start:end]`` replaced by ``new``, its article made to fit."""
    before = sentence[:start]
    if before.endswith(("a ", "A ")) and new[:1].lower() in "aeiou":
        before = before[:-1] + "n "
    elif before.endswith(("an ", "An ")) and new[:1].lower() not in "aeiou":
        before = before[:-2] + " "
    return before + new + sentence[end:]


_NOT_ROLES = frozenset(
    """Monday Tuesday Wednesday Thursday Friday Saturday Sunday January February March April
    May June July August September October November December""".split()
)

#: Verbs whose roles cannot be exchanged: the twin is contradicted, not merely unstated.
_ONE_WAY = frozenset(
    """defeat beat succeed replace precede follow acquire buy employ hire fire sue attack invade
    conquer capture kill murder shoot teach coach manage overtake eliminate train supervise found
    own sponsor fork inherit extend wrap import depend derive include contain""".split()
)


def parsed_edits(edits: ParsedEdits) -> dict[str, tuple[DataLabel, Edit]]:
    """The twin edits of ``edits`` by name: (label, edit) as :func:`.contrast.twin_rows` takes
    them. A one-way verb's swapped roles are contradicted; any other verb's are unstated."""

    def one_way(sentence: str, rng: random.Random) -> str | None:
        found = edits.swap_roles(sentence)
        return found[0] if found and found[1] else None

    def unstated(sentence: str, rng: random.Random) -> str | None:
        found = edits.swap_roles(sentence)
        return found[0] if found and not found[1] else None

    def sibling(sentence: str, rng: random.Random) -> str | None:
        found = edits.co_hyponym(sentence, rng)
        return found[0] if found and found[1] else None

    def sibling_unstated(sentence: str, rng: random.Random) -> str | None:
        found = edits.co_hyponym(sentence, rng)
        return found[0] if found and not found[1] else None

    return {
        "roles_parsed": ("contradicted", one_way),
        "roles_unstated": ("neither", unstated),
        "co_hyponym": ("contradicted", sibling),
        "co_hyponym_unstated": ("neither", sibling_unstated),
        "wordnet_antonym": ("contradicted", edits.adjective_antonym),
    }
