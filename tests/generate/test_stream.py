"""StreamingAsker: sentence checks while the model writes, then the same Answer as Asker.run."""

from __future__ import annotations

from collections.abc import Generator

import pytest

from veracity.generate.ask import Asker
from veracity.generate.grounded import GroundedGenerator
from veracity.generate.stream import StreamingAsker
from veracity.models.chat.base import ChatRequest, ChatResponse
from veracity.retrieve.memory import MemoryBM25
from veracity.testing import ScriptedChatModel, TablePairScorer
from veracity.types import Answer, Chunk, SentenceCheck

pytestmark = pytest.mark.unit

DANCE = Chunk("bees.md#0", "bees.md", 0, "Bees dance to show where food is.", 0, 33)
STING = Chunk("bees.md#1", "bees.md", 1, "Worker bees sting once.", 34, 57)
REPLY = "Bees dance [2]. Worker bees sting once [1]. Bees sing [2]."  # block 1 is STING
TABLE = {
    (DANCE.text, "Bees dance."): (0.9, 0.0, 0.1),
    (STING.text, "Worker bees sting once."): (0.95, 0.0, 0.05),
}


def _asker(chat: object, scorer: TablePairScorer | None = None) -> Asker:
    retriever = MemoryBM25([DANCE, STING])
    return Asker(
        retriever,
        GroundedGenerator(chat, scorer or TablePairScorer(TABLE)),  # type: ignore[arg-type]
        k=2,
        abstainer=None,
    )


class _Watched(ScriptedChatModel):
    """Records how many pieces the model had written when each item reached the reader."""

    def __init__(self, replies: list[str]) -> None:
        super().__init__(replies, chunk_size=3)
        self.written = 0
        self.closed = False

    def stream(self, request: ChatRequest) -> Generator[str, None, str]:
        pieces = super().stream(request)
        try:
            while True:
                try:
                    piece = next(pieces)
                except StopIteration as end:
                    return end.value
                self.written += 1
                yield piece
        finally:
            self.closed = True


def test_the_streamed_answer_is_the_answer_run_gives() -> None:
    streamed = list(StreamingAsker(_asker(ScriptedChatModel([REPLY]))).run("What do bees do?"))
    whole = _asker(ScriptedChatModel([REPLY])).run("What do bees do?")
    answer = streamed[-1]
    assert isinstance(answer, Answer)
    assert [s for s in streamed[:-1]] == list(whole.sentences)
    assert answer.sentences == whole.sentences
    assert answer.citations == whole.citations
    assert answer.text == whole.text
    assert [s.status for s in answer.sentences] == ["supported", "supported", "unsupported"]


def test_each_sentence_arrives_before_the_model_has_finished() -> None:
    chat = _Watched([REPLY])
    seen = []
    for item in StreamingAsker(_asker(chat)).run("What do bees do?"):
        seen.append((type(item).__name__, chat.written))
    total = -(-len(REPLY) // 3)
    first_sentence_at = seen[0][1]
    assert seen[0][0] == "SentenceCheck"
    assert first_sentence_at < total / 2
    assert seen[-1] == ("Answer", total)


def test_every_pair_is_scored_once() -> None:
    scorer = TablePairScorer(TABLE)
    list(StreamingAsker(_asker(ScriptedChatModel([REPLY]), scorer)).run("What do bees do?"))
    assert sum(scorer.calls) == 3  # three (sentence, cited passage) pairs, none twice


def test_closing_the_stream_stops_the_model() -> None:
    chat = _Watched([REPLY])
    items = StreamingAsker(_asker(chat)).run("What do bees do?")
    first = next(items)
    assert isinstance(first, SentenceCheck)
    items.close()
    assert chat.closed
    assert chat.written < -(-len(REPLY) // 3)


class _NoStream:
    model_id = "plain"

    def run(self, request: ChatRequest) -> ChatResponse:
        return ChatResponse(REPLY, "plain")


def test_a_model_that_cannot_stream_is_asked_once() -> None:
    items = list(StreamingAsker(_asker(_NoStream())).run("What do bees do?"))
    assert [type(item).__name__ for item in items] == ["SentenceCheck"] * 3 + ["Answer"]


def test_a_refusal_streams_as_one_answer() -> None:
    asker = _asker(ScriptedChatModel(["I don't know."]))
    items = list(StreamingAsker(asker).run("What do bees do?"))
    answer = items[-1]
    assert isinstance(answer, Answer)
    assert answer.refused


@pytest.mark.parametrize("finish", ["stop", "length"])
def test_the_streamed_answer_keeps_the_finish_reason(finish: str) -> None:
    # Harden-2 #15: a streamed answer was always "stop", even when cut at max_tokens
    chat = ScriptedChatModel([REPLY], finish_reason=finish)
    answer = list(StreamingAsker(_asker(chat)).run("What do bees do?"))[-1]
    whole = _asker(ScriptedChatModel([REPLY], finish_reason=finish)).run("What do bees do?")
    assert isinstance(answer, Answer)
    assert answer.provenance is not None
    assert answer.provenance.finish_reason == finish
    assert answer.truncated == whole.truncated == (finish == "length")
    assert answer.to_dict()["truncated"] == (finish == "length")
