"""Rewrite ``openapi.json``, the pinned schema: ``python -m tests.server.snapshot``."""

from __future__ import annotations

import json
from pathlib import Path

from veracity.server.app import create_app
from veracity.server.settings import Settings

if __name__ == "__main__":
    schema = create_app(Settings(index="unused")).openapi()
    target = Path(__file__).parent / "openapi.json"
    target.write_text(json.dumps(schema, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    print(f"wrote {target}")
