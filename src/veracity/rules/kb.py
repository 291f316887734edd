"""A structured knowledge base of (entity, attribute, value) facts, read from CSV or JSON.

File formats (UTF-8):

- CSV with a header line naming the columns ``entity``, ``attribute`` and ``value`` (in any
  order, any case; other columns are ignored), one fact per line::

      entity,attribute,value
      Karl von Frisch,born,20 November 1886
      Eiffel Tower,height,330 m

- JSON, either a list of objects with those three keys, or an object of objects::

      [{"entity": "Paris", "attribute": "population", "value": 2102650}]
      {"Paris": {"population": 2102650, "capital of": "France"}}

A text *mentions* a fact when it names the entity (whole words, see
:func:`~veracity.rules.entities.match_key`: "Karl von Frisch", not "Frisch") and
the attribute: one of the attribute's words, stemmed, or a synonym from
:data:`ATTRIBUTE_SYNONYMS` ("born" for ``birth_date``, "inhabitants" for ``population``).
Generic attribute words ("date", "year", "number", "place", ...) are not needed in the text,
so ``birth_date`` is mentioned by "born". Pass ``synonyms`` to add words.

>>> kb = KnowledgeBase([Fact("Paris", "population", "2,102,650")])
>>> [m.fact.value for m in kb.mentions("Paris has 2.1 million inhabitants.")]
['2,102,650']
"""

from __future__ import annotations

import csv
import io
import json
import re
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from veracity import defaults
from veracity.errors import DocumentError, InputError
from veracity.rules.entities import find_entity, match_key
from veracity.text.words import STOPWORDS, content_words, stem
from veracity.types import Span

__all__ = ["ATTRIBUTE_SYNONYMS", "COLUMNS", "Fact", "KnowledgeBase", "Mention"]

#: The columns (CSV) or keys (JSON) of a fact.
COLUMNS = ("entity", "attribute", "value")
#: Groups of words that name the same attribute; a text that uses any word of a group mentions
#: an attribute named by any other.
ATTRIBUTE_SYNONYMS: tuple[tuple[str, ...], ...] = (
    ("birth", "born", "birthday", "birthplace"),
    ("death", "died", "die", "dead"),
    ("founded", "founder", "founding", "established", "establishment", "incorporated"),
    ("population", "inhabitants", "residents", "populous", "people"),
    ("height", "tall", "high"),
    ("length", "long"),
    ("width", "wide"),
    ("depth", "deep"),
    ("weight", "weighs", "heavy"),
    ("age", "old", "aged"),
    ("revenue", "sales", "turnover", "earned", "earnings"),
    ("employees", "staff", "workforce", "employs", "workers"),
    ("price", "cost", "costs", "priced"),
    ("opened", "opening", "inaugurated"),
    ("speed", "fast"),
    ("area", "size"),
)
#: Attribute words a text need not repeat: "born" mentions ``birth_date`` and ``birth_place``.
_GENERIC = frozenset(
    {
        "date",
        "year",
        "day",
        "name",
        "number",
        "total",
        "count",
        "value",
        "amount",
        "place",
        "city",
        "country",
        "location",
        "official",
    }
)
_WORD = re.compile(r"[^\W_]+(?:['’][^\W_]+)*")


@dataclass(frozen=True, slots=True)
class Fact:
    """One fact: ``value`` of ``attribute`` of ``entity``; ``source`` says where it was read
    (``"facts.csv:3"``, ``"facts.json: entry 2"``, or ``""`` for facts built in code)."""

    entity: str
    attribute: str
    value: str
    source: str = ""


@dataclass(frozen=True, slots=True)
class Mention:
    """A fact a text mentions: where it names the ``entity`` and the attribute (``cue``)."""

    fact: Fact
    entity: Span
    cue: Span


class KnowledgeBase:
    """Facts to check claims against (see the module docstring).

    Build one from facts, or read a file with :meth:`from_file`. ``name`` names it in
    messages (the file name when read from a file).
    """

    def __init__(
        self,
        facts: Iterable[Fact],
        *,
        name: str = "knowledge base",
        synonyms: Iterable[Iterable[str]] = (),
    ) -> None:
        self.facts = tuple(facts)
        self.name = name
        for i, fact in enumerate(self.facts):
            if not isinstance(fact, Fact):
                raise InputError(
                    f"{name}: item {i + 1} is a {type(fact).__name__}, not a Fact: "
                    "build facts with Fact(entity, attribute, value)"
                )
            empty = [column for column in COLUMNS if not str(getattr(fact, column)).strip()]
            if empty:
                where = fact.source or f"{name}: fact {i + 1}"
                raise InputError(
                    f"{where}: the {' and '.join(empty)} of the fact is empty: "
                    "give every fact an entity, an attribute and a value"
                )
        groups = [
            frozenset(stem(word) for word in group)
            for group in (*ATTRIBUTE_SYNONYMS, *(tuple(g) for g in synonyms))
        ]
        self._cues: dict[str, frozenset[str]] = {}
        self._by_entity: dict[str, list[Fact]] = {}
        for fact in self.facts:
            key = match_key(fact.entity)
            if key:
                self._by_entity.setdefault(key, []).append(fact)
            if fact.attribute not in self._cues:
                self._cues[fact.attribute] = _cue_words(fact.attribute, groups)

    def __len__(self) -> int:
        return len(self.facts)

    def __repr__(self) -> str:
        return f"KnowledgeBase({self.name!r}, {len(self.facts)} facts)"

    @classmethod
    def from_file(
        cls, path: str | Path, *, synonyms: Iterable[Iterable[str]] = ()
    ) -> KnowledgeBase:
        """Read a ``.csv`` or ``.json`` file of facts.

        Raises :class:`~veracity.errors.DocumentError` naming the file (and the line, where
        there is one) when it is missing, empty, not UTF-8, malformed, or lacks a column.
        """
        file = Path(path)
        suffix = file.suffix.lower()
        if suffix not in (".csv", ".json"):
            raise DocumentError(
                file,
                "unsupported",
                "a knowledge base must be a .csv or .json file of entity, "
                "attribute, value facts: convert it or rename it",
            )
        if not file.is_file():
            raise DocumentError(
                file, "missing", "no such file: check the path of the knowledge base"
            )
        if file.stat().st_size > defaults.MAX_FILE_BYTES:
            raise DocumentError(
                file,
                "too_large",
                f"the file is larger than {defaults.MAX_FILE_BYTES} bytes: "
                "split the knowledge base",
            )
        try:
            text = file.read_text(encoding="utf-8-sig")
        except UnicodeDecodeError as exc:
            raise DocumentError(
                file,
                "encoding",
                f"is not UTF-8 text ({exc.reason} at byte {exc.start}): save it as UTF-8",
            ) from exc
        if not text.strip():
            raise DocumentError(
                file,
                "empty",
                "the knowledge base is empty: write a header "
                "line 'entity,attribute,value' (CSV) or a JSON list of facts",
            )
        facts = _read_csv(file, text) if suffix == ".csv" else _read_json(file, text)
        if not facts:
            raise DocumentError(
                file,
                "empty",
                "the knowledge base has no facts: add one "
                "entity, attribute, value fact per line or entry",
            )
        return cls(facts, name=file.name, synonyms=synonyms)

    def mentions(self, text: str) -> tuple[Mention, ...]:
        """The facts whose entity and attribute ``text`` names, in the order of the facts."""
        padded = f" {match_key(text)} "
        words = [
            (stem(m.group().lower().replace("’", "'")), Span(m.start(), m.end()))
            for m in _WORD.finditer(text)
        ]
        found: list[Mention] = []
        for key, facts in self._by_entity.items():
            if f" {key} " not in padded:
                continue
            entity = find_entity(facts[0].entity, text)
            if entity is None:  # an acronym found only in lower case
                continue
            for fact in facts:
                cues = self._cues[fact.attribute]
                cue = next(
                    (
                        span
                        for word, span in words
                        if word in cues and not entity.start <= span.start < entity.end
                    ),
                    None,
                )
                if cue is not None:
                    found.append(Mention(fact, entity, cue))
        order = {id(fact): i for i, fact in enumerate(self.facts)}
        return tuple(sorted(found, key=lambda mention: order[id(mention.fact)]))


def _cue_words(attribute: str, groups: Iterable[frozenset[str]]) -> frozenset[str]:
    words = set(content_words(attribute.replace("_", " ").replace("-", " ")))
    words = {word for word in words if not word.isdigit()}
    specific = {word for word in words if word not in _GENERIC} or words
    cues = set(specific)
    for group in groups:
        if group & specific:
            cues |= group
    return frozenset(cues - STOPWORDS)


def _read_csv(file: Path, text: str) -> list[Fact]:
    reader = csv.reader(io.StringIO(text))
    facts: list[Fact] = []
    columns: dict[str, int] | None = None
    try:
        for row in reader:
            line = reader.line_num
            if not any(cell.strip() for cell in row):
                continue
            if columns is None:
                header = [cell.strip().lower() for cell in row]
                missing = [name for name in COLUMNS if name not in header]
                if missing:
                    raise DocumentError(
                        f"{file}:{line}",
                        "missing_column",
                        f"the header has the columns {', '.join(repr(c) for c in row)} but no "
                        f"{' or '.join(missing)}: the first line must name the columns, e.g. "
                        "'entity,attribute,value'",
                    )
                columns = {name: header.index(name) for name in COLUMNS}
                continue
            cells = {name: row[i].strip() if i < len(row) else "" for name, i in columns.items()}
            empty = [name for name in COLUMNS if not cells[name]]
            if empty:
                raise DocumentError(
                    f"{file}:{line}",
                    "empty_field",
                    f"the row has no {' and no '.join(empty)} (it has {len(row)} of the "
                    f"{len(columns)} columns): fill it in or delete the line; quote a value "
                    "that holds a comma",
                )
            facts.append(
                Fact(cells["entity"], cells["attribute"], cells["value"], f"{file.name}:{line}")
            )
    except csv.Error as exc:
        raise DocumentError(
            f"{file}:{reader.line_num}",
            "bad_csv",
            f"is not valid CSV ({exc}): check the quoting on that line",
        ) from exc
    return facts


def _read_json(file: Path, text: str) -> list[Fact]:
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise DocumentError(
            f"{file}:{exc.lineno}",
            "bad_json",
            f"is not valid JSON ({exc.msg} at line {exc.lineno}, column "
            f"{exc.colno}): fix the file or export it again",
        ) from exc
    if isinstance(data, list):
        return [_json_fact(file, i, item) for i, item in enumerate(data, start=1)]
    if isinstance(data, dict):
        facts = []
        for entity, attributes in data.items():
            if not isinstance(attributes, dict):
                raise DocumentError(
                    file,
                    "bad_shape",
                    f"the value of {entity!r} is a {_kind(attributes)}, not an "
                    'object of attributes: write {"Paris": {"population": '
                    "2102650}}",
                )
            for attribute, value in attributes.items():
                facts.append(
                    Fact(
                        entity,
                        attribute,
                        _json_value(file, f"{entity!r}.{attribute!r}", value),
                        f"{file.name}: {entity}.{attribute}",
                    )
                )
        return facts
    raise DocumentError(
        file,
        "bad_shape",
        f"the JSON is a {_kind(data)}: write a list of "
        '{"entity": ..., "attribute": ..., "value": ...} objects or an object '
        "of objects",
    )


def _json_fact(file: Path, position: int, item: Any) -> Fact:
    if not isinstance(item, dict):
        raise DocumentError(
            file,
            "bad_shape",
            f"entry {position} is a {_kind(item)}, not an object with the keys "
            "entity, attribute and value",
        )
    missing = [key for key in COLUMNS if key not in item]
    if missing:
        raise DocumentError(
            file,
            "missing_column",
            f"entry {position} has no {' or '.join(missing)} (its keys: "
            f"{', '.join(map(str, item)) or 'none'}): give every entry entity, "
            "attribute and value",
        )
    entity, attribute = (
        _json_value(file, f"entry {position} {key}", item[key]) for key in COLUMNS[:2]
    )
    value = _json_value(file, f"entry {position} value", item["value"])
    return Fact(entity, attribute, value, f"{file.name}: entry {position}")


def _json_value(file: Path, where: str, value: Any) -> str:
    if isinstance(value, bool) or not isinstance(value, str | int | float):
        raise DocumentError(
            file,
            "bad_value",
            f"{where} is a {_kind(value)}: a fact's entity, attribute and value "
            "must be strings or numbers",
        )
    text = str(value).strip()
    if not text:
        raise DocumentError(file, "empty_field", f"{where} is empty: fill it in or delete it")
    return text


def _kind(value: Any) -> str:
    names = {
        dict: "object",
        list: "list",
        str: "string",
        bool: "boolean",
        type(None): "null",
        int: "number",
        float: "number",
    }
    return names.get(type(value), type(value).__name__)
