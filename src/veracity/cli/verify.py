"""``veracity verify``: check an answer claim by claim against sources or an index."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, get_args

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
from veracity.cli.output.report import print_report
from veracity.errors import InputError, VeracityError


def verify_command(
    ctx: typer.Context,
    answer: Annotated[str | None, answer_option("check")] = None,
    sources: Annotated[list[Path] | None, sources_option("check")] = None,
    index_dir: IndexOption = None,
    question: Annotated[
        str | None,
        typer.Option(help="the question the answer replies to (needed by the consistency layer)"),
    ] = None,
    layers: Annotated[
        str, typer.Option(help=f"comma-separated: {', '.join(get_args(defaults.Layer))}")
    ] = ",".join(defaults.VERIFY_LAYERS),
    rule: Annotated[
        str, typer.Option(help=f"combination: {choice_list(get_args(defaults.Rule))}")
    ] = defaults.VERIFY_RULE,
    weights: Annotated[
        Path | None, typer.Option(help="fitted layer weights (JSON) for --rule logistic")
    ] = None,
    query: Annotated[
        str,
        typer.Option(
            help=f"retrieval query per claim: {choice_list(get_args(defaults.QueryMode))} "
            "(question: made from the claim)"
        ),
    ] = "claim",
    knowledge_base: Annotated[
        Path | None,
        typer.Option("--kb", help="CSV or JSON of entity, attribute, value to cross-check"),
    ] = None,
    llm: Annotated[
        str | None,
        typer.Option(
            help="chat model for the consistency layer, --llm-claims and --query question: "
            "llamacpp[:PATH] or openai:URL"
        ),
    ] = None,
    model: Annotated[str | None, typer.Option(help="model name (openai)")] = None,
    samples: Annotated[
        int, typer.Option(help="consistency: sampled answers")
    ] = defaults.CONSISTENCY_SAMPLES,
    temperature: Annotated[
        float, typer.Option(help="consistency: sampling temperature")
    ] = defaults.CONSISTENCY_TEMPERATURE,
    llm_claims: Annotated[
        bool, typer.Option(help="decompose and decontextualize with --llm instead of rules")
    ] = False,
    verifier: VerifierOption = defaults.VERIFIER,
    mode: IndexSearchOption = defaults.SEARCH_MODE,
    k: Annotated[int, typer.Option("-k", help="passages per claim")] = defaults.VERIFY_TOP_K,
    tau: Annotated[
        float, typer.Option(help="P(supported) a claim must reach")
    ] = defaults.VERIFY_TAU,
    window: Annotated[
        str,
        typer.Option(
            help="what the verifier reads per claim: "
            f"{choice_list(get_args(defaults.EvidenceWindow))}"
            " (passage: each passage on its own; focused: on its own each passage whose best "
            "sentences say the claim's words, fewer pairs; claim: one window of the claim's best "
            "sentences across its passages, about k times fewer pairs, but no claim both cited "
            "and anti-cited)"
        ),
    ] = defaults.NLI_WINDOW,
    spans: Annotated[
        str | None,
        typer.Option(
            help="token-level span detector, hf:<model id or folder>[@label] (extra [hf]): each "
            "claim's characters its passages do not support, as unsupported_spans in --json "
            "(offsets into the answer) and listed under each claim in the terminal"
        ),
    ] = None,
    config_file: ConfigOption = None,
    as_json: Annotated[bool, typer.Option("--json", help="print JSON")] = False,
) -> None:
    """Check an answer claim by claim against source files or an index.

    Prints the answer with contradicted (red) and unsupported (yellow) claims highlighted, each
    claim's verdict with the layers' findings, the passages that support or contradict it, and
    a summary; a claim that no layer could judge (the knowledge layer alone on a claim without
    numbers or names) is shown as unchecked, never as supported. Exit 0 when no layer failed
    (whatever the verdicts); 1 when some claims could not be judged because a layer failed; 2
    on bad options or unreadable input.
    """
    from veracity.config import VerifyConfig
    from veracity.verify.open import open_answer_verifier

    try:
        saved = None if config_file is None else read_saved(config_file)
        evidence = more_sources(sources, ctx.args, command="verify") or []
        config = command_config(
            ctx,
            VerifyConfig,
            saved,
            {
                "layers": ("layers", layers),
                "rule": ("rule", rule),
                "weights": ("weights", weights),
                "knowledge_base": ("knowledge_base", knowledge_base),
                "llm_claims": ("claims", "llm" if llm_claims else "rules"),
                "query": ("query", query),
                "k": ("k", k),
                "tau": ("tau", tau),
                "window": ("window", window),
                "samples": ("samples", samples),
                "temperature": ("temperature", temperature),
                "verifier": ("verifier", verifier),
                "llm": ("llm", llm),
                "model": ("model", model),
                "spans": ("spans", spans),
                "mode": ("mode", mode),
                "sources": ("sources", evidence),
                "index_dir": ("index", None if index_dir is None else str(index_dir)),
            },
        )
        if config.evidence.index is None and not config.evidence.sources:
            raise InputError(
                "give the sources to verify against: --sources FILE ... or "
                "--index DIR (one of them, not both)"
            )
        text, question = saved_answer(answer, question, saved, verb="check")
        report = open_answer_verifier(config, models_of(ctx)).run(text, question=question)
    except VeracityError as exc:
        raise fail(exc) from exc
    code = EXIT_PARTIAL if report.failures else EXIT_OK
    exit_with(report, code, print_report, as_json=as_json)
