"""The knowledge layer: numbers, dates, amounts, code-like tokens and names compared exactly.

- :mod:`.values`: :func:`extract_values` finds and normalises numbers, percentages, money,
  quantities, dates and years; :func:`compare` says whether two of them agree;
- :mod:`.tokens`: :func:`extract_tokens` finds code-like tokens (paths, URLs, e-mail addresses,
  flags, versions, identifiers, marked lower-case names, quoted strings);
  :func:`compare_tokens` compares two of them;
- :mod:`.entities`: named entities by spaCy (the ``[nlp]`` extra) or by rules;
- :mod:`.kb`: a :class:`KnowledgeBase` of (entity, attribute, value) facts from CSV or JSON;
- :mod:`.layer`: :class:`KnowledgeLayer`, one :class:`~veracity.types.LayerResult` per claim.

>>> from veracity.types import Chunk, Claim, Span
>>> claim = Claim(0, "The tower opened in 1889.", Span(0, 25), 0)
>>> passage = Chunk("t#0", "tower.md", 0, "It opened on 31 March 1889.", 0, 27)
>>> KnowledgeLayer(ner="rules").run([claim], [[passage]]).results[0].label
'supported'
"""

from veracity.verify.knowledge.entities import (
    NER_BACKENDS,
    Entity,
    EntityRecognizer,
    NerBackend,
    entity_key,
    find_entity,
    match_key,
    spacy_available,
)
from veracity.verify.knowledge.kb import Fact, KnowledgeBase, Mention
from veracity.verify.knowledge.layer import KnowledgeLayer, KnowledgeResult
from veracity.verify.knowledge.tokens import TOKEN_CLASSES, compare_tokens, extract_tokens
from veracity.verify.knowledge.values import (
    VALUE_KINDS,
    Relation,
    Value,
    ValueKind,
    compare,
    extract_values,
)

__all__ = [
    "NER_BACKENDS",
    "TOKEN_CLASSES",
    "VALUE_KINDS",
    "Entity",
    "EntityRecognizer",
    "Fact",
    "KnowledgeBase",
    "KnowledgeLayer",
    "KnowledgeResult",
    "Mention",
    "NerBackend",
    "Relation",
    "Value",
    "ValueKind",
    "compare",
    "compare_tokens",
    "entity_key",
    "extract_tokens",
    "extract_values",
    "find_entity",
    "match_key",
    "spacy_available",
]
