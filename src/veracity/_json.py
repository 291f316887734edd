"""Strict JSON text of results: a non-finite number is written ``null``, never ``NaN``.

The scores of a pair that could not be scored are ``nan`` (its ``error`` says why); most JSON
readers reject ``NaN`` and a reader that accepts it would take it for a score. The CLI, the
service and the batch output all write JSON through :func:`strict_json`. :class:`Fields` reads
such values back, checking each field's JSON type (the ``from_dict`` of the result types).
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping, Sequence
from typing import Any, TypeVar

from veracity.errors import InputError

__all__ = ["Fields", "finite", "strict_json"]

Choice = TypeVar("Choice", bound=str)


def strict_json(payload: Any, *, indent: int | None = None) -> str:
    """``payload`` as strict JSON text, a non-finite number written ``null``.

    >>> strict_json({"supported": float("nan"), "text": "[bold]"})
    '{"supported": null, "text": "[bold]"}'
    """
    return json.dumps(finite(payload), indent=indent, ensure_ascii=False, allow_nan=False)


def finite(value: Any) -> Any:
    """``value`` with every NaN or infinite float replaced by ``None``.

    >>> finite({"supported": float("nan"), "scores": [0.5, float("inf")]})
    {'supported': None, 'scores': [0.5, None]}
    """
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, dict):
        return {key: finite(item) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [finite(item) for item in value]
    return value


class Fields:
    """The fields of one JSON object, each read as its expected type, or an :class:`InputError`
    that names the field by its path (``answer.sentences[2].span``).

    >>> Fields({"k": 5}, "options").integer("k")
    5
    >>> Fields({"k": "5"}, "options").integer("k")
    Traceback (most recent call last):
    ...
    veracity.errors.InputError: options.k: expected an integer, got '5'
    >>> Fields({}, "options").text("mode")
    Traceback (most recent call last):
    ...
    veracity.errors.InputError: options: missing key 'mode'
    """

    def __init__(self, data: object, path: str) -> None:
        if not isinstance(data, Mapping):
            raise InputError(f"{path}: expected an object, got {_shown(data)}")
        self.data: Mapping[str, Any] = data
        self.path = path

    def has(self, key: str) -> bool:
        return key in self.data

    def value(self, key: str) -> Any:
        if key not in self.data:
            raise InputError(f"{self.path}: missing key {key!r}")
        return self.data[key]

    def _at(self, key: str) -> str:
        return f"{self.path}.{key}"

    def text(self, key: str) -> str:
        return _text(self.value(key), self._at(key))

    def optional_text(self, key: str) -> str | None:
        return None if self.value(key) is None else self.text(key)

    def integer(self, key: str) -> int:
        return _integer(self.value(key), self._at(key))

    def optional_integer(self, key: str) -> int | None:
        return None if self.value(key) is None else self.integer(key)

    def number(self, key: str, *, null_is_nan: bool = False) -> float:
        """A number; with ``null_is_nan``, ``null`` reads as ``nan`` (how :func:`strict_json`
        writes the scores of a pair that could not be scored)."""
        value = self.value(key)
        if value is None and null_is_nan:
            return math.nan
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise _expected(self._at(key), "a number", value)
        return value

    def optional_number(self, key: str) -> float | None:
        return None if self.value(key) is None else self.number(key)

    def boolean(self, key: str) -> bool:
        value = self.value(key)
        if not isinstance(value, bool):
            raise _expected(self._at(key), "true or false", value)
        return value

    def choice(self, key: str, choices: Sequence[Choice]) -> Choice:
        value = self.value(key)
        for choice in choices:
            if value == choice:
                return choice
        raise _expected(self._at(key), f"one of {', '.join(choices)}", value)

    def items(self, key: str) -> list[Any]:
        value = self.value(key)
        if not isinstance(value, list | tuple):
            raise _expected(self._at(key), "a list", value)
        return list(value)

    def texts(self, key: str) -> tuple[str, ...]:
        return tuple(_text(item, f"{self._at(key)}[{i}]") for i, item in enumerate(self.items(key)))

    def integers(self, key: str) -> tuple[int, ...]:
        return tuple(
            _integer(item, f"{self._at(key)}[{i}]") for i, item in enumerate(self.items(key))
        )

    def pair(self, key: str) -> tuple[int, int]:
        """``[start, end]``: two integers."""
        return _pair(self.value(key), self._at(key))

    def pairs(self, key: str) -> tuple[tuple[int, int], ...]:
        return tuple(_pair(item, f"{self._at(key)}[{i}]") for i, item in enumerate(self.items(key)))

    def child(self, key: str) -> Fields:
        return Fields(self.value(key), self._at(key))

    def children(self, key: str) -> list[Fields]:
        return [Fields(item, f"{self._at(key)}[{i}]") for i, item in enumerate(self.items(key))]

    def numbers_by_name(self, key: str) -> dict[str, float]:
        found = self.child(key)
        return {name: found.number(name) for name in found.data}

    def integers_by_name(self, key: str) -> dict[str, int]:
        found = self.child(key)
        return {name: found.integer(name) for name in found.data}


def _text(value: object, path: str) -> str:
    if not isinstance(value, str):
        raise _expected(path, "a string", value)
    return value


def _integer(value: object, path: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise _expected(path, "an integer", value)
    return value


def _pair(value: object, path: str) -> tuple[int, int]:
    if not isinstance(value, list | tuple) or len(value) != 2:
        raise _expected(path, "[start, end]", value)
    return _integer(value[0], f"{path}[0]"), _integer(value[1], f"{path}[1]")


def _expected(path: str, expected: str, value: object) -> InputError:
    return InputError(f"{path}: expected {expected}, got {_shown(value)}")


def _shown(value: object) -> str:
    """``value`` for an error message: its repr, cut short."""
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."
