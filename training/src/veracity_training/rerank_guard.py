"""Write a reranker's guard (:mod:`veracity.models.relevance.guard`), and a combiner fit on the
development sets, into its ``config.json`` and card.

The figures come from ``bench/rerank_fit.py`` (its results JSON holds them under ``guard``), so
what the guard says is what that benchmark measured on the development sets:

    python -m veracity_training.rerank_guard --bench bench/results/rerank_fit.json \\
        --model-dir src/veracity/assets/reranker

(``bench/rerank_fit.py --guard-into DIR`` does the same right after measuring;
``bench/rerank_fit.py --ship-into DIR --version V`` ships its combiner refit on all the
development sets, with a guard whose reranker figures are that refit's, each set held out.)
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from veracity.errors import InputError, VeracityError
from veracity.models.relevance.guard import RerankGuard

__all__ = [
    "combiner_section",
    "guard_section",
    "main",
    "with_guard_section",
    "with_section",
    "write_combiner",
    "write_guard",
]

GUARD_START, GUARD_END = "<!-- guard -->", "<!-- /guard -->"
COMBINER_START, COMBINER_END = "<!-- combiner -->", "<!-- /combiner -->"


def _write_config(config_file: Path, config: Mapping[str, Any]) -> None:
    temporary = config_file.with_name("config.json.tmp")
    temporary.write_text(json.dumps(config, indent=1) + "\n", encoding="utf-8")
    temporary.replace(config_file)


def _read_config(model_dir: Path) -> tuple[Path, dict[str, Any]]:
    config_file = model_dir / "config.json"
    if not config_file.is_file():
        raise InputError(f"no reranker at {model_dir} (config.json missing): pass --model-dir")
    return config_file, json.loads(config_file.read_text(encoding="utf-8"))


def write_guard(model_dir: Path, block: Mapping[str, Any], source: str) -> RerankGuard:
    """Check ``block`` (figures and calibration) and write it, with ``source``, into
    ``model_dir/config.json`` (and its section into ``CARD.md`` if the folder has one); returns
    the guard as the reranker will read it."""
    config_file, config = _read_config(model_dir)
    guard = RerankGuard.from_config({**block, "source": source}, where=str(config_file))
    config["guard"] = guard.to_config()
    _write_config(config_file, config)
    card = model_dir / "CARD.md"
    if card.is_file():
        card.write_text(
            with_guard_section(card.read_text(encoding="utf-8"), guard), encoding="utf-8"
        )
    return guard


def write_combiner(
    model_dir: Path, combiner: Mapping[str, Any], *, version: str, source: str
) -> None:
    """Make ``combiner`` (``features``, ``weights``, ``bias``, ``fit_rows``: how it was fit)
    the combiner of the reranker in ``model_dir``, at ``version``; its card's title and combiner
    section follow. ``source`` says where the fit comes from."""
    config_file, config = _read_config(model_dir)
    old = config.get("combiner")
    if not old or list(combiner["features"]) != list(old["features"]):
        raise InputError(
            f"{config_file}: the combiner's features {combiner['features']} are not this "
            f"reranker's ({old['features'] if old else 'none'}); export it with its aligner"
        )
    config["combiner"] = {
        "features": list(combiner["features"]),
        "weights": [float(w) for w in combiner["weights"]],
        "bias": float(combiner["bias"]),
        "fit_rows": str(combiner["fit_rows"]),
        "source": source,
    }
    if "standardized_weights" in combiner:
        config["combiner"]["standardized_weights"] = [
            float(w) for w in combiner["standardized_weights"]
        ]
    config["version"] = version
    _write_config(config_file, config)
    card = model_dir / "CARD.md"
    if card.is_file():
        text = card.read_text(encoding="utf-8")
        title, rest = text.split("\n", 1)
        if title.startswith("# "):
            text = f"# {config['model_id']} {version}\n{rest}"
        card.write_text(
            with_section(text, COMBINER_START, COMBINER_END, combiner_section(config["combiner"])),
            encoding="utf-8",
        )


def combiner_section(combiner: Mapping[str, Any]) -> str:
    """The card's section on the combiner: its weights and what they were fit on."""
    terms = ", ".join(
        f"{f} {w:+.3f}" for f, w in zip(combiner["features"], combiner["weights"], strict=True)
    )
    return "\n".join(
        [
            "## Combiner",
            "",
            f"The reranker's logit is {terms}, bias {combiner['bias']:+.3f}: "
            f"{combiner['fit_rows']} ({combiner['source']}). It replaces the combiner described "
            "above."
            + (
                " Standardized (each weight times its feature's spread on those candidates), "
                "the features' shares of its decision are "
                + ", ".join(
                    f"{f} {100 * abs(w) / total:.0f}%"
                    for f, w in zip(combiner["features"], standardized, strict=True)
                )
                + "."
                if (standardized := combiner.get("standardized_weights"))
                and (total := sum(abs(w) for w in standardized))
                else ""
            ),
        ]
    )


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
            else "It beats every feature alone on every set"
            + (
                f" (on {', '.join(ties)} it and a feature both rank perfectly)"
                if (ties := guard.ceiling_ties())
                else ""
            )
            + ": it ranks with its combiner."
        ),
    ]
    return "\n".join(lines)


def with_guard_section(card: str, guard: RerankGuard) -> str:
    """``card`` with its guard section (between ``<!-- guard -->`` markers) replaced or added."""
    return with_section(card, GUARD_START, GUARD_END, guard_section(guard))


def with_section(card: str, start: str, end: str, text: str) -> str:
    """``card`` with the section between the ``start`` and ``end`` markers replaced by ``text``,
    or added at its end."""
    section = f"{start}\n{text}\n{end}"
    if start in card and end in card:
        before, rest = card.split(start, 1)
        return before + section + rest.split(end, 1)[1]
    return card.rstrip("\n") + "\n\n" + section + "\n"


def main(argv: list[str] | None = None) -> int:
    """Exit codes: 0 written, 2 bad input."""
    parser = argparse.ArgumentParser(prog="python -m veracity_training.rerank_guard")
    parser.add_argument("--bench", type=Path, required=True, help="bench/results/rerank_fit.json")
    parser.add_argument("--model-dir", type=Path, required=True, help="the reranker folder")
    args = parser.parse_args(argv)
    if not args.bench.is_file():
        print(
            f"error: no bench results at {args.bench}: run bench/rerank_fit.py --name rerank_fit "
            "first, or pass its results with --bench",
            file=sys.stderr,
        )
        return 2
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
