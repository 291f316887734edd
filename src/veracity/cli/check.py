"""``veracity check``: does a premise support a claim? One pair, or a JSONL batch."""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from veracity import defaults
from veracity.cli.application import (
    EXIT_OK,
    EXIT_PARTIAL,
    VerifierOption,
    emit_json,
    fail,
    models_of,
    read_document_or_text,
)
from veracity.cli.output.pair import print_check
from veracity.cli.render import errors, show
from veracity.errors import VeracityError

if TYPE_CHECKING:
    from veracity.models.pairs.base import PairScorer
    from veracity.verify.pairs import PairChecker


def gives_probabilities(scorer: PairScorer) -> bool:
    """Whether ``scorer``'s ``supported`` is a probability (the baselines give similarities)."""
    return bool(getattr(scorer, "scores_are_probabilities", True))


def check(
    ctx: typer.Context,
    premise: Annotated[
        str | None,
        typer.Option(
            help="premise text, or a file holding it, read as `veracity index` reads it (txt, md, "
            "html, pdf); - reads standard input"
        ),
    ] = None,
    claim: Annotated[str | None, typer.Option(help="the claim to check")] = None,
    batch: Annotated[
        Path | None,
        typer.Option(help="JSONL file of {premise, claim} rows (an `id` is passed through)"),
    ] = None,
    verifier: VerifierOption = defaults.VERIFIER,
    as_json: Annotated[bool, typer.Option("--json", help="print JSON")] = False,
) -> None:
    """Does the premise support the claim? One pair, or a JSONL batch (JSONL out)."""
    from veracity.verify.pairs import PairChecker

    try:
        checker = PairChecker(models_of(ctx).verifier(verifier)).load()
        if batch is not None:
            raise typer.Exit(check_batch(checker, batch))
        if premise is None or claim is None:
            raise VeracityError("give --premise and --claim, or --batch FILE.jsonl")
        text = read_document_or_text(premise, "--premise")
        result = checker.run([text], [claim])
    except VeracityError as exc:
        raise fail(exc) from exc
    pair = result.pairs[0]
    if as_json:
        emit_json(pair.to_dict() | {"model": result.model_id, "version": result.model_version})
        raise typer.Exit(EXIT_PARTIAL if pair.score.error else EXIT_OK)
    print_check(pair, result.model_id, result.model_version)
    if pair.score.error:
        raise typer.Exit(EXIT_PARTIAL)


def check_batch(checker: PairChecker, path: Path, chunk: int = 64) -> int:
    """Score a JSONL file of pairs to stdout as JSONL; returns the exit code."""
    from rich.progress import track

    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError) as exc:
        raise VeracityError(f"{path}: cannot read it ({exc})") from exc
    rows: list[dict[str, Any]] = []
    failed = 0
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
            if (
                not isinstance(row, dict)
                or not isinstance(row.get("premise"), str)
                or not isinstance(row.get("claim", row.get("hypothesis")), str)
            ):
                raise ValueError("need string fields premise and claim")
        except ValueError as exc:
            show(f"{path}:{number}: skipped: {exc}", out=errors)
            failed += 1
            continue
        rows.append(row)
    for first in track(range(0, len(rows), chunk), description="checking", console=errors):
        part = rows[first : first + chunk]
        claims = [str(row.get("claim", row.get("hypothesis"))) for row in part]
        result = checker.run([row["premise"] for row in part], claims)
        for row, pair in zip(part, result.pairs, strict=True):
            out = pair.to_dict()
            if "id" in row:
                out = {"id": row["id"]} | out
            failed += pair.score.error is not None
            emit_json(out, indent=None)
    return EXIT_PARTIAL if failed else EXIT_OK
