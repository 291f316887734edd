"""Moved to :mod:`veracity.llm.registry` (the chat registry); this old name goes in the next
release. ``CHAT_BACKENDS`` and ``make_chat`` are the new module's own objects, and importing
this module warns (``DeprecationWarning``) with the new name. ``veracity.generate`` itself still
exports both, without a warning.
"""

from veracity._moved import warn_moved
from veracity.llm import registry as _new
from veracity.llm.registry import CHAT_BACKENDS, make_chat

__all__ = ["CHAT_BACKENDS", "make_chat"]

warn_moved(__name__, _new.__name__)
