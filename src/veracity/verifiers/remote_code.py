"""Moved to :mod:`veracity.checkers.remote_code`; this old name goes in the next release."""

from veracity._moved import forward, warn_moved
from veracity.checkers import remote_code as _new
from veracity.checkers.remote_code import *  # noqa: F403

warn_moved(__name__, _new.__name__)
__getattr__ = forward(_new)
