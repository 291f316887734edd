"""Step 1 of the verifier sweep (on this machine): evidence windows, token ids and exact signals.

    .venv/bin/python training/bench/verifier_sweep/prep.py --window 192 --pool 56000 --out .devsweep

The device machine has torch and transformers but not veracity's own dependencies, so the
evidence selection (``veracity.models.pairs.windows.EvidenceSelector``, the code training and
inference use), the tokenizer and the combiner's exact signals
(``veracity.models.pairs.combiner.features``) run here. Writes, for the training pool (a
seeded sample of the training data), the validation rows and the WiCE and LFQA development sets:
``NAME_WINDOW.npz`` with the concatenated token ids, each pair's length and where the claim
starts, labels, kinds and features. Also copies the base model
(all-MiniLM-L6-v2, token embeddings as int8 with a scale per row and the rest as float16, so that
the folder fits the device's 64 MiB transfer), ``gpu.py`` and ``parallel.py``.
"""

from __future__ import annotations

import argparse
import json
import random
import shutil
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[3] / "bench"))

from veracity.assets import load_tokenizer
from veracity.errors import VeracityError
from veracity.models.pairs.combiner import features
from veracity.models.pairs.windows import EvidenceSelector
from veracity_training.config import LABELS, NOT_SUPPORTED, base_model_dir
from verifier_data import DEFAULT_DATA, load

#: Label ids as the trainer uses them (the "not supported" training label last).
LABEL_IDS = {**{label: i for i, label in enumerate(LABELS)}, "not_supported": NOT_SUPPORTED}


def pack(
    out: Path,
    name: str,
    selector: EvidenceSelector,
    premises: list[str],
    claims: list[str],
    extra: dict[str, object],
) -> None:
    """Window, tokenize and save one set; pairs whose claim does not fit are left out."""
    started = time.monotonic()
    pairs, keep = [], []
    for index, (premise, claim) in enumerate(zip(premises, claims, strict=True)):
        try:
            window = selector.run(premise, claim)[0].text
        except VeracityError:
            continue
        pairs.append((window, claim))
        keep.append(index)
    encodings = selector.tokenizer.encode_batch(pairs)
    ids = [np.array(e.ids, dtype=np.uint16) for e in encodings]
    starts = [e.type_ids.index(1) if 1 in e.type_ids else len(e.ids) for e in encodings]
    np.savez_compressed(
        out / f"{name}_{selector.max_tokens}.npz",
        ids=np.concatenate(ids),
        lens=np.array([len(x) for x in ids], dtype=np.int32),
        seps=np.array(starts, dtype=np.int32),
        keep=np.array(keep, dtype=np.int32),
        **{key: np.asarray(value)[keep] for key, value in extra.items()},
    )
    print(
        f"{name}: {len(keep)} of {len(premises)} pairs, {time.monotonic() - started:.0f} s",
        flush=True,
    )


def base_weights(out: Path) -> None:
    import torch
    from safetensors.torch import load_file, save_file

    source = base_model_dir()
    compact = {}
    for key, value in load_file(str(source / "model.safetensors")).items():
        if key.endswith("word_embeddings.weight"):
            scale = value.abs().amax(dim=1, keepdim=True) / 127
            compact[key + ".q"] = torch.round(value / scale).to(torch.int8)
            compact[key + ".scale"] = scale.float()
        elif not key.endswith("position_ids"):
            compact[key] = value.half()
    save_file(compact, str(out / "base.safetensors"))
    shutil.copy(source / "config.json", out / "config.json")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--window", type=int, default=192)
    parser.add_argument("--pool", type=int, default=56_000, help="training rows to sample")
    parser.add_argument(
        "--train-data",
        type=Path,
        default=Path.home() / ".cache/veracity/verifier/data-v2",
        help="output of python -m veracity_training.data",
    )
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA)
    parser.add_argument("--out", type=Path, default=Path(".devsweep"))
    parser.add_argument("--seed", type=int, default=13)
    parser.add_argument(
        "--public",
        type=int,
        default=None,
        help="keep at most this many public rows in the pool (default: all)",
    )
    parser.add_argument(
        "--parts",
        default="train,val,dev,base",
        help="what to write, comma-separated (run two processes on two cores)",
    )
    args = parser.parse_args()
    parts = set(args.parts.split(","))
    args.out.mkdir(parents=True, exist_ok=True)
    selector = EvidenceSelector(max_tokens=args.window, tokenizer=load_tokenizer())

    def rows(name: str) -> list[dict[str, str]]:
        with (args.train_data / f"{name}.jsonl").open(encoding="utf-8") as handle:
            return [json.loads(line) for line in handle]

    train = rows("train")
    random.Random(args.seed).shuffle(train)
    if args.public is not None:
        public = [row for row in train if row["kind"] == "public"][: args.public]
        train = [row for row in train if row["kind"] != "public"] + public
        random.Random(args.seed).shuffle(train)
    train = train[: args.pool]
    kinds = sorted({row["kind"] for row in train})
    (args.out / f"vocab_{args.window}.json").write_text(json.dumps({"kinds": kinds}))
    for name, part in (
        ("val", rows("val") if "val" in parts else []),
        ("train", train if "train" in parts else []),
    ):
        if not part:
            continue
        premises = [row["premise"] for row in part]
        claims = [row["hypothesis"] for row in part]
        extra: dict[str, object] = {
            "label": [LABEL_IDS[row["label"]] for row in part],
            "kind": [kinds.index(row["kind"]) if row["kind"] in kinds else -1 for row in part],
        }
        if name == "val":
            extra["feat"] = features([(0.5, 0.25, 0.25)] * len(part), premises, claims)
        pack(args.out, name, selector, premises, claims, extra)
    for name in ("wice", "lfqa") if "dev" in parts else ():
        items = load(name, args.data)
        groups = sorted({item.group for item in items})
        premises = [item.premise for item in items]
        claims = [item.claim for item in items]
        pack(
            args.out,
            name,
            selector,
            premises,
            claims,
            {
                "label": [item.label for item in items],
                "group": [groups.index(item.group) for item in items],
                "feat": features([(0.5, 0.25, 0.25)] * len(items), premises, claims),
            },
        )
    if "base" in parts:
        base_weights(args.out)
    for script in ("gpu.py", "parallel.py"):
        shutil.copy(Path(__file__).with_name(script), args.out / script)


if __name__ == "__main__":
    main()
