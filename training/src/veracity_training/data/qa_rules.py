"""Rewrite a question and its answer as one declarative claim, with hand-written rules.

>>> rewrite("Who wrote Hamlet?", "Shakespeare").text
'Shakespeare wrote Hamlet.'
>>> rewrite("When did the Normans conquer England?", "1066").text
'The Normans conquered England in 1066.'
>>> rewrite("What is the capital of France?", "Paris").text
'The capital of France is Paris.'
>>> rewrite("How many Super Bowls did the Broncos win?", "three").text
'The Broncos won three Super Bowls.'

``rewrite`` returns ``None`` when no rule fits and the answer does not suit the question type;
``fallback`` gives the clearly worded last resort ('The answer to "..." is X.'), which the
builder caps to a small share.
"""

from __future__ import annotations

import itertools
import re
from dataclasses import dataclass

from veracity.text.verbs import (
    AUXILIARIES,
    BASE_VERBS,
    IRREGULAR_PAST,
    is_base_verb,
    is_participle,
    past,
    third_person,
)
from veracity_training.data.qa_answers import (
    answer_fits,
    answer_ok,
    is_date_like,
    place_phrase,
    recase,
    time_phrase,
)
from veracity_training.data.qa_words import (
    BE,
    DETERMINERS,
    DO,
    HAVE,
    HOW_ADJ,
    MODALS,
    NUMBER_WORDS,
    PART_NOUNS,
    PREPOSITIONS,
    PRONOUNS,
    PROPERTY_NOUNS,
    QUANTIFIERS,
    TIME_NOUNS,
    WHY_STARTS,
)
from veracity_training.data.text import (
    YEAR,
    capitalise_first,
    clean,
)

__all__ = ["Statement", "fallback", "rewrite"]


@dataclass(frozen=True, slots=True)
class Statement:
    """A claim with the answer at ``text[answer_start:answer_end]``; ``rule`` names the rule."""

    text: str
    rule: str
    answer_start: int
    answer_end: int

    @property
    def answer(self) -> str:
        return self.text[self.answer_start : self.answer_end]

    def with_answer(self, answer: str) -> Statement:
        """The same claim with another answer in the answer slot."""
        if self.answer_start == 0:
            answer = capitalise_first(answer)
        text = self.text[: self.answer_start] + answer + self.text[self.answer_end :]
        return Statement(text, self.rule, self.answer_start, self.answer_start + len(answer))


def _verb_form(word: str) -> bool:
    """Whether ``word`` looks like a finite or participle verb form ("won", "plays", "invented")."""
    low = word.lower()
    if low in AUXILIARIES or low in IRREGULAR_PAST.values() or is_participle(low):
        return True
    if low.endswith("ies") and low[:-3] + "y" in BASE_VERBS:
        return True
    if low.endswith("es") and low[:-2] in BASE_VERBS:
        return True
    return low.endswith("s") and low[:-1] in BASE_VERBS


def _find_base_verb(tokens: list[str], passage: str) -> int | None:
    """Index (>= 1) of the main verb after a do-support auxiliary: "did [the Normans] conquer"."""
    passage_low = passage.lower()
    for i in range(1, len(tokens)):
        token = tokens[i]
        low = token.lower()
        prev = tokens[i - 1].lower()
        if not token.isalpha() or not token.islower() or low in DETERMINERS:
            continue
        if prev in DETERMINERS or prev.endswith(("'s", "’s")) or prev in PREPOSITIONS:
            continue
        if low in _ADVERBS or low.endswith("ly"):
            continue  # "did the Broncos last win": "last" is an adverb here
        inflected = (past(low), third_person(low), low + "ing", low + "ed")
        if is_base_verb(low) or any(f" {form} " in passage_low for form in inflected[:2]):
            return i
    return None


def _split_predicate(tokens: list[str], aux: str) -> int | None:
    """Where the subject ends after an inverted be/have/modal: the first participle or verb."""
    for i in range(1, len(tokens)):
        low = tokens[i].lower()
        if not tokens[i].islower():
            continue
        prev = tokens[i - 1].lower()
        if prev in DETERMINERS or prev in PREPOSITIONS:
            continue
        nxt = tokens[i + 1] if i + 1 < len(tokens) else ""
        if (
            nxt.islower()
            and nxt.lower() not in PREPOSITIONS | DETERMINERS | {"as", "and"}
            and (not nxt.endswith("ly") and aux not in MODALS)
        ):
            continue  # "the highest paid player": an adjective, not the predicate
        if aux in MODALS and is_base_verb(low):
            return i
        if aux not in MODALS and (is_participle(low) or (low.endswith("ing") and len(low) > 4)):
            return None if _reduced_relative(tokens[1:i]) else i
    return None


def _reduced_relative(subject: list[str]) -> bool:
    """ "the scholarship the student received": a determiner straight after a noun means the
    participle belongs to a relative clause inside the subject, not to the main verb."""
    for prev, token in itertools.pairwise(subject):
        if token in DETERMINERS and prev.lower() not in PREPOSITIONS | {"and", "or"}:
            return True
    return False


def _join(*parts: str) -> str:
    text = " ".join(p.strip() for p in parts if p and p.strip())
    text = re.sub(r"\s+([,.;:!?])", r"\1", text)
    return re.sub(r"\s+", " ", text).strip()


_PLURAL_START = frozenset(
    "all many both several most some these those few two three four five six seven eight nine "
    "ten".split()
)
_SINGULAR_TO_PLURAL = {"is": "are", "was": "were", "has": "have", "does": "do"}


def _plural(answer: str) -> bool:
    words = answer.split()
    last = words[-1]
    return (
        " and " in f" {answer} "
        or words[0].lower() in _PLURAL_START
        or (
            len(words) > 1
            and words[0].lower() == "the"
            and last.islower()
            and last.endswith("s")
            and not last.endswith(("ss", "us", "is"))
        )
    )


def _agree(subject: str, predicate: str) -> str:
    """ "All senators asks" -> "All senators ask": a plural answer takes a plural verb."""
    first, _, rest = predicate.partition(" ")
    if not first or not _plural(subject):
        return predicate
    if first in _SINGULAR_TO_PLURAL:
        return _join(_SINGULAR_TO_PLURAL[first], rest)
    low = first.lower()
    for base in (low[:-1], low[:-2], low[:-3] + "y"):
        if first.islower() and base in BASE_VERBS and third_person(base) == low:
            return _join(base, rest)
    return predicate


def _finish(prefix: str, answer: str, suffix: str, rule: str) -> Statement:
    """Assemble ``prefix answer suffix.``, recording where the answer landed."""
    prefix = _join(prefix)
    suffix = _join(suffix)
    head = f"{prefix} " if prefix else ""
    if not prefix:
        answer = capitalise_first(answer)
        suffix = _agree(answer, suffix)
    else:
        head = capitalise_first(head)
        first = answer.split(" ", 1)[0]
        if first in {"To", "Due", "Because", "The", "A", "An", "In", "On", "At", "For", "By"}:
            answer = first.lower() + answer[len(first) :]
    text = head + answer
    start = len(head)
    end = len(text)
    if suffix:
        sep = "" if suffix[:1] in ",.;:" else " "
        text = text + sep + suffix
    text = text.rstrip()
    if not text.endswith((".", "!", "?")):
        text += "."
    return Statement(text, rule, start, end)


def _declare_object(
    aux: str, rest: list[str], filler: str, answer: str, passage: str, rule: str
) -> Statement | None:
    """ "did X win the cup" + filler -> "X won the cup <filler>" (filler contains the answer)."""
    if not rest or rest[0].lower() in AUXILIARIES or (is_base_verb(rest[0]) and rest[0].islower()):
        return None
    low_aux = aux.lower()
    if low_aux in DO:
        v = _find_base_verb(rest, passage)
        if v is None:
            return None
        verb = rest[v].lower()
        if verb == "do":
            return None
        form = {"did": past(verb), "does": third_person(verb), "do": verb}[low_aux]
        subject, after = rest[:v], rest[v + 1 :]
        return _place(" ".join([*subject, form]), after, filler, answer, rule)
    lowered = [t.lower() for t in rest]
    if lowered[0] == "there" and low_aux in BE:
        return _place(f"There {low_aux}", rest[1:], filler, answer, rule)
    if lowered[:3] in (["the", "last", "time"], ["the", "first", "time"]):
        return _place(" ".join([*rest, low_aux]), [], filler, answer, rule)
    p = _split_predicate(rest, low_aux)
    if p is not None:
        subject, after = rest[:p], rest[p:]
        if after[0].lower() in {"do", "doing", "done"}:
            return None
        adverb = []
        if (
            len(subject) > 1
            and subject[-1].islower()
            and (subject[-1] in _ADVERBS or subject[-1].endswith("ly"))
        ):
            subject, adverb = subject[:-1], subject[-1:]  # "X often are collected" -> "X are often"
        head = " ".join([*subject, low_aux, *adverb, after[0]])
        return _place(head, after[1:], filler, answer, rule)
    if len(rest) >= 2 and lowered[-1] in PREPOSITIONS:
        subject = rest[:-1]
        return _place(" ".join([*subject, low_aux, lowered[-1]]), [], answer, answer, rule)
    return _place(" ".join([*rest, low_aux]), [], filler, answer, rule)


def _place(head: str, tail: list[str], filler: str, answer: str, rule: str) -> Statement:
    """Put the filler in the gap: the object slot after the verb when the tail is an adverbial
    ("married <A> in 1509"), after a stranded preposition ("moved to <A> in 1990"), else last."""
    at = filler.rfind(answer)
    before, after = filler[:at], filler[at + len(answer) :]
    low_tail = [t.lower() for t in tail]
    ends_open = bool(low_tail) and (
        low_tail[-1] in PREPOSITIONS or _verb_form(low_tail[-1]) or low_tail[-1].endswith("ing")
    )
    if tail and filler == answer and not ends_open:
        if low_tail[0] in PREPOSITIONS and len(tail) > 1 and low_tail[1] in PREPOSITIONS:
            return _finish(_join(head, tail[0]), answer, _join(" ".join(tail[1:])), rule)
        if low_tail[0] in PREPOSITIONS or YEAR.fullmatch(tail[0]):
            return _finish(head, answer, " ".join(tail), rule)
    last = (tail[-1] if tail else head.split(" ")[-1]).lower()
    if before.strip() and last in PREPOSITIONS - _PARTICLES:
        before = ""  # "is going to" + "in Turkey" -> "is going to Turkey"
    return _finish(_join(head, " ".join(tail), before), answer, after, rule)


_WH = frozenset({"who", "whom", "what", "which", "when", "where", "why", "whose"})


def rewrite(question: str, answer: str, *, passage: str = "") -> Statement | None:
    """The question and answer as one claim, or ``None`` when no rule fits."""
    q = clean(question).strip()
    q = re.sub(r"[?.!\s]+$", "", q)
    a = re.sub(r"[.,;:\s]+$", "", clean(answer)).strip()
    if not q or not a or "?" in q:
        return None
    if " or " in f" {q.lower()} " and re.match(r"^(which|who|what)\b", q.lower()):
        return _comparison(q, a)
    if passage:
        q = recase(q, passage)
    if not answer_fits(q, a) or not answer_ok(q, a):
        return None
    tokens = q.split()
    low = [t.lower() for t in tokens]
    if re.search(r"\b(not|n't|never|no longer)\b", q.lower()):
        return None
    first = low[0]
    if first in PREPOSITIONS and len(tokens) > 2 and low[1] in {"what", "which", "whom"}:
        return _prep_wh(tokens, low, a, passage)
    if first in {"when", "where", "why"} and len(tokens) > 2 and low[1] in AUXILIARIES:
        if first == "when":
            filler = time_phrase(a)
        elif first == "where":
            filler = place_phrase(a)
        else:
            if not a.lower().startswith(WHY_STARTS):
                return None
            filler = f" {a}"  # not the bare answer: it goes last, not in the object slot
        return _declare_object(tokens[1], tokens[2:], filler, a, passage, first)
    if first == "how" and len(tokens) > 2:
        return _how(tokens, low, a, passage)
    if first in {"who", "what", "which", "whom"} and len(tokens) > 1:
        return _who_what(tokens, low, a, passage)
    return _in_place(tokens, low, a)


def _comparison(q: str, a: str) -> Statement | None:
    """ "Which magazine was started first, A or B" -> "<answer> was started first." """
    head, _, second = q.rpartition(" or ")
    tokens = head.split()
    if len(tokens) < 3 or tokens[0].lower() not in {"which", "who", "what"}:
        return None
    k = next((j for j in range(1, min(len(tokens), 5)) if _verb_form(tokens[j])), None)
    if k is None or k + 1 >= len(tokens):
        return None
    verb, body = tokens[k].lower(), " ".join(tokens[k + 1 :])
    if "," in body:
        predicate, first = body.rsplit(",", 1)
    else:
        run = re.search(r"((?:(?:[A-Z0-9][\w'’.&-]*|of|the|and|de|for)\s?)+)$", body)
        if not run or not run.group(1)[:1].isupper():
            return None
        first = run.group(1)
        predicate = body[: run.start()]
    options = {first.strip().lower(), second.strip().lower()}
    if a.lower() not in options or not predicate.strip():
        return None
    pred_tokens = predicate.split()
    if verb in DO:
        if not is_base_verb(pred_tokens[0]):
            return None
        form = past(pred_tokens[0]) if verb == "did" else third_person(pred_tokens[0])
        return _finish("", a, _join(form, " ".join(pred_tokens[1:])), "comparison")
    return _finish("", a, _join(verb, predicate), "comparison")


def _prep_wh(tokens: list[str], low: list[str], a: str, passage: str) -> Statement | None:
    prep = low[0]
    if prep == "of":
        return None
    i = 2
    while i < len(tokens) and low[i] not in AUXILIARIES:
        if low[i] in {"that", "which", "who"} or (i > 2 and _verb_form(low[i])) or i >= 5:
            return None
        i += 1
    if i >= len(tokens) - 1:
        return None
    noun = low[2:i]
    rest = tokens[i + 1 :]
    if low[i] in BE and _split_predicate(rest, low[i]) is None and len(rest) > 3:
        return None  # "at what age are you no longer a toddler": no safe place for the answer
    if prep == "in" and noun and noun[-1] in TIME_NOUNS:
        filler = time_phrase(a)
    elif a.lower().split(" ", 1)[0] in PREPOSITIONS:
        filler = f" {a}"
    else:
        filler = f"{prep} {a}"
    return _declare_object(tokens[i], tokens[i + 1 :], filler, a, passage, "prep_wh")


_PARTICLES = frozenset("out up off down".split())
_ADVERBS = frozenset(
    "often also still usually once first last ever later originally generally now finally "
    "really actually officially initially".split()
)
_OBJECT_PRONOUNS = frozenset("you him her them us me it".split())
_LENGTH_UNIT = re.compile(
    r"\b(m|km|cm|mm|metres?|meters?|kilometres?|kilometers?|miles?|feet|foot|ft|inches?|yards?)\b"
)


def _subject_like(token: str) -> bool:
    """Whether a token can start the subject noun phrase after an inverted auxiliary."""
    low = token.lower()
    return (
        low in DETERMINERS
        or low in PRONOUNS
        or low in QUANTIFIERS
        or token[:1].isupper()
        or token[:1].isdigit()
        or low.endswith(("'s", "’s"))
    )


def _how(tokens: list[str], low: list[str], a: str, passage: str) -> Statement | None:
    if low[1] in {"many", "much"}:
        i = 3 if low[1] == "many" else 2  # "how many <noun>": the noun is never the verb
        while (
            i < len(tokens)
            and low[i] not in AUXILIARIES
            and not _verb_form(low[i])
            and not is_base_verb(low[i])
            and i < 7
        ):
            i += 1
        if i >= len(tokens):
            return None
        noun = " ".join(tokens[2:i])
        bare = all(NUMBER_WORDS.fullmatch(w) for w in a.replace("-", " ").split())
        quantity = f"{a} {noun}" if noun and bare else a
        verb = low[i]
        rest = tokens[i + 1 :]
        if verb in AUXILIARIES and rest and rest[0].lower() == "there":
            return _finish(_join("There", verb), quantity, " ".join(rest[1:]), "how_many")
        if verb in DO and rest and not _subject_like(rest[0]):
            return None  # "how much percent did public spending increase": no safe order
        if verb in HAVE | MODALS and rest and not _subject_like(rest[0]):
            p = _split_predicate(rest, verb)
            if p is None:
                return None
            head = _join(" ".join(rest[:p]), verb, rest[p])  # "have man u won" -> "man u have won"
            return _finish(head, quantity, " ".join(rest[p + 1 :]), "how_many")
        if verb in AUXILIARIES and rest and _subject_like(rest[0]):
            if verb in BE:
                return None
            if verb in DO:
                v = _find_base_verb(rest, passage)
                if v is None or (v + 1 < len(rest) and rest[v + 1].lower() in _OBJECT_PRONOUNS):
                    return None
                base = rest[v].lower()
                form = {"did": past(base), "does": third_person(base), "do": base}[verb]
                head = _join(" ".join(rest[:v]), form)
                return _finish(head, quantity, " ".join(rest[v + 1 :]), "how_many")
            p = _split_predicate(rest, verb)
            if p is None:
                return None
            head = _join(" ".join(rest[:p]), verb, rest[p])
            return _finish(head, quantity, " ".join(rest[p + 1 :]), "how_many")
        # Subject question: "How many people live in X" -> "<N> people live in X."
        return _finish("", quantity, " ".join(tokens[i:]), "how_many")
    if low[1] in HOW_ADJ and len(tokens) > 3 and low[2] in AUXILIARIES:
        aux, rest = low[2], tokens[3:]
        if aux in DO:
            # "how long does it take for X" -> "it takes <A> for X": the amount follows the verb
            v = _find_base_verb(rest, passage)
            if v is None or rest[v].lower() == "do":
                return None
            base = rest[v].lower()
            form = {"did": past(base), "does": third_person(base), "do": base}[aux]
            return _finish(_join(" ".join(rest[:v]), form), a, " ".join(rest[v + 1 :]), "how_adj")
        if aux in BE:
            stops = {"from"} if low[1] == "far" else {"when", "if"}
            cut = next((k for k in range(1, len(rest)) if rest[k].lower() in stops), len(rest))
            amount = a
            if re.fullmatch(r"[\d,.]+", a):
                amount = f"{a} years" if low[1] == "old" else a
            adjective = low[1] if low[1] in {"old", "long", "tall", "high", "deep", "wide"} else ""
            if adjective == "long" and not _LENGTH_UNIT.search(a):
                adjective = ""  # "the warranty is about a year", not "... a year long"
            if not NUMBER_WORDS.search(a) or (adjective and adjective in a.lower().split()):
                return None
            if a.lower().split(" ", 1)[0] in PREPOSITIONS or "-" in a:
                return None
            suffix = _join(adjective, " ".join(rest[cut:]))
            return _finish(_join(" ".join(rest[:cut]), aux), amount, suffix, "how_adj")
    return None


def _who_what(tokens: list[str], low: list[str], a: str, passage: str) -> Statement | None:
    if len(tokens) > 2 and (low[1] in _ADVERBS or low[1].endswith("ly")):
        tokens, low = tokens[:1] + tokens[2:], low[:1] + low[2:]  # "Who actually won" -> "Who won"
    wh = low[0]
    i = 1
    if len(tokens) > 1 and low[1] in DETERMINERS:
        return None  # "what the surface is made of": not a question, a fragment
    second_is_verb = len(tokens) > 2 and (
        low[1] in IRREGULAR_PAST.values()
        or (is_participle(low[1]) and low[1].endswith("ed"))
        or (_verb_form(low[1]) and not _verb_form(low[2]) and not is_base_verb(low[2]))
    )
    if wh in {"what", "which"} and low[1] not in AUXILIARIES and not second_is_verb:
        i = 2  # the first word after "what"/"which" belongs to its noun phrase
        while i < len(tokens) and low[i] not in AUXILIARIES and not _verb_form(low[i]) and i < 6:
            i += 1
    if i >= len(tokens):
        return None
    noun = low[1:i]
    verb = low[i]
    rest = tokens[i + 1 :]
    temporal = bool(noun) and noun[-1] in TIME_NOUNS
    if temporal and not is_date_like(a):
        return None
    part_of = bool(noun) and noun[0] in PART_NOUNS and "of" in noun
    # "What percentage of the population is Catholic" -> "20% of the population is Catholic."
    subject = _join(a, " ".join(tokens[1 + noun.index("of") : i])) if part_of else a
    if verb in DO:
        if any(t.lower() == "mean" for t in rest):
            return None
        if (
            wh == "who"
            and rest
            and rest[0].lower() in DETERMINERS
            and _find_base_verb(rest, passage) is None
        ):
            return _finish("", a, " ".join(tokens[i:]), "wh_subject")  # "Who does the voice"
        filler = time_phrase(a) if temporal else a
        return _declare_object(tokens[i], rest, filler, a, passage, "wh_object")
    if verb not in AUXILIARIES:
        if not _verb_form(verb):
            return None
        return _finish("", subject, " ".join(tokens[i:]), "wh_subject")
    if not rest:
        return None
    nxt_low = rest[0].lower()
    if is_participle(nxt_low) or nxt_low in PREPOSITIONS | {"not"} or nxt_low.endswith("ing"):
        return _finish("", subject, " ".join(tokens[i:]), "wh_subject")  # "Who was born in X"
    open_end = rest[-1].lower() in PREPOSITIONS or is_participle(rest[-1].lower())
    p = _split_predicate(rest, verb)
    has_participle = p is not None
    if verb in BE and p is not None:
        # Only a participle at the very end ("What was X called", "Who was X married to") leaves
        # a gap for the answer; "What is the name given to X" is a copula with a relative clause.
        has_participle = p == len(rest) - 1 or (
            p == len(rest) - 2 and rest[-1].lower() in PREPOSITIONS | {"as"}
        )
    if not _subject_like(rest[0]):
        # "What are subroutines often collected into" vs "Who is responsible for X"
        if has_participle and open_end and len(rest) > 1:
            return _declare_object(tokens[i], rest, a, a, passage, "wh_object")
        return _finish("", subject, " ".join(tokens[i:]), "wh_subject")
    if verb in HAVE | MODALS and not has_participle and verb not in MODALS:
        return _finish("", subject, " ".join(tokens[i:]), "wh_subject")  # "Who has the most X"
    if temporal:
        return _declare_object(tokens[i], rest, time_phrase(a), a, passage, "wh_object")
    if has_participle or (open_end and len(rest) > 1) or verb in MODALS:
        return _declare_object(tokens[i], rest, a, a, passage, "wh_object")
    if verb not in BE:
        return _finish("", subject, " ".join(tokens[i:]), "wh_subject")
    if noun:
        if part_of:
            return _finish("", subject, " ".join(tokens[i:]), "wh_subject")
        if noun[0] in PROPERTY_NOUNS or noun[-1] in PROPERTY_NOUNS:
            return _finish(_join(" ".join(rest), verb), a, "", "wh_property")
        return _finish("", a, " ".join(tokens[i:]), "wh_copula")
    return _finish(_join(" ".join(rest), verb), a, "", "wh_copula")


def _in_place(tokens: list[str], low: list[str], a: str) -> Statement | None:
    """ "X has its head office in what city" -> "X has its head office in Delhi." """
    for i in range(len(tokens) - 1, 0, -1):
        if low[i] in {"what", "which", "who", "whom", "when", "where"}:
            tail = low[i + 1 :]
            if low[i] in {"who", "whom", "when", "where"} and tail:
                return None
            if len(tail) > 3 or any(t in AUXILIARIES or _verb_form(t) for t in tail):
                return None
            if low[i - 1] in {"do", "to", "can", "could", "will", "would", "should"}:
                return None  # the answer would have to be a verb phrase
            filler = a
            if low[i] == "when":
                filler = time_phrase(a)
            elif low[i] == "where":
                filler = place_phrase(a)
            at = filler.rfind(a)
            prefix = _join(" ".join(tokens[:i]), filler[:at])
            suffix = filler[at + len(a) :]
            head_noun = tail[-1] if tail else ""
            if (
                head_noun
                and head_noun not in {"kind", "type", "sort", "else"}
                and a == a.lower()
                and a.split(" ", 1)[0] not in DETERMINERS
                and head_noun.rstrip("s") not in a
            ):
                suffix = _join(tokens[-1], suffix)  # "one of the what climates" + "desert"
            return _finish(prefix, a, suffix, "in_place")
        if low[i] in _WH:
            return None
    return None


def fallback(question: str, answer: str) -> Statement:
    """The clearly worded last resort: 'The answer to "<question>?" is <answer>.'"""
    q = re.sub(r"[?.!\s]+$", "", clean(question))
    a = re.sub(r"[.,;:\s]+$", "", clean(answer))
    head = f'The answer to "{capitalise_first(q)}?" is '
    return Statement(f"{head}{a}.", "fallback", len(head), len(head) + len(a))
