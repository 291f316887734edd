"""Turn a claim into a retrieval query: the claim itself, or a question made from it.

Searching with the claim finds passages that repeat its words, including the very values it
asserts, so a wrong value pulls in passages that merely share it (confirmation bias); searching
with the question the claim answers drops those values and finds what the sources say instead,
at some cost in recall. Both are offered (``query="claim"`` or ``"question"``) and both are
measured in ``bench/verify_lfqa.py``.

Without a chat model the question is made by rules: the claim's numbers, amounts, dates and years
are removed and a question word is put in front ("When", "How many", "How much", "What"). With a
chat model the versioned prompt ``question_v1`` asks for the question, and the strict parser
:func:`parse_question` reads the reply.

>>> rule_question("Karl von Frisch won the Nobel Prize in 1973.")
'When Karl von Frisch won the Nobel Prize?'
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from veracity.errors import GenerationError, OptionError
from veracity.llm.base import ChatModel, ChatRequest
from veracity.prompts import ChatPrompt, load_prompt

__all__ = ["QUERY_MODES", "QueryMaker", "QueryMode", "parse_question", "rule_question"]

QueryMode = Literal["claim", "question"]
QUERY_MODES: tuple[QueryMode, ...] = ("claim", "question")
QUESTION_PROMPT = "question_v1"

_MONTH = (r"(?:Jan(?:uary)?|Feb(?:ruary)?|Mar(?:ch)?|Apr(?:il)?|May|June?|July?|Aug(?:ust)?"
          r"|Sep(?:t(?:ember)?)?|Oct(?:ober)?|Nov(?:ember)?|Dec(?:ember)?)\.?")
_NUMBER = r"\d[\d,]*(?:\.\d+)?"
# Most specific first: a date before the year inside it, money before the bare number.
_VALUES: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("When", re.compile(
        rf"\b(?:on |in )?(?:\d{{1,2}}(?:st|nd|rd|th)? {_MONTH},? \d{{4}}|{_MONTH} \d{{1,2}}"
        rf"(?:st|nd|rd|th)?,? \d{{4}}|{_MONTH} \d{{4}}|\d{{4}}-\d{{2}}-\d{{2}})\b",
        re.IGNORECASE)),
    ("How much", re.compile(
        rf"(?:[$€£¥]\s?{_NUMBER}(?:\s?(?:million|billion|trillion|thousand|bn|m|k)\b)?"
        rf"|\b{_NUMBER}\s?(?:million |billion |thousand )?(?:dollars|euros|pounds|USD|EUR)\b)")),
    ("What share", re.compile(rf"\b{_NUMBER}\s?(?:%|percent\b|per cent\b)")),
    ("When", re.compile(r"\b(?:in |since |by |until |from )?(?:1[0-9]|20)\d{2}s?\b")),
    ("How many", re.compile(
        rf"\b{_NUMBER}(?:\s?(?:million|billion|thousand|hundred))?\b")),
)
_SPACES = re.compile(r"\s{2,}")
# Sentence-initial words that are lower-cased once a question word goes in front of them.
_COMMON_START = re.compile(r"^(?:The|A|An|About|Around|Approximately|Some|Most|Many|In|On|At|"
                           r"There|It|This|These|Those|Only|Over|Nearly|Almost)\b")
_SPACE_BEFORE_PUNCTUATION = re.compile(r"\s+([,.;:!?])")


def rule_question(claim: str) -> str:
    """A question made from ``claim`` by removing the values it asserts.

    The question word follows the first value removed; a claim without numbers, amounts, dates
    or years becomes "What" + the claim ("What bees dance to show where food is?"), which keeps
    every word as a query term.
    """
    text = claim.strip()
    word = ""
    for question_word, pattern in _VALUES:
        text, removed = pattern.subn(" ", text)
        if removed and not word:
            word = question_word
    text = _SPACE_BEFORE_PUNCTUATION.sub(r"\1", _SPACES.sub(" ", text)).strip()
    text = text.rstrip(" .!;:,")
    if not text:
        return claim.strip()
    if _COMMON_START.match(text):
        text = text[0].lower() + text[1:]
    return f"{word or 'What'} {text}?"


def parse_question(reply: str) -> str:
    """The question in a chat model's reply: its first non-empty line, which must end in "?".

    Raises :class:`GenerationError` quoting the reply when there is no such line.
    """
    for line in reply.strip().splitlines():
        line = re.sub(r"^(?:question\s*:\s*|q\s*:\s*|[-*]\s+)", "", line.strip(),
                      flags=re.IGNORECASE)
        line = line.strip().strip('"“”').strip()
        if not line:
            continue
        if line.endswith(("?", "？")):
            return line
        break
    raise GenerationError(
        f"prompt {QUESTION_PROMPT}: expected one question ending with '?', got {reply[:120]!r}; "
        "use query='claim', or a chat model that follows the instruction")


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
            raise OptionError("query", self.mode, f"one of {', '.join(QUERY_MODES)}",
                              "Use 'claim' to search with the claim, 'question' to search with "
                              "the question it answers.")

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
            request = ChatRequest.of(prompt.render(claim=claim), system=prompt.system,
                                     temperature=0.0, max_tokens=64, seed=self.seed)
            queries.append(parse_question(self.chat.run(request).text))
        return tuple(queries)
