"""Strict JSON text of results: a non-finite number is written ``null``, never ``NaN``.

The scores of a pair that could not be scored are ``nan`` (its ``error`` says why); most JSON
readers reject ``NaN`` and a reader that accepts it would take it for a score. The CLI, the
service and the batch output all write JSON through :func:`strict_json`.
"""

from __future__ import annotations

import json
import math
from typing import Any

__all__ = ["finite", "strict_json"]


def strict_json(payload: Any, *, indent: int | None = None) -> str:
    """``payload`` as strict JSON text, a non-finite number written ``null``.

    >>> strict_json({"supported": float("nan"), "text": "[bold]"})
    '{"supported": null, "text": "[bold]"}'
    """
    return json.dumps(finite(payload), indent=indent, ensure_ascii=False, allow_nan=False)


def finite(value: Any) -> Any:
    """``value`` with every NaN or infinite float replaced by ``None``.

    >>> finite({"supported": float("nan"), "scores": [0.5, float("inf")]})
    {'supported': None, 'scores': [0.5, None]}
    """
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, dict):
        return {key: finite(item) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [finite(item) for item in value]
    return value
