"""What the training commands print: where a run stands, what an export wrote.

Every line goes through :mod:`veracity.cli.render`, as the ``veracity`` command's own output does.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

from veracity.cli.render import console, show

if TYPE_CHECKING:
    from veracity_training.config import TrainReport
    from veracity_training.embedder import EmbedderExport
    from veracity_training.release import ReleaseReport
    from veracity_training.rerank_release import RerankerRelease
    from veracity_training.static_embedder import StaticDistillation

__all__ = [
    "print_embedder_export",
    "print_reranker_export",
    "print_static_distillation",
    "print_training",
    "print_verifier_export",
]


def print_training(report: TrainReport) -> None:
    """Where a training run stands, and its last three evaluations."""
    state = "finished" if report.finished else "stopped (run again to resume)"
    show(
        f"{state} at step {report.step}/{report.steps}; checkpoint {report.checkpoint}", out=console
    )
    for evaluation in report.evaluations[-3:]:
        show(json.dumps(evaluation, ensure_ascii=False), out=console)


def print_verifier_export(report: ReleaseReport) -> None:
    show(f"wrote {report.directory} ({report.model_bytes / 1e6:.1f} MB)", out=console)
    for name, value in report.validation.items():
        show(f"{name}: {value:.4f}", out=console, indent=2)


def print_reranker_export(report: RerankerRelease) -> None:
    figures = ", ".join(f"{name} {value:.4f}" for name, value in report.validation.items())
    show(
        f"wrote {report.directory} ({report.model_bytes / 1e6:.1f} MB); largest P(relevant) "
        f"difference to fp32 {report.max_abs_difference:.4f}; validation: {figures}",
        out=console,
        wrap=True,
    )


def print_embedder_export(report: EmbedderExport) -> None:
    show(
        f"wrote {report.directory} ({report.model_bytes / 1e6:.1f} MB) in "
        f"{report.seconds:.0f} s; lowest cosine to the old embedder {report.min_cosine:.4f}",
        out=console,
    )


def print_static_distillation(report: StaticDistillation) -> None:
    show(
        f"wrote {report.directory} ({report.model_bytes / 1e6:.1f} MB: {report.vocabulary} word "
        f"pieces x {report.dimension} dimensions) in {report.seconds:.0f} s",
        out=console,
    )
