"""Where the shared data lives: the folder that ``$VERACITY_DATA`` names.

``VERACITY_DATA`` names the evaluation data folder (``shared/data``: ``wice/``, ``clapnq/``,
``trec_dl19/``, ...). The training data (``nlidata``) and the published figures (``anchors``)
are its siblings. Unset, it is ``../shared/data`` beside the repository checkout, where the
project keeps them; an empty value counts as unset.

>>> data_root({"VERACITY_DATA": "/data/eval"}).as_posix()
'/data/eval'
>>> nli_root({"VERACITY_DATA": "/data/eval"}).as_posix()
'/data/nlidata'
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path

__all__ = ["DATA_ENV", "DEFAULT_DATA", "data_root", "nli_root"]

#: The environment variable that names the evaluation data folder.
DATA_ENV = "VERACITY_DATA"
#: ``../shared/data`` beside the checkout (this file is ``training/src/veracity_training/data/``).
DEFAULT_DATA = Path(__file__).resolve().parents[4].parent / "shared" / "data"


def data_root(environ: Mapping[str, str] | None = None) -> Path:
    """The evaluation data folder: ``$VERACITY_DATA``, else :data:`DEFAULT_DATA`."""
    value = (os.environ if environ is None else environ).get(DATA_ENV, "")
    return Path(value).expanduser() if value else DEFAULT_DATA


def nli_root(environ: Mapping[str, str] | None = None) -> Path:
    """The training data folder (``nlidata``), the evaluation data folder's sibling."""
    return data_root(environ).parent / "nlidata"
