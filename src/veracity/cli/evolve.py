"""``veracity evolve``: evolve an answer from reranked seed passages (GAuGE / Gen²IR)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from veracity import defaults
from veracity.cli.application import (
    EXIT_OK,
    EXIT_PARTIAL,
    ConfigOption,
    choice_list,
    command_config,
    emit_json,
    fail,
    models_of,
    read_saved,
)
from veracity.cli.output.answer import print_answer
from veracity.cli.render import console, show, styled
from veracity.cli.search import RERANKER_HELP
from veracity.config import EVOLVE_FITNESSES
from veracity.errors import VeracityError

if TYPE_CHECKING:
    from veracity.evolve import EvolvedAnswer


def evolve(
    ctx: typer.Context,
    query: Annotated[str, typer.Argument(help="the question")],
    index_dir: Annotated[
        Path | None, typer.Option("--index", help="index folder (or from --config)")
    ] = None,
    llm: Annotated[
        str,
        typer.Option(
            help="extractive (no model: the seeds' own sentences), llamacpp[:PATH] or openai:URL "
            "(its rewrites join the sentence operators)"
        ),
    ] = defaults.CHAT_BACKEND,
    model: Annotated[str | None, typer.Option(help="model name (openai)")] = None,
    fitness: Annotated[
        str, typer.Option(help=", ".join(EVOLVE_FITNESSES))
    ] = defaults.EVOLVE_FITNESS,
    weight: Annotated[
        float, typer.Option("--lambda", help="weight of the bonus")
    ] = defaults.EVOLVE_WEIGHT,
    offspring: Annotated[
        int, typer.Option(help="offspring per iteration")
    ] = defaults.EVOLVE_OFFSPRING,
    iterations: Annotated[
        int, typer.Option(help="most iterations")
    ] = defaults.EVOLVE_MAX_ITERATIONS,
    calls: Annotated[int, typer.Option(help="most model calls")] = defaults.EVOLVE_MAX_CALLS,
    max_tokens: Annotated[
        int, typer.Option(help="most tokens per rewrite")
    ] = defaults.EVOLVE_MAX_TOKENS,
    seeds: Annotated[int, typer.Option(help="seed passages (reranked)")] = defaults.EVOLVE_SEEDS,
    seed: Annotated[int, typer.Option(help="random seed")] = 0,
    mode: Annotated[
        str, typer.Option(help=choice_list(defaults.SEARCH_MODES))
    ] = defaults.SEARCH_MODE,
    reranker: Annotated[str, typer.Option(help=RERANKER_HELP)] = defaults.RERANKER,
    verifier: Annotated[
        str, typer.Option(help="verifier of the answer's sentences (and of --fitness support)")
    ] = defaults.VERIFIER,
    tau: Annotated[
        float, typer.Option(help="P(supported) a sentence's seed must reach")
    ] = defaults.CITATION_TAU,
    knowledge: Annotated[
        bool,
        typer.Option(
            help="let the knowledge rules (numbers, names, negation, scope, roles) "
            "weigh in each sentence's verdict"
        ),
    ] = True,
    trace: Annotated[Path | None, typer.Option(help="write the whole trace as JSON here")] = None,
    config_file: ConfigOption = None,
    as_json: Annotated[bool, typer.Option("--json", help="print JSON")] = False,
) -> None:
    """Evolve a cited answer from the reranked top passages (GAuGE).

    With no model (--llm extractive, the default) the answer is bred from the seeds' own prose
    sentences: crossover keeps the most relevant sentences of two parents, mutation swaps in or
    drops a sentence or trims a clause, compression keeps what bears on the question; each
    sentence cites the seed it comes from and quotes its exact characters. With --llm, the
    model's rewrites join them, and a rewrite joins the population only when its parents
    support each of its sentences (else it is rejected, with the reason, in the trace).
    Prints the answer checked as ask checks one, knowledge rules included (✓ supported by the
    passage it cites, + citation attached, ? uncited), where each sentence comes from, the
    fitness and the lineage. Exit 0 when it ran with no failure; 1 when some model calls or
    scorings failed (they are listed in the trace) or a sentence could not be verified; 2 on
    bad options, a missing index or no passages found.
    """
    from veracity.config import EvolveConfig
    from veracity.evolve.open import open_evolver

    try:
        saved = None if config_file is None else read_saved(config_file)
        config = command_config(
            ctx,
            EvolveConfig,
            saved,
            {
                "index_dir": ("index", None if index_dir is None else str(index_dir)),
                "llm": ("llm", llm),
                "model": ("model", model),
                "fitness": ("fitness", fitness),
                "weight": ("weight", weight),
                "offspring": ("offspring", offspring),
                "iterations": ("iterations", iterations),
                "calls": ("calls", calls),
                "max_tokens": ("max_tokens", max_tokens),
                "seeds": ("seeds", seeds),
                "seed": ("seed", seed),
                "mode": ("mode", mode),
                "reranker": ("reranker", reranker),
                "verifier": ("verifier", verifier),
                "tau": ("tau", tau),
                "knowledge": ("knowledge", knowledge),
            },
        )
        evolved = open_evolver(config, models_of(ctx)).run(query)
        if trace is not None:
            trace.write_text(
                json.dumps(evolved.to_dict(), indent=2, ensure_ascii=False), encoding="utf-8"
            )
    except (VeracityError, OSError) as exc:
        raise fail(exc) from exc
    code = EXIT_PARTIAL if evolved.failures else EXIT_OK
    if as_json:
        emit_json(evolved.to_dict() | {"exit_code": code})
        raise typer.Exit(code)
    _print(evolved)
    raise typer.Exit(code)


def _print(evolved: EvolvedAnswer) -> None:
    """The answer with its sentences checked against the seeds (as ask prints it), then how
    it was evolved: fitness, why it stopped, and its lineage back to the seeds."""
    result = evolved.evolution
    best = result.best
    print_answer(evolved.answer)
    if evolved.quotes:
        console.print()
        show(styled("quoted from", "bold"), out=console)
        for quote in evolved.quotes:
            edits = f" ({'; '.join(quote.edits)})" if quote.edits else ""
            show(
                styled(f"{quote.sentence + 1}. [{quote.marker}] ", "bold cyan"),
                styled(quote.doc_id, "bold"),
                f" characters {quote.start}-{quote.end}",
                styled(edits, "dim"),
                out=console,
                indent=2,
            )
    console.print()
    show(
        styled(
            f"fitness {best.fitness.total:.3f} (relevance {best.fitness.relevance:.3f}, "
            f"bonus {best.fitness.bonus:.3f}) · {result.fitness}",
            "dim",
        ),
        out=console,
    )
    rejected = len(result.failures) - len(result.errors)
    seeds = len({gene.seed for gene in best.genes})
    show(
        styled(
            f"stopped: {result.stop_reason} after {len(result.generations)} iterations, "
            f"{len(result.members)} members, {result.calls} model calls, "
            f"{len(result.errors)} failed, {rejected} rejected"
            + (f"; the answer quotes {seeds} of the seeds" if best.genes else ""),
            "dim",
        ),
        out=console,
    )
    show(styled("lineage", "bold"), out=console)
    for member in result.lineage(best.id):
        parents = ", ".join(f"#{p}" for p in member.parents) or "-"
        show(
            styled(
                f"#{member.id} gen {member.generation} {member.operator} "
                f"{member.prompt or ''} from {parents}: ",
                "bold",
            ),
            " ".join(member.text.split())[:100],
            out=console,
            indent=2,
        )
