"""Moved to :mod:`veracity.checkers` (pair checkers); this old name goes in the next release.

``import veracity.verifiers``, ``from veracity.verifiers import make_verifier`` and
``from veracity.verifiers.<module> import <name>`` (every module the room had: ``base``,
``combiner``, ``embedded``, ``features``, ``hf``, ``judge``, ``registry``, ``remote_code``,
``scoring``, ``seq2seq``, ``similarity``, ``spans``, ``windowed``, ``windows``) still work and
give the objects of ``veracity.checkers``, each with a ``DeprecationWarning`` that names the new
module. Nothing in veracity imports this package (``tests/test_layout.py`` checks).
"""

import importlib

import veracity.checkers as _new
from veracity._moved import warn_moved
from veracity.checkers import PairScorer, check_pairs, make_verifier

__all__ = ["PairScorer", "check_pairs", "make_verifier"]

#: The modules of the old room, each now the module of the same name in ``veracity.checkers``.
_MODULES = (
    "base",
    "combiner",
    "embedded",
    "features",
    "hf",
    "judge",
    "registry",
    "remote_code",
    "scoring",
    "seq2seq",
    "similarity",
    "spans",
    "windowed",
    "windows",
)

warn_moved(__name__, _new.__name__)


def __getattr__(name: str) -> object:
    # ``veracity.verifiers.base`` read as an attribute, as after the old package's own imports
    if name in _MODULES:
        return importlib.import_module(f"{__name__}.{name}")
    return getattr(_new, name)
