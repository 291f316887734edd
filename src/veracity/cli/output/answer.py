"""What ``veracity ask`` and ``veracity evolve`` print: a grounded answer, each sentence marked
by its citation check, and the sources it rests on."""

from __future__ import annotations

from typing import TYPE_CHECKING

from veracity.cli.render import Part, console, show, styled

if TYPE_CHECKING:
    from veracity.types import Answer

__all__ = ["print_answer"]


_MARKS = {
    "supported": ("✓", "green", "supported by its citation"),
    "contradicted": ("≠", "red", "contradicted by its citation"),
    "unsupported": ("✗", "red", "unsupported"),
    "invalid_citation": ("!", "red", "invalid citation"),
    "citation_attached": ("+", "cyan", "citation attached"),
    "uncited": ("?", "yellow", "uncited"),
    "not_factual": ("·", "dim", "not factual"),
    "error": ("⚠", "red", "not verified"),
}


def print_answer(answer: Answer) -> None:
    def line(*parts: Part, indent: int = 0, hang: int | None = None) -> None:
        show(*parts, out=console, indent=indent, hang=hang, wrap=True)

    if answer.abstained and answer.abstention is not None:
        check = answer.abstention
        line(
            styled(answer.text, "bold"),
            "  ",
            styled(
                f"(abstained without asking the model: {check.reason}; {check.source})", "yellow"
            ),
        )
        return
    line(answer.text)
    if answer.truncated and answer.provenance is not None:
        limit = answer.provenance.max_tokens
        line(
            styled(
                f"the answer was cut: the model stopped at its limit of "
                f"{limit if limit is not None else 'its'} tokens (finish reason length), so "
                "its end may be missing and a sentence may repeat",
                "bold yellow",
            )
        )
    if answer.abstention is not None:
        check = answer.abstention
        console.print()
        line(
            styled("relevance: ", "bold"),
            styled(
                f"{check.reason}; threshold: {check.source}. A ✓ below means the cited passage "
                "supports the sentence, not that it answers the question.",
                "dim",
            ),
        )
    if answer.refused and answer.refusal is not None:
        console.print()
        line(
            styled(
                f"the model declined to answer (matched {answer.refusal.text!r}, "
                f"{answer.refusal.pattern})",
                "yellow",
            )
        )
    if answer.sentences:
        console.print()
        line(styled("sentences", "bold"))
    for sentence in answer.sentences:
        mark, colour, label = _MARKS[sentence.status]
        cited = "".join(f"[{c.marker}]" for c in sentence.citations)
        detail = [label]
        if sentence.support is not None:
            detail.append(f"{sentence.support:.2f}")
        if cited:
            detail.append(
                ("attached " if any(c.attached for c in sentence.citations) else "") + cited
            )
        detail += [f"[{item.marker}] {item.reason}" for item in sentence.invalid]
        line(styled(mark, colour), f" {sentence.claim}", indent=2, hang=4)
        line(styled(" · ".join(detail), colour), indent=4)
        if sentence.failure:
            line(styled(sentence.failure, "red"), indent=4)
        if sentence.note:
            line(styled(sentence.note, "dim"), indent=4)
    if answer.sources:
        console.print()
        line(styled("sources", "bold"))
    cited_blocks = {c.marker for c in answer.citations}
    for number, hit in enumerate(answer.sources, start=1):
        chunk = hit.chunk
        where = " > ".join(chunk.section) or "—"
        page = (
            ""
            if chunk.page is None
            else f"  page {chunk.page}"
            + (f"-{chunk.page_end}" if chunk.page_end not in (None, chunk.page) else "")
        )
        used = "" if number in cited_blocks else styled("  (not cited)", "dim")
        line(
            styled(f"[{number}]", "bold cyan"),
            " ",
            styled(chunk.doc_id, "bold"),
            f"  {chunk.title}",
            used,
            indent=2,
            hang=6,
        )
        line(f"section: {where}{page}  chars {chunk.start}-{chunk.end}", indent=6)
        if number in cited_blocks:  # the passages an answer rests on are quoted in full
            line(f"“{chunk.text.strip()}”", indent=6)
    if answer.provenance is not None:
        p, t = answer.provenance, answer.timings
        console.print()
        # A text no prompt wrote (an evolved answer that is still a seed passage) has no
        # prompt, temperature or seed to show.
        made = ([f"prompt {p.prompt}", f"temperature {p.temperature:g}"] if p.prompt_id else []) + (
            [] if p.seed is None else [f"seed {p.seed}"]
        )
        line(
            styled(
                " · ".join(
                    [
                        p.model,
                        *made,
                        f"verifier {p.verifier} (tau {p.tau:g})",
                        f"retrieve {t.retrieve:.2f}s, generate {t.generate:.2f}s, "
                        f"verify {t.verify:.2f}s",
                    ]
                ),
                "dim",
            )
        )
