"""Self-consistency (SelfCheckGPT, NLI variant): do fresh answers agree with each claim?

The chat model answers the question again, closed book, with the versioned prompt
``veracity/prompts/consistency_v1.json``. In mode ``"samples"`` it answers ``samples`` times at
``temperature``, sample ``i`` with seed ``seed + i`` (so a run can be repeated); in mode
``"two_temperature"`` the answer is regenerated once at ``second_temperature`` and that single
regeneration is the sample set. Every (sample, claim) pair goes to the verifier in one batched
``PairScorer.run`` call, premise = sample, hypothesis = claim.

A claim's inconsistency score is the mean over samples of
``P(contradicted) / (P(supported) + P(contradicted))``. A pair where both are 0 (the sample says
nothing about the claim, e.g. a judge's plain ``NOT_MENTIONED``) has no ratio and is left out of
the mean ("silent"); when every pair of a claim is silent the claim gets no score, is labelled
``unchecked`` and is not flagged (the layer cannot judge it: it abstains). A claim is flagged
when its score reaches ``threshold``; a flagged claim is ``contradicted`` when its mean
P(contradicted) is the largest of its three mean probabilities, else ``unsupported``; an
unflagged one is ``supported``.

Failures are data, never scores: a sample whose chat call raises
:class:`~veracity.errors.GenerationError` (or comes back empty) is counted in ``failures``,
described in ``warnings``, and left out; a pair the verifier could not score (``error`` set) is
counted in ``pair_failures`` and left out of the mean. A claim none of whose pairs could be
scored (every pair failed, or every sample did) is labelled ``error``. Any other exception
propagates: it is a bug, not a model failure.

Temperature 0 makes every sample the same greedy answer, so every claim looks consistent: the
result then carries a warning, as it does when every sample is identical or fewer than 3 were
asked for.

>>> from veracity.testing import ScriptedChatModel, TablePairScorer
>>> from veracity.types import Claim, Span
>>> claim = Claim(0, "Bees dance.", Span(0, 11), 0)
>>> scorer = TablePairScorer({("Bees dance.", "Bees dance."): (0.9, 0.1, 0.0),
...                           ("Bees sing.", "Bees dance."): (0.1, 0.9, 0.0)})
>>> chat = ScriptedChatModel(["Bees dance.", "Bees sing.", "Bees dance."])
>>> layer = ConsistencyLayer(chat, scorer, samples=3)
>>> result = layer.run("What do bees do?", [claim])
>>> round(result.results[0].score, 3), result.results[0].label, result.seeds
(0.367, 'supported', (0, 1, 2))
"""

from __future__ import annotations

import math
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Literal

from veracity import defaults
from veracity.errors import GenerationError, InputError, ModelError, OptionError
from veracity.models.chat.base import ChatModel, ChatRequest, Decoding
from veracity.models.pairs.base import PairScorer
from veracity.models.pairs.scoring import score_groups
from veracity.prompts import ChatPrompt, load_prompt
from veracity.types import Claim, LayerResult, PairScore, VerdictLabel

__all__ = [
    "CONSISTENCY_MODES",
    "LAYER",
    "ConsistencyLayer",
    "ConsistencyMode",
    "ConsistencyResult",
    "inconsistency",
]

#: The name every :class:`~veracity.types.LayerResult` of this layer carries.
LAYER = "consistency"
ConsistencyMode = Literal["samples", "two_temperature"]
CONSISTENCY_MODES: tuple[ConsistencyMode, ...] = ("samples", "two_temperature")


@dataclass(frozen=True)
class ConsistencyResult:
    """What the consistency layer found for the claims of one answer, with its provenance.

    ``results`` holds one :class:`~veracity.types.LayerResult` per claim, in claim order.
    ``samples`` are the texts that came back, ``temperatures`` and ``seeds`` what each was sampled
    with (same order). ``model`` is the chat model, ``prompt`` the prompt ``id@version``,
    ``scorer`` the verifier's model id. ``failures`` counts samples whose chat call failed,
    ``pair_failures`` (sample, claim) pairs the verifier could not score. ``calls`` counts model
    calls (``{"chat": 5, "verifier": 10}``, verifier calls as pairs scored) and ``timings`` the
    seconds spent sampling and scoring.
    """

    question: str
    results: tuple[LayerResult, ...]
    samples: tuple[str, ...]
    temperatures: tuple[float, ...]
    seeds: tuple[int, ...]
    mode: ConsistencyMode
    model: str
    prompt: str
    scorer: str
    threshold: float
    warnings: tuple[str, ...] = ()
    failures: int = 0
    pair_failures: int = 0
    calls: Mapping[str, int] = field(default_factory=dict)
    timings: Mapping[str, float] = field(default_factory=dict)

    @property
    def flagged(self) -> tuple[int, ...]:
        """Positions of the claims this layer flagged."""
        return tuple(i for i, result in enumerate(self.results) if result.flagged)


def inconsistency(scores: Sequence[PairScore]) -> float | None:
    """Mean of ``P(contradicted) / (P(supported) + P(contradicted))`` over the scored pairs.

    Pairs with ``error`` set, and pairs where both probabilities are 0 (no ratio), are left out;
    ``None`` when no pair is left.

    >>> from veracity.types import Span
    >>> span = Span(0, 1)
    >>> inconsistency([PairScore(0.75, 0.25, 0.0, span), PairScore(0.0, 0.5, 0.5, span)])
    0.625
    """
    ratios = [
        score.contradicted / (score.supported + score.contradicted)
        for score in scores
        if score.error is None and score.supported + score.contradicted > 0
    ]
    return math.fsum(ratios) / len(ratios) if ratios else None


class ConsistencyLayer:
    """Samples fresh answers to the question and measures how much they contradict each claim.

    ``samples`` answers as ``decoding`` says (:class:`~veracity.models.chat.base.Decoding`:
    its temperature, default ``defaults.CONSISTENCY_TEMPERATURE``; its seed, the first sample's;
    its max_tokens, the reply length) in mode ``"samples"``, or one regeneration at
    ``second_temperature`` (mode ``"two_temperature"``, which requires it; ``samples`` and the
    temperature are then unused); ``threshold`` the inconsistency score at or above which a
    claim is flagged (0.5 by default, untuned until calibrated on labelled data).

    >>> from veracity.testing import ScriptedChatModel, TablePairScorer
    >>> layer = ConsistencyLayer(ScriptedChatModel([]), TablePairScorer({}), samples=3)
    >>> layer.run("What do bees do?", []).results
    ()
    """

    def __init__(
        self,
        chat: ChatModel,
        scorer: PairScorer,
        *,
        samples: int = defaults.CONSISTENCY_SAMPLES,
        decoding: Decoding | None = None,
        mode: ConsistencyMode = "samples",
        second_temperature: float | None = None,
        threshold: float = defaults.CONSISTENCY_THRESHOLD,
        prompt: str = defaults.CONSISTENCY_PROMPT,
    ) -> None:
        if not isinstance(chat, ChatModel):
            raise OptionError(
                "chat",
                chat,
                "a ChatModel (a model_id and a run(request) method)",
                "Pass a chat backend from veracity.models.chat, or ScriptedChatModel "
                "from veracity.testing in tests.",
            )
        if not isinstance(scorer, PairScorer):
            raise OptionError(
                "scorer",
                scorer,
                "a PairScorer (model_id, load() and run(premises, hypotheses))",
                "Pass a verifier from veracity.verify, or TablePairScorer from "
                "veracity.testing in tests.",
            )
        if mode not in CONSISTENCY_MODES:
            raise OptionError("mode", mode, f"one of {', '.join(CONSISTENCY_MODES)}")
        if isinstance(samples, bool) or not isinstance(samples, int) or samples < 1:
            raise OptionError(
                "samples",
                samples,
                "an integer of 1 or more",
                f"Use samples={defaults.CONSISTENCY_SAMPLES} (the default).",
            )
        if decoding is None:
            decoding = Decoding(defaults.CONSISTENCY_TEMPERATURE)
        if not isinstance(decoding, Decoding):
            raise OptionError(
                "decoding", decoding, "a Decoding", "Use Decoding(temperature=1.0, seed=0)."
            )
        if mode == "two_temperature":
            if second_temperature is None:
                raise OptionError(
                    "second_temperature",
                    None,
                    "a temperature between 0 and 2 in mode 'two_temperature'",
                    "Pass e.g. second_temperature=1.0 to regenerate the answer "
                    "once at that temperature.",
                )
            _check_temperature("second_temperature", second_temperature)
        elif second_temperature is not None:
            raise OptionError(
                "second_temperature",
                second_temperature,
                "None in mode 'samples' (it is only used to regenerate the answer)",
                "Pass mode='two_temperature' to use it, or drop it.",
            )
        if isinstance(threshold, bool) or not 0.0 < threshold <= 1.0:
            raise OptionError(
                "threshold",
                threshold,
                "a number above 0 and at most 1",
                f"Use threshold={defaults.CONSISTENCY_THRESHOLD} until it is calibrated.",
            )
        self.chat = chat
        self.scorer = scorer
        self.samples = samples
        self.temperature = float(decoding.temperature)
        self.mode: ConsistencyMode = mode
        self.second_temperature = None if second_temperature is None else float(second_temperature)
        # sample i is drawn with seed + i
        self.seed = defaults.CONSISTENCY_SEED if decoding.seed is None else decoding.seed
        self.max_tokens = (
            defaults.CONSISTENCY_MAX_TOKENS if decoding.max_tokens is None else decoding.max_tokens
        )
        self.threshold = float(threshold)
        self.prompt_id = prompt
        self._prompt: ChatPrompt | None = None

    def load(self) -> ConsistencyLayer:
        """Read the prompt and load the verifier; repeat calls are free."""
        if self._prompt is not None:
            return self
        prompt = load_prompt(self.prompt_id)
        if prompt.fields != ("question",):
            raise OptionError(
                "prompt",
                self.prompt_id,
                "a prompt whose only field is {question}",
                f"It has fields {list(prompt.fields)}; pass "
                f"prompt={defaults.CONSISTENCY_PROMPT!r}.",
            )
        self.scorer.load()
        self._prompt = prompt
        return self

    @property
    def plan(self) -> tuple[tuple[float, int], ...]:
        """(temperature, seed) of every sample :meth:`run` asks for, in order."""
        if self.mode == "two_temperature" and self.second_temperature is not None:
            return ((self.second_temperature, self.seed),)
        return tuple((self.temperature, self.seed + i) for i in range(self.samples))

    def request(self, question: str, temperature: float, seed: int) -> ChatRequest:
        """The chat request for one sample."""
        prompt = self._loaded()
        return ChatRequest.of(
            prompt.render(question=question),
            system=prompt.system,
            temperature=temperature,
            max_tokens=self.max_tokens,
            seed=seed,
        )

    def run(self, question: str, claims: Sequence[Claim]) -> ConsistencyResult:
        """Sample answers to ``question`` and score every claim against them (one batch).

        With no claims nothing is sampled. Raises :class:`~veracity.errors.InputError` for an
        empty question or claim; see the module docstring for scores, labels and failures.
        """
        if not isinstance(question, str) or not question.strip():
            raise InputError(
                f"question={question!r} is empty: the consistency layer re-asks the "
                "question the answer was given to, so pass that question"
            )
        claim_list = _check_claims(claims)
        prompt = self._loaded()
        warnings = self._setting_warnings()
        texts: list[str] = []
        temperatures: list[float] = []
        seeds: list[int] = []
        failures = 0
        started = time.perf_counter()
        plan = self.plan if claim_list else ()
        for position, (temperature, seed) in enumerate(plan):
            where = (
                f"sample {position + 1} of {len(plan)} (temperature {temperature:g}, "
                f"seed {seed}, {self.chat.model_id})"
            )
            try:
                text = self.chat.run(self.request(question, temperature, seed)).text
            except GenerationError as exc:
                failures += 1
                warnings.append(f"{where} failed and was left out: {exc}")
                continue
            if not text.strip():
                failures += 1
                warnings.append(f"{where} came back empty and was left out")
                continue
            texts.append(text)
            temperatures.append(temperature)
            seeds.append(seed)
        sampled = time.perf_counter()
        if plan and not texts:
            warnings.append(
                f"every one of the {len(plan)} samples failed: every claim is labelled error"
            )
        if len(texts) >= 2 and len({text.strip() for text in texts}) == 1:
            warnings.append(
                f"all {len(texts)} samples are identical, so every claim they state "
                "looks consistent and the layer cannot detect anything; raise the "
                f"temperature (now {self.temperature:g}) or check that the chat "
                "backend honours it"
            )
        # One batched call; a claim too long for the verifier's window fails alone, as data.
        per_claim: tuple[tuple[PairScore, ...], ...] = tuple(() for _ in claim_list)
        if texts:
            per_claim = score_groups(
                self.scorer, [[(text, claim.text) for text in texts] for claim in claim_list]
            ).groups
        scored = time.perf_counter()
        results = tuple(self._judge(scores, len(plan)) for scores in per_claim)
        pairs = sum(len(scores) for scores in per_claim)
        return ConsistencyResult(
            question=question,
            results=results,
            samples=tuple(texts),
            temperatures=tuple(temperatures),
            seeds=tuple(seeds),
            mode=self.mode,
            model=self.chat.model_id,
            prompt=prompt.ref,
            scorer=self.scorer.model_id,
            threshold=self.threshold,
            warnings=tuple(warnings),
            failures=failures,
            pair_failures=sum(score.error is not None for g in per_claim for score in g),
            calls={"chat": len(plan), "verifier": pairs},
            timings={"sample": sampled - started, "score": scored - sampled},
        )

    def _setting_warnings(self) -> list[str]:
        warnings: list[str] = []
        temperature = (
            self.second_temperature if self.mode == "two_temperature" else self.temperature
        )
        if temperature == 0.0:
            name = "second_temperature" if self.mode == "two_temperature" else "temperature"
            warnings.append(
                f"{name}=0 makes every sample the greedy answer, so every claim "
                "looks consistent and the layer cannot detect anything; sample at "
                f"{name}={defaults.CONSISTENCY_TEMPERATURE:g}"
            )
        if self.mode == "samples" and self.samples < defaults.CONSISTENCY_MIN_SAMPLES:
            warnings.append(
                f"samples={self.samples} is below {defaults.CONSISTENCY_MIN_SAMPLES}: "
                "the inconsistency score rests on too few answers to be reliable; "
                f"use samples={defaults.CONSISTENCY_SAMPLES} or more"
            )
        return warnings

    def _judge(self, scores: Sequence[PairScore], asked: int) -> LayerResult:
        if not scores:
            return LayerResult(
                LAYER,
                "error",
                False,
                None,
                detail=f"0 of {asked} samples came back",
                error="every sample failed: there is no answer to compare the claim with",
            )
        valid = [score for score in scores if score.error is None]
        failed = len(scores) - len(valid)
        if not valid:
            return LayerResult(
                LAYER,
                "error",
                False,
                None,
                detail=f"all {failed} pairs failed",
                error=f"the verifier could not score any of the {failed} pairs; "
                f"first: {scores[0].error}",
            )
        score = inconsistency(valid)
        silent = sum(s.supported + s.contradicted <= 0 for s in valid)
        supported = math.fsum(s.supported for s in valid) / len(valid)
        contradicted = math.fsum(s.contradicted for s in valid) / len(valid)
        neither = math.fsum(s.neither for s in valid) / len(valid)
        counts = f"{len(valid) - silent} of {len(scores)} samples"
        if silent:
            counts += f", {silent} silent"
        if failed:
            counts += f", {failed} failed"
        means = (
            f"mean P(supported) {supported:.3f}, P(contradicted) {contradicted:.3f}, "
            f"P(neither) {neither:.3f}"
        )
        if score is None:
            return LayerResult(
                LAYER,
                "unchecked",
                False,
                None,
                detail=f"no sample supports or contradicts the claim ({counts}); {means}",
            )
        flagged = score >= self.threshold
        label: VerdictLabel = "supported"
        if flagged:
            label = "contradicted" if contradicted > max(supported, neither) else "unsupported"
        return LayerResult(
            LAYER,
            label,
            flagged,
            score,
            detail=f"inconsistency {score:.3f} (threshold {self.threshold:g}) "
            f"over {counts}; {means}",
        )

    def _loaded(self) -> ChatPrompt:
        self.load()
        if self._prompt is None:  # pragma: no cover - load() sets it
            raise ModelError("the consistency layer failed to load its prompt")
        return self._prompt


def _check_temperature(name: str, value: float) -> None:
    if isinstance(value, bool) or not isinstance(value, int | float) or not 0.0 <= value <= 2.0:
        raise OptionError(
            name,
            value,
            "a temperature between 0 and 2",
            f"Use {defaults.CONSISTENCY_TEMPERATURE:g}: at 0 every sample is the "
            "same and the layer cannot detect anything.",
        )


def _check_claims(claims: object) -> tuple[Claim, ...]:
    # typed ``object``: callers pass anything at run time, and this is where it is checked
    if isinstance(claims, str | Claim) or not isinstance(claims, Sequence):
        raise InputError(
            f"claims must be a sequence of Claim, got a {type(claims).__name__}: "
            "wrap one claim as [claim]"
        )
    result: list[Claim] = []
    for position, claim in enumerate(claims):
        if not isinstance(claim, Claim):
            raise InputError(
                f"claim {position} is a {type(claim).__name__}, not a Claim; "
                "build claims with veracity.types.Claim"
            )
        if not claim.text.strip():
            raise InputError(
                f"claim {position} (index {claim.index}) has empty text: give a claim to check"
            )
        result.append(claim)
    return tuple(result)
