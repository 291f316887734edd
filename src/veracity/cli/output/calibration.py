"""What ``veracity calibrate`` prints: the abstention threshold chosen and its curve."""

from __future__ import annotations

from typing import TYPE_CHECKING

from veracity.cli.render import console, show

if TYPE_CHECKING:
    from veracity.retrieve.calibration import StoredCalibration

__all__ = ["print_calibration"]


def print_calibration(stored: StoredCalibration) -> None:
    from rich.table import Table

    c = stored.calibration
    show(
        f"abstain when {c.signal} < {c.threshold:.4g}: precision {c.precision:.3f}, recall "
        f"{c.recall:.3f}, F1 {c.f1:.3f}; {c.answered} of {c.answerable} answerable questions "
        f"still answered, {c.abstained} abstentions ({c.unanswerable} unanswerable, "
        f"{c.failed} failed)\nsaved to {stored.path} (generation {stored.generation}, "
        f"mode {stored.mode}, k {stored.k})",
        out=console,
    )
    table = Table("threshold", "precision", "recall", "F1", "abstained", "answered")
    step = max(1, -(-len(c.curve) // 10))  # about ten rows, and the chosen one
    for position, point in enumerate(c.curve):
        if point.threshold != c.threshold and position % step:
            continue
        style = "bold green" if point.threshold == c.threshold else None
        table.add_row(
            f"{point.threshold:.4g}",
            f"{point.precision:.3f}",
            f"{point.recall:.3f}",
            f"{point.f1:.3f}",
            str(point.abstained),
            str(point.answered),
            style=style,
        )
    console.print(table)
