"""Research questions: several per claim, that together cover what it asserts (RARR).

RARR asks a few questions about each claim and searches with each of them: one question per
part of the claim, so that evidence for every part is found, and none repeats the claim's
values (the claim's words retrieve passages that repeat its possibly wrong value). Two makers:

- with a chat model, the versioned prompt ``repair_questions_v1`` asks for up to ``limit``
  questions, one per line; :func:`parse_questions` reads the reply strictly and raises
  :class:`~veracity.errors.GenerationError` on anything else;
- without one, :func:`rule_questions`: the rule-based question of the whole claim (its values
  removed, :func:`~veracity.verify.questions.rule_question`), then one of each of its clauses
  when it has several.

>>> rule_questions("The bridge opened in 1932, and it carried 20,000 cars a day.")
('The bridge opened in what year, and it carried cars a day?', \
'The bridge opened in what year?', 'It carried how many cars a day?')
>>> parse_questions("1. When did the bridge open?\\n2. How many cars did it carry?")
('When did the bridge open?', 'How many cars did it carry?')
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from veracity import defaults
from veracity.errors import GenerationError, OptionError
from veracity.models.chat.base import ChatModel, ChatRequest
from veracity.prompts import ChatPrompt, load_prompt
from veracity.text.words import content_words
from veracity.verify.questions import rule_question

__all__ = ["ClaimQuestions", "QuestionMaker", "parse_questions", "rule_questions"]

# Clause boundaries: a semicolon, or a comma before a conjunction or relative pronoun.
_CLAUSE = re.compile(
    r"\s*(?:;|,\s*(?=(?:and|but|while|whereas|which|who|so|because|although)"
    r"\b))\s*",
    re.IGNORECASE,
)
_LIST_MARK = re.compile(r"^(?:(?:\d{1,2}[.)]|[-*•]|q\d*\s*:|question\s*\d*\s*:)\s*)", re.IGNORECASE)
_MIN_CLAUSE_WORDS = 3


def rule_questions(claim: str, *, limit: int = defaults.REPAIR_QUESTIONS) -> tuple[str, ...]:
    """Up to ``limit`` questions made from ``claim`` by rules (see the module docstring)."""
    found = [rule_question(claim)]
    clauses = [
        part
        for part in _CLAUSE.split(claim.strip())
        if len(content_words(part)) >= _MIN_CLAUSE_WORDS
    ]
    if len(clauses) > 1:
        for clause in clauses:
            clause = re.sub(
                r"^(?:and|but|while|whereas|so|because|although)\s+",
                "",
                clause,
                flags=re.IGNORECASE,
            )
            question = rule_question(clause)
            found.append(question[:1].upper() + question[1:])
    return tuple(dict.fromkeys(found))[:limit]


def parse_questions(reply: str, *, limit: int = defaults.REPAIR_QUESTIONS) -> tuple[str, ...]:
    """The questions of a chat model's reply: its lines from the first, each ending with "?"
    after an optional list mark ("1.", "-", "Q:"), up to the first line that is not one;
    duplicates dropped, at most ``limit``.

    Raises :class:`GenerationError` quoting the reply when its first line is no question.

    >>> parse_questions("Bees dance.")
    Traceback (most recent call last):
    ...
    veracity.errors.GenerationError: prompt repair_questions_v1: expected questions, one per \
line, each ending with '?', got 'Bees dance.'; the rule-based questions are used instead
    """
    questions: list[str] = []
    for line in reply.strip().splitlines():
        text = _LIST_MARK.sub("", line.strip()).strip().strip('"“”').strip()
        if not text:
            continue
        if not text.endswith(("?", "？")) or len(re.findall(r"\w+", text)) < 2:
            break
        if text.lower() not in (q.lower() for q in questions):
            questions.append(text)
    if not questions:
        raise GenerationError(
            f"prompt {defaults.REPAIR_QUESTIONS_PROMPT}: expected questions, one per line, each "
            f"ending with '?', got {reply[:120]!r}; the rule-based questions are used instead"
        )
    return tuple(questions[:limit])


@dataclass(frozen=True, slots=True)
class ClaimQuestions:
    """The questions for one claim, and why the chat model's were not used (``None`` when they
    were, or when no model was given)."""

    questions: tuple[str, ...]
    failure: str | None = None


class QuestionMaker:
    """Makes up to ``limit`` research questions per claim: by ``chat`` with the prompt
    ``repair_questions_v1`` when given (an unreadable reply falls back to the rules, and says
    so), by :func:`rule_questions` otherwise.

    >>> from veracity.testing import ScriptedChatModel
    >>> maker = QuestionMaker(ScriptedChatModel(["When did it open?\\nWho built it?"]))
    >>> maker.run(["The bridge opened in 1932."])[0].questions
    ('When did it open?', 'Who built it?')
    >>> maker.method
    'questions:repair_questions_v1@1'
    """

    def __init__(
        self,
        chat: ChatModel | None = None,
        *,
        limit: int = defaults.REPAIR_QUESTIONS,
        prompt: str = defaults.REPAIR_QUESTIONS_PROMPT,
        seed: int | None = defaults.REPAIR_SEED,
        reply_tokens: int = defaults.REPAIR_REPLY_TOKENS,
    ) -> None:
        if chat is not None and not isinstance(chat, ChatModel):
            raise OptionError(
                "chat",
                chat,
                "a ChatModel or None",
                "Use veracity.models.chat.make_chat(), or None for rule questions.",
            )
        if isinstance(limit, bool) or not isinstance(limit, int) or limit < 1:
            raise OptionError("questions", limit, "1 or more questions per claim")
        self.chat = chat
        self.limit = limit
        self.prompt_id = prompt
        self.seed = seed
        self.reply_tokens = reply_tokens

    @property
    def prompt(self) -> ChatPrompt:
        return load_prompt(self.prompt_id)  # cached by the prompts module

    @property
    def method(self) -> str:
        """``questions:rules`` or ``questions:<prompt id@version>``."""
        return "questions:rules" if self.chat is None else f"questions:{self.prompt.ref}"

    def run(self, claims: Sequence[str]) -> tuple[ClaimQuestions, ...]:
        """The questions of each claim, in order: one chat call per claim when a model is
        given."""
        if self.chat is None:
            return tuple(
                ClaimQuestions(rule_questions(claim, limit=self.limit)) for claim in claims
            )
        made = []
        for claim in claims:
            request = ChatRequest.of(
                self.prompt.render(claim=claim),
                system=self.prompt.system,
                temperature=0.0,
                max_tokens=self.reply_tokens,
                seed=self.seed,
            )
            try:
                made.append(
                    ClaimQuestions(parse_questions(self.chat.run(request).text, limit=self.limit))
                )
            except GenerationError as exc:
                made.append(ClaimQuestions(rule_questions(claim, limit=self.limit), str(exc)))
        return tuple(made)
