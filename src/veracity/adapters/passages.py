"""Framework documents <-> veracity passages, shared by every adapter.

A framework document is its text, its metadata and perhaps an id. One that veracity retrieved
carries its passage's provenance in its metadata (:func:`passage_metadata`) and comes back as
that exact passage (:func:`passages`), so citations keep their character spans in the original
document. Any other document is a source text of its own, named by its id, its ``source`` or
``file_path`` metadata, or its position (``document-1``), and is cut into passages as an index
would cut it.

>>> chunk = passages([Foreign("Bees dance.", {}, None)])[0]
>>> chunk.doc_id, chunk.text, (chunk.start, chunk.end)
('document-1', 'Bees dance.', (0, 11))
>>> again = passages([Foreign(chunk.text, passage_metadata(chunk), None)])[0]
>>> again == chunk
True
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from veracity.errors import InputError
from veracity.types import Chunk, Document
from veracity.verify.gather import source_chunks

__all__ = ["PROVENANCE", "Foreign", "passage_metadata", "passages"]

#: The metadata key under which a passage's provenance travels through a framework.
PROVENANCE = "veracity"


@dataclass(frozen=True)
class Foreign:
    """A framework's document reduced to what veracity reads: text, metadata and id."""

    text: str
    metadata: Mapping[str, Any]
    id: str | None


def passage_metadata(chunk: Chunk) -> dict[str, Any]:
    """Metadata for a framework document made from ``chunk``: readable keys at the top level
    (``doc_id``, ``title``, ``section``, ``page``, ``start``, ``end``) and the whole passage
    under :data:`PROVENANCE`, so that it can be rebuilt exactly."""
    return {
        "doc_id": chunk.doc_id,
        "title": chunk.title,
        "section": list(chunk.section),
        "page": chunk.page,
        "start": chunk.start,
        "end": chunk.end,
        PROVENANCE: {
            "chunk_id": chunk.id,
            "doc_id": chunk.doc_id,
            "index": chunk.index,
            "start": chunk.start,
            "end": chunk.end,
            "title": chunk.title,
            "section": list(chunk.section),
            "page": chunk.page,
            "page_end": chunk.page_end,
        },
    }


def passages(documents: Sequence[Foreign]) -> tuple[Chunk, ...]:
    """The passages of framework documents (see the module docstring)."""
    if not documents:
        raise InputError("no documents given: pass the documents the answer should stand on")
    chunks: list[Chunk] = []
    texts: list[Document] = []
    for number, document in enumerate(documents, start=1):
        if not isinstance(document.text, str) or not document.text.strip():
            raise InputError(f"document {number} has no text: give each document its content")
        known = document.metadata.get(PROVENANCE)
        if isinstance(known, Mapping):
            chunks.append(_chunk(document.text, known, number))
            continue
        name = (
            document.id
            or document.metadata.get("source")
            or document.metadata.get("file_path")
            or f"document-{number}"
        )
        texts.append(
            Document(
                id=str(name), text=document.text, title=str(document.metadata.get("title") or name)
            )
        )
    return (*chunks, *source_chunks(texts))


def _chunk(text: str, known: Mapping[str, Any], number: int) -> Chunk:
    try:
        start, end = int(known["start"]), int(known["end"])
        if end - start != len(text):
            raise ValueError(f"its span [{start}:{end}] does not fit its {len(text)} characters")
        return Chunk(
            id=str(known["chunk_id"]),
            doc_id=str(known["doc_id"]),
            index=int(known["index"]),
            text=text,
            start=start,
            end=end,
            title=str(known.get("title") or ""),
            section=tuple(str(part) for part in known.get("section") or ()),
            page=known.get("page"),
            page_end=known.get("page_end"),
        )
    except (KeyError, TypeError, ValueError) as error:
        raise InputError(
            f"document {number}'s '{PROVENANCE}' metadata is not a veracity "
            f"passage ({error}): drop that key, or keep the document as "
            f"veracity returned it"
        ) from error
