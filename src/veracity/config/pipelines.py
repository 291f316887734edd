"""One config per pipeline, composed of the shared parts (:mod:`veracity.config.parts`).

A pipeline's config is the only input of its builder besides the models
(``open_answer_verifier(config, models)`` and the like); its output carries ``config.to_dict()``
as ``config``, so that ``veracity verify --config report.json`` runs it again. The conflicts
between parts are checked here, once, in the user's terms.

>>> config = VerifyConfig(decision=DecisionConfig(layers=("nli",)))
>>> VerifyConfig.from_dict(config.to_dict()) == config
True
>>> VerifyConfig(claims=ClaimsConfig(method="llm"))
Traceback (most recent call last):
...
veracity.errors.OptionError: claims='llm' is not allowed: a chat model to write the claims. Give \
one (--llm on the command line, models.llm in a config), or let rules write the claims.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import ClassVar

from veracity import defaults
from veracity.config.base import PipelineConfig, check_range
from veracity.config.parts import (
    AbstainConfig,
    CheckingConfig,
    ClaimsConfig,
    DecisionConfig,
    EvidenceConfig,
    GeneticConfig,
    ModelsConfig,
    PolicyConfig,
)
from veracity.errors import OptionError, check_choice

__all__ = [
    "BATCH_LAYERS",
    "EVOLVE_FITNESSES",
    "AskConfig",
    "BatchConfig",
    "EvolveConfig",
    "RepairConfig",
    "SearchConfig",
    "VerifyConfig",
]


@dataclass(frozen=True)
class SearchConfig(PipelineConfig):
    """How an index is searched (``veracity search``): the index folder and its search
    ``mode`` and ``k`` (in ``evidence``), reranked by ``models.reranker`` over ``rerank_depth``
    first-stage candidates (default ``defaults.RERANK_DEPTH``, or ``k`` if more), and when
    the answer is withheld (``abstain``)."""

    pipeline: ClassVar[str] = "search"
    options: ClassVar[Mapping[str, str]] = {
        "verifier": "models.verifier",
        "reranker": "models.reranker",
        "index": "evidence.index",
        "mode": "evidence.mode",
        "k": "evidence.k",
        "rerank_depth": "rerank_depth",
        "abstain": "abstain.abstain",
        "signal": "abstain.signal",
        "threshold": "abstain.threshold",
    }

    models: ModelsConfig = field(default_factory=ModelsConfig)
    evidence: EvidenceConfig = field(default_factory=lambda: EvidenceConfig(k=defaults.TOP_K))
    rerank_depth: int | None = None
    abstain: AbstainConfig = field(default_factory=AbstainConfig)

    def __post_init__(self) -> None:
        if self.rerank_depth is not None:
            check_range("rerank_depth", self.rerank_depth, 1)
            if self.models.reranker is None:
                raise OptionError(
                    "rerank_depth",
                    self.rerank_depth,
                    "given with a reranker",
                    "Name a reranker as well (--reranker), or leave rerank_depth out.",
                )


@dataclass(frozen=True)
class AskConfig(SearchConfig):
    """How a question is answered (``veracity ask``): searched as a :class:`SearchConfig`
    says, ``evidence.k`` passages given to the writer ``models.llm`` names (``extractive``, the
    default, or a chat backend; see :func:`veracity.generate.writers.make_writer`), each ``[n]``
    checked against P(supported) ``tau`` by the one decision over the verifier's readings and,
    with ``knowledge`` (the default), the knowledge rules' findings."""

    pipeline: ClassVar[str] = "ask"
    options: ClassVar[Mapping[str, str]] = {
        **SearchConfig.options,
        "llm": "models.llm",
        "model": "models.model",
        "tau": "tau",
        "knowledge": "knowledge",
    }

    models: ModelsConfig = field(default_factory=lambda: ModelsConfig(llm=defaults.CHAT_BACKEND))
    tau: float = defaults.CITATION_TAU
    knowledge: bool = True

    def __post_init__(self) -> None:
        super().__post_init__()
        check_range("tau", self.tau, 0.0, 1.0, "A probability, e.g. tau=0.5.")
        if self.models.llm is None:
            raise OptionError(
                "llm",
                None,
                "a writer for the answer: extractive or a chat model",
                "Use e.g. llm='extractive'.",
            )


#: The fitness of ``veracity evolve``: relevance plus a ROUGE bonus against the seeds (GAuGE),
#: plus the verifier's support of the answer by the seeds, or relevance alone (Gen²IR).
EVOLVE_FITNESSES = ("rouge1", "rouge2", "rougeL", "support", "relevance")


@dataclass(frozen=True)
class EvolveConfig(PipelineConfig):
    """How an answer is evolved (``veracity evolve``): ``evidence.k`` seed passages searched
    in the index and reranked by ``models.reranker``, bred by the writer ``models.llm`` names
    (``extractive``: the seeds' own sentences; a chat backend: its rewrites join them) under
    ``fitness`` (relevance plus ``weight`` times its bonus), as ``genetic`` says; the best
    answer's sentences are then checked as ``veracity ask`` checks them, against P(supported)
    ``tau``, with the knowledge rules unless ``knowledge`` is off."""

    pipeline: ClassVar[str] = "evolve"
    options: ClassVar[Mapping[str, str]] = {
        "llm": "models.llm",
        "model": "models.model",
        "verifier": "models.verifier",
        "reranker": "models.reranker",
        "index": "evidence.index",
        "mode": "evidence.mode",
        "seeds": "evidence.k",
        "fitness": "fitness",
        "weight": "weight",
        "tau": "tau",
        "knowledge": "knowledge",
        "offspring": "genetic.offspring",
        "iterations": "genetic.max_iterations",
        "calls": "genetic.max_calls",
        "max_tokens": "genetic.max_tokens",
        "seed": "genetic.seed",
    }

    models: ModelsConfig = field(
        default_factory=lambda: ModelsConfig(llm=defaults.CHAT_BACKEND, reranker=defaults.RERANKER)
    )
    evidence: EvidenceConfig = field(
        default_factory=lambda: EvidenceConfig(k=defaults.EVOLVE_SEEDS)
    )
    fitness: str = defaults.EVOLVE_FITNESS
    weight: float = defaults.EVOLVE_WEIGHT
    tau: float = defaults.CITATION_TAU
    knowledge: bool = True
    genetic: GeneticConfig = field(default_factory=GeneticConfig)

    def __post_init__(self) -> None:
        check_choice("fitness", self.fitness, EVOLVE_FITNESSES, "Use fitness='rouge2' (GAuGE).")
        check_range("tau", self.tau, 0.0, 1.0, "A probability, e.g. tau=0.5.")
        check_range("weight", self.weight, 0.0, fix="The weight of the bonus, e.g. 10.")
        if self.models.llm is None:
            raise OptionError(
                "llm",
                None,
                "a writer: extractive or a chat model",
                "Use e.g. llm='extractive'.",
            )
        if self.models.reranker is None:
            raise OptionError(
                "reranker",
                None,
                "a reranker to order the seeds and score relevance",
                f"Use e.g. reranker={defaults.RERANKER!r}.",
            )
        if self.evidence.sources:
            raise OptionError(
                "sources",
                ",".join(self.evidence.sources),
                "left out: evolve seeds from an index",
                "Index the files first (veracity index) and give the index.",
            )


_MODELS = {name: f"models.{name}" for name in ("verifier", "llm", "model", "spans")}
_EVIDENCE = {name: f"evidence.{name}" for name in ("index", "mode", "sources", "query", "k")}
_POLICY = ("policy", "refuse_below", "questions", "quote", "max_edit_chars", "max_edit_share")


def _chat_uses(config: VerifyConfig) -> list[str]:
    """What the chat model of a verify config is for."""
    return [
        use
        for use, wanted in (
            ("claims='llm'", config.claims.method == "llm"),
            ("query='question'", config.evidence.query == "question"),
            ("the consistency layer", "consistency" in config.decision.layers),
        )
        if wanted
    ]


@dataclass(frozen=True)
class VerifyConfig(PipelineConfig):
    """How an answer is verified (``veracity verify``, the service's ``/v1/verify``, a line of
    ``verify-batch``): the models by name, where the evidence comes from, how claims are made,
    how the verifier reads their passages and how the layers decide.

    A chat model (``models.llm``) is needed exactly where one is used: it writes the claims
    (``claims.method='llm'``), the retrieval questions (``evidence.query='question'``) and the
    consistency layer's samples."""

    pipeline: ClassVar[str] = "verify"
    options: ClassVar[Mapping[str, str]] = {
        **_MODELS,
        **_EVIDENCE,
        "claims": "claims.method",
        "decompose": "claims.decompose",
        "decontextualize": "claims.decontextualize",
        "tau": "checking.tau",
        "window": "checking.window",
        "aggregation": "checking.aggregation",
        "layers": "decision.layers",
        "rule": "decision.rule",
        "weights": "decision.weights",
        "knowledge_base": "decision.knowledge_base",
        "samples": "decision.samples",
        "temperature": "decision.temperature",
    }

    models: ModelsConfig = field(default_factory=ModelsConfig)
    evidence: EvidenceConfig = field(default_factory=EvidenceConfig)
    claims: ClaimsConfig = field(default_factory=ClaimsConfig)
    checking: CheckingConfig = field(default_factory=CheckingConfig)
    decision: DecisionConfig = field(default_factory=DecisionConfig)

    def __post_init__(self) -> None:
        if self.models.llm is not None:
            if not _chat_uses(self):
                raise OptionError(
                    "chat",
                    self.models.llm,
                    "a chat model only where one is used",
                    "It writes the claims (--llm-claims), the retrieval questions (--query "
                    "question) or the consistency layer's samples (--layers with "
                    "consistency); ask for one of them, or leave the chat model out.",
                )
            return
        if self.claims.method == "llm":
            raise OptionError(
                "claims",
                "llm",
                "a chat model to write the claims",
                "Give one (--llm on the command line, models.llm in a config), or let rules "
                "write the claims.",
            )
        if "consistency" in self.decision.layers:
            raise OptionError(
                "layers",
                ",".join(self.decision.layers),
                "a chat model for 'consistency'",
                "Give one (--llm on the command line, models.llm in a config) or drop the "
                "consistency layer.",
            )
        if self.evidence.query == "question":
            raise OptionError(
                "query",
                "question",
                "a chat model to write the questions",
                "Give one (--llm on the command line, models.llm in a config), or query by "
                "the claim.",
            )

    @property
    def chat_uses(self) -> tuple[str, ...]:
        """What the chat model is for (empty without one)."""
        return tuple(_chat_uses(self)) if self.models.llm is not None else ()


@dataclass(frozen=True)
class RepairConfig(PipelineConfig):
    """How an answer is repaired (``veracity repair``, ``ask --repair``, ``/v1/repair``): the
    models by name, the evidence (``evidence.query`` is each research question: the claim, or
    a question made from it), ``tau`` the P(supported) a claim must reach, and the policy.

    A chat model is given only to a policy that uses one (``revise``, ``delete``)."""

    pipeline: ClassVar[str] = "repair"
    options: ClassVar[Mapping[str, str]] = {
        **_MODELS,
        **_EVIDENCE,
        "tau": "tau",
        **{name: f"policy.{name}" for name in _POLICY},
    }

    models: ModelsConfig = field(default_factory=ModelsConfig)
    evidence: EvidenceConfig = field(
        default_factory=lambda: EvidenceConfig(query=defaults.REPAIR_QUERY)
    )
    tau: float = defaults.VERIFY_TAU
    policy: PolicyConfig = field(default_factory=PolicyConfig)

    def __post_init__(self) -> None:
        check_range("tau", self.tau, 0.0, 1.0, "A probability, e.g. tau=0.5.")
        if self.models.llm is not None and not self.policy.uses_chat:
            raise OptionError(
                "chat",
                self.models.llm,
                f"a chat model only with a policy that uses one (not {self.policy.policy})",
                "revise and delete use one; leave --llm out with flag or refuse.",
            )


#: The layers a batch can run: the consistency layer needs a chat model per worker, which
#: verify-batch does not make.
BATCH_LAYERS = ("nli", "knowledge")


@dataclass(frozen=True)
class BatchConfig(PipelineConfig):
    """How ``veracity verify-batch`` verifies every line: as ``verify`` says (no chat model,
    no consistency layer: a worker makes none), against the index of ``verify.evidence`` or
    the source texts in each line's field ``sources_field`` (one of them). Each line's record
    carries ``verify`` as its ``config``."""

    pipeline: ClassVar[str] = "verify-batch"
    options: ClassVar[Mapping[str, str]] = {
        **{name: f"verify.{where}" for name, where in VerifyConfig.options.items()},
        "sources_field": "sources_field",
    }

    verify: VerifyConfig = field(default_factory=VerifyConfig)
    sources_field: str | None = defaults.BATCH_SOURCES_FIELD

    def __post_init__(self) -> None:
        layers = self.verify.decision.layers
        if any(name not in BATCH_LAYERS for name in layers) or self.verify.models.llm:
            raise OptionError(
                "layers",
                ",".join(layers),
                f"one or more of {', '.join(BATCH_LAYERS)} in a batch",
                "The consistency layer needs a chat model; verify those answers "
                "with `veracity verify --llm ...`.",
            )
        if (self.sources_field is None) == (self.verify.evidence.index is None):
            raise OptionError(
                "sources_field",
                self.sources_field,
                "a field name when there is no index, and None with one",
                "Verify against each line's sources or against an index.",
            )
