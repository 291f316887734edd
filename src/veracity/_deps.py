"""Lazy imports of optional dependencies, with an error that names the extra to install."""

from __future__ import annotations

import importlib
from types import ModuleType

from veracity.errors import MissingDependencyError


def require(module: str, *, extra: str, purpose: str) -> ModuleType:
    """Import ``module`` or raise :class:`MissingDependencyError` naming ``extra``."""
    try:
        return importlib.import_module(module)
    except ImportError as exc:
        raise MissingDependencyError(module.split(".")[0], extra, purpose) from exc


#: How to install the training package (``training/`` in the repository: the trainers, data
#: builders and release tools, and the commands ``veracity train-verifier`` and its kin).
TRAINING_INSTALL = "pip install -e training (from the repository root; `make install` does it)"
