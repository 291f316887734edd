"""Configs: one saveable, self-checking config per pipeline (see docs/architecture.md).

Every pipeline is built by its ``open_*`` from one of these and the models, and its output
carries the config that made it (``config`` in ``--json`` output and the API), so that a run
can be reproduced from its output: ``veracity verify --config report.json``.

>>> VerifyConfig().to_dict()["format"], VerifyConfig().to_dict()["pipeline"]
(1, 'verify')
"""

from veracity.config.base import FORMAT, Config, PipelineConfig, check_range
from veracity.config.parts import (
    CLAIM_METHODS,
    AbstainConfig,
    CheckingConfig,
    ClaimMethod,
    ClaimsConfig,
    DecisionConfig,
    EvidenceConfig,
    GeneticConfig,
    ModelsConfig,
    PolicyConfig,
    check_layers,
)
from veracity.config.pipelines import (
    BATCH_LAYERS,
    EVOLVE_FITNESSES,
    AskConfig,
    BatchConfig,
    EvolveConfig,
    RepairConfig,
    SearchConfig,
    VerifyConfig,
)

__all__ = [
    "BATCH_LAYERS",
    "CLAIM_METHODS",
    "EVOLVE_FITNESSES",
    "FORMAT",
    "AbstainConfig",
    "AskConfig",
    "BatchConfig",
    "CheckingConfig",
    "ClaimMethod",
    "ClaimsConfig",
    "Config",
    "DecisionConfig",
    "EvidenceConfig",
    "EvolveConfig",
    "GeneticConfig",
    "ModelsConfig",
    "PipelineConfig",
    "PolicyConfig",
    "RepairConfig",
    "SearchConfig",
    "VerifyConfig",
    "check_layers",
    "check_range",
]
