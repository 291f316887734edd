"""JSONL: one document per line, ``{"id": ..., "text": ..., "title": ..., "metadata": {...}}``.

``id`` and ``text`` are required strings; ``title`` is an optional string and ``metadata`` an
optional flat object of strings, numbers, booleans and nulls. A bad line becomes a failure
named ``file.jsonl:LINE`` and the other lines are still read. Blank lines are ignored.
"""

from __future__ import annotations

import json
from collections.abc import Mapping

from veracity.corpus._common import LoadResult, Source, decode_text
from veracity.errors import DocumentError
from veracity.types import Document, MetadataValue

__all__ = ["load_jsonl"]

_EXAMPLE = '{"id": "doc-1", "text": "..."}'


class _BadLineError(Exception):
    """Why one line cannot become a document (turned into a ``DocumentError`` by the caller)."""


def _string(record: Mapping[str, object], field: str, *, required: bool) -> str:
    if field not in record:
        if required:
            raise _BadLineError(f"has no {field!r} field; each line needs one, like {_EXAMPLE}")
        return ""
    value = record[field]
    if not isinstance(value, str):
        raise _BadLineError(
            f"field {field!r} must be a string, not {type(value).__name__} ({value!r:.40})"
        )
    if required and not value.strip():
        raise _BadLineError(f"field {field!r} is empty; give it a non-empty string")
    return value


def _metadata(record: Mapping[str, object]) -> dict[str, MetadataValue]:
    value = record.get("metadata")
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise _BadLineError(f"field 'metadata' must be an object, not {type(value).__name__}")
    flat: dict[str, MetadataValue] = {}
    for key, item in value.items():
        if item is not None and not isinstance(item, str | int | float | bool):
            raise _BadLineError(
                f"metadata key {key!r} holds a {type(item).__name__}; metadata must be flat "
                "(strings, numbers, booleans or null), so flatten or JSON-encode it"
            )
        flat[key] = item
    return flat


def _document(line: str, source: Source, number: int) -> Document:
    try:
        record = json.loads(line)
    except json.JSONDecodeError as exc:
        raise _BadLineError(
            f"is not valid JSON ({exc.msg} at column {exc.colno}); each line must be one JSON "
            f"object, like {_EXAMPLE}"
        ) from exc
    if not isinstance(record, dict):
        raise _BadLineError(
            f"is a JSON {type(record).__name__}, not an object; each line must look like {_EXAMPLE}"
        )
    doc_id = _string(record, "id", required=True)
    text = _string(record, "text", required=True)
    return Document(
        id=doc_id,
        text=text,
        title=_string(record, "title", required=False) or doc_id,
        source=f"{source.path}:{number}",
        metadata=_metadata(record),
    )


def load_jsonl(source: Source) -> LoadResult:
    text = decode_text(source.path, source.data)
    documents: list[Document] = []
    failures: list[DocumentError] = []
    first_line: dict[str, int] = {}
    lines = 0
    for number, line in enumerate(text.split("\n"), start=1):
        if not line.strip():
            continue
        lines += 1
        where = f"{source.path}:{number}"
        try:
            document = _document(line, source, number)
        except _BadLineError as exc:
            failures.append(DocumentError(where, "bad_line", f"line {number} {exc}"))
            continue
        if document.id in first_line:
            failures.append(
                DocumentError(
                    where,
                    "duplicate_id",
                    f"id {document.id!r} on line {number} was already used on line "
                    f"{first_line[document.id]}; give every line a unique id",
                )
            )
            continue
        first_line[document.id] = number
        documents.append(document)
    if not lines:
        raise DocumentError(
            source.path, "empty", "has no lines; add one JSON object per line, like " + _EXAMPLE
        )
    return LoadResult(tuple(documents), tuple(failures))
