"""A shallow English clause reader for the rule-based claim steps (no tagger, no model).

It finds, in one clause, an optional introductory phrase ("In 1973, "), the subject (with an
appositive "Karl von Frisch, an Austrian ethologist," set aside) and the first finite verb,
from closed word lists, a lexicon of common verbs and their inflections, the ``-ed`` ending, and
an ``-s`` word after a short singular subject ("Python supports", "The language emphasizes").
It answers "is there a subject and a verb here?" and "where does the subject end?"; when it is
unsure it answers ``None``, and the callers then leave the text alone. Verb morphology (past,
third person, irregular verbs) is :mod:`veracity.text.verbs`'s, which training data uses too.

>>> clause = read_clause(tokenize("In 1973, Karl von Frisch won the Nobel Prize"))
>>> clause.subject_text, clause.form.tense
('Karl von Frisch', 'past')
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

from veracity import defaults
from veracity.text.verbs import regular_past, third_person

__all__ = [
    "Clause",
    "Token",
    "VerbForm",
    "cannot_be_passive",
    "capitalised_opening",
    "finish",
    "is_participle",
    "read_clause",
    "tokenize",
    "verb_form",
]

Tense = Literal["past", "pres3", "base", "modal"]

#: Chinese and Japanese characters: a sentence of them ends in the ideographic full stop "。".
_IDEOGRAPHIC = re.compile(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]")

_TOKEN = re.compile(
    r"(?:[A-Za-z]\.){2,}"  # U.S., e.g.
    r"|\d+(?:[.,:]\d+)*%?(?!\w)"  # 3.5, 1,200, 10:30, 40%
    r"|\w+(?:['’]\w+)*(?:-\w+(?:['’]\w+)*)*"  # words, it's, 20th-century
    r"|[^\w\s]"
)


@dataclass(frozen=True, slots=True)
class Token:
    """A word or punctuation mark with its character offsets in the tokenized text."""

    text: str
    start: int
    end: int

    @property
    def lower(self) -> str:
        return self.text.lower().replace("’", "'")

    @property
    def is_word(self) -> bool:
        return self.text[0].isalnum()

    @property
    def capitalised(self) -> bool:
        return self.text[0].isupper()


def tokenize(text: str) -> tuple[Token, ...]:
    """The tokens of ``text`` in order, with offsets.

    >>> [t.text for t in tokenize("The U.S. grew 3.5% in 2020; it's 20th-century.")]
    ['The', 'U.S.', 'grew', '3.5%', 'in', '2020', ';', "it's", '20th-century', '.']
    """
    return tuple(Token(m.group(), m.start(), m.end()) for m in _TOKEN.finditer(text))


def finish(text: str) -> str:
    """``text`` as a claim: trimmed, trailing ``,;:`` and end marks dropped, one final period
    (the ideographic ``。`` after Chinese or Japanese); a "!" that ends a token ("//!") stays
    before it. No letter changes case: "gzip", "iPhone"
    and "x86" stay as written (see :func:`capitalised_opening` for the one recorded exception).

    >>> finish("gzip writes a .gz file;"), finish("蜜蜂的翅膀每秒振动约230次。")
    ('gzip writes a .gz file.', '蜜蜂的翅膀每秒振动约230次。')
    """
    body = text.strip().rstrip(",;:.!… \t\n，；：、。！")
    if not body:
        return ""
    rest = text.strip()[len(body) :]
    if rest.startswith("!") and not (body[-1].isalnum() or body[-1] in ")]}\"'’”"):
        body += "!"  # "//!" is a token: its "!" stays
    return body + (
        "。" if _IDEOGRAPHIC.match(body[-1]) or text.rstrip().endswith(("。", "！")) else "."
    )


# --- word lists -------------------------------------------------------------------------------

DETERMINERS = frozenset(
    "the a an this these those his her its their our my your some many most all each every both "
    "several few no any another such".split()
)
SINGULAR_DETERMINERS = frozenset("a an this each every another one".split())
PLURAL_DETERMINERS = frozenset("these those many several few both all two three four".split())
PREPOSITIONS = frozenset(
    "in on at by for with from to of into onto about after before during under over between "
    "among through across against within without near since until via per toward towards upon "
    "around behind beyond despite throughout along".split()
)
SUBORDINATORS = frozenset(
    "that which who whom whose where when while because although though if unless whereas as "
    "than whether how why what once whenever wherever".split()
)
CONJUNCTIONS = frozenset("and or but nor yet so".split())
ADVERBS = frozenset(
    "also later then still often usually always never only first eventually subsequently soon "
    "already mainly mostly primarily largely not now typically generally originally finally even "
    "just currently frequently rarely sometimes actually really further thus therefore famously "
    "widely commonly once again probably possibly recently".split()
)
#: Words that may open an introductory phrase closed by a comma ("In 1973, ...").
INTRO_WORDS = (
    PREPOSITIONS
    | ADVERBS
    | frozenset(
        "however moreover furthermore additionally today historically originally later also "
        "meanwhile consequently notably interestingly similarly overall specifically instead "
        "nevertheless nonetheless finally initially eventually subsequently afterwards first "
        "second third".split()
    )
)
SUBJECT_PRONOUNS = frozenset("he she it they we i you there".split())
#: Subject contractions: the tense of their verb.
CONTRACTIONS: dict[str, Tense] = {
    "he's": "pres3",
    "she's": "pres3",
    "it's": "pres3",
    "that's": "pres3",
    "there's": "pres3",
    "they're": "base",
    "we're": "base",
    "you're": "base",
    "i'm": "base",
}
_AUXILIARIES: dict[str, Tense] = {
    "is": "pres3",
    "has": "pres3",
    "does": "pres3",
    "are": "base",
    "have": "base",
    "do": "base",
    "am": "base",
    "was": "past",
    "were": "past",
    "had": "past",
    "did": "past",
    "isn't": "pres3",
    "hasn't": "pres3",
    "doesn't": "pres3",
    "aren't": "base",
    "haven't": "base",
    "don't": "base",
    "wasn't": "past",
    "weren't": "past",
    "hadn't": "past",
    "didn't": "past",
}
_MODALS = frozenset(
    "can could will would may might must shall should can't couldn't won't wouldn't mustn't "
    "shouldn't cannot".split()
)
BE_FORMS = frozenset("is are was were am isn't aren't wasn't weren't".split())
HAVE_FORMS = frozenset("has have had hasn't haven't hadn't".split())

# Past forms that are not also participles ("became", not "won"): after "was born ... and" only
# these (or a verb that cannot be passive) can start a second predicate.
_PAST_ONLY = frozenset(
    "became began came went ran swam sang rang drank ate fell flew grew knew threw drew gave took "
    "wrote rode rose spoke stole chose broke froze drove saw did was were arose awoke forbade "
    "overcame undertook withdrew".split()
)
_PAST_AND_PARTICIPLE = frozenset(
    "built made found held kept led left lost met paid said sold sent spent stood taught told "
    "thought brought bought caught fought won felt heard laid meant fed fled hung dug slept sat "
    "struck stuck stung understood had".split()
)
PARTICIPLES = _PAST_AND_PARTICIPLE | frozenset(
    "been born known given taken written shown grown seen done gone spoken chosen driven eaten "
    "fallen flown forgotten frozen hidden ridden risen shaken stolen sworn thrown worn begun sung "
    "drunk swum broken".split()
)
# Verbs that cannot be passive: "was born in 1886 and died in 1982" has two predicates.
_INTRANSITIVE_PAST = frozenset(
    "died lived moved retired emigrated immigrated graduated arrived worked remained stayed "
    "served returned settled travelled traveled fled".split()
)
_VERBS = frozenset(
    "accept achieve add allow announce appear arrive attract become begin belong boil breed build "
    "buy "
    "carry cause collect come communicate compete compose conquer consist contain continue "
    "cover create cross dance decide defeat defend define depend describe destroy develop die "
    "direct discover divide earn eat emerge emigrate employ enable enter establish evolve exist "
    "expand explain extend feed fight find flee flow fly follow found freeze gain give go govern "
    "graduate grow hatch help hibernate hold host hunt identify include inhabit introduce "
    "invade invent join keep kill know lay lead learn leave lie live lose make manage marry mate "
    "measure meet melt migrate move navigate need occur occupy operate own pass perform pollinate "
    "prefer produce protect prove provide publish reach receive reduce remain remove replace "
    "represent require reside retire reveal rise run say see sell send serve settle show sing "
    "speak spend stay sting study survive swim take teach tell think travel understand visit win "
    "work write".split()
)
_IRREGULAR_PAST = _PAST_ONLY | _PAST_AND_PARTICIPLE


#: Closed-class words: written in lower case at the opening of a claim, they are ordinary English
#: words, never a name or a code token, so capitalising them changes no token's identity.
FUNCTION_WORDS = (
    DETERMINERS
    | PREPOSITIONS
    | SUBORDINATORS
    | CONJUNCTIONS
    | ADVERBS
    | INTRO_WORDS
    | SUBJECT_PRONOUNS
    | frozenset(CONTRACTIONS)
    | frozenset("me us him them".split())
)


def capitalised_opening(text: str) -> tuple[str, str] | None:
    """``text`` with its opening word capitalised and the edit that records it, when that word
    is a lower-case function word (:data:`FUNCTION_WORDS`: "the", "he", "in"); ``None``
    otherwise. Any other opening ("gzip", "npm", "iPhone", "eBay", "x86", "wasps") is left
    alone: the rules cannot tell a common noun from a name or a code token.

    >>> capitalised_opening("the queen lays eggs.")
    ('The queen lays eggs.', "capitalised: 'the' -> 'The'")
    >>> capitalised_opening("gzip writes .gz files.") is None
    True
    """
    tokens = tokenize(text)
    if not tokens or tokens[0].start != 0:
        return None
    word = tokens[0].text
    if word.replace("’", "'") not in FUNCTION_WORDS:
        return None
    upper = word[0].upper() + word[1:]
    return upper + text[len(word) :], f"capitalised: {word!r} -> {upper!r}"


_PRES3 = frozenset(third_person(verb) for verb in _VERBS)
_PAST = frozenset(regular_past(verb) for verb in _VERBS)
# Words in -ed that are rarely a finite verb.
_NOT_VERBS = frozenset(
    "related based called named associated interested limited advanced detailed married united "
    "hundred sacred naked wicked beloved learned aged skilled talented winged kindred indeed "
    "bred shed shred wed speed seed need feed bleed embed exceed proceed succeed red bed "
    "red-haired so-called".split()
)


@dataclass(frozen=True, slots=True)
class VerbForm:
    """What a finite verb is: its ``tense`` class, whether it is an auxiliary (be, have, do, a
    modal), whether it is a guess from an ``-ed`` ending (``weak``), and whether it may be a
    past participle (``participle``)."""

    tense: Tense
    aux: bool = False
    weak: bool = False
    participle: bool = False


def verb_form(token: Token, previous: Token | None = None) -> VerbForm | None:
    """The finite-verb reading of ``token``, or ``None`` when it is not (or may not be) one.

    A word right after a determiner is read as a noun ("the study", "the works").

    >>> verb_form(tokenize("danced")[0]), verb_form(tokenize("Bees")[0])
    (VerbForm(tense='past', aux=False, weak=False, participle=True), None)
    """
    word = token.lower
    if not token.text[0].islower():
        return None
    if previous is not None and previous.lower in DETERMINERS:
        return None
    if word in _AUXILIARIES:
        return VerbForm(_AUXILIARIES[word], aux=True)
    if word in _MODALS:
        return VerbForm("modal", aux=True)
    if word in _IRREGULAR_PAST:
        return VerbForm("past", participle=word in _PAST_AND_PARTICIPLE)
    if word in _VERBS:
        return VerbForm("base")
    if word in _PRES3:
        return VerbForm("pres3")
    if word in _PAST:
        return VerbForm("past", participle=True)
    if word.endswith("ed") and len(word) >= 5 and word not in _NOT_VERBS and word.isalpha():
        return VerbForm("past", weak=True, participle=True)
    return None


def is_participle(token: Token) -> bool:
    """Whether ``token`` can be a past participle ("born", "founded")."""
    word = token.lower
    return word in PARTICIPLES or (
        word.endswith("ed") and len(word) >= 4 and word not in _NOT_VERBS
    )


def cannot_be_passive(token: Token) -> bool:
    """Whether ``token`` is a past form that cannot continue a passive ("died", "became")."""
    return token.lower in _PAST_ONLY or token.lower in _INTRANSITIVE_PAST


@dataclass(frozen=True, slots=True)
class Clause:
    """A clause read from ``tokens``: the main clause starts at ``start`` (after an
    introductory phrase), its subject is ``tokens[start:subject_end]``, its first finite verb is
    ``tokens[verb]`` (the subject token itself for a contraction such as "It's"), and an
    appositive or parenthesis after the subject spans ``tokens[aside[0]:aside[1]]``."""

    tokens: tuple[Token, ...]
    text: str
    start: int
    subject_end: int
    verb: int
    form: VerbForm
    aside: tuple[int, int] | None = None

    @property
    def subject(self) -> tuple[Token, ...]:
        return self.tokens[self.start : self.subject_end]

    @property
    def subject_text(self) -> str:
        subject = self.subject
        return self.text[subject[0].start : subject[-1].end]

    @property
    def verb_end(self) -> int:
        """Index after the verb group: the finite verb, adverbs, and a participle after be/have
        ("was born", "has also been found")."""
        position = self.verb + 1
        if self.tokens[self.verb].lower not in BE_FORMS | HAVE_FORMS:
            return position
        while position < len(self.tokens) and (
            self.tokens[position].lower in ADVERBS or self.tokens[position].lower == "been"
        ):
            position += 1
        if position < len(self.tokens) and is_participle(self.tokens[position]):
            return position + 1
        return self.verb + 1

    @property
    def passive(self) -> bool:
        """Whether the verb group is be/have + participle ("was born", "has won")."""
        return self.verb_end > self.verb + 1

    @property
    def negated(self) -> bool:
        verb = self.tokens[self.verb].lower
        following = self.tokens[self.verb + 1].lower if self.verb + 1 < len(self.tokens) else ""
        return verb.endswith("n't") or verb == "cannot" or following in ("not", "never")


def _intro_end(tokens: tuple[Token, ...], start: int) -> int | None:
    """Index after an introductory phrase closed by a comma, ``start`` when there is none, and
    ``None`` when the clause opens with a phrase the reader cannot place."""
    first = tokens[start].lower
    if first not in INTRO_WORDS:
        return start
    limit = min(len(tokens), start + defaults.CLAIMS_MAX_INTRO_WORDS + 2)
    for position in range(start + 1, limit):
        token = tokens[position]
        if token.text == ",":
            return position + 1
        form = verb_form(token, tokens[position - 1])
        if form is not None and not form.weak:
            break
    if first in PREPOSITIONS:
        return None
    return start + 1  # a lone adverb: "Later he moved to Graz."


def _aside_end(tokens: tuple[Token, ...], comma: int) -> int | None:
    """Index after an appositive ``, an Austrian ethologist,`` or a parenthesis starting at
    ``comma``, or ``None`` when none closes within a few words."""
    opener = tokens[comma].text
    closer = "," if opener == "," else ")"
    limit = min(len(tokens), comma + defaults.CLAIMS_MAX_SUBJECT_WORDS + 2)
    for position in range(comma + 1, limit):
        token = tokens[position]
        if token.text == closer:
            return position + 1
        if opener == "," and (
            verb_form(token, tokens[position - 1]) is not None or token.lower in SUBORDINATORS
        ):
            return None
    return None


def read_clause(tokens: tuple[Token, ...], text: str | None = None) -> Clause | None:
    """The subject and first finite verb of the clause ``tokens``, or ``None`` when unsure.

    ``text`` is the string the tokens index (needed for :attr:`Clause.subject_text`; rebuilt
    from the tokens when not given).
    """
    if text is None:
        text = _rebuild(tokens)
    if not tokens:
        return None
    start = _intro_end(tokens, 0)
    if start is None or start >= len(tokens):
        return None
    first = tokens[start]
    if not first.is_word or first.lower in (SUBORDINATORS - {"that"}) | CONJUNCTIONS | PREPOSITIONS:
        return None
    if first.text[0].islower() and verb_form(first) is not None:
        return None  # "can sting": a predicate without its subject
    if first.lower in CONTRACTIONS:
        return Clause(
            tokens, text, start, start + 1, start, VerbForm(CONTRACTIONS[first.lower], aux=True)
        )
    if first.lower in SUBJECT_PRONOUNS:
        position = start + 1
        while position < len(tokens) and tokens[position].lower in ADVERBS:
            position += 1
        form = verb_form(tokens[position], None) if position < len(tokens) else None
        if form is None:
            return None
        return Clause(tokens, text, start, start + 1, position, form)
    return _find_verb(tokens, text, start)


def _find_verb(tokens: tuple[Token, ...], text: str, start: int) -> Clause | None:
    aside: tuple[int, int] | None = None
    limit = start + defaults.CLAIMS_MAX_SUBJECT_WORDS + 1
    position = start + 1
    while position < min(len(tokens), limit + (aside[1] - aside[0] if aside else 0)):
        token = tokens[position]
        if token.text in (",", "(") and aside is None:
            end = _aside_end(tokens, position)
            if end is None:
                return None
            aside = (position, end)
            position = end
            continue
        if not token.is_word and token.text not in ("-", "'", "’", "&", "."):
            return None
        if token.lower in SUBORDINATORS - {"that"} or (token.lower == "that" and position > start):
            return None
        form = verb_form(token, tokens[position - 1]) or _guessed_pres3(tokens, start, position)
        if form is not None and _fits(tokens, start, aside, position, form):
            subject_end = aside[0] if aside else position
            while subject_end > start + 1 and tokens[subject_end - 1].lower in ADVERBS:
                subject_end -= 1
            return Clause(tokens, text, start, subject_end, position, form, aside)
        position += 1
    return None


def _fits(
    tokens: tuple[Token, ...],
    start: int,
    aside: tuple[int, int] | None,
    position: int,
    form: VerbForm,
) -> bool:
    """Whether ``tokens[position]`` can be the verb of the subject before it."""
    end = aside[0] if aside else position
    subject = [t for t in tokens[start:end] if t.lower not in ADVERBS] or list(tokens[start:end])
    if not subject or subject[-1].lower in DETERMINERS | PREPOSITIONS | CONJUNCTIONS:
        return False
    first = subject[0].lower
    if form.tense == "base" and not form.aux and first in SINGULAR_DETERMINERS:
        return False
    if form.tense == "pres3" and first in PLURAL_DETERMINERS:
        return False
    following = tokens[position + 1] if position + 1 < len(tokens) else None
    # "The bee dance communicates ...": a base form right before a verb is a noun.
    if form.tense == "base" and not form.aux and following is not None:
        after = verb_form(following, tokens[position])
        if after is not None and not after.weak:
            return False
    return not (form.weak and position == start + 1 and subject[0].lower in DETERMINERS)


def _guessed_pres3(tokens: tuple[Token, ...], start: int, position: int) -> VerbForm | None:
    """A verb outside the lexicon in ``-s`` after a short singular subject: a name ("Python
    supports") or a determiner and one noun ("The language emphasizes"); ``weak``."""
    word = tokens[position].lower
    if not (
        tokens[position].text[0].islower()
        and word.isalpha()
        and len(word) >= 4
        and word.endswith("s")
        and not word.endswith(("ss", "us", "is", "ics"))
    ):
        return None
    subject = tokens[start:position]
    named = all(token.capitalised and token.is_word for token in subject)
    determined = (
        len(subject) == 2
        and subject[0].lower in DETERMINERS - PLURAL_DETERMINERS
        and subject[1].text[0].islower()
        and not _plural(subject[1].lower)
    )
    following = tokens[position + 1] if position + 1 < len(tokens) else None
    if following is not None and verb_form(following, tokens[position]) is not None:
        return None  # "The bee colonies are ...": the -s word is a noun
    return VerbForm("pres3", weak=True) if named or determined else None


def _plural(word: str) -> bool:
    return word.endswith("s") and not word.endswith(("ss", "us", "is"))


def _rebuild(tokens: tuple[Token, ...]) -> str:
    if not tokens:
        return ""
    chars = [" "] * tokens[-1].end
    for token in tokens:
        chars[token.start : token.end] = token.text
    return "".join(chars)
