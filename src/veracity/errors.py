"""One exception tree for veracity.

Every error says what went wrong, names the value or file, and says what to do::

    VeracityError
    ├── InputError                 bad input from the caller (fix the input)
    │   ├── DocumentError          a file or document cannot be ingested (carries ``path``)
    │   ├── OptionError            an option has a value outside its allowed choices or range
    │   └── ClaimTooLongError      a claim does not fit the verifier's window
    ├── IndexStoreError            an index folder is missing, corrupt or from another version
    │   ├── IndexNotFoundError
    │   └── IndexVersionError
    ├── ModelError                 a model cannot be found, loaded or run
    │   └── MissingDependencyError an optional extra is not installed (names the extra)
    └── GenerationError            a chat model failed or replied with something unparseable

Catch :class:`VeracityError` to handle all of them.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import Path
from typing import TypeVar

__all__ = [
    "ClaimTooLongError",
    "DocumentError",
    "GenerationError",
    "IndexNotFoundError",
    "IndexStoreError",
    "IndexVersionError",
    "InputError",
    "MissingDependencyError",
    "ModelError",
    "OptionError",
    "VeracityError",
    "check_choice",
]

Choice = TypeVar("Choice", bound=str)


class VeracityError(Exception):
    """Base of every error veracity raises on purpose."""


class InputError(VeracityError):
    """The caller gave input that cannot be used as it is."""


class DocumentError(InputError):
    """A file or document cannot be ingested.

    ``path`` names the file (or the JSONL line, as ``file.jsonl:12``), ``reason`` is a short
    machine-readable code such as ``"empty"`` or ``"binary"`` and ``detail`` the message
    without the path.
    """

    def __init__(self, path: str | Path, reason: str, message: str) -> None:
        self.path = str(path)
        self.reason = reason
        self.detail = message
        super().__init__(f"{self.path}: {message}")


class OptionError(InputError):
    """An option has a value outside its allowed choices or range."""

    def __init__(self, name: str, value: object, allowed: str, fix: str = "") -> None:
        self.name = name
        self.value = value
        self.allowed = allowed
        self.fix = fix
        super().__init__(self.message())

    def message(self, names: dict[str, str] | None = None) -> str:
        """The message, with option names spelt as ``names`` says (the CLI's flags: a
        ``size=160`` in the text reads ``--chunk-tokens 160`` to a user of ``veracity index``).

        >>> error = OptionError("size", 0, "at least 16", "Use e.g. size=160.")
        >>> error.message({"size": "--chunk-tokens"})
        '--chunk-tokens 0 is not allowed: at least 16. Use e.g. --chunk-tokens 160.'

        A quoted value that the shell reads as it is loses its quotes on the command line:
        ``layers='nli,knowledge'`` reads ``--layers nli,knowledge``. A value of ``None`` is a
        missing one:

        >>> OptionError("model", None, "the name of a served model").message({"model": "--model"})
        '--model is needed: the name of a served model.'
        """
        names = names or {}

        def spelt(text: str) -> str:
            for name, flag in names.items():

                def spell(match: re.Match[str], flag: str = flag) -> str:
                    return f"{flag} {match.group(2) or ''}"

                text = re.sub(
                    rf"(?<![\w.]){re.escape(name)}=(?:(['\"])([\w.,:/@+-]+)\1)?", spell, text
                )
            return text

        if self.value is None:
            text = f"{names.get(self.name, self.name)} is needed: {spelt(self.allowed)}."
        else:
            shown = (
                f"{names[self.name]} {self.value!r}"
                if self.name in names
                else f"{self.name}={self.value!r}"
            )
            text = f"{shown} is not allowed: {spelt(self.allowed)}."
        if self.fix:
            text += f" {spelt(self.fix)}"
        return text


def check_choice(name: str, value: str, choices: Sequence[Choice], fix: str = "") -> Choice:
    """``value`` as the one of ``choices`` it equals, else an :class:`OptionError` naming them.

    ``choices`` is a registry's tuple (``typing.get_args`` of a ``Literal``), so a ``str`` read
    from a command line or a file comes back typed as that ``Literal``.

    >>> check_choice("window", "claim", ("claim", "passage"))
    'claim'
    >>> check_choice("window", "page", ("claim", "passage"))
    Traceback (most recent call last):
    ...
    veracity.errors.OptionError: window='page' is not allowed: one of claim, passage.
    """
    for choice in choices:
        if value == choice:
            return choice
    raise OptionError(name, value, f"one of {', '.join(choices)}", fix)


class ClaimTooLongError(InputError):
    """A claim alone does not fit the verifier's window; it is never truncated silently.

    ``tokens`` is the claim's length and ``budget`` the most the verifier reads of a claim.
    """

    def __init__(self, message: str, *, tokens: int = 0, budget: int = 0) -> None:
        self.tokens = tokens
        self.budget = budget
        super().__init__(message)


class IndexStoreError(VeracityError):
    """An index folder cannot be opened or written."""


class IndexNotFoundError(IndexStoreError):
    """There is no index at the given folder."""


class IndexVersionError(IndexStoreError):
    """The index was written by an incompatible version of veracity."""


class ModelError(VeracityError):
    """A model cannot be found, loaded or run."""


class MissingDependencyError(ModelError):
    """An optional dependency is not installed; the message names the extra to install."""

    def __init__(self, package: str, extra: str, purpose: str, *, install: str = "") -> None:
        self.package = package
        self.extra = extra
        # ``install``: the command, where it is not pip install 'veracity[extra]' (training's).
        command = install or f"pip install 'veracity[{extra}]'"
        super().__init__(
            f"{purpose} needs the package {package!r}, which is not installed. "
            f"Install it with: {command}"
        )


class GenerationError(VeracityError):
    """A chat model failed, or its reply could not be parsed."""
