"""Answer while the model is still writing: each sentence checked as soon as it is complete.

:class:`StreamingAsker` runs an :class:`~veracity.generate.ask.Asker`'s retrieval and abstention,
then reads the chat model's reply piece by piece (``chat.stream``). A sentence is complete once the
next one has begun (so markers written after its full stop, ``Bees dance. [1]``, are still its own);
its citations are then checked and its :class:`~veracity.types.SentenceCheck` yielded. The last item
is always the :class:`~veracity.types.Answer`, the same answer :meth:`Asker.run` gives for the same
reply: every pair is scored once, and the final check reads the scores already made. A chat model
that cannot stream is asked once, and the extractive answerer (no model) chooses once; their
sentences are yielded after the whole answer. Closing the iterator (a client that went away) stops
the model.

>>> from veracity.generate.grounded import GroundedGenerator
>>> from veracity.generate.ask import Asker
>>> from veracity.retrieve.memory import MemoryBM25
>>> from veracity.testing import ScriptedChatModel, TablePairScorer
>>> from veracity.types import Chunk
>>> retriever = MemoryBM25([Chunk("d#0", "d", 0, "Bees dance.", 0, 11)])
>>> scorer = TablePairScorer({("Bees dance.", "Bees dance."): (0.9, 0.0, 0.1)})
>>> chat = ScriptedChatModel(["Bees dance [1]. Do they?"])
>>> asker = Asker(retriever, GroundedGenerator(chat, scorer), k=1)
>>> [getattr(item, "status") for item in StreamingAsker(asker).run("What do bees do?")]
['supported', 'not_factual', 'answered']
"""

from __future__ import annotations

import time
from collections.abc import Generator, Iterator, Sequence

from veracity.generate.ask import Asker
from veracity.generate.grounded import GroundedGenerator
from veracity.models.chat.base import ChatResponse, Streamed, StreamingChatModel
from veracity.models.pairs.base import PairScorer
from veracity.text.segment import segment_answer
from veracity.types import Answer, Hit, PairScore, PairScores, SentenceCheck

__all__ = ["StreamingAsker"]


class StreamingAsker:
    """Streams an :class:`Asker`'s answer: ``SentenceCheck`` s as they are written, then the
    ``Answer`` (see the module docstring)."""

    def __init__(self, asker: Asker) -> None:
        self.asker = asker

    def load(self) -> StreamingAsker:
        self.asker.load()
        return self

    def run(self, question: str) -> Generator[SentenceCheck | Answer, None, None]:
        """Each sentence's check as soon as it is complete, then the answer (always last)."""
        retrieved = self.asker.retrieve(question)
        if retrieved.abstained is not None:
            yield retrieved.abstained
            return
        for item in self._generate(question, retrieved.hits):
            yield retrieved.finish(item) if isinstance(item, Answer) else item

    def _generate(self, question: str, hits: Sequence[Hit]) -> Iterator[SentenceCheck | Answer]:
        generator = self.asker.generator
        if not isinstance(generator, GroundedGenerator) or not isinstance(
            generator.chat, StreamingChatModel
        ):
            answer = generator.run(question, hits)
            yield from answer.sentences
            yield answer
            return
        chat = generator.chat
        request = generator.request(question, hits)
        checker = generator.checker.with_scorer(_Remembering(generator.checker.scorer))
        text, done, checking = "", 0, 0.0
        blocks = [hit.chunk.text for hit in hits]
        started = time.perf_counter()
        pieces = Streamed(chat.stream(request))
        try:
            for delta in pieces:
                text += delta
                sentences = segment_answer(text, blocks=blocks)
                complete = len(sentences) - 1  # the last one may still grow
                if complete > done:
                    begun = time.perf_counter()
                    checked = checker.run(text[: sentences[complete - 1].span.end], hits)
                    checking += time.perf_counter() - begun
                    yield from checked.sentences[done:complete]
                    done = complete
        finally:
            pieces.close()  # stops the model when the reader stops
        generated = time.perf_counter() - started - checking
        response = ChatResponse(
            text=text,
            model=chat.model_id,
            finish_reason=pieces.finish_reason,
            temperature=request.temperature,
            seed=request.seed,
        )
        answer = generator.answer(question, response, hits, generated=generated, checker=checker)
        yield from answer.sentences[done:]
        yield answer


class _Remembering:
    """A ``PairScorer`` that scores each distinct pair once and answers repeats from memory,
    so checking a growing answer again costs only its new sentences."""

    def __init__(self, scorer: PairScorer) -> None:
        self.scorer = scorer
        self.model_id = scorer.model_id
        self.version = str(getattr(scorer, "version", ""))
        self._seen: dict[tuple[str, str], PairScore] = {}
        self._provenance = (scorer.model_id, self.version)

    def load(self) -> _Remembering:
        self.scorer.load()
        return self

    def run(self, premises: Sequence[str], hypotheses: Sequence[str]) -> PairScores:
        pairs = list(zip(premises, hypotheses, strict=True))
        new = list(dict.fromkeys(pair for pair in pairs if pair not in self._seen))
        if new:
            result = self.scorer.run([p for p, _ in new], [h for _, h in new])
            self._seen.update(zip(new, result.scores, strict=True))
            self._provenance = (result.model_id, result.model_version)
        return PairScores(tuple(self._seen[pair] for pair in pairs), *self._provenance)
