"""What every loader shares: its input, its result, and text decoding with clear errors."""

from __future__ import annotations

import codecs
import re
from dataclasses import dataclass
from pathlib import Path

from veracity.errors import DocumentError
from veracity.types import Document

__all__ = ["LoadResult", "Source", "decode_text", "require_text"]

# C0 control characters other than tab, newlines, vertical tab and form feed, plus DEL.
_CONTROL = re.compile(r"[\x00-\x08\x0e-\x1f\x7f]")
_CONTROL_BYTES = re.compile(rb"[\x00-\x08\x0e-\x1f\x7f]")
_SAMPLE = 8192
#: Share of control characters above which decoded text counts as binary.
_BINARY_SHARE = 0.1
#: Share of control bytes above which bytes that are not valid text count as binary; lower,
#: since text in a legacy encoding (Latin-1, cp1251) has almost none, random bytes about 12%.
_BINARY_BYTES_SHARE = 0.05


@dataclass(frozen=True)
class Source:
    """The bytes of one file, with the document id that path-named formats give it."""

    path: Path
    data: bytes
    doc_id: str


@dataclass(frozen=True)
class LoadResult:
    """Documents read from one file, and the parts of it (JSONL lines) that failed.

    A failure of the whole file raises :class:`~veracity.errors.DocumentError` instead; here
    ``failures`` only holds per-line errors, so one bad line never loses the others.
    """

    documents: tuple[Document, ...]
    failures: tuple[DocumentError, ...] = ()


def _binary(path: Path, why: str) -> DocumentError:
    return DocumentError(
        path,
        "binary",
        f"looks like a binary file ({why}), not text; convert it to plain text, Markdown, "
        "HTML or PDF first, or leave it out of the paths you index",
    )


def _mostly_control(text: str) -> bool:
    sample = text[:_SAMPLE]
    return bool(sample) and len(_CONTROL.findall(sample)) / len(sample) > _BINARY_SHARE


def _control_bytes(data: bytes) -> bool:
    sample = data[:_SAMPLE]
    return bool(sample) and len(_CONTROL_BYTES.findall(sample)) / len(sample) > _BINARY_BYTES_SHARE


def decode_text(path: Path, data: bytes) -> str:
    """``data`` decoded as UTF-8 (BOM removed) or as UTF-16 with a BOM.

    Raises ``DocumentError`` with reason ``binary`` for NUL bytes or mostly control
    characters, and ``undecodable`` for text in another encoding.
    """
    if data.startswith(codecs.BOM_UTF8):
        encoding, body = "utf-8", data[len(codecs.BOM_UTF8) :]
    elif data.startswith(codecs.BOM_UTF16_LE):
        encoding, body = "utf-16-le", data[2:]
    elif data.startswith(codecs.BOM_UTF16_BE):
        encoding, body = "utf-16-be", data[2:]
    else:
        encoding, body = "utf-8", data
        if b"\x00" in body:
            raise _binary(path, f"it contains a NUL byte at offset {body.index(0)}")
    try:
        text = body.decode(encoding)
    except UnicodeDecodeError as exc:
        if _control_bytes(body):
            raise _binary(path, "most of its bytes are not text") from exc
        bad = body[exc.start]
        raise DocumentError(
            path,
            "undecodable",
            f"is not valid {encoding.upper()} text (byte 0x{bad:02x} at offset {exc.start}); "
            "re-save it as UTF-8, for example with "
            f"`iconv -f LATIN1 -t UTF-8 '{path}' > converted{path.suffix}`",
        ) from exc
    if "\x00" in text:
        raise _binary(path, "it contains NUL characters")
    if _mostly_control(text):
        raise _binary(path, "most of its characters are control characters")
    return text


def require_text(path: Path | str, text: str) -> None:
    """Raise ``DocumentError`` (reason ``empty``) when ``text`` is only whitespace."""
    if not text.strip():
        raise DocumentError(
            path,
            "empty",
            "has no text (it is empty or only whitespace); add content or leave it out",
        )
