"""Rule-based decontextualization: replace a claim's opening pronoun or "this researcher"-style
reference by the entity it points to, so the claim stands alone.

The antecedent is the subject of the claim just before (a running "last named subject"), read
by :mod:`.grammar`. A claim's *clause-initial* reference is replaced when it fits that subject:

- ``He``/``She``/``His``/``Her`` (and ``He's``): a person's name ("Karl von Frisch"), or a
  single capitalised name, when the previous claim names no second person ("Einstein met Bohr."
  makes ``He`` ambiguous);
- ``It``/``Its``/``It's``: a singular thing ("The Eiffel Tower", "Apple"), unless the previous
  claim has a singular object it could point to ("Curie discovered polonium.");
- ``They``/``Their``/``They're``: a plural subject ("Honey bees"), unless the previous claim
  has a plural object;
- ``This``/``That``/``The``/``These``/``Those`` + noun: when the noun is the subject's own head
  noun ("The study" after "A 2019 study by Smith ...") or a role that fits it ("This
  researcher" after a person, "The company" or "The city" after a name).

Anything else is left unchanged: object pronouns, a reference inside the clause, an antecedent
that is not the previous subject, a subject the reader cannot find. Each replacement is
recorded as ``decontextualized: 'He' -> 'Karl von Frisch'``; the claim keeps its span (the words
it was cut from, "he died in 1982"), so the span and the edit together give its text. A Markdown
heading between two claims starts afresh.

>>> from veracity.types import Span
>>> drafts = [Draft(0, text, Span(0, 1), Span(0, 1)) for text in
...           ["Karl von Frisch studied bees.", "He won the Nobel Prize in 1973."]]
>>> [d.text for d in RuleDecontextualizer().run(drafts)]
['Karl von Frisch studied bees.', 'Karl von Frisch won the Nobel Prize in 1973.']
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass
from typing import Literal

from veracity.text.grammar import (
    ADVERBS,
    BE_FORMS,
    CONJUNCTIONS,
    CONTRACTIONS,
    DETERMINERS,
    PREPOSITIONS,
    SUBJECT_PRONOUNS,
    SUBORDINATORS,
    Clause,
    Token,
    finish,
    read_clause,
    tokenize,
)
from veracity.verify.claims.draft import Draft

__all__ = ["RuleDecontextualizer"]

Kind = Literal["person", "name", "thing", "plural"]

_PERSON_PRONOUNS = frozenset({"he", "she", "his", "her", "he's", "she's"})
_THING_PRONOUNS = frozenset({"it", "its", "it's"})
_PLURAL_PRONOUNS = frozenset({"they", "their", "they're"})
_POSSESSIVES = frozenset({"his", "her", "its", "their"})
_DEMONSTRATIVES = frozenset({"this", "that", "the", "these", "those"})
_PLURAL_DEMONSTRATIVES = frozenset({"these", "those"})
_PARTICLES = frozenset("von van de der den da di del della du la le bin ibn al y".split())
_TITLES = frozenset(
    "dr mr mrs ms prof professor sir dame lady lord president king queen saint st".split()
)
_NOT_PERSON = frozenset(
    "university college institute company corporation corp inc ltd llc group society "
    "association agency foundation bank party council committee department ministry museum "
    "school academy hospital church union federation organization organisation club team "
    "laboratory labs centre center office court army navy prize award medal tower bridge river "
    "lake mountain mount sea ocean island islands park street city state states kingdom republic "
    "empire county province valley desert war treaty act cathedral palace castle station airport "
    "stadium north south east west new united national international royal world january "
    "february march april may june july august september october november december monday "
    "tuesday wednesday thursday friday saturday sunday".split()
)
_PERSON_NOUNS = frozenset(
    "researcher scientist physicist biologist chemist zoologist ethologist author writer artist "
    "painter composer philosopher mathematician economist politician president leader inventor "
    "engineer explorer poet novelist professor doctor physician actor actress singer musician "
    "director founder entrepreneur athlete player man woman astronomer historian architect "
    "scholar linguist psychologist geologist naturalist botanist entomologist".split()
)
_NAMED_NOUNS = frozenset(
    "company firm organization organisation university institute agency group team band "
    "corporation startup business bank party government museum school college foundation "
    "society club network platform brand manufacturer publisher laboratory lab city country "
    "town village state region island river mountain capital nation province county lake "
    "continent book novel film movie song album paper article study theory painting play poem "
    "law treaty war battle tower building bridge species disease drug language program "
    "programme software model algorithm device mission project experiment award prize monument "
    "cathedral church temple ship".split()
)
_PLACE_PREPOSITIONS = frozenset("in at from to near into across throughout of".split())
_PERSON_LINKS = frozenset({"with", "by", "and"})


@dataclass(frozen=True, slots=True)
class _Entity:
    """The subject of a claim, as an antecedent: its words, what it can be referred to by, and
    what else in its claim a reference could point to."""

    text: str
    kind: Kind
    head: str
    named: bool
    rival_person: bool
    object_number: Literal["singular", "plural"] | None


class RuleDecontextualizer:
    """Replace clause-initial references by the previous claim's subject (module docstring).

    ``run`` is pure: the running subject lives in the call, never on ``self``.
    """

    def load(self) -> RuleDecontextualizer:
        """Nothing to load; here so every stage has the same shape."""
        return self

    def run(self, drafts: Sequence[Draft], *, breaks: Collection[int] = ()) -> tuple[Draft, ...]:
        """``drafts`` in order, with their references resolved where the rules are sure.

        ``breaks`` are sentence indices that start a new section (after a heading): a claim
        after one does not look back across it.
        """
        resolved: list[Draft] = []
        entity: _Entity | None = None
        previous: int | None = None
        for draft in drafts:
            if previous is not None and any(previous < cut <= draft.sentence for cut in breaks):
                entity = None
            draft = _resolve(draft, entity)
            resolved.append(draft)
            entity = _entity_of(draft.text)
            previous = draft.sentence
        return tuple(resolved)


def _resolve(draft: Draft, entity: _Entity | None) -> Draft:
    if entity is None:
        return draft
    text = draft.text
    tokens = tokenize(text)
    clause = read_clause(tokens, text)
    if clause is None:
        return draft
    found = _reference(clause, entity)
    if found is None:
        return draft
    end, replacement = found
    first = tokens[clause.start]
    if clause.start > 0 and replacement.split()[0].lower() in DETERMINERS:
        replacement = replacement[0].lower() + replacement[1:]
    original = text[first.start : tokens[end - 1].end]
    rewritten = finish(text[: first.start] + replacement + text[tokens[end - 1].end :])
    return draft.substituted(rewritten, f"decontextualized: {original!r} -> {replacement!r}")


def _reference(clause: Clause, entity: _Entity) -> tuple[int, str] | None:
    """``(index after the reference, its replacement)`` when the clause opens with a reference
    that ``entity`` fits, else ``None``."""
    tokens = clause.tokens
    start = clause.start
    word = tokens[start].lower
    fits = (
        (word in _PERSON_PRONOUNS and entity.kind in ("person", "name") and not entity.rival_person)
        or (
            word in _THING_PRONOUNS
            and entity.kind in ("thing", "name")
            and entity.object_number != "singular"
        )
        or (
            word in _PLURAL_PRONOUNS
            and entity.kind == "plural"
            and entity.object_number != "plural"
        )
    )
    if fits:
        if word in CONTRACTIONS:
            following = tokens[start + 1].lower if start + 1 < len(tokens) else ""
            verb = (
                "are" if word.endswith("'re") else ("has" if following in ("been", "got") else "is")
            )
            return start + 1, f"{entity.text} {verb}"
        if word in _POSSESSIVES:
            return start + 1, _possessive(entity)
        return start + 1, entity.text
    if word in _DEMONSTRATIVES and clause.subject_end >= start + 2:
        return _demonstrative(clause, entity)
    return None


def _demonstrative(clause: Clause, entity: _Entity) -> tuple[int, str] | None:
    """ "This researcher", "The company's": the determiner and one noun, then the verb."""
    tokens = clause.tokens
    start = clause.start
    noun_token = tokens[start + 1]
    possessive = noun_token.lower.endswith("'s")
    if not noun_token.text[0].islower() or not noun_token.is_word:
        return None
    if not possessive and clause.subject_end != start + 2:
        return None
    noun = noun_token.lower.removesuffix("'s")
    plural = tokens[start].lower in _PLURAL_DEMONSTRATIVES
    if plural != (entity.kind == "plural"):
        return None
    if _stem(noun) == _stem(entity.head):
        if entity.text.lower() == f"{tokens[start].lower} {noun}":
            return None
        words = entity.text.split(" ", 1)
        text = entity.text
        if words[0].lower() in ("a", "an") and len(words) == 2:
            text = f"The {words[1]}"
    elif _role_fits(noun, entity):
        text = entity.text
    else:
        return None
    if possessive:
        return start + 2, _possessive(_with_text(entity, text))
    return start + 2, text


def _role_fits(noun: str, entity: _Entity) -> bool:
    """Whether "this <noun>" can name ``entity``: a person's role, or a named thing's kind."""
    if noun in _PERSON_NOUNS:
        return entity.kind in ("person", "name") and not entity.rival_person
    return noun in _NAMED_NOUNS and entity.kind in ("thing", "name") and entity.named


def _with_text(entity: _Entity, text: str) -> _Entity:
    return _Entity(
        text, entity.kind, entity.head, entity.named, entity.rival_person, entity.object_number
    )


def _possessive(entity: _Entity) -> str:
    if entity.kind == "plural" and entity.text.endswith("s"):
        return entity.text + "'"
    return entity.text + "'s"


def _stem(noun: str) -> str:
    if noun.endswith("ies") and len(noun) > 4:
        return noun[:-3] + "y"
    if noun.endswith("s") and not noun.endswith(("ss", "us", "is")):
        return noun[:-1]
    return noun


def _plural_word(word: str) -> bool:
    return word.endswith("s") and not word.endswith(("ss", "us", "is")) and len(word) > 2


def _entity_of(text: str) -> _Entity | None:
    """The subject of ``text`` as an antecedent, or ``None`` when it cannot be one."""
    tokens = tokenize(text)
    clause = read_clause(tokens, text)
    if clause is None or clause.verb == clause.start:
        return None
    subject = clause.subject
    first = subject[0].lower
    if (
        first in SUBJECT_PRONOUNS
        or first in _POSSESSIVES
        or first in ("my", "our", "your")
        or (first in _DEMONSTRATIVES - {"the"} and len(subject) == 1)
    ):
        return None
    words = [token for token in subject if token.is_word]
    if not words:
        return None
    # The head noun comes before any prepositional phrase: "A 2019 study by Smith" -> "study".
    core = next(
        (words[:i] for i, token in enumerate(words) if token.lower in PREPOSITIONS and i > 0), words
    )
    head = core[-1].lower.removesuffix("'s")
    verb = tokens[clause.verb].lower
    plural = (
        verb in ("are", "were", "have", "do", "aren't", "weren't", "haven't", "don't")
        or (clause.form.tense == "base" and not clause.form.aux)
        or (
            clause.form.tense in ("past", "modal")
            and core[-1].text[0].islower()
            and _plural_word(head)
        )
    )
    named = all(token.capitalised or token.lower in _PARTICLES for token in words)
    lowered = {token.lower.strip(".") for token in words}
    titled = words[0].lower in _TITLES
    if plural:
        kind: Kind = "plural"
    elif first in DETERMINERS or lowered & _NOT_PERSON or not named:
        kind = "thing"
    elif titled or sum(token.capitalised for token in words) >= 2:
        kind = "person"
    else:
        kind = "name"
    return _Entity(
        clause.subject_text,
        kind,
        head,
        named and first not in DETERMINERS,
        _rival_person(clause),
        _object_number(clause),
    )


def _rival_person(clause: Clause) -> bool:
    """Whether the claim names a second person after its verb ("Einstein met Bohr")."""
    tokens = clause.tokens
    position = clause.verb_end
    while position < len(tokens):
        token = tokens[position]
        if not (token.is_word and token.capitalised):
            position += 1
            continue
        end = position
        while (
            end < len(tokens)
            and tokens[end].is_word
            and (tokens[end].capitalised or tokens[end].lower in _PARTICLES)
        ):
            end += 1
        run = tokens[position:end]
        before = tokens[position - 1].lower if position > 0 else ""
        lowered = {t.lower for t in run}
        if (
            not lowered & _NOT_PERSON
            and before not in _PLACE_PREPOSITIONS
            and (
                sum(t.capitalised for t in run) >= 2
                or before in _PERSON_LINKS
                or position == clause.verb_end
            )
        ):
            return True
        position = end
    return False


def _object_number(clause: Clause) -> Literal["singular", "plural"] | None:
    """The number of the claim's direct object, or ``None`` when it has none (a copula, a
    passive, or a verb followed by a preposition or nothing)."""
    tokens = clause.tokens
    if tokens[clause.verb].lower in BE_FORMS or clause.passive or clause.verb == clause.start:
        return None
    position = clause.verb_end
    while position < len(tokens) and tokens[position].lower in ADVERBS:
        position += 1
    stops = PREPOSITIONS | SUBORDINATORS | CONJUNCTIONS
    run: list[Token] = []
    while (
        position < len(tokens) and tokens[position].is_word and tokens[position].lower not in stops
    ):
        run.append(tokens[position])
        position += 1
    if not run:
        return None
    return "plural" if _plural_word(run[-1].lower) else "singular"
