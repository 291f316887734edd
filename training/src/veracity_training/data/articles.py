"""The Wikipedia articles synthetic claims are made from, and their windows: an article's
subject and category (from its first sentence), the pronoun it is referred to by, and premise
windows of 1-3 consecutive paragraphs (at most ~500 words).

>>> subject_of("Marie Curie (1867-1934) was a Polish physicist.")
'Marie Curie'
"""

from __future__ import annotations

import json
import random
import re
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from veracity_training.data.perturb import (
    attributive,
)
from veracity_training.data.text import (
    FUNCTION_WORDS,
    clean,
    drop_parentheticals,
    entities,
    sentences,
    word_count,
)

__all__ = [
    "MAX_SENTENCE_WORDS",
    "MIN_SENTENCE_WORDS",
    "WINDOW_WORDS",
    "Article",
    "Window",
    "category_of",
    "load_articles",
    "make_windows",
    "subject_of",
]

WINDOW_WORDS = 500
MIN_SENTENCE_WORDS = 6
MAX_SENTENCE_WORDS = 35


@dataclass(frozen=True)
class Article:
    """One article: ``paragraphs`` holds each paragraph's sentences.

    ``subject`` is the first noun phrase of the first sentence; ``pronoun`` is "he" or "she" for
    an article about a person, "it" otherwise.
    """

    doc_id: str
    subject: str
    pronoun: str
    paragraphs: tuple[tuple[str, ...], ...]
    names: tuple[tuple[str, str, bool], ...] = field(default=())
    category: str = ""
    lower_words: frozenset[str] = field(default=frozenset())

    def name_in(self, text: str) -> str:
        """How to name the subject in a claim about ``text``: the full subject when ``text``
        uses it, else its last word when ``text`` uses that ("Tucker"), else the full subject."""
        if self.subject in text:
            return self.subject
        last = self.subject.split()[-1]
        if self.pronoun in {"he", "she"} and re.search(rf"\b{re.escape(last)}\b", text):
            return last
        return self.subject


@dataclass(frozen=True)
class Window:
    """Paragraphs ``start`` to ``end`` (exclusive) of an article."""

    article: Article
    start: int
    end: int

    def sentences(self) -> list[tuple[int, int, str]]:
        """(paragraph index, sentence index, sentence) for every sentence of the window."""
        return [
            (p, s, text)
            for p in range(self.start, self.end)
            for s, text in enumerate(self.article.paragraphs[p])
        ]

    def text(self, *, without: tuple[int, int] | None = None) -> str:
        """The window as plain text (paragraphs separated by a blank line), optionally without
        one sentence."""
        out = []
        for p in range(self.start, self.end):
            kept = [t for s, t in enumerate(self.article.paragraphs[p]) if (p, s) != without]
            if kept:
                out.append(" ".join(kept))
        return "\n\n".join(out)


_SUBJECT = re.compile(
    r"^(.{2,90}?),?\s+(?:is|was|are|were|refers to|has been|had been|may refer to)\s", re.UNICODE
)
_HONORIFIC = re.compile(r"\b[A-Z]{2,5}\b")


def subject_of(first_sentence: str) -> str:
    """The first noun phrase of an article: "Gustave Biéler DSO MBE (1904-1944) was a ..." ->
    "Gustave Biéler". Empty when no copula follows a short phrase."""
    text = drop_parentheticals(first_sentence)
    match = _SUBJECT.match(text)
    if not match:
        return ""
    subject = match.group(1).split(",")[0].strip()
    parts = subject.split()
    while len(parts) > 2 and _HONORIFIC.fullmatch(parts[-1]):
        parts.pop()
    subject = " ".join(parts)
    if not 1 <= len(parts) <= 8 or not subject[:1].isupper():
        return ""
    if parts[0] != "The" and parts[0].lower() in FUNCTION_WORDS:
        return ""  # "This ...", "On November 29 ...": not a name
    if len(parts) > 1 and parts[1].lower() in {"name", "term", "word", "title"}:
        return ""
    return subject


_CATEGORY = re.compile(
    r"\b(?:is|was|are|were)\s+(?:a|an|the|one of the)\s+(?:[\w'’-]+\s+){0,6}?([a-z][a-z-]+)"
    r"(?=\s+(?:in|of|on|at|by|from|for|that|which|who|with|and|located|based|founded|born|known|"
    r"to|near|during|between|where|whose)\b|[,.;(])"
)


def category_of(first_sentence: str) -> str:
    """The head noun of what the first sentence says the subject is: "Decatur is a city in
    DeKalb County" -> "city"; empty when there is none."""
    match = _CATEGORY.search(drop_parentheticals(first_sentence))
    if not match:
        return ""
    word = match.group(1)
    if word.endswith(("ed", "ing")) or word in {"given", "made", "known", "born", "one", "part"}:
        return ""
    return word


def _pronoun(paragraphs: list[str], subject: str) -> str:
    text = " ".join(paragraphs).lower()
    counts = Counter(re.findall(r"\b(he|his|him|she|her|hers|it|its)\b", text))
    male = counts["he"] + counts["his"] + counts["him"]
    female = counts["she"] + counts["her"] + counts["hers"]
    names = sum(w[:1].isupper() for w in subject.split())
    if names >= 2 and male >= 4 and male >= 3 * female:
        return "he"
    if names >= 2 and female >= 4 and female >= 3 * male:
        return "she"
    return "it"


def load_articles(path: Path) -> list[Article]:
    """Articles of ``wikipedia_docs.jsonl`` with a recognisable subject, sorted by id."""
    articles: list[Article] = []
    with path.open(encoding="utf-8") as handle:
        for line in handle:
            raw = json.loads(line)
            paragraphs = [clean(str(p)) for p in raw["paragraphs"]]
            paragraphs = [p for p in paragraphs if word_count(p) >= 8]
            if not paragraphs:
                continue
            split = tuple(tuple(sentences(p)) for p in paragraphs)
            subject = subject_of(split[0][0]) if split[0] else ""
            if not subject:
                continue
            names = tuple(
                (
                    sentence[:start].split()[-1].lower() if sentence[:start].split() else "",
                    name,
                    attributive(sentence, end),
                )
                for paragraph in split
                for sentence in paragraph
                for start, end, name in entities(sentence)
            )
            lower_words = frozenset(
                w for p in paragraphs for w in re.findall(r"(?<=\s)[a-z][a-z'-]+", p)
            )
            articles.append(
                Article(
                    category=category_of(split[0][0]),
                    doc_id=str(raw["doc_id"]),
                    subject=subject,
                    pronoun=_pronoun(paragraphs, subject),
                    paragraphs=split,
                    names=names,
                    lower_words=lower_words,
                )
            )
    return sorted(articles, key=lambda a: a.doc_id)


def make_windows(article: Article, rng: random.Random) -> list[Window]:
    """One window per paragraph: it starts there and takes 1-3 paragraphs within the word cap."""
    windows: list[Window] = []
    n = len(article.paragraphs)
    for start in range(n):
        want = rng.choice([1, 1, 2, 2, 3])
        end = start + 1
        words = sum(word_count(s) for s in article.paragraphs[start])
        while end < n and end - start < want:
            extra = sum(word_count(s) for s in article.paragraphs[end])
            if words + extra > WINDOW_WORDS:
                break
            words += extra
            end += 1
        if words > WINDOW_WORDS * 1.3 or words < 25:
            continue  # very long paragraphs would be cut by the trainer anyway; skip them
        windows.append(Window(article, start, end))
    return windows
