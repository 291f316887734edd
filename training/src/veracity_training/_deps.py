"""Lazy imports of the training package's heavy dependencies (torch, transformers, ...).

They are dependencies of the package itself, so a missing one means an install without its
dependencies; the error says how to install the package again.
"""

from __future__ import annotations

import importlib
from types import ModuleType

from veracity._deps import TRAINING_INSTALL
from veracity.errors import MissingDependencyError

__all__ = ["require"]


def require(module: str, *, purpose: str) -> ModuleType:
    """Import ``module`` or raise :class:`MissingDependencyError` that says how to install the
    package again.

    >>> require("json", purpose="reading a card").__name__
    'json'
    """
    try:
        return importlib.import_module(module)
    except ImportError as exc:
        raise MissingDependencyError(
            module.split(".")[0], "training", purpose, install=TRAINING_INSTALL
        ) from exc
