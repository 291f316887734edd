"""Step 2 of the verifier sweep (on the device machine): train each setting, score the dev sets.

    cd .devsweep && python3 gpu.py 420 [NAME ...]   # $OUT receives results.json, scores.npz, best_*

Needs only torch, transformers, safetensors and numpy (the device's image has them) and the
folder written by prep.py. Each setting fine-tunes all-MiniLM-L6-v2 as veracity's trainer does
(``veracity_training.trainer``: seeded epoch permutations, dropout reseeded per step, AdamW with
weight decay 0.01, 6% warm-up then cosine decay, gradient clipping at 1.0, frozen embeddings,
batch 16, the three-way loss with "not supported" rows maximising P(contradicted)+P(neither)) on
the pre-selected windows, then writes P(supported) for the validation rows and both dev sets.
This is a search: the model that ships is trained by ``veracity train-verifier`` on the CPU.
Settings are tried in order until ``budget`` seconds (the first argument) have passed (only the
NAMEs given, if any; ``parallel.py`` runs one process per NAME); the weights of the setting with
the best mean dev ROC-AUC are kept (float16, token embeddings left out when frozen).
"""

import json
import math
import os
import sys
import time
from pathlib import Path

import numpy as np
import torch
from safetensors.torch import load_file, save_file
from transformers import BertConfig, BertForSequenceClassification

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.environ.get("OUT", "/tmp/out")
DEVICE = torch.device("cuda" if torch.cuda.is_available() else "cpu")
PUBLIC = ["public"]
PERTURBED = ["entity_swap", "number_change", "negation", "qa_answer_swap"]
RAG_LIKE = [
    "multi_sentence",
    "multi_sentence_removed",
    "qa_statement",
    "qa_sentence_removed",
    "qa_other_paragraph",
    "other_article",
    "added_clause",
]
#: name, window, examples seen, and what differs from the 0.1.0 recipe.
CONFIGS = [
    {"name": "A192", "W": 192, "examples": 24000},
    {"name": "noPub192", "W": 192, "examples": 24000, "drop": PUBLIC},
    {"name": "bin192", "W": 192, "examples": 24000, "binary": True},
    {"name": "ragdup192", "W": 192, "examples": 24000, "dup": RAG_LIKE},
    {"name": "A192_48k", "W": 192, "examples": 48000},
    {"name": "noPert192", "W": 192, "examples": 24000, "drop": PERTURBED},
    {"name": "lr1e4_192", "W": 192, "examples": 24000, "lr": 1e-4},
    {"name": "A192_s14", "W": 192, "examples": 24000, "seed": 14},
    {"name": "noPub192_s14", "W": 192, "examples": 24000, "drop": PUBLIC, "seed": 14},
    {"name": "unfreeze192", "W": 192, "examples": 24000, "unfreeze": True},
    {"name": "noPubBin192", "W": 192, "examples": 24000, "drop": PUBLIC, "binary": True},
    {"name": "A192_12k", "W": 192, "examples": 12000},
    {"name": "lr3e5_192", "W": 192, "examples": 24000, "lr": 3e-5},
    {"name": "noPub192_48k", "W": 192, "examples": 48000, "drop": PUBLIC},
    # Second search, on a pool from ``--scale 3`` data (prep.py --public 20000: every synthetic
    # row and 20,000 public rows): does the network keep improving with more distinct rows?
    {"name": "s3noPub_48k", "W": 192, "examples": 48000, "drop": PUBLIC},
    {"name": "s3noPub_108k", "W": 192, "examples": 108000, "drop": PUBLIC},
    {"name": "s3noPub_108k_s14", "W": 192, "examples": 108000, "drop": PUBLIC, "seed": 14},
    {"name": "s3noPub_160k", "W": 192, "examples": 160000, "drop": PUBLIC},
    {"name": "s3all_128k", "W": 192, "examples": 128000},
    {
        "name": "s3noPub_108k_unfreeze",
        "W": 192,
        "examples": 108000,
        "drop": PUBLIC,
        "unfreeze": True,
    },
]


def base_state():
    raw = load_file(f"{HERE}/base.safetensors")
    state = {}
    for key, value in raw.items():
        if key.endswith(".q"):
            state[key[:-2]] = value.float() * raw[key[:-2] + ".scale"]
        elif not key.endswith(".scale"):
            state[key] = value.float()
    return state


def load_pack(name, window):
    arrays = np.load(f"{HERE}/{name}_{window}.npz")
    pack = {key: arrays[key] for key in arrays.files}
    pack["starts"] = np.concatenate([[0], np.cumsum(pack["lens"])[:-1]])
    return pack


def batch_tensors(pack, rows):
    width, n = int(pack["lens"][rows].max()), len(rows)
    ids, types, mask = (np.zeros((n, width), np.int64) for _ in range(3))
    for r, i in enumerate(rows):
        start, length, claim = pack["starts"][i], pack["lens"][i], pack["seps"][i]
        ids[r, :length] = pack["ids"][start : start + length]
        mask[r, :length] = 1
        types[r, claim:length] = 1
    return {
        "input_ids": torch.from_numpy(ids).to(DEVICE),
        "token_type_ids": torch.from_numpy(types).to(DEVICE),
        "attention_mask": torch.from_numpy(mask).to(DEVICE),
    }


def loss_fn(logits, labels, binary):
    log_probs = torch.log_softmax(logits, -1)
    unsupported = torch.logsumexp(log_probs[:, 1:], -1)
    if binary:
        return -torch.where(labels == 0, log_probs[:, 0], unsupported).mean()
    picked = log_probs.gather(1, labels.clamp(max=2).unsqueeze(1)).squeeze(1)
    return -torch.where(labels < 3, picked, unsupported).mean()


def predict(model, pack):
    model.eval()
    order = np.argsort(pack["lens"])
    result = np.zeros(len(order))
    with torch.no_grad():
        for first in range(0, len(order), 256):
            rows = order[first : first + 256]
            logits = model(**batch_tensors(pack, rows)).logits.float()
            result[rows] = torch.softmax(logits, -1)[:, 0].cpu().numpy()
    model.train()
    return result


def auc(scores, labels):
    labels = np.asarray(labels)
    ranks = np.argsort(np.argsort(scores)) + 1.0
    positives = (labels == 1).sum()
    negatives = len(labels) - positives
    return float(
        (ranks[labels == 1].sum() - positives * (positives + 1) / 2) / (positives * negatives)
    )


def train(cfg, pool, kinds_vocab, devs, base):
    kinds = np.array(pool["kind"])
    allowed = np.arange(len(kinds))
    if cfg.get("drop"):
        dropped = [kinds_vocab.index(k) for k in cfg["drop"] if k in kinds_vocab]
        allowed = allowed[~np.isin(kinds, dropped)]
    if cfg.get("dup"):
        doubled = [kinds_vocab.index(k) for k in cfg["dup"] if k in kinds_vocab]
        allowed = np.concatenate([allowed, allowed[np.isin(kinds[allowed], doubled)]])
    # SWEEP_EXAMPLES caps every setting: a smoke test of the scripts on this machine's CPU
    examples = min(cfg["examples"], int(os.environ.get("SWEEP_EXAMPLES", cfg["examples"])))
    seed, batch, steps = cfg.get("seed", 13), 16, examples // 16
    torch.manual_seed(seed)
    settings = {**json.loads(Path(HERE, "config.json").read_text()), "num_labels": 3}
    model = BertForSequenceClassification(BertConfig(**settings))
    model.bert.load_state_dict(base, strict=False)
    model.to(DEVICE)
    if not cfg.get("unfreeze"):
        for parameter in model.bert.embeddings.parameters():
            parameter.requires_grad = False
    params = [p for p in model.parameters() if p.requires_grad]
    optimizer = torch.optim.AdamW(params, lr=cfg.get("lr", 5e-5), weight_decay=0.01)
    warmup = max(1, int(steps * 0.06))
    scheduler = torch.optim.lr_scheduler.LambdaLR(
        optimizer,
        lambda s: (
            (s + 1) / warmup
            if s < warmup
            else max(0.0, 0.5 * (1 + math.cos(math.pi * (s - warmup) / max(1, steps - warmup))))
        ),
    )
    order, epoch = [], 0
    while len(order) < steps * batch:
        order.extend(allowed[np.random.default_rng([seed, epoch]).permutation(len(allowed))])
        epoch += 1
    labels = torch.from_numpy(np.array(pool["label"], dtype=np.int64))
    model.train()
    started = time.time()
    for step in range(steps):
        torch.manual_seed(seed * 1_000_003 + step)
        rows = np.array(order[step * batch : (step + 1) * batch])
        logits = model(**batch_tensors(pool, rows)).logits
        loss = loss_fn(logits, labels[rows].to(DEVICE), cfg.get("binary", False))
        loss.backward()
        torch.nn.utils.clip_grad_norm_(params, 1.0)
        optimizer.step()
        scheduler.step()
        optimizer.zero_grad(set_to_none=True)
    seconds = time.time() - started
    scores = {name: predict(model, devs[name]) for name in ("val", "wice", "lfqa")}
    return model, scores, seconds, len(allowed)


def main():
    if {"-h", "--help"} & set(sys.argv[1:]):
        print((__doc__ or "").strip())
        return
    t0 = time.time()
    budget = float(sys.argv[1]) if len(sys.argv) > 1 else 420
    base = base_state()
    named = sys.argv[2:]
    unknown = sorted(set(named) - {cfg["name"] for cfg in CONFIGS})
    if unknown:
        sys.exit(f"unknown settings {unknown}: choose from {[cfg['name'] for cfg in CONFIGS]}")
    configs = [cfg for cfg in CONFIGS if not named or cfg["name"] in named]
    pools, vocab, devs = {}, {}, {}
    for window in sorted({cfg["W"] for cfg in configs}):
        pools[window] = load_pack("train", window)
        vocab[window] = json.loads(Path(HERE, f"vocab_{window}.json").read_text())["kinds"]
        devs[window] = {name: load_pack(name, window) for name in ("val", "wice", "lfqa")}
    results, saved, best = [], {}, 0.0
    for cfg in configs:
        if time.time() - t0 > budget:
            print("budget reached; skipping", cfg["name"], flush=True)
            continue
        window = cfg["W"]
        model, scores, seconds, n = train(cfg, pools[window], vocab[window], devs[window], base)
        metric = float(
            np.mean([auc(scores[s], devs[window][s]["label"]) for s in ("wice", "lfqa")])
        )
        results.append({"cfg": cfg, "train_seconds": seconds, "allowed": n, "dev_auc_mean": metric})
        saved.update({f"{cfg['name']}|{name}": value for name, value in scores.items()})
        np.savez_compressed(f"{OUT}/scores.npz", **saved)
        if metric > best:
            best = metric
            results[-1]["kept"] = True
            state = {
                k: v.detach().half().cpu().contiguous()
                for k, v in model.state_dict().items()
                if cfg.get("unfreeze") or "word_embeddings" not in k
            }
            keys = sorted(state)
            third = (len(keys) + 2) // 3
            for part in range(3):
                save_file(
                    {k: state[k] for k in keys[part * third : (part + 1) * third]},
                    f"{OUT}/best_part{part}.safetensors",
                )
            Path(OUT, "best.json").write_text(json.dumps(cfg))
        Path(OUT, "results.json").write_text(json.dumps(results, indent=1))
        print(
            cfg["name"],
            "auc",
            round(metric, 4),
            "trained",
            round(seconds, 1),
            "s",
            "elapsed",
            round(time.time() - t0),
            flush=True,
        )
    print("done", round(time.time() - t0), flush=True)


if __name__ == "__main__":
    main()
