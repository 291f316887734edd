"""What every config shares: a frozen dataclass that checks itself, saved as plain JSON.

A config is data: its fields are numbers, strings, tuples of strings and other configs. Its
``to_dict()`` is what a report, an answer or a batch record carries as ``config``; ``from_dict()``
reads it back, refusing a key it does not know (a typo would otherwise be dropped silently) and a
``format`` newer than this version of veracity writes.

>>> from dataclasses import dataclass
>>> @dataclass(frozen=True)
... class Part(Config):
...     k: int = 5
>>> Part.from_dict({"k": 3})
Part(k=3)
>>> Part.from_dict({"kk": 3})
Traceback (most recent call last):
...
veracity.errors.InputError: config: unknown key 'kk' in part; known: k. Remove it, or save the \
config again with this version of veracity.
"""

from __future__ import annotations

import dataclasses
import os
import re
from collections.abc import Mapping
from typing import Any, ClassVar, Self, get_type_hints

from veracity.errors import InputError, OptionError

__all__ = ["FORMAT", "Config", "PipelineConfig", "check_range"]

#: The version of the saved form; ``from_dict`` reads this version and older ones.
FORMAT = 1


def _section(cls: type) -> str:
    """``EvidenceConfig`` -> ``evidence``: the name a part has in messages."""
    name = cls.__name__.removesuffix("Config")
    return re.sub(r"(?<!^)(?=[A-Z])", "_", name).lower()


class Config:
    """A frozen dataclass of options (subclasses are ``@dataclass(frozen=True)``)."""

    def to_dict(self) -> dict[str, Any]:
        """The fields by name, nested configs as objects and tuples as lists (JSON-ready)."""
        out: dict[str, Any] = {}
        for item in dataclasses.fields(self):  # type: ignore[arg-type]
            value = getattr(self, item.name)
            if isinstance(value, Config):
                value = value.to_dict()
            elif isinstance(value, tuple):
                value = list(value)
            out[item.name] = value
        return out

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Self:
        """The config :meth:`to_dict` wrote; a key left out takes its default."""
        if not isinstance(data, Mapping):
            raise InputError(f"config: {_section(cls)} must be an object, not {data!r}")
        hints = get_type_hints(cls)
        names = [item.name for item in dataclasses.fields(cls)]  # type: ignore[arg-type]
        values: dict[str, Any] = {}
        for key, value in data.items():
            if key not in names:
                raise InputError(
                    f"config: unknown key {key!r} in {_section(cls)}; known: {', '.join(names)}. "
                    "Remove it, or save the config again with this version of veracity."
                )
            hint = hints[key]
            if isinstance(hint, type) and issubclass(hint, Config):
                value = hint.from_dict(value)
            elif isinstance(value, list):
                value = tuple(value)
            values[key] = value
        return cls(**values)

    def replace(self, **changes: Any) -> Self:
        """A copy with ``changes`` (checked again, as a new config is)."""
        return dataclasses.replace(self, **changes)  # type: ignore[type-var]


class PipelineConfig(Config):
    """The one config of a pipeline; its saved form names the pipeline and the format.

    ``pipeline`` is the command that runs it (``verify``, ``repair`` ...)."""

    pipeline: ClassVar[str] = ""
    #: The flat option names users give (the CLI's flags, the service's request fields) and
    #: where each sits in the config: ``"k": "evidence.k"``.
    options: ClassVar[Mapping[str, str]] = {}

    def with_options(self, **options: Any) -> Self:
        """A copy with the flat ``options`` set where :attr:`options` says, checked as a new
        config is (a file path may be given as a ``Path``; it is saved as text).

        >>> from veracity.config import VerifyConfig
        >>> VerifyConfig().with_options(k=3, layers="nli").evidence.k
        3
        """
        data = self.to_dict()
        for name, value in options.items():
            if name not in self.options:
                raise OptionError(
                    name, value, f"an option of {self.pipeline}: {', '.join(self.options)}"
                )
            *sections, key = self.options[name].split(".")
            place = data
            for section in sections:
                place = place[section]
            place[key] = _plain(value)
        return type(self).from_dict(data)

    def to_dict(self) -> dict[str, Any]:
        return {"format": FORMAT, "pipeline": self.pipeline} | super().to_dict()

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Self:
        """The config :meth:`to_dict` wrote: ``format`` no newer than :data:`FORMAT`, and
        ``pipeline`` this one's (a report's config cannot build a repairer by mistake)."""
        if not isinstance(data, Mapping):
            raise InputError(f"config: must be an object, not {data!r}")
        rest = dict(data)
        version = rest.pop("format", FORMAT)
        if not isinstance(version, int) or isinstance(version, bool) or version < 1:
            raise InputError(f"config: format {version!r} is not a version number (1 to {FORMAT})")
        if version > FORMAT:
            raise InputError(
                f"config: format {version} is newer than this veracity reads ({FORMAT}); "
                "upgrade veracity to read it"
            )
        pipeline = rest.pop("pipeline", cls.pipeline)
        if pipeline != cls.pipeline:
            raise InputError(
                f"config: this is a {pipeline} config, not a {cls.pipeline} one; "
                f"give the output of `veracity {cls.pipeline}` (or its config)"
            )
        return super().from_dict(rest)


def _plain(value: Any) -> Any:
    """``value`` as a config holds it: paths as text, sequences of paths as tuples of text."""
    if isinstance(value, os.PathLike):
        return os.fspath(value)
    if isinstance(value, list | tuple):
        return tuple(_plain(item) for item in value)
    return value


def check_range(
    name: str, value: float, low: float, high: float | None = None, fix: str = ""
) -> None:
    """An :class:`OptionError` unless ``low <= value`` (and ``value <= high``)."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise OptionError(name, value, "a number", fix)
    if value < low or (high is not None and value > high):
        allowed = f"at least {low}" if high is None else f"from {low} to {high}"
        raise OptionError(name, value, allowed, fix)
