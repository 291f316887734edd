"""A fingerprint of what an index holds, for telling whether a re-index changed anything.

Every re-index writes a new generation, even when no file changed ("0 indexed, 42 unchanged"),
so the generation's name cannot say whether something made on the index (an abstention
calibration) still fits it. The fingerprint hashes what search reads: every chunk's id, place
and text (in id order, so the order files were read in does not matter), the chunker's settings
and the builders' settings (without their run counters). Equal fingerprints: same content.

>>> from veracity.types import Chunk
>>> chunk = Chunk(id="a.txt#0", doc_id="a.txt", index=0, text="Bees dance.", start=0, end=11)
>>> content_fingerprint([chunk], {"size": 160}) == content_fingerprint([chunk], {"size": 160})
True
>>> content_fingerprint([chunk], {"size": 160}) == content_fingerprint([chunk], {"size": 80})
False
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Mapping

from veracity.types import Chunk

__all__ = ["RUN_COUNTERS", "content_fingerprint"]

#: Builder fields that count what one run did rather than how it searches.
RUN_COUNTERS = frozenset({"count", "embedded", "reused", "truncated", "terms", "seconds"})


def content_fingerprint(
    chunks: Iterable[Chunk],
    chunker: Mapping[str, object],
    builders: Mapping[str, Mapping[str, object]] | None = None,
) -> str:
    """``sha256:<hex>`` of the chunks (id, document, title, section, pages, span, text), the
    chunker settings and the builder settings."""
    rows = sorted(
        (
            chunk.id,
            chunk.doc_id,
            chunk.title,
            list(chunk.section),
            chunk.page,
            chunk.page_end,
            chunk.start,
            chunk.end,
            hashlib.sha256(chunk.text.encode("utf-8")).hexdigest(),
        )
        for chunk in chunks
    )
    settings = {
        name: {key: value for key, value in sorted(result.items()) if key not in RUN_COUNTERS}
        for name, result in sorted((builders or {}).items())
    }
    digest = hashlib.sha256()
    digest.update(json.dumps([dict(chunker), settings], sort_keys=True, default=str).encode())
    for row in rows:
        digest.update(json.dumps(row, ensure_ascii=False).encode("utf-8"))
    return f"sha256:{digest.hexdigest()}"
