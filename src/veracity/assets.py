"""Files that ship inside the package: the MiniLM tokenizer, the embedder, the verifier, the
reranker, and the stylesheet of verdicts that the web page and the batch overview share."""

from __future__ import annotations

import functools
from pathlib import Path
from typing import Any

ASSETS = Path(__file__).parent / "assets"
MINILM_TOKENIZER = ASSETS / "minilm" / "tokenizer.json"
VERIFIER_DIR = ASSETS / "verifier"
RERANKER_DIR = ASSETS / "reranker"
EMBEDDER_DIR = ASSETS / "embedder"
#: Where ``veracity distill-embedder`` writes the static embedder by default (not in git).
STATIC_EMBEDDER_DIR = ASSETS / "static-embedder"
#: The one decision's fitted weights (:mod:`veracity.decision`), written by bench/decision_fit.py.
DECISION_FILE = ASSETS / "decision.json"
#: How a verdict looks (colours of claims and sentences), shared by every HTML page.
VERDICTS_CSS = ASSETS / "verdicts.css"


@functools.lru_cache(maxsize=4)
def load_tokenizer(path: str = str(MINILM_TOKENIZER)) -> Any:
    """A fresh ``tokenizers.Tokenizer`` from ``path`` (the shipped MiniLM vocabulary by default).

    Padding and truncation are left off: callers pad per batch and never truncate silently.
    """
    from tokenizers import Tokenizer

    tokenizer = Tokenizer.from_file(path)
    tokenizer.no_truncation()
    tokenizer.no_padding()
    return tokenizer
