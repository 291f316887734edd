"""BM25 over chunk texts with bm25s: a builder that writes ``<generation>/bm25/`` and a retriever.

Texts are lowercased, split into words of two or more letters or digits (bm25s's pattern), English
stopwords (bm25s's list) are dropped, and words are stemmed with a Snowball stemmer (PyStemmer)
unless ``stemmer=None``. The index is bm25s's own save (``.npy`` arrays written with pickling off,
JSON vocabulary and parameters) plus ``veracity.bm25.json`` recording the tokenizer settings, so
queries are tokenized exactly as the chunks were.

>>> from veracity.corpus.base import InMemoryChunks                      # doctest: +SKIP
>>> BM25Builder().build(chunks, generation, None)                        # doctest: +SKIP
>>> BM25Retriever(chunks, generation).run("solar eclipse", k=3).hits    # doctest: +SKIP
"""

from __future__ import annotations

import importlib
import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from veracity import defaults
from veracity.corpus.base import ChunkLookup
from veracity.errors import IndexStoreError, ModelError, OptionError
from veracity.retrieve.base import (
    check_k,
    check_lookup,
    check_query,
    hits_at,
    meta_count,
    read_meta,
    top_k,
    write_meta,
)
from veracity.types import Confidence, SearchResult

__all__ = ["BM25_DIR", "BM25_METHODS", "Analyzer", "BM25Builder", "BM25Retriever"]

#: Scoring variants bm25s implements (term frequency and idf).
BM25_METHODS = ("robertson", "lucene", "atire", "bm25l", "bm25+")
#: Folder of a generation that holds the BM25 index.
BM25_DIR = "bm25"
_META = "veracity.bm25.json"
#: bm25s's default word pattern: runs of two or more word characters.
TOKEN_PATTERN = r"(?u)\b\w\w+\b"


def _stemmer(language: str | None) -> Callable[[str], str] | None:
    if language is None:
        return None
    try:
        stemmer_module = importlib.import_module("Stemmer")  # PyStemmer ships no type hints
    except ImportError as exc:
        raise ModelError(
            f"BM25 stemming (stemmer={language!r}) needs the package PyStemmer, which is not "
            "installed. Install it with: pip install PyStemmer (or build with stemmer=None)."
        ) from exc
    languages = stemmer_module.algorithms()
    if language not in languages:
        raise OptionError("stemmer", language, f"one of {', '.join(languages)}, or None")
    stem: Callable[[str], str] = stemmer_module.Stemmer(language).stemWord
    return stem


class Analyzer:
    """Turns text into BM25 terms: lowercase, bm25s's word pattern, stopwords out, stemmed.

    >>> Analyzer(stemmer=None).terms("The Cats and the hats")
    ['cats', 'hats']
    """

    def __init__(self, *, stemmer: str | None = defaults.BM25_STEMMER) -> None:
        from bm25s.stopwords import STOPWORDS_EN

        self.stemmer = stemmer
        self._split = re.compile(TOKEN_PATTERN).findall
        self._stopwords = frozenset(STOPWORDS_EN)
        self._stem = _stemmer(stemmer)
        self._stems: dict[str, str] = {}

    def terms(self, text: str) -> list[str]:
        """The terms of ``text`` in order, repeats kept (they count twice in a query too)."""
        words = [w for w in self._split(text.lower()) if w not in self._stopwords]
        if self._stem is None:
            return words
        stems = self._stems
        out = []
        for word in words:
            stem = stems.get(word)
            if stem is None:
                stem = stems[word] = self._stem(word)
            out.append(stem)
        return out

    def term_ids(self, texts: Iterable[str]) -> tuple[list[list[int]], dict[str, int]]:
        """Term ids of each text and the vocabulary (term -> id) they index.

        Same terms as :meth:`terms`; each distinct word is looked at once, so the cost per
        word of a large corpus is one dictionary lookup.
        """
        vocab: dict[str, int] = {}
        word_ids: dict[str, int] = {}  # -1 for a stopword
        split, stopwords, stem = self._split, self._stopwords, self._stem
        rows = []
        for text in texts:
            row = []
            for word in split(text.lower()):
                term_id = word_ids.get(word)
                if term_id is None:
                    if word in stopwords:
                        term_id = -1
                    else:
                        term = word if stem is None else stem(word)
                        term_id = vocab.setdefault(term, len(vocab))
                    word_ids[word] = term_id
                if term_id >= 0:
                    row.append(term_id)
            rows.append(row)
        return rows, vocab


def _check_bm25_options(k1: float, b: float, method: str, idf_method: str | None) -> None:
    if isinstance(k1, bool) or not isinstance(k1, int | float) or not k1 > 0:
        raise OptionError("k1", k1, "a number greater than 0 (1.2 to 2.0 is usual)")
    if isinstance(b, bool) or not isinstance(b, int | float) or not 0 <= b <= 1:
        raise OptionError("b", b, "a number from 0 to 1")
    if method not in BM25_METHODS:
        raise OptionError("method", method, f"one of {', '.join(BM25_METHODS)}")
    if idf_method is not None and idf_method not in BM25_METHODS:
        raise OptionError("idf_method", idf_method, f"one of {', '.join(BM25_METHODS)}, or None")


class BM25Builder:
    """Writes the BM25 index of a generation under ``<generation>/bm25/``.

    Every build indexes all chunks again: BM25 weights depend on corpus-wide statistics, so
    nothing of the previous generation can be reused.

    >>> summary = BM25Builder().build(chunks, Path("idx/gen-000001"), None)   # doctest: +SKIP
    >>> summary["count"]                                                       # doctest: +SKIP
    420
    """

    name = "bm25"

    def __init__(
        self,
        *,
        k1: float = defaults.BM25_K1,
        b: float = defaults.BM25_B,
        method: str = defaults.BM25_METHOD,
        idf_method: str | None = None,
        stemmer: str | None = defaults.BM25_STEMMER,
    ) -> None:
        _check_bm25_options(k1, b, method, idf_method)
        if stemmer is not None and not isinstance(stemmer, str):
            raise OptionError("stemmer", stemmer, "a Snowball language such as 'english', or None")
        _stemmer(stemmer)  # fail now, not at build time, on an unknown language
        self.k1 = float(k1)
        self.b = float(b)
        self.method = method
        self.idf_method = idf_method or method
        self.stemmer = stemmer

    def build(
        self, chunks: ChunkLookup, directory: Path, previous: Path | None
    ) -> Mapping[str, object]:
        """Index every chunk of ``chunks`` (in ordinal order) into ``directory / "bm25"``."""
        import bm25s

        ids, vocab = Analyzer(stemmer=self.stemmer).term_ids(chunk.text for chunk in chunks)
        out = Path(directory) / BM25_DIR
        out.mkdir(parents=True, exist_ok=True)
        if vocab:  # bm25s cannot index a corpus without a single term
            model = bm25s.BM25(k1=self.k1, b=self.b, method=self.method, idf_method=self.idf_method)
            model.index((ids, vocab), show_progress=False)
            model.save(out, allow_pickle=False, show_progress=False)
        summary: dict[str, object] = {
            "count": len(ids),
            "terms": len(vocab),
            "k1": self.k1,
            "b": self.b,
            "method": self.method,
            "idf_method": self.idf_method,
            "stemmer": self.stemmer,
            "stopwords": "en",
            "token_pattern": TOKEN_PATTERN,
            "lowercase": True,
        }
        write_meta(out / _META, summary)
        return summary


@dataclass(frozen=True)
class _Loaded:
    analyzer: Analyzer
    vocab: Mapping[str, int]
    model: Any  # bm25s.BM25, or None when the corpus has no term at all
    count: int


class BM25Retriever:
    """BM25 search over the chunks of one index generation.

    ``directory`` is the generation folder (the one holding ``bm25/``). Only chunks that share
    at least one term with the query are returned; a query with no known term returns no hits.
    Confidence: ``top_bm25`` is the best raw score (0.0 when nothing matches) and ``margin`` the
    best minus the second best (a chunk that does not match scores 0.0).

    >>> retriever = BM25Retriever(chunks, Path("idx/gen-000001")).load()     # doctest: +SKIP
    >>> retriever.run("eclipse", k=2).hits[0].scores["bm25"]                  # doctest: +SKIP
    3.21
    """

    name = "bm25"

    def __init__(self, chunks: ChunkLookup, directory: str | Path) -> None:
        self.chunks = check_lookup(chunks)
        self.directory = Path(directory)
        self._loaded: _Loaded | None = None

    def load(self) -> BM25Retriever:
        """Read the index once; later calls do nothing."""
        self._index()
        return self

    def _index(self) -> _Loaded:
        if self._loaded is None:
            self._loaded = self._open()
        return self._loaded

    def _open(self) -> _Loaded:
        folder = self.directory / BM25_DIR
        meta = read_meta(folder / _META, "BM25 index")
        count = meta_count(meta, "count", folder / _META)
        if count != len(self.chunks):
            raise IndexStoreError(
                f"the BM25 index at {folder} holds {count} chunks but the chunk store holds "
                f"{len(self.chunks)}; they come from different generations. Re-index."
            )
        analyzer = Analyzer(stemmer=meta.get("stemmer"))
        model: Any = None
        vocab: dict[str, int] = {}
        if meta_count(meta, "terms", folder / _META) > 0:
            import bm25s

            try:
                model = bm25s.BM25.load(folder, mmap=False, show_progress=False)
            except (OSError, ValueError, KeyError) as exc:
                raise IndexStoreError(
                    f"cannot read the BM25 index at {folder}: {exc}. Re-index."
                ) from exc
            vocab = dict(model.vocab_dict)
            vocab.pop("", None)  # bm25s's empty-document token is never a query term
        return _Loaded(analyzer, vocab, model, count)

    def score_all(self, query: str) -> np.ndarray:
        """Raw BM25 scores of every chunk for ``query`` (float32, ordinal order)."""
        return self._scores(check_query(query))

    def _scores(self, query: str) -> np.ndarray:
        index = self._index()
        vocab = index.vocab
        ids = [vocab[t] for t in index.analyzer.terms(query) if t in vocab]
        if not ids:
            return np.zeros(index.count, dtype=np.float32)
        scores: np.ndarray = index.model.get_scores_from_ids(ids)
        return scores

    def run(self, query: str, *, k: int = defaults.TOP_K) -> SearchResult:
        """The ``k`` best-scoring chunks (fewer when fewer match), best first."""
        query = check_query(query)
        k = check_k(k)
        scores = self._scores(query)
        best = top_k(scores, max(k, 2), above=0.0)
        first = float(scores[best[0]]) if best.size else 0.0
        second = float(scores[best[1]]) if best.size > 1 else 0.0
        top = best[:k]
        values = scores[top]
        hits = hits_at(self.chunks, top, values, self.name, {"bm25": values})
        confidence = Confidence(top_bm25=first, margin=first - second)
        return SearchResult(query=query, mode=self.name, hits=hits, confidence=confidence)
