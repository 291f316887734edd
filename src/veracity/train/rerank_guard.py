"""Write a reranker's guard (:mod:`veracity.rerankers.guard`) into its ``config.json``.

The figures come from ``bench/rerank_fit.py`` (its results JSON holds them under ``guard``), so
what the guard says is what that benchmark measured on the development sets:

    python -m veracity.train.rerank_guard --bench bench/results/rerank_fit.json \\
        --model-dir src/veracity/assets/reranker

(``bench/rerank_fit.py --guard-into DIR`` does the same right after measuring.)
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from veracity.errors import InputError, VeracityError
from veracity.rerankers.guard import RerankGuard

__all__ = ["guard_section", "main", "with_guard_section", "write_guard"]

GUARD_START, GUARD_END = "<!-- guard -->", "<!-- /guard -->"


def write_guard(model_dir: Path, block: Mapping[str, Any], source: str) -> RerankGuard:
    """Check ``block`` (figures and calibration) and write it, with ``source``, into
    ``model_dir/config.json`` (and its section into ``CARD.md`` if the folder has one); returns
    the guard as the reranker will read it."""
    config_file = model_dir / "config.json"
    if not config_file.is_file():
        raise InputError(f"no reranker at {model_dir} (config.json missing): pass --model-dir")
    guard = RerankGuard.from_config({**block, "source": source}, where=str(config_file))
    config = json.loads(config_file.read_text(encoding="utf-8"))
    config["guard"] = guard.to_config()
    temporary = config_file.with_name("config.json.tmp")
    temporary.write_text(json.dumps(config, indent=1) + "\n", encoding="utf-8")
    temporary.replace(config_file)
    card = model_dir / "CARD.md"
    if card.is_file():
        card.write_text(
            with_guard_section(card.read_text(encoding="utf-8"), guard), encoding="utf-8"
        )
    return guard


def guard_section(guard: RerankGuard) -> str:
    """The card's section on the guard: the figures it holds and what the reranker ranks by."""
    features = list(guard.calibration)
    lines = [
        "## Guard",
        "",
        f"nDCG@10 on the development sets ({guard.source}):",
        "",
        "| set | reranker | " + " | ".join(f"{f} alone" for f in features) + " |",
        "| --- | ---: | " + " | ".join("---:" for _ in features) + " |",
    ]
    for name, row in guard.figures.items():
        cells = " | ".join(f"{row[f]:.2f}" if f in row else "—" for f in features)
        lines.append(f"| {name} | {row['reranker']:.2f} | {cells} |")
    fallback = guard.fallback()
    lines += [
        "",
        (
            f"It does not beat every feature on every set, so it ranks by {fallback.feature} "
            f"alone (the best mean over the sets), as sigmoid({fallback.slope:.3f} x "
            f"{'-' if fallback.bias < 0 else '+'} {abs(fallback.bias):.3f}), and says so in "
            f"every result's notes: {fallback.reason}."
            if fallback is not None
            else "It beats every feature alone on every set: it ranks with its combiner."
        ),
    ]
    return "\n".join(lines)


def with_guard_section(card: str, guard: RerankGuard) -> str:
    """``card`` with its guard section (between ``<!-- guard -->`` markers) replaced or added."""
    section = f"{GUARD_START}\n{guard_section(guard)}\n{GUARD_END}"
    if GUARD_START in card and GUARD_END in card:
        before, rest = card.split(GUARD_START, 1)
        return before + section + rest.split(GUARD_END, 1)[1]
    return card.rstrip("\n") + "\n\n" + section + "\n"


def main(argv: list[str] | None = None) -> int:
    """Exit codes: 0 written, 2 bad input."""
    parser = argparse.ArgumentParser(prog="python -m veracity.train.rerank_guard")
    parser.add_argument("--bench", type=Path, required=True, help="bench/results/rerank_fit.json")
    parser.add_argument("--model-dir", type=Path, required=True, help="the reranker folder")
    args = parser.parse_args(argv)
    try:
        result = json.loads(args.bench.read_text(encoding="utf-8"))
        if "guard" not in result.get("figures", {}):
            raise InputError(
                f"{args.bench} holds no guard figures: rerun bench/rerank_fit.py --name rerank_fit"
            )
        source = (
            f"bench {result['name']} at {result['commit']}, development sets "
            f"{', '.join(result['figures']['guard']['figures'])}, {result['date'][:10]}"
        )
        guard = write_guard(args.model_dir, result["figures"]["guard"], source)
    except (OSError, json.JSONDecodeError, VeracityError) as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    fallback = guard.fallback()
    print(
        f"wrote the guard into {args.model_dir / 'config.json'}: "
        + (f"falls back to {fallback.feature} ({fallback.reason})" if fallback else "no fallback")
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
