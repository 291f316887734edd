"""Grounded generation: numbered context blocks, ``[n]`` citations mapped to exact source
passages and verified, and refusal recognition (abstention on weak retrieval is
:mod:`veracity.retrieve`'s).

:func:`open_asker` answers from an index folder (see :mod:`veracity.generate.open`); the parts
compose by hand too:

>>> from veracity.testing import ScriptedChatModel, TablePairScorer
>>> from veracity.types import Chunk, Hit
>>> hit = Hit(Chunk("d#0", "bees.md", 0, "Bees dance.", 0, 11), 1.0, 1, "bm25")
>>> scorer = TablePairScorer({("Bees dance.", "Bees dance."): (0.9, 0.0, 0.1)})
>>> answer = GroundedGenerator(ScriptedChatModel(["Bees dance [1]."]), scorer).run("?", [hit])
>>> [(s.status, [c.doc_id for c in s.citations]) for s in answer.sentences]
[('supported', ['bees.md'])]
"""

from veracity.generate.ask import Asker
from veracity.generate.blocks import format_context
from veracity.generate.check import CheckedAnswer, CitationChecker
from veracity.generate.extractive import ExtractiveAnswerer, ExtractiveGenerator
from veracity.generate.grounded import GroundedGenerator
from veracity.generate.open import open_asker, search_asker
from veracity.generate.stream import StreamingAsker
from veracity.generate.writers import WRITERS, AnswerGenerator, Writer, make_generator, make_writer
from veracity.text.citations import Marker, find_markers, resolve_markers
from veracity.text.factual import is_factual
from veracity.text.refusal import detect_refusal, refusal_languages
from veracity.text.segment import AnswerSentence, segment_answer

__all__ = [
    "WRITERS",
    "AnswerGenerator",
    "AnswerSentence",
    "Asker",
    "CheckedAnswer",
    "CitationChecker",
    "ExtractiveAnswerer",
    "ExtractiveGenerator",
    "GroundedGenerator",
    "Marker",
    "StreamingAsker",
    "Writer",
    "detect_refusal",
    "find_markers",
    "format_context",
    "is_factual",
    "make_generator",
    "make_writer",
    "open_asker",
    "refusal_languages",
    "resolve_markers",
    "search_asker",
    "segment_answer",
]
