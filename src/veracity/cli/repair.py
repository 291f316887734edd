"""``veracity repair``: fix, cut or flag what an answer's sources do not support."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated, get_args

import typer

from veracity import defaults
from veracity.cli.application import (
    EXIT_OK,
    EXIT_PARTIAL,
    ConfigOption,
    IndexOption,
    IndexSearchOption,
    VerifierOption,
    answer_option,
    choice_list,
    command_config,
    exit_with,
    fail,
    models_of,
    more_sources,
    read_saved,
    saved_answer,
    sources_option,
)
from veracity.cli.output.repair import print_repair
from veracity.errors import InputError, VeracityError

if TYPE_CHECKING:
    from veracity.repair.result import RepairResult


def repair_exit_code(result: RepairResult) -> int:
    """1 when a model reply could not be read or a claim could not be judged, else 0."""
    return EXIT_PARTIAL if result.failures else EXIT_OK


def repair_command(
    ctx: typer.Context,
    answer: Annotated[str | None, answer_option("repair")] = None,
    sources: Annotated[list[Path] | None, sources_option("repair")] = None,
    index_dir: IndexOption = None,
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
    config_file: ConfigOption = None,
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
    from veracity.config import RepairConfig
    from veracity.repair.open import open_repairer

    try:
        saved = None if config_file is None else read_saved(config_file)
        config = command_config(
            ctx,
            RepairConfig,
            saved,
            {
                "policy": ("policy", policy),
                "query": ("query", query),
                "refuse_below": ("refuse_below", refuse_below),
                "k": ("k", k),
                "tau": ("tau", tau),
                "verifier": ("verifier", verifier),
                "llm": ("llm", llm),
                "model": ("model", model),
                "mode": ("mode", mode),
                "sources": ("sources", more_sources(sources, ctx.args, command="repair") or []),
                "index_dir": ("index", None if index_dir is None else str(index_dir)),
            },
        )
        if config.evidence.index is None and not config.evidence.sources:
            raise InputError(
                "give the sources to repair against: --sources FILE ... or "
                "--index DIR (one of them, not both)"
            )
        text, question = saved_answer(answer, question, saved, verb="repair")
        result = open_repairer(config, models_of(ctx)).run(text, question=question)
    except VeracityError as exc:
        raise fail(exc) from exc
    exit_with(result, repair_exit_code(result), print_repair, as_json=as_json)
