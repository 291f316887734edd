"""Where the benchmarks' data lives: the folder that ``$VERACITY_DATA`` names.

``VERACITY_DATA`` names the evaluation data folder (``shared/data``: ``wice/``, ``clapnq/``,
``trec_dl19/``, ...); the training data (``nlidata``) is its sibling. Unset or empty, it is
``../shared/data`` beside the repository checkout, where the project keeps them. The training
package reads the same variable the same way (``veracity_training.data.locations``); the
benchmarks keep their own copy so that measuring the library never needs the training package.
"""

from __future__ import annotations

import os
from pathlib import Path

__all__ = ["DATA_ENV", "data_root", "nli_root"]

#: The environment variable that names the evaluation data folder.
DATA_ENV = "VERACITY_DATA"
#: ``../shared/data`` beside the checkout (this file is ``bench/``).
DEFAULT_DATA = Path(__file__).resolve().parents[1].parent / "shared" / "data"


def data_root() -> Path:
    """The evaluation data folder: ``$VERACITY_DATA``, else :data:`DEFAULT_DATA`."""
    value = os.environ.get(DATA_ENV, "")
    return Path(value).expanduser() if value else DEFAULT_DATA


def nli_root() -> Path:
    """The training data folder (``nlidata``), the evaluation data folder's sibling."""
    return data_root().parent / "nlidata"
