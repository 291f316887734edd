"""Similarity scorers: lexical coverage, MiniLM cosine over sentence windows, token alignment."""

from __future__ import annotations

import re
import zlib
from collections.abc import Sequence

import numpy as np
import pytest

from veracity.errors import InputError, OptionError
from veracity.models.embedding import Embeddings, TokenVectors
from veracity.models.pairs.base import PairScorer
from veracity.models.pairs.similarity import (
    AlignmentScorer,
    CosineScorer,
    LexicalCoverageScorer,
    sentence_windows,
)
from veracity.types import Span


class BagOfWordsEmbedder:
    """Unit vectors of hashed lowercase words: texts sharing words have high cosine."""

    model_id = "bag-of-words"
    max_tokens = 256
    dimension = 97

    def __init__(self) -> None:
        self.calls: list[list[str]] = []

    def load(self) -> BagOfWordsEmbedder:
        return self

    def run(self, texts: Sequence[str]) -> Embeddings:
        self.calls.append(list(texts))
        vectors = np.zeros((len(texts), self.dimension), dtype=np.float32)
        for row, text in enumerate(texts):
            for word in text.lower().replace(".", " ").split():
                vectors[row, zlib.crc32(word.encode()) % self.dimension] += 1.0
        norms = np.maximum(np.linalg.norm(vectors, axis=1, keepdims=True), 1e-12)
        return Embeddings(vectors / norms, self.model_id)


@pytest.mark.unit
def test_lexical_scorer_fields_and_order() -> None:
    scorer = LexicalCoverageScorer().load()
    assert isinstance(scorer, PairScorer)
    premise = "The Eiffel Tower opened in 1889."
    result = scorer.run([premise, premise], ["The tower opened.", "The tower opened in Paris."])
    assert result.supported() == [1.0, pytest.approx(2 / 3)]
    for score in result.scores:
        assert score.contradicted == 0.0
        assert score.neither == pytest.approx(1 - score.supported)
        assert score.window == Span(0, len(premise))
    assert result.model_id == "lexical-coverage"
    assert LexicalCoverageScorer.scores_are_probabilities is False


@pytest.mark.unit
def test_lexical_scorer_checks_pairs() -> None:
    with pytest.raises(InputError, match="2 premises and 1 hypotheses"):
        LexicalCoverageScorer().run(["a", "b"], ["c"])


@pytest.mark.unit
def test_sentence_windows_share_one_sentence_and_respect_limits() -> None:
    spans = [Span(0, 10), Span(11, 20), Span(21, 30), Span(31, 40), Span(41, 50)]
    windows = sentence_windows(spans, [5] * 5, max_sentences=3, max_tokens=100)
    assert windows == [Span(0, 30), Span(21, 50)]
    # token cap: 5 + 50 > 20, so sentence 0 and sentence 1 stand alone, no sentence is skipped
    tight = sentence_windows(spans, [5, 50, 5, 5, 5], max_sentences=3, max_tokens=20)
    assert tight == [Span(0, 10), Span(11, 20), Span(21, 50)]
    pairs = sentence_windows(spans, [5] * 5, max_sentences=2, max_tokens=100)
    assert pairs == [Span(0, 20), Span(11, 30), Span(21, 40), Span(31, 50)]
    single = sentence_windows(spans, [5] * 5, max_sentences=1, max_tokens=100)
    assert single == spans
    assert sentence_windows([], [], max_sentences=3, max_tokens=10) == []


@pytest.mark.unit
def test_cosine_scorer_picks_the_best_window_and_batches_once() -> None:
    embedder = BagOfWordsEmbedder()
    scorer = CosineScorer(embedder, window_sentences=1).load()
    assert isinstance(scorer, PairScorer)
    premise = "Cats purr softly. Stock markets fell sharply. Rain is wet."
    result = scorer.run(
        [premise, premise, "Rain is wet."], ["stock markets fell", "rain is wet", "rain is wet"]
    )
    assert len(embedder.calls) == 1
    # three premise sentences + one single-sentence premise + two distinct claims
    assert len(embedder.calls[0]) == 3 + 1 + 2
    first, second, third = result.scores
    assert first.window.of(premise) == "Stock markets fell sharply."
    assert (first.window_index, first.windows) == (1, 3)
    assert second.window.of(premise) == "Rain is wet."
    assert second.supported == pytest.approx(1.0)
    assert third.supported == pytest.approx(1.0)
    assert first.contradicted == 0.0
    assert first.neither == pytest.approx(1 - first.supported)
    assert result.model_id == "cosine:bag-of-words"


@pytest.mark.unit
def test_cosine_scorer_blank_premise_scores_zero() -> None:
    result = CosineScorer(BagOfWordsEmbedder()).run(["   "], ["anything"])
    assert result.scores[0].supported == 0.0
    assert result.scores[0].window == Span(0, 3)


@pytest.mark.unit
def test_cosine_scorer_validates() -> None:
    with pytest.raises(OptionError, match="window_sentences"):
        CosineScorer(BagOfWordsEmbedder(), window_sentences=0)
    with pytest.raises(InputError, match="hypothesis 0 is empty"):
        CosineScorer(BagOfWordsEmbedder()).run(["text"], [" "])


@pytest.mark.integration
def test_cosine_scorer_with_shipped_minilm() -> None:
    scorer = CosineScorer(threads=1).load()
    premise = (
        "The committee met on Tuesday to discuss the budget. Several members objected. "
        "Meanwhile, the city's new bridge over the river opened to traffic in June. "
        "It carries four lanes. The mayor attended the ceremony."
    )
    result = scorer.run(
        [premise, premise],
        ["A bridge across the river was opened in June.", "Penguins live in Antarctica."],
    )
    related, unrelated = result.scores
    assert related.supported > unrelated.supported + 0.2
    assert "bridge" in related.window.of(premise)
    assert related.windows == 2  # sentences 1-3 and 3-5
    assert 0.0 <= unrelated.supported <= 1.0


class WordPieceEmbedder:
    """One piece per word, its vector a hashed one-hot of the lowercased word: alignment then
    counts exact word matches, which makes the expected scores easy to state."""

    model_id = "word-pieces"

    def __init__(self, max_tokens: int = 256) -> None:
        self.max_tokens = max_tokens
        self.calls: list[list[str]] = []

    def load(self) -> WordPieceEmbedder:
        return self

    def token_vectors(self, texts: Sequence[str]) -> list[TokenVectors]:
        self.calls.append(list(texts))
        found = []
        for text in texts:
            spans = [m.span() for m in re.finditer(r"\w+", text)]
            vectors = np.zeros((len(spans), 97), dtype=np.float32)
            for row, (start, end) in enumerate(spans):
                vectors[row, zlib.crc32(text[start:end].lower().encode()) % 97] = 1.0
            found.append(TokenVectors(vectors, tuple(spans)))
        return found


@pytest.mark.unit
def test_alignment_scores_the_share_of_content_words_found() -> None:
    scorer = AlignmentScorer(WordPieceEmbedder()).load()
    assert isinstance(scorer, PairScorer)
    assert scorer.scores_are_probabilities is False
    premise = "The tower opened in 1889. It stands in Paris."
    result = scorer.run(
        [premise] * 3 + ["  "],
        ["The tower opened.", "The tower opened in Rome.", "It is.", "A tower."],
    )
    assert result.supported()[:3] == pytest.approx([1.0, 2 / 3, 1.0])  # "It is." has no content
    assert result.supported()[3] == 0.0  # a blank premise supports nothing
    assert result.scores[0].window == Span(0, len(premise))
    assert result.model_id == "align:word-pieces"


@pytest.mark.unit
def test_alignment_embeds_each_premise_once_and_keeps_recent_ones() -> None:
    embedder = WordPieceEmbedder()
    scorer = AlignmentScorer(embedder, cache_size=1)
    scorer.run(["One fact. Two facts.", "One fact. Two facts."], ["One.", "Two."])
    assert embedder.calls[0] == ["One fact.", "Two facts."]  # sentences of the one premise
    scorer.run(["One fact. Two facts."], ["Fact."])
    assert embedder.calls[2] == []  # cached: only the claim was embedded
    scorer.run(["Other text."], ["Text."])
    scorer.run(["One fact. Two facts."], ["Fact."])
    assert embedder.calls[-2] == ["One fact.", "Two facts."]  # evicted by the newer premise


@pytest.mark.unit
def test_alignment_reads_a_long_sentence_in_pieces_not_cut() -> None:
    embedder = WordPieceEmbedder(max_tokens=8)
    words = " ".join(f"w{i}" for i in range(30)) + " zebra"
    scorer = AlignmentScorer(embedder)
    assert scorer.run([words], ["zebra"]).supported() == [1.0]
    assert len(embedder.calls[0]) > 1
    with pytest.raises(OptionError):
        AlignmentScorer(embedder, cache_size=-1)


@pytest.mark.unit
def test_alignment_reads_the_selected_evidence_of_a_long_premise() -> None:
    # The claim's words all occur on the page, but "Paris" only in a long sentence that does
    # not fit the evidence window beside the best-matching one.
    far = "Paris " + " ".join(f"w{i}" for i in range(20)) + "."
    premise = f"Ada wrote the first program. {far}"
    claim = "Ada wrote the first program in Paris."
    whole = AlignmentScorer(WordPieceEmbedder(), evidence_tokens=None).run([premise], [claim])
    selected = AlignmentScorer(WordPieceEmbedder(), evidence_tokens=48).run([premise], [claim])
    assert whole.supported() == [1.0]
    assert whole.model_version == "1"
    assert whole.scores[0].window == Span(0, len(premise))
    score = selected.scores[0]
    assert score.supported == pytest.approx(4 / 5)  # ada, wrote, first, program; not paris
    assert [span.of(premise) for span in score.evidence] == ["Ada wrote the first program."]
    assert score.window.of(premise) == "Ada wrote the first program."
    assert selected.model_version == "2-evidence48"
    with pytest.raises(OptionError):
        AlignmentScorer(WordPieceEmbedder(), evidence_tokens=8)


@pytest.mark.integration
def test_real_alignment_credits_a_paraphrase_over_an_unsupported_claim() -> None:
    scorer = AlignmentScorer().load()
    premise = "Marie Curie died in 1934 in France. She won two Nobel Prizes."
    paraphrase, unsupported = scorer.run(
        [premise] * 2, ["Curie passed away in 1934.", "Curie was born in Warsaw."]
    ).supported()
    assert paraphrase > 0.8
    assert unsupported < paraphrase - 0.2
