"""Verifier throughput (pairs/s) at premises of 128, 512 and 2048 MiniLM tokens, and peak memory.

    nice -n 10 .venv/bin/python bench/verifier_speed.py --scorers lexical,cosine,embedded

Each scorer runs in its own subprocess with 2 onnxruntime threads; its peak memory is that
process's high-water RSS (VmHWM: Python, libraries and model included). Premises are cut from
real text (the LFQA and WiCE development documents) to exactly N MiniLM tokens (premise alone,
without the claim or special tokens), each pair with its own premise and a real answer
sentence as the claim; pairs go through ``run`` in batches of 64; a length's figure is the
median of 3 runs. The warm-up and every run get premises and claims of their own, so a scorer
that caches what it has read (``align`` keeps recent premises) is timed on text it has not
seen. With ``--batches 1,8,32`` each embedded scorer is also timed with ``per_row``
activations at that many pairs per forward pass (rows ``NAME#per_row/B``): the path whose
scores do not depend on the batch; the plain row is the shipped default (``per_tensor``, one
pair per pass).

The reference is a model of MiniCheck-Flan-T5-L's size: a T5 built from flan-t5-large's
published configuration with random weights (nothing downloaded), in torch on 2 threads, timed
as MiniCheck scores one chunk: one encoder pass over 512 tokens and one decoder step per pair,
batch 4. A 2048-token premise would be 4 such chunks, so its 2048 figure is the 512 one / 4.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shlex
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _report import write_result
from verifier_data import DEFAULT_DATA, load

LENGTHS = (128, 512, 2048)
#: pairs timed per run at each premise length (enough for a stable figure, few enough to be quick)
PAIRS = {128: 32, 512: 16, 2048: 8}
BATCH = 64
#: pairs of the warm-up call, apart from the timed ones
WARM_UP = 4
REFERENCE = "minicheck-flan-t5-large-sized"
#: flan-t5-large's published config.json (google/flan-t5-large), as MiniCheck-Flan-T5-L uses it
FLAN_T5_LARGE: dict[str, Any] = {
    "d_model": 1024,
    "d_ff": 2816,
    "d_kv": 64,
    "num_heads": 16,
    "num_layers": 24,
    "num_decoder_layers": 24,
    "vocab_size": 32128,
    "feed_forward_proj": "gated-gelu",
    "dense_act_fn": "gelu_new",
    "is_gated_act": True,
    "relative_attention_num_buckets": 32,
    "relative_attention_max_distance": 128,
    "layer_norm_epsilon": 1e-6,
    "dropout_rate": 0.1,
    "tie_word_embeddings": False,
    "pad_token_id": 0,
    "eos_token_id": 1,
    "decoder_start_token_id": 0,
    "n_positions": 512,
}
T5_CHUNK_TOKENS = 512
T5_BATCH = 4
T5_BATCHES = 2


def _peak_rss_mib() -> float:
    """This process's peak RSS. ``ru_maxrss`` of a forked child starts at its parent's peak
    (Linux keeps the high-water mark across fork and exec), so read the fresh ``VmHWM`` of
    the exec'd process where /proc has it."""
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024  # kB
    except OSError:
        pass
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # KiB on Linux


# --- inputs -----------------------------------------------------------------------------------


def _corpus() -> tuple[str, list[str]]:
    """Long real text to cut premises from, and real claims."""
    lfqa = load("lfqa", DEFAULT_DATA)
    wice = load("wice", DEFAULT_DATA)
    documents = list(dict.fromkeys(item.premise for item in lfqa + wice))
    claims = list(dict.fromkeys(item.claim for item in lfqa))
    return "\n\n".join(documents), claims


def premises_of_length(text: str, tokens: int, count: int) -> list[str]:
    """``count`` distinct slices of ``text`` that are exactly ``tokens`` MiniLM tokens long."""
    from veracity.assets import load_tokenizer

    tokenizer = load_tokenizer()
    encoding = tokenizer.encode(text, add_special_tokens=False)
    offsets = encoding.offsets
    stride = max((len(offsets) - tokens) // count, 1)
    premises: list[str] = []
    start = 0
    while len(premises) < count:
        if start + tokens > len(offsets):
            raise SystemExit(f"not enough text for {count} premises of {tokens} tokens")
        for shift in range(50):  # a cut inside a word can re-tokenise differently: move on
            first = start + shift
            piece = text[offsets[first][0] : offsets[first + tokens - 1][1]]
            if len(tokenizer.encode(piece, add_special_tokens=False).ids) == tokens:
                premises.append(piece)
                break
        start += stride
    return premises


# --- workers (run in a subprocess each) -------------------------------------------------------


def _pairs(tokens: int, batches: Sequence[int]) -> int:
    """Pairs timed per run: :data:`PAIRS`, or two of the largest batch if that is more."""
    return max(PAIRS.get(tokens, 16), 2 * max(batches, default=0))


def build_inputs(
    lengths: Sequence[int], runs: int, batches: Sequence[int] = ()
) -> dict[str, dict[str, list[str]]]:
    """Premises and claims per length, made once in the parent so workers hold only these: the
    first :data:`WARM_UP` pairs for the warm-up, then :func:`_pairs` fresh pairs per run."""
    text, claims = _corpus()
    inputs = {}
    for tokens in lengths:
        count = WARM_UP + _pairs(tokens, batches) * runs
        inputs[str(tokens)] = {
            "premises": premises_of_length(text, tokens, count),
            "claims": [claims[i % len(claims)] for i in range(count)],
        }
    return inputs


def _scorer(name: str, threads: int) -> Any:
    """The loaded scorer of ``name``; ``NAME#ACTIVATIONS/BATCH`` is an embedded verifier with
    those activations and pairs per forward pass (see :func:`with_batches`)."""
    from verifier import make_scorer

    name, _, mode = name.partition("#")
    if not mode:
        return make_scorer(name, threads)
    from veracity.assets import VERIFIER_DIR
    from veracity.models.pairs.shipped import EmbeddedVerifier

    activations, _, batch = mode.partition("/")
    path = name.partition(":")[2]
    return EmbeddedVerifier(
        model_dir=path or VERIFIER_DIR,
        threads=threads,
        activations=activations,  # type: ignore[arg-type]
        batch_size=int(batch),
    ).load()


def with_batches(names: Sequence[str], batches: Sequence[int]) -> list[str]:
    """Each embedded scorer as shipped (``per_tensor``, one pair per pass), then with
    ``per_row`` activations at each of ``batches`` pairs per pass (its batch-invariant path)."""
    out: list[str] = []
    for name in names:
        out.append(name)
        if batches and name.partition(":")[0] == "embedded":
            out += [f"{name}#per_row/{batch}" for batch in batches]
    return out


def _time_scorer(
    name: str,
    threads: int,
    runs: int,
    inputs: dict[str, dict[str, list[str]]],
) -> dict[str, Any]:
    from verifier import UnavailableError

    try:
        scorer = _scorer(name, threads)
    except UnavailableError as exc:
        return {"skipped": " ".join(str(exc).split())}
    figures: dict[str, Any] = {"model_id": scorer.model_id, "pairs_per_s": {}, "run_seconds": {}}
    for tokens, pairs in inputs.items():
        premises, claims = pairs["premises"], pairs["claims"]
        # warm-up: first-call allocations, lazy loads
        scorer.run(premises[:WARM_UP], claims[:WARM_UP])
        count = (len(premises) - WARM_UP) // runs
        seconds = []
        for run in range(runs):
            begin = WARM_UP + run * count
            started = time.perf_counter()
            for first in range(begin, begin + count, BATCH):
                stop = min(first + BATCH, begin + count)
                scorer.run(premises[first:stop], claims[first:stop])
            seconds.append(time.perf_counter() - started)
        figures["run_seconds"][tokens] = [round(s, 3) for s in seconds]
        figures["pairs_per_s"][tokens] = count / statistics.median(seconds)
    return figures


def _time_reference(threads: int) -> dict[str, Any]:
    import torch
    from transformers import T5Config, T5ForConditionalGeneration

    torch.set_num_threads(threads)
    torch.manual_seed(0)
    started = time.perf_counter()
    model = T5ForConditionalGeneration(T5Config(**FLAN_T5_LARGE))
    model.eval()  # type: ignore[no-untyped-call]
    build_seconds = time.perf_counter() - started
    parameters = sum(p.numel() for p in model.parameters())
    generator = torch.Generator().manual_seed(0)
    vocabulary: int = FLAN_T5_LARGE["vocab_size"]
    ids = torch.randint(2, vocabulary, (T5_BATCH, T5_CHUNK_TOKENS), generator=generator)
    mask = torch.ones_like(ids)
    start = torch.zeros((T5_BATCH, 1), dtype=torch.long)
    seconds = []
    with torch.inference_mode():
        for batch in range(T5_BATCHES + 1):  # the first batch is a warm-up
            began = time.perf_counter()
            model(input_ids=ids, attention_mask=mask, decoder_input_ids=start)
            if batch:
                seconds.append(time.perf_counter() - began)
    per_second = T5_BATCH / statistics.median(seconds)
    return {
        "model_id": REFERENCE,
        "parameters": parameters,
        "build_seconds": build_seconds,
        "batch_seconds": [round(s, 3) for s in seconds],
        "pairs_per_s": {
            str(T5_CHUNK_TOKENS): per_second,
            "2048": per_second / (2048 // T5_CHUNK_TOKENS),
        },
    }


def worker(name: str, threads: int, runs: int, inputs_path: Path | None) -> None:
    if name == REFERENCE:
        figures = _time_reference(threads)
    elif inputs_path is None:
        raise SystemExit("a scorer worker needs --inputs (the parent writes it)")
    else:
        figures = _time_scorer(name, threads, runs, json.loads(inputs_path.read_text()))
    figures["peak_rss_mib"] = _peak_rss_mib()
    print(json.dumps(figures))


# --- parent -----------------------------------------------------------------------------------


def run_worker(name: str, args: argparse.Namespace, inputs: Path) -> dict[str, Any]:
    env = dict(os.environ, OMP_NUM_THREADS=str(args.threads), MKL_NUM_THREADS=str(args.threads))
    command = [
        sys.executable,
        str(Path(__file__).resolve()),
        "--worker",
        name,
        "--threads",
        str(args.threads),
        "--runs",
        str(args.runs),
        "--inputs",
        str(inputs),
    ]
    started = time.perf_counter()
    done = subprocess.run(command, capture_output=True, text=True, env=env, check=False)
    if done.returncode != 0:
        return {
            "skipped": f"worker failed (exit {done.returncode}): "
            + " ".join(done.stderr.strip().splitlines()[-3:])
        }
    figures: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    figures["wall_seconds"] = round(time.perf_counter() - started, 1)
    return figures


def _rate(value: float | None) -> str:
    if value is None:
        return "—"
    if value >= 100:
        return f"{value:,.0f}"
    return f"{value:.1f}" if value >= 10 else f"{value:.2f}" if value >= 1 else f"{value:.3g}"


def table_md(figures: dict[str, Any], lengths: Sequence[int]) -> str:
    reference = figures["scorers"].get(REFERENCE, {}).get("pairs_per_s", {})
    head = " | ".join(f"{n} tok" for n in lengths)
    lines = [
        f"Pairs per second by premise length (MiniLM tokens), {figures['threads']} threads, "
        f"median of {figures['runs']} runs (the reference: of {T5_BATCHES} batches of "
        f"{T5_BATCH} after a warm-up); peak RSS of the scorer's own process. Load "
        f"average when it started: {figures['load_average']} (above 1, other work shared "
        "the 2 cores, so figures are lower bounds). Speed-up = our pairs/s over the "
        "MiniCheck-Flan-T5-L-sized reference's at the same length (its 2048 figure is "
        "4 chunks of 512).",
        "",
        f"| scorer | {head} | peak RSS MiB | speed-up @512 | speed-up @2048 |",
        "| --- | " + " | ".join("---:" for _ in lengths) + " | ---: | ---: | ---: |",
    ]
    for name, entry in figures["scorers"].items():
        if "skipped" in entry:
            continue
        rates = entry["pairs_per_s"]
        cells = [_rate(rates.get(str(n))) for n in lengths]
        ratios = []
        for n in ("512", "2048"):
            if name == REFERENCE or n not in rates or n not in reference:
                ratios.append("—")
            else:
                ratios.append(f"{rates[n] / reference[n]:,.1f}x")
        label = (
            f"{name} (random weights, {entry['parameters'] / 1e6:.0f}M params)"
            if name == REFERENCE
            else name
        )
        lines.append(
            f"| {label} | "
            + " | ".join(cells)
            + f" | {entry['peak_rss_mib']:,.0f} | {ratios[0]} | {ratios[1]} |"
        )
    for name, entry in figures["scorers"].items():
        if "skipped" in entry:
            lines += ["", f"Skipped `{name}`: {entry['skipped']}"]
    if REFERENCE in figures["scorers"] and "parameters" in figures["scorers"][REFERENCE]:
        lines += [
            "",
            "The reference's parameter count is as transformers builds it from the "
            "config (it counts a weight shared by two modules once); its compute per pair "
            "is that of flan-t5-large: 24 + 24 layers, d_model 1024, gated-GELU d_ff 2816.",
        ]
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0] if __doc__ else None)
    parser.add_argument("--scorers", default="lexical,cosine,embedded")
    parser.add_argument(
        "--lengths",
        default=",".join(map(str, LENGTHS)),
        type=lambda text: [int(part) for part in text.split(",")],
    )
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument(
        "--batches",
        default="",
        type=lambda text: [int(part) for part in text.split(",") if part],
        help="also time each embedded scorer with per_row activations at these pairs per "
        "forward pass, e.g. 1,8,32",
    )
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument(
        "--no-reference",
        action="store_true",
        help="skip the MiniCheck-Flan-T5-L-sized torch reference",
    )
    parser.add_argument("--worker", help=argparse.SUPPRESS)
    parser.add_argument("--inputs", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.worker:
        worker(args.worker, args.threads, args.runs, args.inputs)
        return

    names = with_batches(
        [name.strip() for name in args.scorers.split(",") if name.strip()], args.batches
    )
    if not args.no_reference:
        names.append(REFERENCE)
    figures: dict[str, Any] = {
        "threads": args.threads,
        "runs": args.runs,
        "lengths": args.lengths,
        "pairs": {n: _pairs(n, args.batches) for n in args.lengths},
        "batches": args.batches,
        "load_average": round(os.getloadavg()[0], 2),
        "scorers": {},
    }
    with tempfile.TemporaryDirectory() as folder:
        inputs = Path(folder) / "inputs.json"
        inputs.write_text(
            json.dumps(build_inputs(args.lengths, args.runs, args.batches)), encoding="utf-8"
        )
        for name in names:
            print(f"timing {name} ...", file=sys.stderr, flush=True)
            figures["scorers"][name] = run_worker(name, args, inputs)
            print(f"  {json.dumps(figures['scorers'][name])}", file=sys.stderr, flush=True)
    markdown = table_md(figures, args.lengths)
    command = "python bench/verifier_speed.py " + shlex.join(sys.argv[1:] if argv is None else argv)
    path = write_result("verifier_speed", figures, markdown, command)
    print(markdown)
    print(f"wrote {path}", file=sys.stderr)


if __name__ == "__main__":
    main()
