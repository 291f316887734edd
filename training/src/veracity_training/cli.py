"""``veracity train-verifier``, ``train-reranker``, ``export-verifier``, ``export-reranker``,
``export-embedder`` and ``distill-embedder``: the training package's commands.

They join the ``veracity`` command through the entry points of the group ``veracity.commands``
(this package's pyproject.toml), which :mod:`veracity.cli.plugins` reads; they use the
command's shared helpers (:func:`~veracity.cli.application.fail`,
:func:`~veracity.cli.application.run_and_show`) and print through :mod:`veracity_training.printers`.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Annotated, Any

import typer

from veracity import defaults
from veracity.cli.application import fail, run_and_show
from veracity.cli.render import errors
from veracity.errors import OptionError
from veracity_training import printers


@contextlib.contextmanager
def _training_progress(
    steps: int, as_json: bool
) -> Iterator[tuple[Any, Callable[[int, int, float], None]]]:
    """A progress display for a training run (off with ``--json``) and the trainer's callback."""
    from rich.progress import BarColumn, Progress, TextColumn, TimeRemainingColumn

    with Progress(
        TextColumn("{task.description}", markup=False),
        BarColumn(),
        TextColumn("{task.completed}/{task.total} {task.fields[unit]}", markup=False),
        TimeRemainingColumn(),
        console=errors,
        disable=as_json,
    ) as progress:
        task = progress.add_task("training", total=steps, unit="steps")

        def update(step: int, total: int, loss: float) -> None:
            progress.update(task, completed=step, unit=f"steps loss {loss:.3f}")

        yield progress, update


def train_verifier(
    data: Annotated[Path, typer.Option(help="folder with train.jsonl and val.jsonl")],
    out: Annotated[Path, typer.Option(help="run folder; an existing run is resumed")],
    seed: int = 13,
    examples: Annotated[int, typer.Option(help="training examples to see in total")] = 60_000,
    max_tokens: int = 128,
    batch_size: int = 16,
    learning_rate: float = 5e-5,
    threads: int = 2,
    exclude_kind: Annotated[
        list[str] | None,
        typer.Option(help="leave out training rows of this kind (repeat for more), e.g. public"),
    ] = None,
    init_from: Annotated[
        Path | None,
        typer.Option(
            help="start from this RUN/checkpoint folder, or an exported model folder (e.g. "
            "the shipped verifier), instead of all-MiniLM-L6-v2"
        ),
    ] = None,
    distill_weight: Annotated[
        float,
        typer.Option(
            help="weight of the term that pulls P(supported) toward the teacher's calibrated "
            "probability (0: labels only)"
        ),
    ] = 0.0,
    teacher: Annotated[
        str,
        typer.Option(help="teacher to distil: align (token alignment on the selected evidence)"),
    ] = "align",
    distill_skip_contradicted: Annotated[
        bool,
        typer.Option(
            help="no distillation target for rows labelled contradicted (align cannot see a "
            "contradiction)"
        ),
    ] = False,
    length_groups: Annotated[
        int,
        typer.Option(
            help="sort each span of this many batches by length, so short pairs train in short "
            "batches (0: off)"
        ),
    ] = 0,
    eval_every: Annotated[int, typer.Option(help="steps between validation runs")] = 500,
    time_limit: Annotated[
        float | None, typer.Option(help="stop cleanly after this many seconds; run again to resume")
    ] = None,
    as_json: Annotated[bool, typer.Option("--json", help="print the report as JSON")] = False,
) -> None:
    """Fine-tune the verifier; resumes from the last checkpoint."""
    from veracity_training.config import TrainConfig, TrainReport
    from veracity_training.trainer import Trainer

    def work() -> TrainReport:
        config = TrainConfig(
            data_dir=data,
            out_dir=out,
            seed=seed,
            examples=examples,
            max_tokens=max_tokens,
            batch_size=batch_size,
            learning_rate=learning_rate,
            threads=threads,
            exclude_kinds=tuple(exclude_kind or ()),
            init_from=init_from,
            distill_weight=distill_weight,
            teacher=teacher,
            distill_skip_contradicted=distill_skip_contradicted,
            length_groups=length_groups,
            eval_every=eval_every,
        )
        with _training_progress(config.steps, as_json) as (progress, update):
            teaching = None

            def update_teacher(done: int, total: int) -> None:
                nonlocal teaching
                if teaching is None:
                    teaching = progress.add_task(f"teacher ({teacher})", total=total, unit="rows")
                progress.update(teaching, completed=done)

            return Trainer(config, progress=update, teacher_progress=update_teacher).run(
                time_limit=time_limit
            )

    run_and_show(work, printers.print_training, as_json=as_json)


def train_reranker(
    data: Annotated[
        Path,
        typer.Option(
            help="folder with train.jsonl and val.jsonl from "
            "python -m veracity_training.data.rerank"
        ),
    ],
    out: Annotated[Path, typer.Option(help="run folder; an existing run is resumed")],
    seed: int = 13,
    examples: Annotated[int, typer.Option(help="training pairs to see in total")] = 32_000,
    max_tokens: Annotated[int, typer.Option(help="window of a (query, passage) pair")] = 192,
    batch_size: int = 16,
    learning_rate: float = 5e-5,
    threads: int = 2,
    eval_every: Annotated[int, typer.Option(help="steps between validation runs")] = 500,
    eval_rows: Annotated[int, typer.Option(help="validation pairs scored each time")] = 600,
    distill_weight: Annotated[
        float,
        typer.Option(
            help="weight of the term that pulls P(relevant) toward the teacher's calibrated "
            "probability (0: labels only)"
        ),
    ] = 0.0,
    teacher: Annotated[
        str,
        typer.Option(help="teacher to distil: cosine (all-MiniLM-L6-v2's query-passage cosine)"),
    ] = "cosine",
    residual: Annotated[
        bool,
        typer.Option(
            help="train the network on what the teacher gets wrong: the teacher's calibrated "
            "log-odds are added to the network's logit in the loss (not with --distill-weight)"
        ),
    ] = False,
    listwise_weight: Annotated[
        float,
        typer.Option(
            help="weight of a softmax cross-entropy over each query's candidates, added to the "
            "pointwise loss; batches then hold whole queries (0: pointwise only)"
        ),
    ] = 0.0,
    init_from: Annotated[
        Path | None,
        typer.Option(
            help="start from this RUN/checkpoint folder, or an exported reranker folder (e.g. "
            "the shipped reranker), instead of all-MiniLM-L6-v2"
        ),
    ] = None,
    time_limit: Annotated[
        float | None, typer.Option(help="stop cleanly after this many seconds; run again to resume")
    ] = None,
    as_json: Annotated[bool, typer.Option("--json", help="print the report as JSON")] = False,
) -> None:
    """Fine-tune the (query, passage) reranker; resumes from the last checkpoint."""
    from veracity_training.config import TrainConfig, TrainReport
    from veracity_training.trainer import Trainer

    def work() -> TrainReport:
        config = TrainConfig(
            data_dir=data,
            out_dir=out,
            seed=seed,
            examples=examples,
            max_tokens=max_tokens,
            batch_size=batch_size,
            learning_rate=learning_rate,
            threads=threads,
            eval_every=eval_every,
            eval_rows=eval_rows,
            distill_weight=distill_weight,
            teacher=teacher,
            init_from=init_from,
            listwise_weight=listwise_weight,
            residual=residual,
            task="rerank",
        )
        with _training_progress(config.steps, as_json) as (_, update):
            return Trainer(config, progress=update).run(time_limit=time_limit)

    run_and_show(work, printers.print_training, as_json=as_json)


def export_verifier(
    data: Annotated[Path, typer.Option(help="the training data folder (card.json, val.jsonl)")],
    checkpoint: Annotated[
        Path | None, typer.Option(help="RUN/checkpoint folder of train-verifier")
    ] = None,
    from_verifier: Annotated[
        Path | None,
        typer.Option(
            help="instead of a checkpoint: an exported verifier whose network is kept (its aligner "
            "is added if it lacks one) and whose combiner is fit anew"
        ),
    ] = None,
    aligner: Annotated[
        bool,
        typer.Option(
            help="merge all-MiniLM-L6-v2 into the model for the combiner's alignment feature"
        ),
    ] = True,
    out: Annotated[Path, typer.Option(help="where to write the verifier")] = Path(
        "src/veracity/assets/verifier"
    ),
    version: Annotated[str, typer.Option(help="version string recorded in the model")] = "dev",
    combine: Annotated[bool, typer.Option(help="fit the combiner on validation rows")] = True,
    gate: Annotated[
        float,
        typer.Option(
            help="where the network's P(contradicted) reaches this, nothing else can raise "
            "P(supported) above 1 - P(contradicted)"
        ),
    ] = defaults.VERIFIER_GATE,
    as_json: Annotated[bool, typer.Option("--json", help="print the report as JSON")] = False,
) -> None:
    """Export a checkpoint to int8 ONNX with its combiner and model card."""
    from veracity_training.release import ReleaseOptions, release_verifier

    if (checkpoint is None) == (from_verifier is None):
        raise fail(
            OptionError(
                "checkpoint",
                checkpoint,
                "either --checkpoint RUN/checkpoint or --from-verifier DIR, not both or neither",
            )
        )
    source = "--checkpoint RUN/checkpoint" if checkpoint is not None else "--from-verifier VERIFIER"
    command = (
        f"veracity export-verifier {source} --data DATA "
        f"--version {version}"
        + ("" if combine else " --no-combine")
        + ("" if aligner else " --no-aligner")
        + ("" if gate == defaults.VERIFIER_GATE else f" --gate {gate}")
    )
    run_and_show(
        lambda: release_verifier(
            checkpoint,
            data,
            out,
            version=version,
            command=command,
            from_verifier=from_verifier,
            options=ReleaseOptions(combine=combine, aligner=aligner, gate=gate),
        ),
        printers.print_verifier_export,
        as_json=as_json,
    )


def export_reranker(
    checkpoint: Annotated[Path, typer.Option(help="RUN/checkpoint folder of train-reranker")],
    data: Annotated[Path, typer.Option(help="the training data folder (card.json, val.jsonl)")],
    out: Annotated[Path, typer.Option(help="where to write the reranker")] = Path(
        "src/veracity/assets/reranker"
    ),
    version: Annotated[str, typer.Option(help="version string recorded in the model")] = "dev",
    as_json: Annotated[bool, typer.Option("--json", help="print the report as JSON")] = False,
) -> None:
    """Export a reranker checkpoint to int8 ONNX with its model card."""
    from veracity_training.rerank_release import release_reranker

    command = (
        f"veracity export-reranker --checkpoint RUN/checkpoint --data DATA --version {version}"
    )
    run_and_show(
        lambda: release_reranker(checkpoint, data, out, version=version, command=command),
        printers.print_reranker_export,
        as_json=as_json,
    )


def export_embedder_command(
    out: Annotated[Path, typer.Option(help="where to write the embedder")] = Path(
        "src/veracity/assets/embedder"
    ),
    as_json: Annotated[bool, typer.Option("--json", help="print the report as JSON")] = False,
) -> None:
    """Export all-MiniLM-L6-v2 for integer kernels, an opt-in embedder, with its card."""
    from veracity_training.embedder import export_embedder

    command = "veracity export-embedder" + (
        "" if out == Path("src/veracity/assets/embedder") else " --out DIR"
    )
    run_and_show(
        lambda: export_embedder(out, command=command),
        printers.print_embedder_export,
        as_json=as_json,
    )


def distill_embedder_command(
    out: Annotated[Path, typer.Option(help="where to write the static embedder")] = Path(
        "src/veracity/assets/static-embedder"
    ),
    dims: Annotated[
        int, typer.Option(help="vector size (PCA of MiniLM's 384)")
    ] = defaults.EMBED_STATIC_DIMS,
    as_json: Annotated[bool, typer.Option("--json", help="print the report as JSON")] = False,
) -> None:
    """Distil all-MiniLM-L6-v2 into a static embedder (model2vec), an opt-in first stage.

    Index with it by `veracity index PATHS --index DIR --embedder static` (or `static:DIR` for
    a folder given with --out). About a minute on a CPU, no network.
    """
    from veracity_training.static_embedder import distill_static_embedder

    command = (
        "veracity distill-embedder"
        + ("" if out == Path("src/veracity/assets/static-embedder") else " --out DIR")
        + ("" if dims == defaults.EMBED_STATIC_DIMS else f" --dims {dims}")
    )
    run_and_show(
        lambda: distill_static_embedder(out, dims=dims, command=command),
        printers.print_static_distillation,
        as_json=as_json,
    )
