"""The parts pipelines share: models by name, evidence, claims, checking, decision, repair,
evolution.

Each part checks its own options when it is made; a pipeline's config
(:mod:`veracity.config.pipelines`) checks the conflicts between parts. Option names in messages
are the Python ones (``k=0``); the CLI spells them as its flags (``-k 0``).

>>> EvidenceConfig(k=0)
Traceback (most recent call last):
...
veracity.errors.OptionError: k=0 is not allowed: at least 1. Ask for one passage or more.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal, get_args

from veracity import defaults
from veracity.config.base import Config, check_range
from veracity.errors import InputError, OptionError, check_choice

__all__ = [
    "CLAIM_METHODS",
    "AbstainConfig",
    "CheckingConfig",
    "ClaimMethod",
    "ClaimsConfig",
    "DecisionConfig",
    "EvidenceConfig",
    "GeneticConfig",
    "ModelsConfig",
    "PolicyConfig",
    "check_layers",
]

#: How claims are made: by rules, or by the chat model (versioned prompts).
ClaimMethod = Literal["rules", "llm"]
CLAIM_METHODS: tuple[ClaimMethod, ...] = get_args(ClaimMethod)
LAYERS: tuple[defaults.Layer, ...] = get_args(defaults.Layer)


def check_layers(layers: object) -> tuple[str, ...]:
    """``layers`` without repeats (a string is split at commas), else an error naming the
    layers there are."""
    if isinstance(layers, str):
        layers = tuple(part.strip() for part in layers.split(",") if part.strip())
    if not isinstance(layers, tuple | list):
        raise OptionError("layers", layers, f"a list of layers: {', '.join(LAYERS)}")
    chosen = tuple(dict.fromkeys(str(layer) for layer in layers))
    unknown = [name for name in chosen if name not in LAYERS]
    if unknown or not chosen:
        raise OptionError(
            "layers",
            ",".join(chosen),
            f"one or more of {', '.join(LAYERS)}",
            "For example layers='nli,knowledge'.",
        )
    return chosen


@dataclass(frozen=True)
class ModelsConfig(Config):
    """The models by the names users give them: ``verifier`` (``--verifier``), ``llm`` and
    ``model`` (``--llm``, ``--model``; ``None``: no chat model), ``reranker`` (``--reranker``)
    and ``spans`` (``--spans``). :class:`veracity.models.Models` makes them by these names."""

    verifier: str = defaults.VERIFIER
    llm: str | None = None
    model: str | None = None
    reranker: str | None = None
    spans: str | None = None

    def __post_init__(self) -> None:
        if not self.verifier:
            raise OptionError("verifier", self.verifier, "a verifier name", "Use e.g. 'embedded'.")
        if self.model is not None and self.llm is None:
            raise OptionError(
                "model",
                self.model,
                "given with llm",
                "Name the chat backend too: llm='openai:URL'.",
            )


@dataclass(frozen=True)
class EvidenceConfig(Config):
    """Where each claim's passages come from: the index folder ``index`` searched in ``mode``,
    or the files ``sources`` (their paths, as given), or neither (only what the answer cites);
    ``query``: each claim's retrieval query is the claim or a question made from it; ``k``
    passages per claim."""

    index: str | None = None
    mode: defaults.SearchMode = defaults.SEARCH_MODE
    sources: tuple[str, ...] = ()
    query: defaults.QueryMode = "claim"
    k: int = defaults.VERIFY_TOP_K

    def __post_init__(self) -> None:
        check_choice("mode", self.mode, defaults.SEARCH_MODES)
        check_choice("query", self.query, get_args(defaults.QueryMode))
        check_range("k", self.k, 1, fix="Ask for one passage or more.")
        if self.index is not None and self.sources:
            raise InputError(
                "give the sources to check against: sources or an index, not both "
                "(--sources FILE ... or --index DIR)"
            )
        if self.sources and self.mode != defaults.SEARCH_MODE:
            raise OptionError(
                "mode",
                self.mode,
                "left out with sources (it chooses how an index is searched; source files "
                "are searched with BM25 in memory)",
                "Leave --mode out, or index the files (veracity index) and give --index DIR.",
            )


@dataclass(frozen=True)
class ClaimsConfig(Config):
    """How claims are made: by ``rules`` or the chat model (``llm``), split into parts
    (``decompose``) and made to stand alone (``decontextualize``)."""

    method: ClaimMethod = "rules"
    decompose: bool = True
    decontextualize: bool = True

    def __post_init__(self) -> None:
        check_choice("claims", self.method, CLAIM_METHODS)


@dataclass(frozen=True)
class CheckingConfig(Config):
    """How the verifier reads a claim's passages: ``tau`` the P(supported) a claim must reach;
    ``window`` what it reads per claim (``None``: ``defaults.NLI_WINDOW``, or ``passage`` with
    noisy-OR) and ``aggregation`` how its readings of several passages combine."""

    tau: float = defaults.VERIFY_TAU
    window: defaults.EvidenceWindow | None = None
    aggregation: defaults.Aggregation = defaults.VERIFY_AGGREGATION

    def __post_init__(self) -> None:
        check_range("tau", self.tau, 0.0, 1.0, "A probability, e.g. tau=0.5.")
        if self.window is not None:
            check_choice("window", self.window, get_args(defaults.EvidenceWindow))
        check_choice("aggregation", self.aggregation, get_args(defaults.Aggregation))

    @property
    def reads(self) -> defaults.EvidenceWindow:
        """The window that runs: the one given, else the default for the aggregation."""
        if self.window is not None:
            return self.window
        return "passage" if self.aggregation == "noisy_or" else defaults.NLI_WINDOW


@dataclass(frozen=True)
class DecisionConfig(Config):
    """How the layers' findings make a verdict: ``layers`` (``nli``, ``knowledge``,
    ``consistency``; a string is split at commas) in the order a ``cascade`` reads them;
    ``rule`` how they combine, ``weights`` the fitted layer weights file ``logistic`` reads;
    ``knowledge_base`` the facts file the knowledge layer cross-checks; ``samples`` answers
    at ``temperature`` for the consistency layer.

    >>> DecisionConfig(layers="nli, knowledge").layers
    ('nli', 'knowledge')
    >>> DecisionConfig(layers=("nli",), knowledge_base="facts.csv")
    Traceback (most recent call last):
    ...
    veracity.errors.InputError: --kb facts.csv is read by the knowledge layer: add knowledge to \
--layers (now nli)
    """

    layers: tuple[str, ...] = defaults.VERIFY_LAYERS
    rule: defaults.Rule = defaults.VERIFY_RULE
    weights: str | None = None
    knowledge_base: str | None = None
    samples: int = defaults.CONSISTENCY_SAMPLES
    temperature: float = defaults.CONSISTENCY_TEMPERATURE

    def __post_init__(self) -> None:
        layers: object = self.layers  # a string from a command line, split below
        given = layers if isinstance(layers, str) else ",".join(self.layers)
        object.__setattr__(self, "layers", check_layers(self.layers))
        check_choice("rule", self.rule, get_args(defaults.Rule))
        check_range("samples", self.samples, 1, fix="Sample one answer or more.")
        check_range("temperature", self.temperature, 0.0, fix="Use e.g. temperature=1.0.")
        if self.knowledge_base is not None and "knowledge" not in self.layers:
            raise InputError(
                f"--kb {self.knowledge_base} is read by the knowledge layer: add "
                f"knowledge to --layers (now {given})"
            )


@dataclass(frozen=True)
class AbstainConfig(Config):
    """When an answer is withheld without asking the model: with ``abstain``, below
    ``threshold`` on ``signal`` (default ``defaults.ABSTAIN_SIGNAL``) when a threshold is given,
    else below the index's calibration, else below the shipped default; a ``signal`` needs its
    ``threshold``."""

    abstain: bool = True
    signal: defaults.Signal | None = None
    threshold: float | None = None

    def __post_init__(self) -> None:
        if self.signal is not None:
            check_choice("signal", self.signal, get_args(defaults.Signal))


@dataclass(frozen=True)
class PolicyConfig(Config):
    """What repair does with a claim the evidence does not support: ``policy`` (``revise``,
    ``delete``, ``flag``, ``refuse``); ``refuse_below`` the share of supported claims below
    which ``refuse`` withdraws the answer; ``questions`` the most research questions per
    claim; ``quote`` whether ``revise`` without a chat model may quote the source in place of
    a claim; ``max_edit_chars`` and ``max_edit_share`` the most an edit may change."""

    policy: defaults.Policy = defaults.REPAIR_POLICY
    refuse_below: float = defaults.REPAIR_REFUSE_BELOW
    questions: int = defaults.REPAIR_QUESTIONS
    quote: bool = True
    max_edit_chars: int = defaults.REPAIR_MAX_EDIT_CHARS
    max_edit_share: float = defaults.REPAIR_MAX_EDIT_SHARE

    def __post_init__(self) -> None:
        check_choice(
            "policy",
            self.policy,
            get_args(defaults.Policy),
            "revise fixes what the evidence contradicts, delete cuts unsupported claims, flag "
            "changes nothing, refuse withdraws a mostly unsupported answer.",
        )
        check_range("refuse_below", self.refuse_below, 0.0, 1.0, "A share, e.g. 0.5.")
        check_range("questions", self.questions, 1, fix="Ask one research question or more.")
        check_range("max_edit_chars", self.max_edit_chars, 1)
        check_range("max_edit_share", self.max_edit_share, 0.0, 1.0)

    @property
    def uses_chat(self) -> bool:
        """Whether the policy can use a chat model: ``revise`` (questions and edits) and
        ``delete`` (questions); ``flag`` and ``refuse`` make no model call."""
        return self.policy in ("revise", "delete")


@dataclass(frozen=True)
class GeneticConfig(Config):
    """The genetic search of ``veracity evolve`` (GAuGE): offspring per iteration, sampling
    and termination ``depth``, parents drawn from the ``top_k``, the budgets of iterations,
    model calls and tokens per rewrite, the model's temperature and the random seed; the
    defaults are the paper's tuned ones (12 offspring, depth 2, temperature 0.7)."""

    offspring: int = defaults.EVOLVE_OFFSPRING
    depth: int = defaults.EVOLVE_DEPTH
    top_k: int = defaults.EVOLVE_TOP_K
    max_iterations: int = defaults.EVOLVE_MAX_ITERATIONS
    max_calls: int = defaults.EVOLVE_MAX_CALLS
    temperature: float = defaults.EVOLVE_TEMPERATURE
    max_tokens: int | None = defaults.EVOLVE_MAX_TOKENS
    seed: int = 0

    def __post_init__(self) -> None:
        for name in ("offspring", "depth", "top_k", "max_iterations", "max_calls"):
            value = getattr(self, name)
            if not isinstance(value, int) or value < 1:
                raise OptionError(
                    name,
                    value,
                    "an integer of 1 or more",
                    f"A budget of 0 evolves nothing; use e.g. {name}=2.",
                )
        if self.max_tokens is not None and (
            not isinstance(self.max_tokens, int) or self.max_tokens < 1
        ):
            raise OptionError(
                "max_tokens",
                self.max_tokens,
                "an integer of 1 or more, or None",
                "Use e.g. max_tokens=128.",
            )
