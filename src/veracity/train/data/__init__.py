"""Deterministic builder of the claim verifier's training data.

Run ``python -m veracity.train.data --out runs/verifier/data --seed 13``. Modules:

* :mod:`~veracity.train.data.sources`: public labelled pairs (label mapping, sampling);
* :mod:`~veracity.train.data.qa_rules` and :mod:`~veracity.train.data.qa`: question + answer
  rewritten as claims (SQuAD, QED, CPKC, HaluEval) with swap and removal negatives;
* :mod:`~veracity.train.data.synthetic` and :mod:`~veracity.train.data.perturb`: multi-sentence
  claims and perturbations from raw Wikipedia;
* :mod:`~veracity.train.data.build`: sampling, deduplication, split by document, card.
"""

from __future__ import annotations

from veracity.train.data.build import BuildConfig, BuildResult, build, write
from veracity.train.data.schema import LABELS, DataLabel, Row

__all__ = ["LABELS", "BuildConfig", "BuildResult", "DataLabel", "Row", "build", "write"]
