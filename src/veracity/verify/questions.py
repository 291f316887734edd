"""Turn a claim into a retrieval query: the claim itself, or a question made from it.

Searching with the claim finds passages that repeat its words, including the very values it
asserts, so a wrong value pulls in passages that merely share it (confirmation bias); searching
with the question the claim answers drops those values and finds what the sources say instead,
at some cost in recall. Both are offered (``query="claim"`` or ``"question"``) and both are
measured in ``bench/verify_lfqa.py``.

Without a chat model the question is made by rules: the first of the claim's numbers, amounts,
dates and years is replaced where it stands by the question phrase it answers ("in what year",
"on what date", "how many", "how much", "what share"), any others are removed, and the sentence
ends with "?": an echo question, which reads as English without moving or inflecting a verb
(putting "When" in front made "When Karl von Frisch won the Nobel Prize?", and "How many Under
the Apache License, each Contributor ...?"). A claim without a value is asked as "Is it true that
... ?". With a chat model the versioned prompt ``question_v1`` asks for the question, and the
strict parser :func:`parse_question` reads the reply.

>>> rule_question("Karl von Frisch won the Nobel Prize in 1973.")
'Karl von Frisch won the Nobel Prize in what year?'
>>> rule_question("Under the license, each contributor grants 2 rights.")
'Under the license, each contributor grants how many rights?'
>>> rule_question("httplib2 supports HTTP 1.1 Keep-Alive.")
'Is it true that httplib2 supports HTTP 1.1 Keep-Alive?'
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import get_args

from veracity.defaults import QueryMode
from veracity.errors import GenerationError, OptionError
from veracity.models.chat.base import ChatModel, ChatRequest
from veracity.prompts import ChatPrompt, load_prompt

__all__ = ["QUERY_MODES", "QueryMaker", "QueryMode", "parse_question", "rule_question"]

QUERY_MODES: tuple[QueryMode, ...] = get_args(QueryMode)
QUESTION_PROMPT = "question_v1"

_MONTH = (
    r"(?:Jan(?:uary)?|Feb(?:ruary)?|Mar(?:ch)?|Apr(?:il)?|May|June?|July?|Aug(?:ust)?"
    r"|Sep(?:t(?:ember)?)?|Oct(?:ober)?|Nov(?:ember)?|Dec(?:ember)?)\.?"
)
_NUMBER = r"\d[\d,]*(?:\.\d+)?"
# Most specific first: a date before the year inside it, money before the bare number. Each
# value's question phrase; a preposition written before it is kept ("since" -> "since what year").
_VALUES: tuple[tuple[str, re.Pattern[str]], ...] = (
    (
        "what date",
        re.compile(
            rf"\b(?P<prep>on |in )?(?:\d{{1,2}}(?:st|nd|rd|th)? {_MONTH},? \d{{4}}|{_MONTH} "
            rf"\d{{1,2}}(?:st|nd|rd|th)?,? \d{{4}}|\d{{4}}-\d{{2}}-\d{{2}})\b",
            re.IGNORECASE,
        ),
    ),
    ("what month", re.compile(rf"\b(?P<prep>in )?{_MONTH} \d{{4}}\b", re.IGNORECASE)),
    (
        "how much",
        re.compile(
            rf"(?:[$€£¥]\s?{_NUMBER}(?:\s?(?:million|billion|trillion|thousand|bn|m|k)\b)?"
            rf"|\b{_NUMBER}\s?(?:million |billion |thousand )?(?:dollars|euros|pounds|USD|EUR)\b)"
        ),
    ),
    ("what share", re.compile(rf"\b{_NUMBER}\s?(?:%|percent\b|per cent\b)")),
    (
        "what year",
        re.compile(
            r"\b(?P<prep>in |since |by |until |from )?(?:\d{1,4}\s?(?:BCE?|AD|CE)\b"
            r"|(?:1[0-9]|20)\d{2}s?\b)",
            re.IGNORECASE,
        ),
    ),
    # a count is followed by what it counts, a plural ("230 times", "90,000 workers", "95 known
    # moons"); "HTTP 1.1 Keep-Alive" has no count in it
    (
        "how many",
        re.compile(
            rf"\b{_NUMBER}(?:\s?(?:million|billion|thousand|hundred))?\b"
            r"(?=\s+(?:[A-Za-z-]+\s+)?[a-z][a-z-]*s\b)"
        ),
    ),
)
_PLACEHOLDER = "\x00"
_SPACES = re.compile(r"\s{2,}")
# Sentence-initial words that are lower-cased once "Is it true that" goes in front of them.
_COMMON_START = re.compile(
    r"^(?:The|A|An|About|Around|Approximately|Some|Most|Many|In|On|At|"
    r"There|It|This|These|Those|Only|Over|Nearly|Almost)\b"
)
_SPACE_BEFORE_PUNCTUATION = re.compile(r"\s+([,.;:!?])")
# Words that only qualify the value they precede ("about 45%"): dropped with it.
_HEDGE = re.compile(
    r"\b(?:about|around|approximately|roughly|nearly|almost|some|over|"
    r"more than|less than|fewer than|at least|at most|up to|only) \x00",
    re.IGNORECASE,
)


def rule_question(claim: str) -> str:
    """A question made from ``claim`` by asking for the first value it asserts (see the module
    docstring); the other values are removed, so none of them is a query term."""
    text = claim.strip()
    phrase = ""
    for question_phrase, pattern in _VALUES:

        def replace(match: re.Match[str], question_phrase: str = question_phrase) -> str:
            nonlocal phrase
            if phrase:
                return " "
            prep = (match.groupdict().get("prep") or "").lower()
            if question_phrase == "what date" and prep.strip() == "in":
                prep = "on "
            phrase = f"{prep}{question_phrase}"
            return _PLACEHOLDER

        text = pattern.sub(replace, text)
    text = _HEDGE.sub(_PLACEHOLDER, text)
    text = _SPACE_BEFORE_PUNCTUATION.sub(r"\1", _SPACES.sub(" ", text)).strip()
    text = text.rstrip(" .!;:,")
    if not text.replace(_PLACEHOLDER, "").strip(" .,;:"):
        return claim.strip()
    if not phrase:
        if _COMMON_START.match(text):
            text = text[0].lower() + text[1:]
        return f"Is it true that {text}?"
    if text.startswith(_PLACEHOLDER):
        rest = text[1:].lstrip(" ,")
        if (
            " " in phrase.strip()
            and phrase.split()[0] in ("in", "on", "since", "by", "until", "from")
            and rest
        ):
            # a fronted time adverbial ("In 2016, ...") is asked at the end instead
            return f"{rest[0].upper()}{rest[1:]} {phrase}?".replace(_PLACEHOLDER, phrase)
        phrase = phrase[0].upper() + phrase[1:]
    return f"{text.replace(_PLACEHOLDER, phrase)}?"


def parse_question(reply: str) -> str:
    """The question in a chat model's reply: its first non-empty line, which must end in "?".

    Raises :class:`GenerationError` quoting the reply when there is no such line.
    """
    for line in reply.strip().splitlines():
        line = re.sub(
            r"^(?:question\s*:\s*|q\s*:\s*|[-*]\s+)", "", line.strip(), flags=re.IGNORECASE
        )
        line = line.strip().strip('"“”').strip()
        if not line:
            continue
        if line.endswith(("?", "？")):
            return line
        break
    raise GenerationError(
        f"prompt {QUESTION_PROMPT}: expected one question ending with '?', got {reply[:120]!r}; "
        "use query='claim', or a chat model that follows the instruction"
    )


@dataclass(frozen=True, slots=True)
class QueryMaker:
    """Makes the retrieval query for each claim, by ``mode`` (see the module docstring).

    ``chat`` writes the questions when given (``mode="question"``); otherwise rules do.
    """

    mode: QueryMode = "claim"
    chat: ChatModel | None = None
    seed: int = 0

    def __post_init__(self) -> None:
        if self.mode not in QUERY_MODES:
            raise OptionError(
                "query",
                self.mode,
                f"one of {', '.join(QUERY_MODES)}",
                "Use 'claim' to search with the claim, 'question' to search with "
                "the question it answers.",
            )

    @property
    def method(self) -> str:
        """How queries are made: ``claim``, ``question:rules`` or ``question:<prompt>``."""
        if self.mode == "claim":
            return "claim"
        return "question:rules" if self.chat is None else f"question:{self._prompt().ref}"

    def _prompt(self) -> ChatPrompt:
        return load_prompt(QUESTION_PROMPT)

    def run(self, claims: Sequence[str]) -> tuple[str, ...]:
        """One query per claim, in order."""
        if self.mode == "claim":
            return tuple(claims)
        if self.chat is None:
            return tuple(rule_question(claim) for claim in claims)
        prompt = self._prompt()
        queries = []
        for claim in claims:
            request = ChatRequest.of(
                prompt.render(claim=claim),
                system=prompt.system,
                temperature=0.0,
                max_tokens=64,
                seed=self.seed,
            )
            queries.append(parse_question(self.chat.run(request).text))
        return tuple(queries)
