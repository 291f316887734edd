"""Batch work at scale: verify a JSONL of answers (``veracity verify-batch``) and embed a large
corpus (``veracity index --workers/--ray``) on a local pool of worker processes or on Ray Data.

The output of a batch is an append-only JSONL whose records are committed whole; a run killed
at any point and run again writes every input line exactly once (:mod:`veracity.batch.log`).

>>> from veracity.batch import LocalPool, VerifyBatch
>>> from veracity.config import BatchConfig
>>> from veracity.models import Models
>>> job = VerifyBatch(BatchConfig(), Models(), LocalPool(workers=2))         # doctest: +SKIP
>>> job.run("answers.jsonl", "reports.jsonl").counts                        # doctest: +SKIP
{'answers': 1000, 'claims': 5210, 'supported': 3987, ...}
"""

from veracity.batch.embed import ParallelEmbedder
from veracity.batch.engines import Engine, LocalPool, RayData, default_workers
from veracity.batch.items import BadLine, BatchItem, parse_line, record_key
from veracity.batch.job import BatchSummary, VerifyBatch
from veracity.batch.log import ResultLog
from veracity.batch.verify import BatchRecord, ItemVerifier, check_batch

__all__ = [
    "BadLine",
    "BatchItem",
    "BatchRecord",
    "BatchSummary",
    "Engine",
    "ItemVerifier",
    "LocalPool",
    "ParallelEmbedder",
    "RayData",
    "ResultLog",
    "VerifyBatch",
    "check_batch",
    "default_workers",
    "parse_line",
    "record_key",
]
