"""The claim stage of verification: an answer from any LLM -> atomic, self-contained claims.

:class:`ClaimExtractor` splits the answer into sentences (Punkt, with citation markers and
abbreviations handled), skips those that need no verification with the reason recorded
(questions, greetings, meta sentences, pure opinions, refusals, code, headings), decomposes
compound sentences into atomic claims and decontextualizes them ("He" -> "Karl von Frisch"),
by rule or with a chat model. Every claim keeps its span in the answer and the citation numbers
of its sentence.

>>> result = ClaimExtractor().run("Sure! Bees dance and sing [1]. They live in hives.")
>>> [claim.text for claim in result.claims]
['Bees dance.', 'Bees sing.', 'Bees live in hives.']
>>> [(s.text, s.reason) for s in result.skipped]
[('Sure!', 'greeting')]
"""

from veracity.verify.claims.decompose import Part, RuleDecomposer
from veracity.verify.claims.decontextualize import RuleDecontextualizer
from veracity.verify.claims.draft import Draft
from veracity.verify.claims.extractor import ON_ERROR, ClaimExtractor, OnError
from veracity.verify.claims.filter import sentence_skip_reason
from veracity.verify.claims.llm import (
    LLMDecomposer,
    LLMDecontextualizer,
    parse_decomposition,
    parse_decontextualization,
)
from veracity.verify.claims.split import ClaimSentence, split_answer

__all__ = [
    "ON_ERROR",
    "ClaimExtractor",
    "ClaimSentence",
    "Draft",
    "LLMDecomposer",
    "LLMDecontextualizer",
    "OnError",
    "Part",
    "RuleDecomposer",
    "RuleDecontextualizer",
    "parse_decomposition",
    "parse_decontextualization",
    "sentence_skip_reason",
    "split_answer",
]
