"""What ``veracity check`` prints: one scored (premise, claim) pair."""

from __future__ import annotations

from typing import TYPE_CHECKING

from veracity.cli.render import console, show, styled

if TYPE_CHECKING:
    from veracity.types import ScoredPair

__all__ = ["print_check"]


def print_check(pair: ScoredPair, model_id: str, model_version: str) -> None:
    """One scored pair: its label and probabilities (or its similarity), and the evidence."""
    score = pair.score
    if pair.not_checkable is not None:
        show(
            styled("not checkable", "bold yellow"),
            f"  ({pair.not_checkable}: the claim states nothing a source could support; "
            "write a claim with a subject and what it says of it)",
            out=console,
        )
        return
    if score.error is not None:
        show(
            styled("not scored", "bold red"),
            f"  {score.error}  ({model_id} {model_version})",
            out=console,
        )
    elif not pair.probabilities:
        show(
            f"similarity {score.supported:.3f}  ({model_id} {model_version}: a similarity "
            "in [0, 1], not a probability; choose a threshold on your own data)",
            out=console,
        )
    else:
        label = pair.label or score.label
        colour = {"supported": "green", "contradicted": "red"}.get(label, "yellow")
        show(
            styled(label, f"bold {colour}"),
            f"  supported {score.supported:.3f}  contradicted {score.contradicted:.3f}  "
            f"neither {score.neither:.3f}  ({model_id} {model_version})",
            out=console,
        )
    for span in score.evidence:
        show(f"evidence [{span.start}:{span.end}] {span.of(pair.premise)}", out=console, indent=2)
    for rule in pair.rules:
        where = "" if rule.evidence is None else f" [{rule.evidence.start}:{rule.evidence.end}]"
        show(
            styled(f"rule {rule.kind}:", "bold red"),
            f" the claim says {rule.text!r}, the premise{where} {rule.found!r}",
            out=console,
            indent=2,
        )
    decided = pair.decision
    if decided is not None:
        show(
            f"decision {decided.version}: supported {decided.supported:.3f}  contradicted "
            f"{decided.contradicted:.3f}  unsupported {decided.unsupported:.3f}",
            out=console,
            indent=2,
        )
        if pair.label != pair.verifier_label and pair.verifier_label != "error":
            show(
                styled(
                    f"the decision says {pair.label}, reading the rules and coverage beside "
                    f"the verifier, which alone says {pair.verifier_label}: read the premise",
                    "yellow",
                ),
                out=console,
                indent=2,
            )
