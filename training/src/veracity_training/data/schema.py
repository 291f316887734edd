"""The row every builder step produces, and the label vocabulary."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final, Literal

__all__ = ["LABELS", "DataLabel", "Row"]

DataLabel = Literal["supported", "contradicted", "neither", "not_supported"]
#: ``not_supported`` is for sources that do not say whether "not supported" means contradicted or
#: missing information; the trainer uses P(contradicted) + P(neither) as its target.
LABELS: Final[tuple[DataLabel, ...]] = ("supported", "contradicted", "neither", "not_supported")


@dataclass(frozen=True, slots=True)
class Row:
    """One training pair.

    ``group`` names the source document or paragraph the premise comes from; rows that share a
    group (or a premise) always land in the same split. It is not written to the output.
    """

    id: str
    premise: str
    hypothesis: str
    label: DataLabel
    source: str
    kind: str
    group: str

    def to_json(self) -> dict[str, str]:
        return {
            "id": self.id,
            "premise": self.premise,
            "hypothesis": self.hypothesis,
            "label": self.label,
            "source": self.source,
            "kind": self.kind,
        }
