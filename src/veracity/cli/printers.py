"""What the commands print on the terminal (``--json`` prints ``to_dict()`` instead).

Every line goes through :mod:`veracity.cli.render`, so document text, titles, paths and
messages are shown as written, never read as markup.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from veracity.cli.render import Part, console, errors, show, styled

if TYPE_CHECKING:
    from rich.console import Console

    from veracity.corpus.indexer import IndexReport
    from veracity.generate.calibration import StoredCalibration
    from veracity.repair.result import RepairResult
    from veracity.types import Answer, EvidenceJudgement, Report, ScoredPair, SearchResult

__all__ = [
    "print_answer",
    "print_calibration",
    "print_check",
    "print_index",
    "print_repair",
    "print_report",
    "print_search",
]


def print_index(report: IndexReport) -> None:
    """The summary line of an indexing run, and each failure (on standard error)."""
    show(
        f"indexed {report.files_indexed} file(s), {report.files_unchanged} unchanged, "
        f"{report.files_removed} removed, {_failed_summary(report)}: {report.documents} "
        f"documents, {report.chunks} chunks in {report.index} ({report.generation})",
        out=console,
    )
    dense = report.builders.get("dense", {})
    truncated = dense.get("truncated", 0)
    if isinstance(truncated, int) and truncated:
        window = dense.get("max_tokens", "its")
        show(
            styled("note:", "yellow"),
            f" {truncated} of {report.chunks} chunks are longer than "
            f"the dense model's window of {window} tokens, so their vectors stand for their "
            "beginning only (BM25 reads them whole); a smaller --chunk-tokens avoids it",
            out=console,
            wrap=True,
        )
    for failure in report.failures:  # the message starts with the path
        show(styled("skipped", "yellow"), f" {failure.message}", out=errors)


def _failed_summary(report: IndexReport) -> str:
    """``"2 failed (1 file, 1 line)"``: every failure the exit code counts, by kind."""
    kinds = [
        (report.files_failed, "file"),
        (report.lines_failed, "line"),
        (report.paths_failed, "path"),
    ]
    parts = [f"{count} {kind}{'' if count == 1 else 's'}" for count, kind in kinds if count]
    total = sum(count for count, _ in kinds)
    return f"{total} failed" + (f" ({', '.join(parts)})" if parts else "")


def print_search(result: SearchResult) -> None:
    """The hits of a search, each with its document, section, page and character span."""
    confidence = result.confidence.to_dict()
    for note in result.notes:
        show(styled(note, "dim"), out=errors)
    show(
        styled(result.query, "bold"),
        f"  ({result.mode}; "
        + ", ".join(
            f"{name} {value:.3f}" for name, value in confidence.items() if value is not None
        )
        + ")",
        out=console,
    )
    if not result.hits:
        show("no passage matched", out=console)
    for hit in result.hits:
        chunk = hit.chunk
        where = " > ".join(chunk.section) or "—"
        page = (
            ""
            if chunk.page is None
            else f"  page {chunk.page}"
            + (f"-{chunk.page_end}" if chunk.page_end not in (None, chunk.page) else "")
        )
        show(
            "\n",
            styled(f"{hit.rank}.", "bold cyan"),
            " ",
            styled(chunk.doc_id, "bold"),
            f"  {chunk.title}",
            out=console,
        )
        reranked = ""
        if "rerank" in hit.scores:
            reranked = (
                f"  relevance {hit.scores['rerank']:.3f} (first stage "
                f"#{hit.scores['first_stage_rank']:.0f})"
            )
        show(
            f"section: {where}{page}  chars {chunk.start}-{chunk.end}  score {hit.score:.4f}"
            f"{reranked}",
            out=console,
            indent=3,
        )
        show(chunk.text, out=console, indent=3)


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


_VERDICT_STYLE = {
    "contradicted": "bold white on red",
    "unsupported": "black on yellow",
    "error": "underline red",
    "unchecked": "underline cyan",
    "supported": "",
}


_VERDICT_MARK = {
    "supported": ("✓", "green"),
    "contradicted": ("✗", "red"),
    "unsupported": ("?", "yellow"),
    "unchecked": ("○", "cyan"),
    "error": ("⚠", "red"),
}


def _highlighted(report: Report) -> Any:
    """The answer with contradicted, unsupported, failed and unchecked claims highlighted
    (worst label wins)."""
    from rich.text import Text

    rank = {"supported": 0, "unchecked": 1, "error": 2, "unsupported": 3, "contradicted": 4}
    worst = [0] * len(report.answer)
    for verdict in report.verdicts:
        for position in range(verdict.claim.span.start, verdict.claim.span.end):
            worst[position] = max(worst[position], rank[verdict.label])
    names = {value: key for key, value in rank.items()}
    text = Text()
    start = 0
    for position in range(1, len(worst) + 1):
        if position == len(worst) or worst[position] != worst[start]:
            text.append(report.answer[start:position], style=_VERDICT_STYLE[names[worst[start]]])
            start = position
    return text


def _quote(judgement: EvidenceJudgement) -> str:
    parts = [
        judgement.text[s.start - judgement.start : s.end - judgement.start]
        for s in judgement.evidence
    ] or [judgement.text]
    return " … ".join(" ".join(part.split()) for part in parts)


def print_report(report: Report) -> None:
    def line(*parts: Part, indent: int = 0, out: Console = console) -> None:
        show(*parts, out=out, indent=indent)

    console.print(_highlighted(report))
    console.print()
    line(styled("claims", "bold"))
    for verdict in report.verdicts:
        mark, colour = _VERDICT_MARK[verdict.label]
        claim = verdict.claim
        line(
            styled(f"{mark} {verdict.label}", colour),
            f"  {claim.text}  ",
            styled(f"(chars {claim.span.start}-{claim.span.end})", "dim"),
            indent=2,
        )
        if verdict.contested:
            line(
                styled(
                    "the sources conflict: some passages support this claim and others "
                    "contradict it",
                    "magenta",
                ),
                indent=6,
            )
        for edit in claim.edits:
            line(styled(edit, "dim"), indent=6)
        if verdict.unsupported_spans:
            line(
                styled("not supported by its passages:", "yellow"),
                " "
                + ", ".join(
                    f"{found.text!r} (chars {found.span.start}-{found.span.end})"
                    for found in verdict.unsupported_spans
                ),
                indent=6,
            )
        for layer in verdict.layers:
            flag = styled("flags", "red") if layer.flagged else styled("clears", "green")
            detail = layer.detail
            if layer.error is not None:
                flag, detail = styled("failed", "red"), layer.error
            elif layer.label == "unchecked":
                flag = styled("abstains:", "cyan")
            line(f"{layer.layer}: ", flag, f" {detail}", indent=6)
        for title, items in (
            ("evidence", verdict.citations[:2]),
            ("contradicted by", verdict.anti_citations[:2]),
        ):
            for item in items:
                _evidence_line(title, item, 6)
        for value in verdict.values:
            if value.status != "match":
                found = f", evidence says {value.found!r}" if value.found else ""
                where = ""
                if value.evidence is not None:
                    where = f" ({value.doc_id}, chars {value.evidence.start}-{value.evidence.end})"
                line(
                    styled(
                        f"{value.kind} {value.text!r}: {value.status}{found}{where}",
                        "red" if value.status == "mismatch" else "yellow",
                    ),
                    indent=6,
                )
    for skipped in report.skipped:
        why = "skipped" if skipped.checkable else "not checkable"
        line(styled(f"· {why} ({skipped.reason}): {skipped.text}", "dim"), indent=2)
    summary = report.summary
    console.print()
    line(
        styled(f"{summary['claims']} claims:", "bold"),
        f" {summary['supported']} supported, "
        f"{summary['contradicted']} contradicted, {summary['unsupported']} unsupported, "
        f"{summary['unchecked']} unchecked, {summary['skipped']} sentences skipped, "
        f"{summary['failed']} failed; "
        f"{summary['contested']} with conflicting sources",
    )
    for warning in report.warnings:
        line(styled("warning:", "yellow"), f" {warning}", out=errors)
    timing = ", ".join(f"{stage} {seconds:.2f}s" for stage, seconds in report.timings.items())
    line(
        styled(
            f"layers {','.join(report.layers)} · rule {report.rule} · query "
            f"{report.query_mode} · claims {report.claims_method} · verifier "
            f"{report.verifier} · {timing}",
            "dim",
        )
    )


_ACTION_MARK = {
    "kept": ("✓", "green"),
    "revised": ("✎", "cyan"),
    "deleted": ("✗", "red"),
    "flagged": ("?", "yellow"),
    "rejected": ("!", "yellow"),
    "failed": ("⚠", "red"),
    "refused": ("∅", "red"),
}


def _diff(result: RepairResult) -> Any:
    """The original answer with what the repair removed as ``[-...-]`` (struck through, red)
    and what it added as ``{+...+}`` (green), readable without colours too."""
    from rich.text import Text

    text = Text()
    cursor = 0
    for edit in result.edits:
        text.append(result.original[cursor : edit.original.start])
        if edit.before:
            text.append(f"[-{edit.before}-]", style="strike red")
        if edit.after:
            text.append(f"{{+{edit.after}+}}", style="bold green")
        cursor = edit.original.end
    text.append(result.original[cursor:])
    return text


def _evidence_line(title: str, item: EvidenceJudgement, indent: int) -> None:
    """A passage's document, section, page, span and scores, then its quoted evidence."""
    where = " > ".join(item.section)
    page = (
        ""
        if item.page is None
        else f", page {item.page}"
        + (f"-{item.page_end}" if item.page_end not in (None, item.page) else "")
    )
    show(
        styled(title, "bold"),
        f" {item.doc_id}{' · ' + where if where else ''}{page}, chars "
        f"{item.start}-{item.end} (supported {item.supported:.2f}, contradicted "
        f"{item.contradicted:.2f})",
        out=console,
        indent=indent,
    )
    show(f"“{_quote(item)}”", out=console, indent=indent + 2)


def print_repair(result: RepairResult) -> None:
    """The diff, what happened to each claim and on what evidence, and the summary."""

    def line(*parts: Part, indent: int = 0, out: Console = console) -> None:
        show(*parts, out=out, indent=indent)

    console.print(_diff(result))
    console.print()
    line(styled("claims", "bold"))
    for item in result.claims:
        mark, colour = _ACTION_MARK[item.action]
        claim = item.claim
        line(
            styled(f"{mark} {item.action}", colour),
            f"  {claim.text}  ",
            styled(f"({item.label}; chars {claim.span.start}-{claim.span.end})", "dim"),
            indent=2,
        )
        if (item.reason and item.action != "kept") or item.agreement != "agrees":
            line(styled(item.reason, colour if item.action != "kept" else "dim"), indent=6)
        if item.edit is None and item.proposed is not None:
            line(styled("proposed: ", "bold"), item.proposed, indent=6)
        if item.failure is not None:
            line(styled(item.failure, "red"), indent=6)
        if item.action in ("kept", "revised", "deleted", "refused"):
            continue
        for question in item.questions:
            line(styled("searched: ", "dim"), question, indent=6)
        for title, passages in (
            ("supported by", item.supporting[:2]),
            ("contradicted by", item.contradicting[:2]),
        ):
            for passage in passages:
                _evidence_line(title, passage, 6)
    if result.edits:
        console.print()
        line(styled("edits", "bold"))
    for edit in result.edits:
        line(
            styled(edit.kind, "cyan"),
            f"  {edit.before!r} -> {edit.after!r}  ",
            styled(
                f"(chars {edit.original.start}-{edit.original.end} -> "
                f"{edit.new.start}-{edit.new.end}; {edit.method})",
                "dim",
            ),
            indent=2,
        )
        for passage in edit.evidence[:1]:
            _evidence_line("evidence", passage, 6)
    console.print()
    for note in result.notes:
        line(styled(note, "yellow"))
    before, after = result.attribution_before, result.attribution_after
    shown = (
        "refused"
        if result.refused
        else (f"{after.supported}/{after.claims}" if after.claims else "no claims left")
    )
    line(
        styled("attribution", "bold"),
        f" {before.supported}/{before.claims} claims supported "
        f"before, {shown} after · preservation {result.preservation.chars:.3f} (characters), "
        f"{result.preservation.words:.3f} (words) · {len(result.edits)} edit(s)",
    )
    for passage in result.attribution:
        line(
            styled("attributed to", "dim"),
            f" {passage.doc_id}, chars {passage.start}-{passage.end}",
            indent=2,
        )
    timing = ", ".join(f"{stage} {seconds:.2f}s" for stage, seconds in result.timings.items())
    calls = ", ".join(f"{name} {count}" for name, count in result.calls.items())
    line(
        styled(
            f"policy {result.policy} · query {result.query_mode} · verifier "
            f"{result.before.verifier} · {calls} · {timing}",
            "dim",
        )
    )
