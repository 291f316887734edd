"""Number the retrieved passages as the context blocks a grounded prompt shows the model.

Block ``n`` is ``hits[n - 1]``, written ``[n] (title — section > subsection, page p) text``;
the title falls back to the document id, and the section and page are left out when unknown.

>>> from veracity.types import Chunk, Hit
>>> chunk = Chunk("d#0", "d.md", 0, "Bees dance.", 0, 11, title="Bees", section=("Dance",))
>>> format_block(1, chunk)
'[1] (Bees — Dance) Bees dance.'
"""

from __future__ import annotations

from collections.abc import Sequence

from veracity.types import Chunk, Hit

__all__ = ["format_block", "format_context"]


def format_block(number: int, chunk: Chunk) -> str:
    """One context block: its number, where it comes from, and the chunk's text."""
    where = [chunk.title or chunk.doc_id]
    detail = " > ".join(chunk.section)
    if chunk.page is not None:
        pages = (
            str(chunk.page)
            if chunk.page_end in (None, chunk.page)
            else f"{chunk.page}-{chunk.page_end}"
        )
        detail = f"{detail}, page {pages}" if detail else f"page {pages}"
    if detail:
        where.append(detail)
    return f"[{number}] ({' — '.join(where)}) {chunk.text.strip()}"


def format_context(hits: Sequence[Hit]) -> str:
    """Every hit as a numbered block, from 1, separated by blank lines."""
    return "\n\n".join(format_block(n, hit.chunk) for n, hit in enumerate(hits, start=1))
