"""The knowledge rules: exact checks of a claim against its passages, no network.

Numbers, dates, amounts, code-like tokens and names are compared exactly, and negations,
antonyms and contrary quantifiers are read against the evidence sentence aligned with the claim.
The answer pipeline runs them as its ``knowledge`` layer, and ``veracity check`` on each pair.

Reading text:

- :mod:`.values`: :func:`extract_values` finds and normalises numbers, percentages, money,
  quantities, dates and years; :func:`compare` says whether two of them agree; its units and
  currencies are :mod:`.units`';
- :mod:`.tokens`: :func:`extract_tokens` finds code-like tokens (paths, URLs, e-mail addresses,
  flags, versions, identifiers, marked lower-case names, quoted strings);
  :func:`compare_tokens` compares two of them;
- :mod:`.entities`: named entities by spaCy (the ``[nlp]`` extra) or by rules;
- :mod:`.align`: the passage sentence aligned with a claim; :mod:`.word_pairs`: which of its
  words stands for which of the claim's;
- :mod:`.kb`: a :class:`KnowledgeBase` of (entity, attribute, value) facts from CSV or JSON.

Checking a claim:

- :mod:`.context`: a value in its context, a passage read once, what the claim is about;
- :mod:`.value_checks`: a value against the passages' values; :mod:`.slots`: a code token in
  the slot it fills; :mod:`.names`: names, and facts of a knowledge base;
- :mod:`.polarity`: the lexicon of negation cues, antonyms and contrary quantifiers, and the
  contradictions it shows;
- :mod:`.layer`: :class:`KnowledgeLayer`, one :class:`~veracity.types.LayerResult` per claim.
"""

from veracity.rules.entities import (
    NER_BACKENDS,
    Entity,
    EntityRecognizer,
    NerBackend,
    entity_key,
    find_entity,
    match_key,
    spacy_available,
)
from veracity.rules.kb import Fact, KnowledgeBase, Mention
from veracity.rules.layer import KnowledgeLayer, KnowledgeResult
from veracity.rules.tokens import TOKEN_CLASSES, compare_tokens, extract_tokens
from veracity.rules.values import (
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
