"""Documents, chunks and hits made in the test, and verifier fakes that fail on purpose."""

from __future__ import annotations

import pytest

from veracity.corpus.chunker import Chunker
from veracity.types import Document, Hit, Page, Section

GUIDE_TEXT = (
    "Worker bees develop in 21 days from egg to adult. "
    "Queens develop in 16 days.\n\n"
    "Drones develop in 24 days. Drones have no sting."
)
HONEY_TEXT = "Beeswax melts at about 62 to 64 degrees Celsius."


def documents() -> dict[str, Document]:
    split = GUIDE_TEXT.index("Drones")
    guide = Document(
        id="guide.pdf",
        text=GUIDE_TEXT,
        title="Beekeeping Guide",
        sections=(
            Section(0, split, ("Biology", "Development")),
            Section(split, len(GUIDE_TEXT), ("Biology", "Drones")),
        ),
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
