from pathlib import Path

import pytest

from veracity.errors import DocumentError, InputError, OptionError
from veracity.types import Chunk, Claim, Confidence, Hit, SearchResult, Span
from veracity.verify.gather import EvidenceGatherer, source_chunks, source_documents
from veracity.verify.questions import QueryMaker

pytestmark = pytest.mark.unit

BEES = Chunk("bees.md#0", "bees.md", 0, "Honey bees dance to share where food is.", 0, 40)
ANTS = Chunk("ants.md#0", "ants.md", 0, "Ants follow scent trails to food.", 0, 33)


class RecordingRetriever:
    name = "recording"

    def __init__(self, chunks: list[Chunk]) -> None:
        self.chunks = chunks
        self.queries: list[tuple[str, int]] = []

    def load(self) -> "RecordingRetriever":
        return self

    def run(self, query: str, *, k: int = 5) -> SearchResult:
        self.queries.append((query, k))
        hits = tuple(Hit(c, 1.0, i + 1, self.name) for i, c in enumerate(self.chunks[:k]))
        return SearchResult(query, self.name, hits, Confidence())


def _claim(i: int, text: str, markers: tuple[int, ...] = ()) -> Claim:
    return Claim(i, text, Span(0, len(text)), i, markers)


def test_cited_passages_are_used_and_the_rest_is_retrieved() -> None:
    retriever = RecordingRetriever([ANTS, BEES])
    gatherer = EvidenceGatherer(retriever=retriever, k=1)
    claims = [_claim(0, "Bees dance.", (1,)), _claim(1, "Ants follow trails in 1990.", (7,))]
    result = gatherer.run(claims, cited={1: BEES})
    first, second = result.items
    assert first.passages == (BEES,)
    assert first.cited == (True,)
    assert first.query == ""
    # [7] names no passage, so the claim is searched for like an uncited one.
    assert second.passages == (ANTS,)
    assert second.cited == (False,)
    assert retriever.queries == [("Ants follow trails in 1990.", 1)]
    assert result.searches == 1
    assert result.query_mode == "claim"


def test_question_queries_leave_out_the_claimed_values() -> None:
    retriever = RecordingRetriever([BEES])
    gatherer = EvidenceGatherer(retriever=retriever, queries=QueryMaker("question"))
    result = gatherer.run([_claim(0, "Bees were first kept in 2400 BC.")])
    assert "2400" not in result.items[0].query
    assert result.query_mode == "question:rules"


def test_few_sources_are_all_evidence_and_many_are_searched() -> None:
    few = EvidenceGatherer(sources=[BEES, ANTS], k=5).run([_claim(0, "Bees dance.")])
    assert few.items[0].passages == (BEES, ANTS)
    assert few.searches == 0
    many = [
        Chunk(f"d{i}#0", f"d{i}", 0, f"Filler passage {i} about wasps.", 0, 30) for i in range(8)
    ] + [BEES]
    searched = EvidenceGatherer(sources=many, k=2).run([_claim(0, "Honey bees dance.")])
    assert searched.items[0].passages[0] == BEES
    assert searched.searches == 1


def test_retriever_and_sources_together_are_refused() -> None:
    with pytest.raises(OptionError, match="not both"):
        EvidenceGatherer(retriever=RecordingRetriever([]), sources=[BEES])


def test_source_documents_from_files_and_texts(tmp_path: Path) -> None:
    page = tmp_path / "page.md"
    page.write_text("# Bees\n\nHoney bees dance. They share food.\n", encoding="utf-8")
    documents = source_documents([page], ["Ants follow trails."])
    assert [d.id for d in documents] == ["page.md", "text-1"]
    chunks = source_chunks(documents)
    for chunk in chunks:
        document = next(d for d in documents if d.id == chunk.doc_id)
        assert document.text[chunk.start : chunk.end] == chunk.text
    with pytest.raises(DocumentError, match=r"missing\.md"):
        source_documents([tmp_path / "missing.md"])
    with pytest.raises(InputError, match="source text 1 is empty"):
        source_documents(texts=["  "])


@pytest.mark.unit
def test_a_source_that_is_not_a_regular_file_is_refused_without_blocking(tmp_path: Path) -> None:
    import os
    import threading

    fifo = tmp_path / "source.md"
    os.mkfifo(fifo)
    caught: list[BaseException] = []

    def read() -> None:
        try:
            source_documents([fifo])
        except BaseException as exc:
            caught.append(exc)

    worker = threading.Thread(target=read, daemon=True)
    worker.start()
    worker.join(5)
    assert not worker.is_alive(), "source_documents blocked on a FIFO"
    (error,) = caught
    assert isinstance(error, DocumentError)
    assert error.reason == "special_file"
    assert str(fifo) in str(error)
