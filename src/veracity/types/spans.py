"""Character spans into a named string, and their JSON form.

A :class:`Span` is ``start`` (inclusive) to ``end`` (exclusive) of a string its holder names;
``to_dict()`` writes it ``[start, end]``. The helpers below write and read that form for the
other modules of :mod:`veracity.types`.
"""

from __future__ import annotations

from dataclasses import dataclass

from veracity._json import Fields
from veracity.errors import InputError

__all__ = ["Span"]


@dataclass(frozen=True, slots=True)
class Span:
    """Characters ``start`` (inclusive) to ``end`` (exclusive) of a named string."""

    start: int
    end: int

    def __post_init__(self) -> None:
        if not 0 <= self.start <= self.end:
            raise ValueError(f"invalid span [{self.start}, {self.end}): need 0 <= start <= end")

    def of(self, text: str) -> str:
        """The characters of ``text`` this span covers."""
        return text[self.start : self.end]

    def __len__(self) -> int:
        return self.end - self.start


def _pair(span: Span | None) -> list[int] | None:
    """``span`` as JSON: ``[start, end]`` (``None`` stays ``None``)."""
    return None if span is None else [span.start, span.end]


def _span(fields: Fields, key: str) -> Span:
    start, end = fields.pair(key)
    try:
        return Span(start, end)
    except ValueError as exc:
        raise InputError(f"{fields.path}.{key}: {exc}") from None


def _optional_span(fields: Fields, key: str) -> Span | None:
    return None if fields.value(key) is None else _span(fields, key)


def _spans(fields: Fields, key: str) -> tuple[Span, ...]:
    spans = []
    for i, (start, end) in enumerate(fields.pairs(key)):
        try:
            spans.append(Span(start, end))
        except ValueError as exc:
            raise InputError(f"{fields.path}.{key}[{i}]: {exc}") from None
    return tuple(spans)
