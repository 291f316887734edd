"""Similarity pair scorers: the two baselines any verifier must beat (word overlap and embedding
cosine) and token alignment.

All three follow the :class:`~veracity.models.pairs.base.PairScorer` shape, but their ``supported``
field is a **similarity score in [0, 1], not a probability**: ``contradicted`` is always 0 and
``neither`` is ``1 - supported``. A fixed threshold such as 0.5 means nothing for them; choose
one on development data (``evaluate.classification.cross_threshold``).
``scores_are_probabilities`` is ``False`` on all three so that callers can tell.

>>> scorer = LexicalCoverageScorer()
>>> scorer.run(["Paris is the capital of France."], ["France's capital is Paris."]).supported()
[1.0]
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Sequence
from typing import Any, ClassVar

import numpy as np

from veracity import defaults
from veracity.errors import OptionError
from veracity.models.embedding import Embedder, TextEmbedder, TokenEmbedder
from veracity.models.pairs.base import check_pairs
from veracity.models.pairs.features import alignment, lexical_coverage
from veracity.models.pairs.windows import EvidenceSelector, Window, sentence_units
from veracity.text.sentences import split_sentences
from veracity.types import PairScore, PairScores, Span

__all__ = [
    "AlignmentScorer",
    "CosineScorer",
    "LexicalCoverageScorer",
    "TextEmbedder",
    "TokenEmbedder",
    "sentence_windows",
]


def _load_with_tokenizer(embedder: TextEmbedder | TokenEmbedder) -> Any:
    """Load ``embedder`` and return the MiniLM tokenizer that splits premises for it."""
    from veracity.assets import load_tokenizer

    embedder.load()
    return load_tokenizer()


def _similarity(
    value: float, window: Span, index: int = 0, windows: int = 1, evidence: tuple[Span, ...] = ()
) -> PairScore:
    return PairScore(
        value,
        0.0,
        1.0 - value,
        window=window,
        window_index=index,
        windows=windows,
        evidence=evidence,
    )


class LexicalCoverageScorer:
    """``supported`` = share of the claim's content words found in the premise.

    See :func:`veracity.models.pairs.features.lexical_coverage`. The window is always the whole
    premise.
    """

    model_id = "lexical-coverage"
    model_version = "1"
    scores_are_probabilities: ClassVar[bool] = False

    def load(self) -> LexicalCoverageScorer:
        return self

    def run(self, premises: Sequence[str], hypotheses: Sequence[str]) -> PairScores:
        check_pairs(premises, hypotheses)
        scores = tuple(
            _similarity(lexical_coverage(premise, hypothesis), Span(0, len(premise)))
            for premise, hypothesis in zip(premises, hypotheses, strict=True)
        )
        return PairScores(scores, self.model_id, self.model_version)


def sentence_windows(
    spans: Sequence[Span], token_counts: Sequence[int], *, max_sentences: int, max_tokens: int
) -> list[Span]:
    """Windows of up to ``max_sentences`` consecutive sentences and ``max_tokens`` tokens.

    Each window starts at the last sentence of the one before (at the next sentence when that
    one held a single sentence), so every two adjacent sentences share a window, no sentence is
    skipped, and each sentence is embedded at most twice. A sentence longer than ``max_tokens``
    is still its own window (the embedder truncates it and says so).

    >>> [(w.start, w.end) for w in sentence_windows(
    ...     [Span(0, 5), Span(6, 9), Span(10, 20), Span(21, 30)], [4, 2, 9, 3],
    ...     max_sentences=3, max_tokens=8)]
    [(0, 9), (6, 9), (10, 20), (21, 30)]
    """
    windows: list[Span] = []
    first = 0
    while first < len(spans):
        last, used = first, token_counts[first]
        while (
            last + 1 < len(spans)
            and last + 1 - first < max_sentences
            and used + token_counts[last + 1] <= max_tokens
        ):
            last += 1
            used += token_counts[last]
        windows.append(Span(spans[first].start, spans[last].end))
        if last == len(spans) - 1:
            break
        first = max(first + 1, last)
    return windows


class CosineScorer:
    """``supported`` = the best cosine between the claim and a window of the premise, in [0, 1].

    The premise is split into sentences and cut into windows of up to ``window_sentences``
    consecutive sentences that fit the embedder's window, each sharing one sentence with the
    next (see :func:`sentence_windows`); the claim and every window are
    embedded in one batched call per ``run`` (a premise repeated in the batch is embedded once),
    and the best window's span is recorded. Negative cosines are clipped to 0.

    >>> scorer = CosineScorer().load()                           # doctest: +SKIP
    >>> scorer.run(["A cat sat. It purred."], ["A cat purred."]).scores[0].window  # doctest: +SKIP
    Span(start=0, end=21)
    """

    scores_are_probabilities: ClassVar[bool] = False
    model_version = "1"

    def __init__(
        self, embedder: TextEmbedder | None = None, *, window_sentences: int = 3, threads: int = 0
    ) -> None:
        if window_sentences < 1:
            raise OptionError("window_sentences", window_sentences, "1 or more")
        self.embedder: TextEmbedder = (
            embedder if embedder is not None else Embedder(threads=threads)
        )
        self.window_sentences = window_sentences
        self.model_id = f"cosine:{self.embedder.model_id}"
        self._tokenizer: Any = None

    def load(self) -> CosineScorer:
        if self._tokenizer is None:
            self._tokenizer = _load_with_tokenizer(self.embedder)
        return self

    def _windows(self, premise: str) -> list[Span]:
        spans = split_sentences(premise)
        if not spans:
            return []
        encodings = self._tokenizer.encode_batch(
            [span.of(premise) for span in spans], add_special_tokens=False
        )
        return sentence_windows(
            spans,
            [len(encoding.ids) for encoding in encodings],
            max_sentences=self.window_sentences,
            max_tokens=self.embedder.max_tokens - 2,
        )

    def run(self, premises: Sequence[str], hypotheses: Sequence[str]) -> PairScores:
        check_pairs(premises, hypotheses)
        self.load()
        unique_premises = list(dict.fromkeys(premises))
        unique_claims = list(dict.fromkeys(hypotheses))
        windows = {premise: self._windows(premise) for premise in unique_premises}
        texts = [span.of(premise) for premise in unique_premises for span in windows[premise]]
        rows: dict[str, tuple[int, int]] = {}
        offset = 0
        for premise in unique_premises:
            rows[premise] = (offset, offset + len(windows[premise]))
            offset += len(windows[premise])
        claim_row = {claim: len(texts) + i for i, claim in enumerate(unique_claims)}
        vectors = self.embedder.run(texts + unique_claims).vectors
        scores = []
        for premise, hypothesis in zip(premises, hypotheses, strict=True):
            begin, stop = rows[premise]
            if begin == stop:  # a blank premise supports nothing
                scores.append(_similarity(0.0, Span(0, len(premise))))
                continue
            cosines = vectors[begin:stop] @ vectors[claim_row[hypothesis]]
            best = int(np.argmax(cosines))
            value = float(np.clip(cosines[best], 0.0, 1.0))
            scores.append(_similarity(value, windows[premise][best], best, stop - begin))
        return PairScores(tuple(scores), self.model_id, self.model_version)


class AlignmentScorer:
    """``supported`` = how closely the claim's content words align with the premise, in [0, 1].

    Token alignment in the manner of BERTScore recall: the claim and each sentence of the premise
    are embedded as contextual word-piece vectors (all-MiniLM-L6-v2 by default); every piece of
    the claim's content words takes its best cosine with any piece of the premise, and the score
    is their mean, clipped to [0, 1] (1.0 for a claim without content words, as lexical coverage
    gives). Unlike word coverage it credits paraphrases ("passed away" ~ "died"), and unlike one
    cosine per window it still asks that every content word be found.

    By default the claim is aligned with the evidence the embedded verifier would read: the
    premise's sentences that share the most rare words with the claim, up to
    ``evidence_tokens`` (see :class:`~veracity.models.pairs.windows.EvidenceSelector`; a premise
    that
    fits is read whole). A word the claim shares only with some distant sentence of a long page
    then no longer counts as found, and the cost no longer grows with the premise. Each result
    records the window and the evidence spans; as for the verifier, a claim longer than 60% of
    ``evidence_tokens`` is a :class:`~veracity.errors.ClaimTooLongError`.
    ``evidence_tokens=None`` reads the premise whole (every token through the embedder).

    Either way a sentence longer than the embedder's window is embedded in pieces, never cut;
    the last ``cache_size`` evidence texts are kept, so claims checked against the same sources
    pay for them once.
    """

    scores_are_probabilities: ClassVar[bool] = False

    def __init__(
        self,
        embedder: TokenEmbedder | None = None,
        *,
        evidence_tokens: int | None = defaults.ALIGN_EVIDENCE_TOKENS,
        cache_size: int = 256,
        threads: int = 0,
    ) -> None:
        if cache_size < 0:
            raise OptionError("cache_size", cache_size, "0 or more")
        if evidence_tokens is not None and evidence_tokens < 32:
            raise OptionError(
                "evidence_tokens", evidence_tokens, "32 or more, or None to read the premise whole"
            )
        self.embedder: TokenEmbedder = (
            embedder if embedder is not None else Embedder(threads=threads)
        )
        self.evidence_tokens = evidence_tokens
        self.cache_size = cache_size
        self.model_id = f"align:{self.embedder.model_id}"
        # "1" reads every premise whole (the only behaviour before evidence selection)
        self.model_version = f"2-evidence{evidence_tokens}" if evidence_tokens is not None else "1"
        self._tokenizer: Any = None
        self._selector: EvidenceSelector | None = None
        self._cache: OrderedDict[str, np.ndarray] = OrderedDict()

    def load(self) -> AlignmentScorer:
        if self._tokenizer is None:
            self._tokenizer = _load_with_tokenizer(self.embedder)
            if self.evidence_tokens is not None:
                self._selector = EvidenceSelector(
                    max_tokens=self.evidence_tokens, tokenizer=self._tokenizer
                )
        return self

    def run(self, premises: Sequence[str], hypotheses: Sequence[str]) -> PairScores:
        check_pairs(premises, hypotheses)
        self.load()
        windows = [
            self._evidence(premise, hypothesis)
            for premise, hypothesis in zip(premises, hypotheses, strict=True)
        ]
        pieces = self._premise_pieces(list(dict.fromkeys(window.text for window in windows)))
        claims = self.embedder.token_vectors(list(hypotheses))
        scores = []
        for window, hypothesis, claim in zip(windows, hypotheses, claims, strict=True):
            value = alignment(hypothesis, claim.vectors, claim.offsets, pieces[window.text])
            scores.append(_similarity(value, window.span, evidence=window.spans))
        return PairScores(tuple(scores), self.model_id, self.model_version)

    def _evidence(self, premise: str, claim: str) -> Window:
        """The part of ``premise`` the claim is aligned with: the selected evidence, or all."""
        if self._selector is None:
            return Window(premise, (Span(0, len(premise)),))
        return self._selector.run(premise, claim)[0]

    def _premise_pieces(self, premises: list[str]) -> dict[str, np.ndarray]:
        """Word-piece vectors of every evidence text (rows of one matrix each), cached ones
        reused."""
        found = {p: self._cache[p] for p in premises if p in self._cache}
        missing = [p for p in premises if p not in found]
        units = {
            p: sentence_units(p, self.embedder.max_tokens - 2, self._tokenizer)[0] for p in missing
        }
        texts = [span.of(p) for p in missing for span in units[p]]
        vectors = iter(self.embedder.token_vectors(texts))
        for premise in missing:
            rows = [next(vectors).vectors for _ in units[premise]]
            found[premise] = np.vstack(rows) if rows else np.zeros((0, 1), dtype=np.float32)
            if self.cache_size:
                self._cache[premise] = found[premise]
                while len(self._cache) > self.cache_size:
                    self._cache.popitem(last=False)
        for premise in found:
            if premise in self._cache:
                self._cache.move_to_end(premise)
        return found
