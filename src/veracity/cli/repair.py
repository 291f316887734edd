"""``veracity repair``: fix, cut or flag what an answer's sources do not support."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated, get_args

import typer

from veracity import defaults
from veracity.cli import printers
from veracity.cli.application import (
    EXIT_OK,
    EXIT_PARTIAL,
    IndexSearchOption,
    VerifierOption,
    choice_list,
    emit_json,
    evidence_sources,
    fail,
    models_of,
    more_sources,
    read_text_or_file,
)
from veracity.errors import VeracityError, check_choice

if TYPE_CHECKING:
    from veracity.repair.result import RepairResult


def repair_exit_code(result: RepairResult) -> int:
    """1 when a model reply could not be read or a claim could not be judged, else 0."""
    return EXIT_PARTIAL if result.failures else EXIT_OK


def repair_command(
    ctx: typer.Context,
    answer: Annotated[
        str,
        typer.Option(help="the answer to repair: a file, the text itself, or - for standard input"),
    ],
    sources: Annotated[
        list[Path] | None,
        typer.Option(
            "--sources",
            help="source files or folders to repair against (txt, md, html, pdf, "
            "jsonl): --sources A B C, or --sources A --sources B",
        ),
    ] = None,
    index_dir: Annotated[
        Path | None, typer.Option("--index", help="index folder to retrieve evidence from")
    ] = None,
    question: Annotated[str | None, typer.Option(help="the question the answer replies to")] = None,
    policy: Annotated[
        str,
        typer.Option(
            help=f"{choice_list(get_args(defaults.Policy))} (revise fixes values and, with "
            "--llm, edits)"
        ),
    ] = defaults.REPAIR_POLICY,
    query: Annotated[
        str,
        typer.Option(
            help=f"research query per claim: {choice_list(get_args(defaults.QueryMode))} "
            "(question: made from the claim)"
        ),
    ] = defaults.REPAIR_QUERY,
    refuse_below: Annotated[
        float,
        typer.Option(
            help="--policy refuse: withdraw the answer below this share of supported claims"
        ),
    ] = defaults.REPAIR_REFUSE_BELOW,
    llm: Annotated[
        str | None,
        typer.Option(
            help="chat model for the research questions and the edits: llamacpp[:PATH] or "
            "openai:URL (without it only values are substituted)"
        ),
    ] = None,
    model: Annotated[str | None, typer.Option(help="model name (openai)")] = None,
    verifier: VerifierOption = defaults.VERIFIER,
    mode: IndexSearchOption = defaults.SEARCH_MODE,
    k: Annotated[int, typer.Option("-k", help="passages per query")] = defaults.VERIFY_TOP_K,
    tau: Annotated[
        float, typer.Option(help="P(supported) a claim must reach")
    ] = defaults.VERIFY_TAU,
    as_json: Annotated[bool, typer.Option("--json", help="print JSON")] = False,
) -> None:
    """Repair an answer so that its sources support it, changing as little as possible.

    Prints the answer with what was removed and added, each claim's fate (kept, revised,
    deleted, flagged, rejected edit, failed model reply, refused) with the evidence, and the
    attribution before and after. An answer with nothing to repair is returned unchanged, and
    the original is always in --json. Exit 0 when done; 1 when a model reply could not be read
    or a claim could not be judged (those claims are left as they are); 2 on bad options or
    unreadable input.
    """
    from veracity.repair.pipeline import check_policy, make_repairer
    from veracity.verify.questions import QUERY_MODES

    try:
        chosen_policy = check_policy(policy)
        query_mode = check_choice("query", query, QUERY_MODES)
        sources = more_sources(sources, ctx.args, command="repair")
        retriever, chunks = evidence_sources(sources, index_dir, mode=mode, command="repair")
        text = read_text_or_file(answer, "--answer")
        scorer = models_of(ctx).verifier(verifier)
        chat = None if llm is None else models_of(ctx).chat(llm, model, scorer)
        repairer = make_repairer(
            scorer,
            retriever=retriever,
            sources=chunks,
            policy=chosen_policy,
            chat=chat,
            query=query_mode,
            k=k,
            tau=tau,
            refuse_below=refuse_below,
        )
        result = repairer.run(text, question=question)
    except VeracityError as exc:
        raise fail(exc) from exc
    code = repair_exit_code(result)
    if as_json:
        emit_json(result.to_dict() | {"exit_code": code})
        raise typer.Exit(code)
    printers.print_repair(result)
    raise typer.Exit(code)
