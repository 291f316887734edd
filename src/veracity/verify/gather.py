"""Evidence for each claim: the passages its answer cited, or passages retrieved for it.

A claim whose sentence cites blocks (``[1]``, ``[2, 3]``) that the caller passed in ``cited`` is
checked against exactly those passages. Any other claim gets the ``k`` best passages of a
retriever (an index, or the source texts given), searched with the claim or with the question it
answers (see :mod:`veracity.verify.questions`). With a handful of source passages (no more than
``k``) every passage is evidence and no search is made.

>>> from veracity.types import Chunk, Claim, Span
>>> passages = [Chunk("d#0", "d", 0, "Bees dance to show where food is.", 0, 33)]
>>> claim = Claim(0, "Bees dance.", Span(0, 11), 0)
>>> EvidenceGatherer(sources=passages).run([claim]).items[0].passages[0].id
'd#0'
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from veracity import defaults
from veracity.corpus.chunker import Chunker
from veracity.corpus.loaders import LOADERS, find_files, load_file
from veracity.errors import InputError, OptionError
from veracity.retrieve.base import Retriever, check_k
from veracity.retrieve.memory import MemoryBM25
from veracity.types import Chunk, Claim, Document
from veracity.verify.questions import QueryMaker

__all__ = [
    "ClaimEvidence",
    "EvidenceGatherer",
    "EvidenceSet",
    "source_chunks",
    "source_documents",
]


@dataclass(frozen=True)
class ClaimEvidence:
    """The passages one claim is checked against.

    ``cited[i]`` says whether ``passages[i]`` was cited by the answer; ``query`` is the search
    query used for the rest ("" when none was made).
    """

    claim: Claim
    passages: tuple[Chunk, ...]
    cited: tuple[bool, ...]
    query: str = ""


@dataclass(frozen=True)
class EvidenceSet:
    """Evidence for every claim, in claim order, with how it was gathered."""

    items: tuple[ClaimEvidence, ...]
    query_mode: str
    searches: int


def source_documents(
    paths: Iterable[str | Path] = (), texts: Iterable[str] = ()
) -> tuple[Document, ...]:
    """Documents from source files and folders (read as ``veracity index`` reads them: a
    folder's files of the formats it reads, walked as it walks them) and plain texts.

    A file in a folder has the id of its path in that folder (``guide/intro.md``), as in an
    index; texts get ids ``text-1``, ``text-2``, .... A file that cannot be read, a folder that
    cannot be listed or holds no such file, and a JSONL line that fails raise an error naming
    it, since a verification against silently missing sources would be wrong.
    """
    documents: list[Document] = []
    for given in paths:
        path = Path(given)
        if not path.is_dir():
            files, root = [path], None
        else:
            found = find_files([path])
            if found.failures:
                raise found.failures[0]
            if not found.files:
                raise InputError(
                    f"{path}: the folder holds no file veracity reads (extensions "
                    f"{', '.join(sorted(LOADERS))}); give files or another folder"
                )
            files, root = list(found.files), path
        for file in files:
            loaded = load_file(file, root=root)
            if loaded.failures:
                raise loaded.failures[0]
            documents.extend(loaded.documents)
    for number, text in enumerate(texts, start=1):
        if not text.strip():
            raise InputError(f"source text {number} is empty: give the passage's text")
        documents.append(Document(id=f"text-{number}", text=text, title=f"text {number}"))
    return tuple(documents)


def source_chunks(
    documents: Sequence[Document], *, chunker: Chunker | None = None
) -> tuple[Chunk, ...]:
    """The passages of ``documents``, cut by the same chunker an index uses."""
    chunker = chunker or Chunker()
    return tuple(chunk for document in documents for chunk in chunker.run(document))


class EvidenceGatherer:
    """Finds the passages to check each claim against (see the module docstring).

    Give ``retriever`` (e.g. ``open_retriever(index)``) or ``sources`` (passages, e.g. from
    :func:`source_chunks`), or neither when every claim's citations are passed to :meth:`run`.
    """

    def __init__(
        self,
        *,
        retriever: Retriever | None = None,
        sources: Sequence[Chunk] = (),
        k: int = defaults.VERIFY_TOP_K,
        queries: QueryMaker | None = None,
    ) -> None:
        if retriever is not None and sources:
            raise OptionError(
                "sources",
                f"{len(sources)} passages",
                "either a retriever or source passages, not both",
                "Verify against an index or against source texts.",
            )
        self.k = check_k(k)
        self.sources = tuple(sources)
        self.queries = queries or QueryMaker()
        self.retriever: Retriever | None = retriever
        if retriever is None and len(self.sources) > self.k:
            self.retriever = MemoryBM25(self.sources)

    def run(
        self, claims: Sequence[Claim], *, cited: Mapping[int, Chunk] | None = None
    ) -> EvidenceSet:
        """Evidence for each claim. ``cited`` maps a citation number to the passage it names."""
        cited = cited or {}
        retriever = self.retriever
        items: list[ClaimEvidence | None] = []
        to_search: list[int] = []
        for position, claim in enumerate(claims):
            passages = _unique(cited[m] for m in claim.markers if m in cited)
            if passages:
                items.append(ClaimEvidence(claim, passages, (True,) * len(passages)))
            elif retriever is None:
                items.append(ClaimEvidence(claim, self.sources, (False,) * len(self.sources)))
            else:
                items.append(None)
                to_search.append(position)
        if retriever is not None and to_search:
            queries = self.queries.run([claims[i].text for i in to_search])
            for position, query in zip(to_search, queries, strict=True):
                hits = retriever.run(query, k=self.k).hits
                passages = tuple(hit.chunk for hit in hits)
                items[position] = ClaimEvidence(
                    claims[position], passages, (False,) * len(passages), query
                )
        done = tuple(item for item in items if item is not None)
        return EvidenceSet(done, self.queries.method, len(to_search))


def _unique(chunks: Iterable[Chunk]) -> tuple[Chunk, ...]:
    seen: dict[str, Chunk] = {}
    for chunk in chunks:
        seen.setdefault(chunk.id, chunk)
    return tuple(seen.values())
