"""Ingestion: files to documents (``loaders``), documents to chunks (``chunker``), chunks into
an index folder of atomic generations (``store``, ``index_dir``, ``indexer``).

>>> from veracity.corpus import Indexer, IndexDir                       # doctest: +SKIP
>>> report = Indexer().run(["docs/"], "index/")                          # doctest: +SKIP
>>> IndexDir("index/").store().chunks([0])[0].text                       # doctest: +SKIP
"""

from veracity.corpus.base import ChunkLookup, IndexBuilder, InMemoryChunks
from veracity.corpus.chunker import Chunker, count_tokens, token_spans
from veracity.corpus.index_dir import IndexDir, NewGeneration
from veracity.corpus.indexer import Failure, Indexer, IndexReport
from veracity.corpus.loaders import LOADERS, Loader, LoadResult, iter_files, load_file
from veracity.corpus.store import ChunkStore, FileInfo

__all__ = [
    "LOADERS",
    "ChunkLookup",
    "ChunkStore",
    "Chunker",
    "Failure",
    "FileInfo",
    "InMemoryChunks",
    "IndexBuilder",
    "IndexDir",
    "IndexReport",
    "Indexer",
    "LoadResult",
    "Loader",
    "NewGeneration",
    "count_tokens",
    "iter_files",
    "load_file",
    "token_spans",
]
