"""Fakes for tests: models that behave exactly as a test tells them to.

>>> scorer = TablePairScorer({("The sky is blue.", "The sky is blue."): (0.9, 0.05, 0.05)})
>>> scorer.run(["The sky is blue."], ["The sky is blue."]).scores[0].supported
0.9
>>> chat = ScriptedChatModel(["SUPPORTED"])
>>> chat.run(ChatRequest.of("Is the sky blue?")).text
'SUPPORTED'
"""

from __future__ import annotations

from collections.abc import Generator, Mapping, Sequence
from pathlib import Path
from typing import Any

from veracity._deps import require
from veracity.decision import FEATURES, Decision
from veracity.errors import InputError
from veracity.models.chat.base import ChatRequest, ChatResponse
from veracity.models.pairs.base import check_pairs
from veracity.text.words import content_word_spans, content_words
from veracity.types import (
    ClaimSpans,
    PairScore,
    PairScores,
    RelevanceScore,
    RelevanceScores,
    Span,
    UnsupportedSpan,
)

__all__ = [
    "STATIC_WORDS",
    "FailingPairScorer",
    "NetworkDecision",
    "OverlapRelevanceScorer",
    "OverlapSpanDetector",
    "ScriptExhaustedError",
    "ScriptedChatModel",
    "TablePairScorer",
    "save_tiny_classifier",
    "save_tiny_seq2seq",
    "save_tiny_static_model",
]


def NetworkDecision() -> Decision:  # noqa: N802 - reads as the stage it makes
    """A decision that reads the verifier's best reading alone: supported when its P(supported)
    reaches 0.5, else contradicted when the strongest P(contradicted) does, else unsupported.

    For tests of a pipeline's mechanics with a fake scorer, where the shipped decision's fitted
    weights (word coverage, the rules) would decide instead of the fake's readings.
    """
    return Decision(
        tuple(1.0 if name == "support_logit" else 0.0 for name in FEATURES),
        0.0,
        tuple(1.0 if name == "contradiction_logit" else 0.0 for name in FEATURES),
        0.0,
        "network-only",
    )


class TablePairScorer:
    """A ``PairScorer`` that looks each pair up in a table of (supported, contradicted, neither).

    Pairs missing from the table get ``default``; with ``default=None`` they raise, so a test
    notices a pair it did not expect. ``calls`` records every batch, to check batching.
    """

    model_id = "table"

    def __init__(
        self,
        table: Mapping[tuple[str, str], tuple[float, float, float]],
        *,
        default: tuple[float, float, float] | None = (0.0, 0.0, 1.0),
    ) -> None:
        self.table = dict(table)
        self.default = default
        self.calls: list[int] = []

    def load(self) -> TablePairScorer:
        return self

    def run(self, premises: Sequence[str], hypotheses: Sequence[str]) -> PairScores:
        check_pairs(premises, hypotheses)
        self.calls.append(len(premises))
        scores = []
        for premise, hypothesis in zip(premises, hypotheses, strict=True):
            probs = self.table.get((premise, hypothesis), self.default)
            if probs is None:
                raise InputError(f"TablePairScorer has no row for {(premise, hypothesis)!r}")
            scores.append(PairScore(*probs, window=Span(0, len(premise))))
        return PairScores(tuple(scores), self.model_id, "0")


class FailingPairScorer:
    """A ``PairScorer`` whose every pair fails with ``error`` (as an LLM judge whose replies
    cannot be read): ``nan`` probabilities and the error, never a score.

    >>> FailingPairScorer("bad reply").run(["x."], ["y."]).scores[0].label
    'error'
    """

    model_id = "failing"

    def __init__(self, error: str = "the pair could not be scored") -> None:
        self.error = error

    def load(self) -> FailingPairScorer:
        return self

    def run(self, premises: Sequence[str], hypotheses: Sequence[str]) -> PairScores:
        check_pairs(premises, hypotheses)
        return PairScores(
            tuple(
                PairScore.failure(self.error, window=Span(0, len(premise))) for premise in premises
            ),
            self.model_id,
            "0",
        )


class ScriptExhaustedError(RuntimeError):
    """A :class:`ScriptedChatModel` was asked for more replies than it was given.

    Not a :class:`~veracity.errors.VeracityError` on purpose: code that keeps going on model
    failures must not swallow a test's own mistake.
    """


class ScriptedChatModel:
    """A ``ChatModel`` that returns ``replies`` in order, one per request.

    An ``Exception`` in ``replies`` is raised instead of replying (to test how callers handle a
    failing model). ``requests`` records every request, including those that raised. Usage is
    reported in whitespace-separated words, a stand-in for tokens. ``stream`` uses the next reply
    too and yields it in pieces of ``chunk_size`` characters (a ``StreamingChatModel``). Every
    reply ends with ``finish_reason`` (``"length"`` plays a reply cut at ``max_tokens``).

    >>> chat = ScriptedChatModel(["CONTRADICTED"], model_id="judge")
    >>> chat.run(ChatRequest.of("Is grass red?", seed=0)).model
    'judge'
    >>> chat.requests[0].seed
    0
    """

    def __init__(
        self,
        replies: Sequence[str | Exception],
        *,
        model_id: str = "scripted",
        chunk_size: int = 4,
        finish_reason: str = "stop",
    ) -> None:
        if isinstance(replies, str):
            raise InputError(
                "replies must be a sequence of replies, not one string: "
                f"wrap it as ScriptedChatModel([{replies!r}])"
            )
        if chunk_size < 1:
            raise InputError(f"chunk_size={chunk_size!r} must be 1 or more characters")
        self.replies: tuple[str | Exception, ...] = tuple(replies)
        self.model_id = model_id
        self.chunk_size = chunk_size
        self.finish_reason = finish_reason
        self.requests: list[ChatRequest] = []

    @property
    def remaining(self) -> int:
        """How many replies have not been used yet."""
        return len(self.replies) - len(self.requests)

    def run(self, request: ChatRequest) -> ChatResponse:
        reply = self._next(request)
        return ChatResponse(
            text=reply,
            model=self.model_id,
            finish_reason=self.finish_reason,
            prompt_tokens=sum(len(m.content.split()) for m in request.messages),
            completion_tokens=len(reply.split()),
            temperature=request.temperature,
            seed=request.seed,
        )

    def stream(self, request: ChatRequest) -> Generator[str, None, str]:
        """The next reply in pieces of ``chunk_size`` characters; raises like :meth:`run`."""
        reply = self._next(request)
        for start in range(0, len(reply), self.chunk_size):
            yield reply[start : start + self.chunk_size]
        return self.finish_reason

    def _next(self, request: ChatRequest) -> str:
        if self.remaining <= 0:
            last = request.messages[-1].content
            raise ScriptExhaustedError(
                f"ScriptedChatModel was given {len(self.replies)} replies but got request "
                f"{len(self.requests) + 1} (its last message starts {last[:80]!r}); "
                "add a reply for every call the code under test makes"
            )
        reply = self.replies[len(self.requests)]
        self.requests.append(request)
        if isinstance(reply, Exception):
            raise reply
        return reply


class OverlapRelevanceScorer:
    """A ``RelevanceScorer`` whose logit is the share of the query's content words that the
    passage has (0 to 1). ``calls`` records the passages of every run, to check depth."""

    model_id = "overlap"

    def __init__(self) -> None:
        self.calls: list[int] = []

    def load(self) -> OverlapRelevanceScorer:
        return self

    def run(self, query: str, passages: Sequence[str]) -> RelevanceScores:
        from veracity.models.relevance.base import check_passages

        query, texts = check_passages(query, passages)
        self.calls.append(len(texts))
        wanted = set(content_words(query))
        scores = []
        for text in texts:
            share = len(wanted & set(content_words(text))) / len(wanted) if wanted else 0.0
            scores.append(RelevanceScore(share, Span(0, len(text))))
        return RelevanceScores(query, tuple(scores), self.model_id, "test")


class OverlapSpanDetector:
    """A ``SpanDetector`` that marks the claim's content words its premise lacks (confidence 1),
    words next to each other (only spaces between) joined into one span. ``calls`` records the
    pairs of every run, to check batching.

    >>> OverlapSpanDetector().run(["The museum opens at nine."],
    ...                           ["The museum opens at ten."])[0].spans[0].text
    'ten'
    """

    model_id = "overlap-spans"

    def __init__(self) -> None:
        self.calls: list[int] = []

    def load(self) -> OverlapSpanDetector:
        return self

    def run(self, premises: Sequence[str], claims: Sequence[str]) -> tuple[ClaimSpans, ...]:
        check_pairs(premises, claims)
        self.calls.append(len(claims))
        return tuple(
            self._claim(premise, claim) for premise, claim in zip(premises, claims, strict=True)
        )

    @staticmethod
    def _claim(premise: str, claim: str) -> ClaimSpans:
        known = set(content_words(premise))
        runs: list[list[int]] = []
        for start, end in content_word_spans(claim):
            if set(content_words(claim[start:end])) <= known:
                continue
            if runs and not claim[runs[-1][1] : start].strip():
                runs[-1][1] = end
            else:
                runs.append([start, end])
        return ClaimSpans(
            claim, tuple(UnsupportedSpan(Span(a, b), claim[a:b], 1.0) for a, b in runs), 1
        )


def save_tiny_classifier(
    folder: Path, id2label: Mapping[int, str], *, tokens: bool = False
) -> Path:
    """A tiny ``BertForSequenceClassification`` with random weights (2 layers of 32 units, 128
    positions) and the shipped MiniLM vocabulary, saved with its tokenizer to ``folder``: a Hugging
    Face model for tests that need one without the hub (needs the ``[hf]`` extra). ``tokens``:
    a ``BertForTokenClassification`` instead (one label per token, as LettuceDetect's)."""
    from transformers import (  # type: ignore[attr-defined]  # an alias of BertTokenizer in 5.x
        BertConfig,
        BertForSequenceClassification,
        BertForTokenClassification,
        BertTokenizerFast,
    )

    from veracity.assets import ASSETS

    tokenizer = BertTokenizerFast(str(ASSETS / "minilm" / "vocab.txt"))  # positional: 4.x and 5.x
    if tokenizer.unk_token_id in tokenizer("Paris")["input_ids"]:
        raise InputError("the shipped MiniLM vocabulary did not load")
    config = BertConfig(  # type: ignore[call-arg]  # num_labels & co. go to PretrainedConfig
        vocab_size=tokenizer.vocab_size,
        hidden_size=32,
        num_hidden_layers=2,
        num_attention_heads=2,
        intermediate_size=64,
        max_position_embeddings=128,
        num_labels=len(id2label),
        id2label=dict(id2label),
        label2id={name: index for index, name in id2label.items()},
    )
    head = BertForTokenClassification if tokens else BertForSequenceClassification
    model = head(config)
    return _save_spread(model, tokenizer, folder, seed=len(id2label))


def save_tiny_seq2seq(folder: Path) -> Path:
    """A tiny ``T5ForConditionalGeneration`` with random weights (2 layers of 32 units) and the
    shipped MiniLM vocabulary, its end-of-sequence token ``[SEP]``, saved with its tokenizer to
    ``folder``: a seq2seq checker for tests, with MiniCheck's label tokens (3 and 209) in its
    vocabulary (needs the ``[hf]`` extra)."""
    from transformers import (  # type: ignore[attr-defined]  # an alias of BertTokenizer in 5.x
        BertTokenizerFast,
        T5Config,
        T5ForConditionalGeneration,
    )

    from veracity.assets import ASSETS

    tokenizer = BertTokenizerFast(str(ASSETS / "minilm" / "vocab.txt"), eos_token="[SEP]")
    tokenizer.model_max_length = 128
    config = T5Config(  # type: ignore[call-arg]  # decoder_start_token_id goes to PretrainedConfig
        vocab_size=tokenizer.vocab_size,
        d_model=32,
        d_kv=16,
        d_ff=64,
        num_layers=2,
        num_heads=2,
        decoder_start_token_id=tokenizer.pad_token_id,
        pad_token_id=tokenizer.pad_token_id,
        eos_token_id=tokenizer.sep_token_id,
    )
    model = T5ForConditionalGeneration(config)
    return _save_spread(model, tokenizer, folder, seed=7)


#: The vocabulary of :func:`save_tiny_static_model` (and "[UNK]").
STATIC_WORDS = (
    "bees",
    "dance",
    "hive",
    "honey",
    "treaty",
    "signed",
    "paris",
    "moon",
    "earth",
    "the",
)


def save_tiny_static_model(folder: Path, seed: int = 0, dimension: int = 8) -> Path:
    """A tiny model2vec static model of :data:`STATIC_WORDS` with random vectors of
    ``dimension``, saved to ``folder``: a static embedder for tests (needs the ``[static]``
    extra)."""
    import numpy as np
    from tokenizers import Tokenizer, models, normalizers, pre_tokenizers

    model2vec = require("model2vec", extra="static", purpose="a tiny static embedder")
    vocab = {"[UNK]": 0, **{word: i + 1 for i, word in enumerate(STATIC_WORDS)}}
    tokenizer = Tokenizer(models.WordLevel(vocab, unk_token="[UNK]"))
    tokenizer.normalizer = normalizers.Lowercase()
    tokenizer.pre_tokenizer = pre_tokenizers.Whitespace()
    vectors = np.random.default_rng(seed).normal(size=(len(vocab), dimension)).astype(np.float32)
    config = {"model_type": "model2vec", "hidden_dim": dimension, "normalize": True}
    model2vec.StaticModel(vectors, tokenizer, config=config, normalize=True).save_pretrained(folder)
    return folder


def _save_spread(model: Any, tokenizer: Any, folder: Path, *, seed: int) -> Path:
    """Save ``model`` with larger weights than its init, so that different inputs get clearly
    different scores (layer norms and biases keep their defaults, so nothing saturates)."""
    import torch

    generator = torch.Generator().manual_seed(seed)  # local: no global seed
    with torch.no_grad():
        for name, parameter in model.named_parameters():
            if name.endswith("weight") and "layernorm" not in name.replace("_", "").lower():
                parameter.normal_(0.0, 0.2, generator=generator)
    folder.mkdir(parents=True, exist_ok=True)
    model.save_pretrained(folder)
    tokenizer.save_pretrained(folder)
    return folder
