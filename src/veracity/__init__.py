"""veracity: grounded answers with checkable citations, and claim-level verification."""

from veracity.errors import VeracityError
from veracity.types import (
    Chunk,
    Confidence,
    Document,
    Hit,
    PairScore,
    PairScores,
    SearchResult,
    Span,
)

__version__ = "0.1.0"

__all__ = [
    "Chunk",
    "Confidence",
    "Document",
    "Hit",
    "PairScore",
    "PairScores",
    "SearchResult",
    "Span",
    "VeracityError",
    "__version__",
]
