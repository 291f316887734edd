"""``veracity ask`` (a grounded answer with checked citations, or "I don't know") and
``veracity calibrate`` (the abstention threshold of an index)."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path
from typing import Annotated, get_args

import typer

from veracity import defaults
from veracity.cli.application import (
    EXIT_OK,
    EXIT_PARTIAL,
    ConfigOption,
    VerifierOption,
    choice_list,
    command_config,
    emit_json,
    fail,
    models_of,
    read_saved,
)
from veracity.cli.output.answer import print_answer
from veracity.cli.output.calibration import print_calibration
from veracity.cli.output.repair import print_repair
from veracity.cli.render import console, errors, show, styled
from veracity.cli.search import DEPTH_HELP, RERANK_HELP, RERANKER_HELP, search_options
from veracity.errors import InputError, VeracityError


def ask(
    ctx: typer.Context,
    question: Annotated[str, typer.Argument(help="the question")],
    index_dir: Annotated[
        Path | None, typer.Option("--index", help="index folder (or from --config)")
    ] = None,
    llm: Annotated[
        str, typer.Option(help="extractive, llamacpp[:PATH] or openai:URL")
    ] = defaults.CHAT_BACKEND,
    model: Annotated[str | None, typer.Option(help="model name (openai)")] = None,
    verifier: VerifierOption = defaults.VERIFIER,
    mode: Annotated[
        str, typer.Option(help=choice_list(defaults.SEARCH_MODES))
    ] = defaults.SEARCH_MODE,
    k: Annotated[int, typer.Option("-k", help="passages given to the model")] = defaults.TOP_K,
    tau: Annotated[
        float, typer.Option(help="P(supported) a citation must reach")
    ] = defaults.CITATION_TAU,
    knowledge: Annotated[
        bool,
        typer.Option(
            help="let the knowledge rules (numbers, names, negation, scope, roles) "
            "weigh in each sentence's verdict"
        ),
    ] = True,
    abstain: Annotated[
        bool,
        typer.Option(
            help="abstain below the index's calibration, else the shipped default (or --threshold)"
        ),
    ] = True,
    signal: Annotated[
        str | None,
        typer.Option(
            help=f"confidence signal for --threshold: {choice_list(get_args(defaults.Signal))}"
        ),
    ] = None,
    threshold: Annotated[
        float | None,
        typer.Option(help="abstain below this signal value instead of the calibrated one"),
    ] = None,
    rerank: Annotated[bool, typer.Option("--rerank", help=RERANK_HELP)] = False,
    reranker: Annotated[str, typer.Option(help=RERANKER_HELP)] = defaults.RERANKER,
    rerank_depth: Annotated[int | None, typer.Option(help=DEPTH_HELP)] = None,
    repair: Annotated[
        bool,
        typer.Option(
            "--repair", help="repair the answer against the index afterwards (see veracity repair)"
        ),
    ] = False,
    policy: Annotated[
        str, typer.Option(help=f"--repair: {choice_list(get_args(defaults.Policy))}")
    ] = defaults.REPAIR_POLICY,
    config_file: ConfigOption = None,
    as_json: Annotated[bool, typer.Option("--json", help="print JSON")] = False,
) -> None:
    """Answer from the index with checked [n] citations, or say "I don't know".

    The model is not asked when retrieval confidence is below the index's calibrated threshold,
    or, for an index never calibrated (or whose content changed since), below the shipped
    default, which the answer names. Every sentence is marked by whether the passage it cites
    supports it (whether it answers the question is the separate relevance line): ✓ supported,
    ≠ contradicted by its citation, ✗ unsupported, ! invalid citation, + citation attached by
    the verifier, ? uncited, · not factual. With --repair the answer is then repaired against
    the index, its citations as evidence (an answer that abstained or declined has nothing to
    repair). Exit 0 when answered, abstained or refused; 1 when the verifier failed on some
    sentence (or a repair edit's model reply could not be read); 2 on bad options or a missing
    index.
    """
    from veracity.config import AskConfig, RepairConfig
    from veracity.generate.grounded import GroundedGenerator
    from veracity.generate.open import open_asker

    notes: list[str] = []
    try:
        saved = None if config_file is None else read_saved(config_file)
        searched = search_options(
            index_dir=index_dir,
            mode=mode,
            k=k,
            rerank=rerank,
            reranker=reranker,
            rerank_depth=rerank_depth,
        )
        config = command_config(
            ctx,
            AskConfig,
            saved,
            searched
            | {
                "tau": ("tau", tau),
                "knowledge": ("knowledge", knowledge),
                "llm": ("llm", llm),
                "model": ("model", model),
                "verifier": ("verifier", verifier),
                "abstain": ("abstain", abstain),
                "signal": ("signal", signal),
                "threshold": ("threshold", threshold),
            },
        )
        if config.evidence.index is None:
            raise InputError("give the index to answer from: --index DIR (or --config FILE)")
        # checked before anything runs, though only --repair reads it
        fixing = RepairConfig().with_options(
            policy=policy, k=config.evidence.k, verifier=config.models.verifier
        )
        models = models_of(ctx)
        scorer = models.verifier(config.models.verifier)
        # the repair below reads with the same verifier
        models = dataclasses.replace(models, verifier=lambda _name: scorer)
        asker = open_asker(config, models)
        notes.extend(asker.notes)
        answer = asker.run(question)
        repaired = None
        if repair and answer.answered and answer.text.strip():
            from veracity.repair.open import open_repairer

            # The extractive answerer copies passages: it cannot write questions or edits.
            generator = asker.generator
            # the models ask made already, and the index it searched
            made = models
            if fixing.policy.uses_chat and isinstance(generator, GroundedGenerator):
                chat = generator.chat
                fixing = fixing.with_options(llm=config.models.llm, model=config.models.model)
                made = dataclasses.replace(made, chat=lambda *_names: chat)
            repairer = open_repairer(fixing, made, retriever=asker.retriever)
            blocks = {n: hit.chunk for n, hit in enumerate(answer.sources, start=1)}
            repaired = repairer.run(answer.text, question=question, cited=blocks)
        elif repair:
            notes.append("--repair: the answer abstained or declined; nothing to repair")
    except VeracityError as exc:
        raise fail(exc) from exc
    code = (
        EXIT_PARTIAL if answer.failures or (repaired is not None and repaired.failures) else EXIT_OK
    )
    if as_json:
        extra = {} if not repair else {"repair": None if repaired is None else repaired.to_dict()}
        emit_json(answer.to_dict() | extra | {"notes": notes, "exit_code": code})
        raise typer.Exit(code)
    for note in notes:
        show(styled(note, "dim"), out=errors, wrap=True)
    print_answer(answer)
    if repaired is not None:
        console.print()
        show(styled("repair", "bold"), out=console)
        print_repair(repaired)
    raise typer.Exit(code)


def _dev_questions(path: Path) -> tuple[list[tuple[str, bool]], list[str]]:
    """(question, answerable) rows of a JSONL dev file, and a message per skipped line."""
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError) as exc:
        raise VeracityError(f"{path}: cannot read it ({exc})") from exc
    rows: list[tuple[str, bool]] = []
    skipped: list[str] = []
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
        except ValueError as exc:
            skipped.append(f"{path}:{number}: not JSON ({exc})")
            continue
        if (
            not isinstance(row, dict)
            or not isinstance(row.get("question"), str)
            or not row["question"].strip()
            or not isinstance(row.get("answerable"), bool)
        ):
            skipped.append(f"{path}:{number}: needs a string question and a true/false answerable")
            continue
        rows.append((row["question"], row["answerable"]))
    return rows, skipped


def calibrate_command(
    ctx: typer.Context,
    index_dir: Annotated[Path, typer.Option("--index", help="index folder")],
    dev: Annotated[
        Path,
        typer.Option(
            help="JSONL of {question, answerable: true/false} (e.g. examples/questions.jsonl)"
        ),
    ],
    signal: Annotated[
        str, typer.Option(help=choice_list(get_args(defaults.Signal)))
    ] = defaults.ABSTAIN_SIGNAL,
    mode: Annotated[
        str, typer.Option(help=choice_list(defaults.SEARCH_MODES))
    ] = defaults.SEARCH_MODE,
    k: Annotated[int, typer.Option("-k", help="passages retrieved per question")] = defaults.TOP_K,
    verifier: Annotated[str, typer.Option(help="verifier for top_support")] = defaults.VERIFIER,
    as_json: Annotated[bool, typer.Option("--json", help="print JSON")] = False,
) -> None:
    """Choose the abstention threshold of best F1 on dev questions and save it with the index.

    `ask` then says "I don't know" without calling the model when the signal is below it. The
    calibration records the index's content: it stays in use while re-indexing changes nothing,
    and once the content changes `ask` uses the shipped default and says so (calibrate again).
    Exit 0 when every row was used, 1 when some rows or signals failed, 2 when nothing was saved.
    """
    from rich.progress import track

    from veracity.retrieve.abstain import make_signal
    from veracity.retrieve.calibration import calibrate, save_calibration
    from veracity.retrieve.open import open_retriever

    try:
        scorer = models_of(ctx).verifier(verifier) if signal == "top_support" else None
        confidence = make_signal(signal, scorer=scorer, hits=k)
        rows, skipped = _dev_questions(dev)
        if not rows:
            raise VeracityError(f"{dev} holds no usable {{question, answerable}} row")
        retriever = open_retriever(index_dir, mode=mode).load()
        results = [
            retriever.run(question, k=k)
            for question, _ in track(
                rows, description="retrieving", console=errors, disable=as_json
            )
        ]
        readings = confidence.run(results)
        calibration = calibrate(
            [r.value for r in readings], [not answerable for _, answerable in rows], signal=signal
        )
        stored = save_calibration(
            index_dir,
            calibration,
            mode=mode,
            k=k,
            verifier=None if scorer is None else scorer.model_id,
            dev=str(dev),
        )
    except VeracityError as exc:
        raise fail(exc) from exc
    failures = [
        f"{question!r}: {r.error}"
        for (question, _), r in zip(rows, readings, strict=True)
        if r.error
    ]
    code = EXIT_PARTIAL if skipped or failures else EXIT_OK
    if as_json:
        emit_json(
            stored.to_dict() | {"skipped": skipped, "failed_questions": failures, "exit_code": code}
        )
        raise typer.Exit(code)
    for message in skipped + failures:
        show(styled("skipped", "yellow"), f" {message}", out=errors)
    print_calibration(stored)
    raise typer.Exit(code)
