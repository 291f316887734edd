"""Old names of moved modules and classes: the warning they give until the next release.

Each old home (``veracity.verifiers``, ``veracity.generate.chat``, ``ExtractiveChat``) calls
:func:`warn_moved` once, when it is imported or read, and hands out the very objects of the new
one, so code written against the old name keeps working and is told where to go.

>>> import warnings
>>> with warnings.catch_warnings(record=True) as caught:
...     warnings.simplefilter("always")
...     warn_moved("old.place", "new.place")
>>> print(caught[0].message)
old.place has moved to new.place; import it from there (old.place goes in the next release)
"""

from __future__ import annotations

import warnings
from collections.abc import Callable
from types import ModuleType

__all__ = ["forward", "warn_moved"]


def warn_moved(old: str, new: str, *, stacklevel: int = 3) -> None:
    """Warn (``DeprecationWarning``) that ``old`` is now ``new``.

    ``stacklevel=3`` points at the line that imported or read the old name: one frame for this
    function, one for the module or ``__getattr__`` that calls it (import machinery is skipped).
    """
    warnings.warn(
        f"{old} has moved to {new}; import it from there ({old} goes in the next release)",
        DeprecationWarning,
        stacklevel=stacklevel,
    )


def forward(new: ModuleType) -> Callable[[str], object]:
    """A module ``__getattr__`` that reads every other name from ``new``: the same objects."""

    def attribute(name: str) -> object:
        return getattr(new, name)

    return attribute
