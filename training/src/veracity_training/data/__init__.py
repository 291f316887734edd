"""Deterministic builder of the claim verifier's training data.

Run ``python -m veracity_training.data --out runs/verifier/data --seed 13``. Modules:

* :mod:`~veracity_training.data.sources`: public labelled pairs (label mapping, sampling);
* :mod:`~veracity_training.data.qa_rules` and :mod:`~veracity_training.data.qa`: question + answer
  rewritten as claims (SQuAD, QED, CPKC, HaluEval) with swap and removal negatives;
* :mod:`~veracity_training.data.synthetic` and :mod:`~veracity_training.data.perturb`:
  multi-sentence claims and perturbations from raw Wikipedia;
* :mod:`~veracity_training.data.build`: sampling, deduplication, split by document, card.
"""

from __future__ import annotations

from veracity_training.data.build import BuildConfig, BuildResult, build, write
from veracity_training.data.schema import LABELS, DataLabel, Row

__all__ = ["LABELS", "BuildConfig", "BuildResult", "DataLabel", "Row", "build", "write"]
