"""Grounded generation: numbered context blocks, ``[n]`` citations mapped to exact source
passages and verified, refusal recognition, and abstention on weak retrieval.

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

from veracity.generate.abstain import (
    RANK_ONLY,
    SIGNALS,
    Abstainer,
    ConfidenceSignal,
    SignalReading,
    make_signal,
    question_content,
)
from veracity.generate.ask import Asker
from veracity.generate.blocks import format_context
from veracity.generate.calibration import (
    Calibration,
    DefaultThreshold,
    StaleCalibrationError,
    StoredCalibration,
    ThresholdPoint,
    calibrate,
    default_threshold,
    load_calibration,
    read_calibration,
    save_calibration,
)
from veracity.generate.check import CheckedAnswer, CitationChecker
from veracity.generate.extractive import ExtractiveAnswerer, ExtractiveGenerator
from veracity.generate.grounded import GroundedGenerator
from veracity.generate.open import IndexSearch, open_asker, open_search
from veracity.generate.stream import StreamingAsker
from veracity.generate.writers import WRITERS, AnswerGenerator, Writer, make_generator, make_writer
from veracity.text.citations import Marker, find_markers, resolve_markers
from veracity.text.factual import is_factual
from veracity.text.refusal import detect_refusal, refusal_languages
from veracity.text.segment import AnswerSentence, segment_answer

__all__ = [
    "RANK_ONLY",
    "SIGNALS",
    "WRITERS",
    "Abstainer",
    "AnswerGenerator",
    "AnswerSentence",
    "Asker",
    "Calibration",
    "CheckedAnswer",
    "CitationChecker",
    "ConfidenceSignal",
    "DefaultThreshold",
    "ExtractiveAnswerer",
    "ExtractiveGenerator",
    "GroundedGenerator",
    "IndexSearch",
    "Marker",
    "SignalReading",
    "StaleCalibrationError",
    "StoredCalibration",
    "StreamingAsker",
    "ThresholdPoint",
    "Writer",
    "calibrate",
    "default_threshold",
    "detect_refusal",
    "find_markers",
    "format_context",
    "is_factual",
    "load_calibration",
    "make_generator",
    "make_signal",
    "make_writer",
    "open_asker",
    "open_search",
    "question_content",
    "read_calibration",
    "refusal_languages",
    "resolve_markers",
    "save_calibration",
    "segment_answer",
]
