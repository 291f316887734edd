"""Asking end to end with the real bundled SmolLM2 and the real shipped verifier (integration).

A three-document index is built in the test; the question goes through retrieval, the grounded
prompt, llama.cpp, and the citation checker. What SmolLM2 writes is not pinned (a 135M model);
what is checked is the structure every answer must have, and that abstention never reaches the
model.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from veracity.corpus.index_dir import IndexDir
from veracity.corpus.indexer import Indexer
from veracity.generate import Asker, GroundedGenerator
from veracity.models.chat.base import ChatModel, ChatRequest, ChatResponse
from veracity.models.pairs.base import PairScorer
from veracity.retrieve import Abstainer, BM25Builder, calibrate, make_signal, open_retriever
from veracity.types import SENTENCE_STATUSES

pytestmark = pytest.mark.integration

DOCS = {
    "castes.md": "# Castes\n\nA worker honeybee develops in 21 days from egg to adult. A queen "
    "develops in 16 days, and a drone in 24 days.\n",
    "wax.txt": "Beeswax is made by young worker bees from glands under the abdomen. Beeswax "
    "melts at about 62 to 64 degrees Celsius.\n",
    "varroa.txt": "Varroa mites feed on the fat body of honeybee larvae and adults. A common "
    "action threshold is 3 mites per 100 bees in late summer.\n",
}
ANSWERABLE = "At what temperature does beeswax melt?"
#: Retrieves passages (it shares "honeybee"), but weak ones.
UNANSWERABLE = "Who painted the honeybee mural in the town hall?"


class CountingChat:
    """The real SmolLM2 chat model, counting the requests that reach it."""

    def __init__(self, chat: ChatModel) -> None:
        self.chat = chat
        self.model_id = chat.model_id
        self.requests: list[ChatRequest] = []

    def run(self, request: ChatRequest) -> ChatResponse:
        self.requests.append(request)
        return self.chat.run(request)


@pytest.fixture(scope="module")
def index(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("ask-smollm2")
    docs = folder / "docs"
    docs.mkdir()
    for name, text in DOCS.items():
        (docs / name).write_text(text, encoding="utf-8")
    Indexer(builders=[BM25Builder()]).run([docs], folder / "index")
    return folder / "index"


@pytest.fixture(scope="module")
def verifier() -> PairScorer:
    from veracity.models.pairs.registry import make_verifier

    return make_verifier("embedded").load()


@pytest.fixture(scope="module")
def smollm2() -> CountingChat:
    pytest.importorskip("llama_cpp", reason="needs the [llm] extra: pip install 'veracity[llm]'")
    from veracity.models.chat.llamacpp import LlamaCppChat

    return CountingChat(LlamaCppChat(threads=2).load())


def test_smollm2_answer_has_checked_sentences_and_exact_citations(
    index: Path, verifier: PairScorer, smollm2: CountingChat
) -> None:
    generator = GroundedGenerator(smollm2, verifier, max_tokens=96)
    asker = Asker(open_retriever(index, mode="bm25"), generator, k=3)
    answer = asker.run(ANSWERABLE)

    assert not answer.abstained
    assert answer.provenance is not None
    assert answer.provenance.model == "SmolLM2-135M-Instruct.Q4_1"
    assert answer.provenance.verifier == verifier.model_id
    assert answer.timings.retrieve > 0
    assert answer.timings.generate > 0
    assert answer.sources
    assert answer.sources[0].chunk.doc_id == "wax.txt"
    assert answer.answered, f"SmolLM2 refused: {answer.text!r}"
    assert answer.timings.verify > 0
    assert answer.sentences
    for sentence in answer.sentences:
        assert sentence.status in SENTENCE_STATUSES
        assert answer.text[sentence.span.start : sentence.span.end] == sentence.text
    # Written or attached, every citation names a block and that block's exact span.
    assert answer.citations, f"no sentence of {answer.text!r} got a citation"
    store = IndexDir(index).store()
    for citation in answer.citations:
        chunk = answer.sources[citation.marker - 1].chunk
        document = store.document(citation.doc_id)
        assert citation.chunk_id == chunk.id
        assert document.text[citation.start : citation.end] == chunk.text
        assert citation.support is not None
        assert citation.attached == (citation.span is None)


def test_unanswerable_question_abstains_without_calling_smollm2(
    index: Path, verifier: PairScorer, smollm2: CountingChat
) -> None:
    retriever = open_retriever(index, mode="bm25").load()
    signal = make_signal("top_bm25")
    dev = [
        ("How many days does a queen take to develop?", False),
        ("What is the varroa action threshold in late summer?", False),
        ("Which honeybee queen won the summer show?", True),
        ("What colour is the honeybee on the town flag?", True),
    ]
    results = [retriever.run(question, k=3) for question, _ in dev]
    assert all(result.hits for result in results)
    readings = signal.run(results)
    calibration = calibrate(
        [r.value for r in readings], [label for _, label in dev], signal="top_bm25"
    )
    assert calibration.f1 == 1.0
    generator = GroundedGenerator(smollm2, verifier, max_tokens=96)
    asker = Asker(
        retriever,
        generator,
        k=3,
        abstainer=Abstainer(signal, calibration.threshold, source="calibrated"),
    )
    before = len(smollm2.requests)
    assert retriever.run(UNANSWERABLE, k=3).hits  # so the threshold, not empty retrieval, decides

    answer = asker.run(UNANSWERABLE)

    assert answer.abstained
    assert answer.abstention is not None
    assert answer.abstention.abstain
    assert answer.abstention.signal == "top_bm25"
    assert answer.abstention.source == "calibrated"
    assert answer.abstention.value is not None
    assert answer.abstention.value < calibration.threshold
    assert len(smollm2.requests) == before
    assert answer.sentences == ()
    assert answer.provenance is None
    assert answer.timings.generate == 0.0
    assert answer.timings.retrieve > 0


def test_an_answer_cut_at_max_tokens_is_marked_truncated(
    index: Path, verifier: PairScorer, smollm2: CountingChat
) -> None:
    # Harden-2 #15: the answer was cut (finish reason "length") and nothing said so
    from veracity.generate import StreamingAsker
    from veracity.types import Answer

    generator = GroundedGenerator(smollm2.chat, verifier, max_tokens=6)
    asker = Asker(open_retriever(index, mode="bm25"), generator, k=3)
    answer = asker.run(ANSWERABLE)
    assert answer.provenance is not None
    assert answer.provenance.finish_reason == "length"
    assert answer.truncated
    streamed = list(StreamingAsker(asker).run(ANSWERABLE))[-1]
    assert isinstance(streamed, Answer)
    assert streamed.truncated
    assert streamed.text == answer.text
