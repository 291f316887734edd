"""Documents, chunks and hits made in the test, and verifier fakes that fail on purpose."""

from __future__ import annotations

from collections.abc import Sequence

import pytest

from veracity.corpus.chunker import Chunker
from veracity.errors import ClaimTooLongError
from veracity.types import Document, Hit, Page, PairScore, PairScores, Section, Span

GUIDE_TEXT = (
    "Worker bees develop in 21 days from egg to adult. "
    "Queens develop in 16 days.\n\n"
    "Drones develop in 24 days. Drones have no sting."
)
HONEY_TEXT = "Beeswax melts at about 62 to 64 degrees Celsius."


def documents() -> dict[str, Document]:
    split = GUIDE_TEXT.index("Drones")
    guide = Document(
        id="guide.pdf", text=GUIDE_TEXT, title="Beekeeping Guide",
        sections=(Section(0, split, ("Biology", "Development")),
                  Section(split, len(GUIDE_TEXT), ("Biology", "Drones"))),
        pages=(Page(1, 0, split), Page(2, split, len(GUIDE_TEXT))),
    )
    honey = Document(id="wax.md", text=HONEY_TEXT, title="Beeswax")
    return {guide.id: guide, honey.id: honey}


def hits_of(docs: dict[str, Document]) -> tuple[Hit, ...]:
    chunker = Chunker(size=16, overlap=0)
    chunks = [chunk for doc in docs.values() for chunk in chunker.run(doc)]
    return tuple(Hit(chunk, 1.0 / (i + 1), i + 1, "bm25") for i, chunk in enumerate(chunks))


@pytest.fixture
def docs() -> dict[str, Document]:
    return documents()


@pytest.fixture
def hits(docs: dict[str, Document]) -> tuple[Hit, ...]:
    return hits_of(docs)


class FailingScorer:
    """Scores like a table, but returns a failure for pairs whose claim contains ``fail_on``."""

    model_id = "failing"

    def __init__(self, table: dict[tuple[str, str], tuple[float, float, float]],
                 fail_on: str) -> None:
        self.table = table
        self.fail_on = fail_on
        self.calls: list[int] = []

    def load(self) -> FailingScorer:
        return self

    def run(self, premises: Sequence[str], hypotheses: Sequence[str]) -> PairScores:
        self.calls.append(len(premises))
        scores = []
        for premise, claim in zip(premises, hypotheses, strict=True):
            window = Span(0, len(premise))
            if self.fail_on in claim:
                scores.append(PairScore.failure("judge reply 'maybe' is not a label",
                                                window=window))
            else:
                scores.append(PairScore(*self.table.get((premise, claim), (0.0, 0.0, 1.0)),
                                        window=window))
        return PairScores(tuple(scores), self.model_id, "1")


class ShortWindowScorer:
    """Raises ClaimTooLongError for a batch holding any claim longer than ``limit`` characters."""

    model_id = "short-window"

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.calls: list[int] = []

    def load(self) -> ShortWindowScorer:
        return self

    def run(self, premises: Sequence[str], hypotheses: Sequence[str]) -> PairScores:
        self.calls.append(len(premises))
        if any(len(claim) > self.limit for claim in hypotheses):
            raise ClaimTooLongError(f"a claim is longer than {self.limit} characters")
        return PairScores(tuple(PairScore(0.9, 0.0, 0.1, window=Span(0, len(p)))
                                for p in premises), self.model_id, "1")
