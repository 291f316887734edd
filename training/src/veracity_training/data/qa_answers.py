"""Whether a question's answer can become a claim, and how it reads in one: the answer's type
against the question's (``answer_fits``), a short phrase rather than a clause (``answer_ok``),
the question's capitals restored from the passage (``recase``), and an answer read as a time or a
place (``time_phrase``, ``place_phrase``).

>>> answer_fits("When did the Normans conquer England?", "1066"), answer_ok("Who?", "we went home")
(True, False)
>>> time_phrase("1066"), time_phrase("the 1960s"), place_phrase("Paris")
('in 1066', 'in the 1960s', 'in Paris')
"""

from __future__ import annotations

import re
from collections import Counter

from veracity.text.verbs import IRREGULAR_PAST, is_base_verb
from veracity_training.data.qa_words import (
    DETERMINERS,
    FINITE,
    NO_PREP_TIME,
    NUMBER_WORDS,
    PREPOSITIONS,
    PRONOUNS,
    TEMPORAL_WORDS,
)
from veracity_training.data.text import DATE, FUNCTION_WORDS, YEAR

__all__ = ["answer_fits", "answer_ok", "is_date_like", "place_phrase", "recase", "time_phrase"]


def is_date_like(answer: str) -> bool:
    if re.search(r"\b\d{1,2}:\d{2}\b", answer):
        return True
    return bool(YEAR.search(answer) or DATE.search(answer) or TEMPORAL_WORDS.search(answer))


def answer_fits(question: str, answer: str) -> bool:
    """Whether the answer has the type the question asks for (guards noisy QA annotations)."""
    q = question.lower().strip()
    if q.startswith("when") or re.match(
        r"^(in |during |by |since )?(what|which) (year|date|day|"
        r"month|decade|century)",
        q,
    ):
        return is_date_like(answer)
    if q.startswith(("how many", "how much")):
        return bool(NUMBER_WORDS.search(answer))
    if q.startswith("how old"):
        return bool(NUMBER_WORDS.search(answer))
    if q.startswith("where"):
        return not re.fullmatch(r"[\d\s,.%$]+", answer)
    if q.startswith(("who ", "whom ")):
        return not re.fullmatch(r"[\d\s,.%$]+", answer)
    return True


def recase(question: str, passage: str) -> str:
    """Restore capitals in an all-lower-case question from the passage's spelling.

    Multi-word runs take the passage's casing of the same words ("buffy the vampire slayer" ->
    "Buffy the Vampire Slayer"); a single word is capitalised only when the passage never writes
    it in lower case and capitalises it at least twice away from a sentence start.
    """
    if question != question.lower():
        return question
    tokens = question.split(" ")
    low_passage = passage.lower()
    out = list(tokens)
    i = 0
    while i < len(tokens):
        best = 0
        for j in range(len(tokens), i + 1, -1):
            phrase = " ".join(tokens[i:j])
            at = _find_phrase(low_passage, phrase)
            if at >= 0:
                original = passage[at : at + len(phrase)].split(" ")
                if any(w[:1].isupper() for w in original[1:]) or (
                    original[0][:1].isupper() and at > 0 and passage[at - 2 : at - 1] not in ".!?"
                ):
                    out[i:j] = original
                best = j - i
                break
        i += max(best, 1)
    forms: dict[str, Counter[str]] = {}
    lower_seen: set[str] = set()
    for sentence_start, token in _passage_tokens(passage):
        low = token.lower()
        if token == low:
            lower_seen.add(low)
        elif not sentence_start and token[:1].isupper():
            forms.setdefault(low, Counter())[token] += 1
    for k, token in enumerate(out):
        core = token.strip(".,;:!?\"'()")
        if core == "i":
            out[k] = token.replace("i", "I", 1)
        elif core == core.lower() and core in forms and core not in lower_seen:
            form, count = forms[core].most_common(1)[0]
            if count >= 2 and core not in FUNCTION_WORDS:
                out[k] = token.replace(core, form, 1)
    return " ".join(out)


def _find_phrase(haystack: str, phrase: str) -> int:
    """Start of ``phrase`` in ``haystack`` at word boundaries, or -1."""
    if not phrase.strip():
        return -1
    match = re.search(rf"(?<![\w]){re.escape(phrase)}(?![\w])", haystack)
    return match.start() if match else -1


def _passage_tokens(passage: str) -> list[tuple[bool, str]]:
    tokens: list[tuple[bool, str]] = []
    start = True
    for raw in passage.split():
        token = raw.strip(".,;:!?\"'()[]")
        if token:
            tokens.append((start, token))
        start = raw.endswith((".", "!", "?"))
    return tokens


def answer_ok(question: str, answer: str) -> bool:
    """Whether the answer is a short phrase (not a clause, a verb phrase or a long span).

    Extractive QA answers are sometimes a whole clause ("we need to wait a year") or start with
    a verb ("fell in the mud"): no rule can turn those into a grammatical claim.
    """
    tokens = answer.split()
    low = [t.lower() for t in tokens]
    why = question.lower().startswith("why")
    if not tokens or len(tokens) > (14 if why else 10) or ";" in answer:
        return False
    if low[0] in PRONOUNS and len(tokens) > 1:
        return False
    if not why and len(tokens) >= 3 and any(t in FINITE for t in low):
        return False
    first = low[0]
    if (
        len(tokens) > 1
        and tokens[0].islower()
        and (first in IRREGULAR_PAST.values() or (first.endswith("ed") and len(first) > 4))
    ):
        return False
    verb_phrase = (
        len(tokens) > 1
        and tokens[0].islower()
        and is_base_verb(first)
        and low[1]
        in DETERMINERS
        | {"my", "your", "our", "their", "his", "her", "it", "them", "him", "us", "you", "me"}
        | {"people", "more", "up", "out", "down"}
    )
    return why or not verb_phrase


def time_phrase(answer: str) -> str:
    low = answer.lower()
    if low.split(" ", 1)[0] in PREPOSITIONS | NO_PREP_TIME or low.endswith(" ago"):
        return answer
    if re.fullmatch(r"\d{4}s", answer):
        return f"in the {answer}"
    if re.match(r"\d{1,2}(:\d{2})?\s*([ap]\.?m\.?|[A-Z]{2,4})?\b", answer) and ":" in answer:
        return f"at {answer}"
    ordinal = re.match(
        r"^(the )?(\d+(st|nd|rd|th)|first|second|third|last|end|beginning|start)\b", low
    )
    if ordinal and re.search(r"\b(of|end|beginning|start)\b", low) and "centur" not in low:
        return f"at {answer}"
    full_date = DATE.fullmatch(answer)
    if (full_date and not full_date.group("my_m")) or answer.split(" ", 1)[0] in {
        "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"
    }:  # fmt: skip
        return f"on {answer}"
    return f"in {answer}"


def place_phrase(answer: str) -> str:
    if answer.lower().split(" ", 1)[0] in PREPOSITIONS | {"near", "outside", "inside"}:
        return answer
    return f"in {answer}"
