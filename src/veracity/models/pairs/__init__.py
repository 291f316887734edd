"""Pair scorers: does a premise support, contradict or say nothing of a claim?

Every stage that checks text stands on these: the :class:`~veracity.models.pairs.base.PairScorer`
protocol (``run(premises, hypotheses) -> PairScores``), the shipped verifier and its calibrated
combiner (``shipped``, ``combiner``), any Hugging Face checkpoint (``hf``; ``remote_code`` for
those that bring their own code), an LLM judge (``judge``), the similarity scorers
(``similarity``: lexical coverage, cosine, token alignment), evidence windows for long premises
(``windows``, ``windowed``), the features the combiner reads (``features``), batched scoring of
groups with failures kept as data (``scoring``), token-span detectors (``spans``) and the
registry of names (``registry``). Within ``veracity.models`` it uses the chat models (the
judge) and the ONNX runtime; outside, ``types``, ``text`` and ``prompts`` only.

Words, as this package and the answer pipeline use them:

- a *pair scorer* or *scorer* is anything with the ``PairScorer`` protocol;
  a *verifier* is a scorer whose scores are probabilities (``EmbeddedVerifier``, ``HFVerifier``,
  ``LLMJudgeVerifier``), a *similarity scorer* one whose are not (``LexicalCoverageScorer``,
  ``CosineScorer``, ``AlignmentScorer``: ``scores_are_probabilities = False``);
- labels: a pair is ``supported``, ``contradicted`` or ``neither`` (three-way NLI); the answer
  pipeline turns a claim's pairs into ``supported``, ``contradicted`` or ``unsupported``;
- *evidence*: within one premise, the spans a verifier read (``windows.EvidenceSelector`` picks
  them, ``PairScore.evidence`` records them); for one claim, the passages gathered to check it
  (``verify.gather``); ``EvidenceJudgement`` is how one such passage bears on one claim;
- the *combiner* (``combiner``) turns the verifier network's output and features into
  P(supported); the answer pipeline's *rules* (``verify.rules``) combine its layers' findings.

>>> from veracity.models.pairs import make_verifier
>>> make_verifier("lexical").run(["Bees dance."], ["Bees dance."]).scores[0].supported
1.0
"""

from veracity.models.pairs.base import PairScorer, check_pairs
from veracity.models.pairs.registry import make_verifier

__all__ = ["PairScorer", "check_pairs", "make_verifier"]
