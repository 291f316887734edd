"""``python -m veracity_training.data --out runs/verifier/data --seed 13 [--scale 1.0]``.

Exit codes: 0 built, 2 bad option (argparse or an :class:`~veracity.errors.OptionError`).
"""

from __future__ import annotations

import argparse
import json
import shlex
import sys
from pathlib import Path

from veracity.errors import OptionError
from veracity_training.data.build import BuildConfig, build, write
from veracity_training.data.locations import nli_root


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m veracity_training.data",
        description="Build the verifier's training data (train.jsonl, val.jsonl, card.json).",
    )
    parser.add_argument("--out", type=Path, required=True, help="output folder")
    parser.add_argument("--seed", type=int, default=13)
    parser.add_argument("--scale", type=float, default=1.0, help="multiplies every quota")
    parser.add_argument(
        "--root",
        type=Path,
        default=nli_root(),
        help="the nlidata folder (default: $VERACITY_DATA/../nlidata)",
    )
    parser.add_argument(
        "--no-parsed",
        action="store_true",
        help="skip the twins that need spaCy's parse (swapped roles, co-hyponyms)",
    )
    parser.add_argument(
        "--wordnet",
        type=Path,
        default=None,
        help="WordNet 3.0 database folder (default: /usr/share/wordnet, Debian's wordnet-base)",
    )
    parser.add_argument("--json", action="store_true", help="print the card as JSON")
    args = parser.parse_args(argv)
    command = "python -m veracity_training.data " + shlex.join(
        sys.argv[1:] if argv is None else argv
    )
    try:
        config = BuildConfig(
            root=args.root,
            out=args.out,
            seed=args.seed,
            scale=args.scale,
            command=command,
            parsed=not args.no_parsed,
            wordnet=args.wordnet,
        )
    except OptionError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    result = build(config)
    write(result, args.out)
    card = result.card
    if args.json:
        print(json.dumps(card, indent=1, ensure_ascii=False))
    else:
        print(
            f"wrote {card['rows']['train']} train + {card['rows']['val']} val rows to {args.out} "
            f"in {card['build_seconds']} s; labels {card['per_label']}"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
