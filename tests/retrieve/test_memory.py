import pytest

from veracity.errors import InputError
from veracity.retrieve.memory import MemoryBM25
from veracity.types import Chunk

pytestmark = pytest.mark.unit


def _chunk(i: int, text: str) -> Chunk:
    return Chunk(f"d{i}#0", f"d{i}", 0, text, 0, len(text))


def test_memory_bm25_ranks_matching_passages_and_skips_others() -> None:
    retriever = MemoryBM25(
        [
            _chunk(0, "Ants follow scent trails."),
            _chunk(1, "Honey bees dance to share food locations."),
            _chunk(2, "Bees make honey from nectar."),
        ]
    )
    result = retriever.run("how do bees share food", k=3)
    assert [hit.chunk.id for hit in result.hits][:2] == ["d1#0", "d2#0"]
    assert "d0#0" not in [hit.chunk.id for hit in result.hits]
    assert result.confidence.top_bm25 is not None
    assert result.confidence.top_bm25 > 0


def test_memory_bm25_needs_passages() -> None:
    with pytest.raises(InputError, match="at least one source"):
        MemoryBM25([])
