"""Release check of a candidate verifier: the issue's bar and the contradictions it must keep.

    nice -n 10 .venv/bin/python bench/verifier_candidate.py --verifier /tmp/v_new --name cand_new

Runs ``bench/verifier.py`` (lexical, cosine, the candidate combined and raw; WiCE dev and LFQA
dev) and ``bench/verify_rgb.py`` with the candidate, each writing its own result and README
section (``NAME`` and ``NAME_rgb``), then checks:

- **baselines**: on each set, the combined candidate's cross-threshold balanced accuracy, mean
  over the group splits, is above lexical's and cosine's on the same splits;
- **contradictions**: on RGB, the share of planted false answers contested with conflicting
  sources, and the share of true answers flagged by the NLI layer when only the planted passages
  are given, are each at most ``--tolerance`` below the reference run (``verify_rgb``, the shipped
  verifier). A network can buy word-overlap agreement by ceasing to see contradictions (cand_d2
  did); this check catches it.

Throughput is not checked here (``bench/verifier_speed.py``). Exit status 0 when every check
passes, 1 when one fails; ``--json`` prints the checks as JSON.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import sys
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

import verifier
import verify_rgb
from _report import RESULTS
from verifier_data import DATASETS, DEFAULT_DATA

SETS = ("wice", "lfqa")
#: (RGB row, answer, share): what the candidate must keep of the reference's contradictions.
RGB_CHECKS = (("conflict / nli", "false", "contested"), ("planted only / nli", "true", "flagged"))


@dataclass(frozen=True)
class Check:
    name: str
    value: float | None  # None when not measured
    bar: float
    passed: bool
    detail: str


def baseline_checks(figures: dict[str, Any], candidate: str) -> list[Check]:
    """The candidate against each baseline of a ``verifier.py`` run, set by set."""
    scorers = figures["scorers"]
    checks = []
    for key in SETS:
        ours = scorers[candidate]["results"][key]
        for baseline in verifier.BASELINES:
            if key not in scorers.get(baseline, {}).get("results", {}):
                checks.append(
                    Check(
                        name=f"{DATASETS[key][1]} vs {baseline}",
                        value=None,
                        bar=0.0,
                        passed=False,
                        detail="baseline not measured",
                    )
                )
                continue
            gaps = verifier.split_gaps(ours, scorers[baseline]["results"][key])
            checks.append(
                Check(
                    name=f"{DATASETS[key][1]} vs {baseline}",
                    value=float(gaps.mean()),
                    bar=0.0,
                    passed=bool(gaps.mean() > 0),
                    detail=f"{gaps.mean():+.1f} points, higher on {int((gaps > 0).sum())} of "
                    f"{len(gaps)} splits",
                )
            )
    return checks


def rgb_checks(results: dict[str, Any], reference: dict[str, Any], tolerance: float) -> list[Check]:
    """The candidate's RGB contradiction shares against the reference run's."""
    checks = []
    for row, answer, share in RGB_CHECKS:
        value = float(results[row][answer][share])
        before = float(reference[row][answer][share])
        checks.append(
            Check(
                name=f"RGB {row}: {answer} answers {share}",
                value=value,
                bar=before - tolerance,
                passed=value >= before - tolerance,
                detail=f"{value:.0%} against the reference's {before:.0%}",
            )
        )
    return checks


def _figures(name: str) -> dict[str, Any]:
    path = RESULTS / f"{name}.json"
    if not path.is_file():
        raise SystemExit(f"{path} not found: run the benchmark that writes {name!r} first")
    figures: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))["figures"]
    return figures


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0] if __doc__ else None)
    parser.add_argument(
        "--verifier",
        type=Path,
        required=True,
        help="the candidate's folder (veracity export-verifier --out)",
    )
    parser.add_argument("--name", required=True, help="result name of the candidate's runs")
    parser.add_argument(
        "--reference",
        default="verify_rgb",
        help="result name of the RGB run to compare with (the shipped verifier)",
    )
    parser.add_argument(
        "--tolerance",
        type=float,
        default=0.10,
        help="how far below the reference an RGB share may fall (default 0.10)",
    )
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA)
    parser.add_argument("--json", action="store_true", help="print the checks as JSON")
    args = parser.parse_args(argv)
    if not (args.verifier / "config.json").is_file():
        raise SystemExit(
            f"{args.verifier} holds no verifier (config.json missing): pass the "
            "folder that `veracity export-verifier --out` wrote"
        )
    reference = _figures(args.reference)["results"]
    candidate = f"embedded:{args.verifier}"
    with contextlib.redirect_stdout(sys.stderr):  # their tables; stdout keeps the checks
        verifier.main(
            [
                "--scorers",
                f"lexical,cosine,{candidate},embedded-raw:{args.verifier}",
                "--datasets",
                ",".join(SETS),
                "--data",
                str(args.data),
                "--name",
                args.name,
            ]
        )
        verify_rgb.main(
            ["--verifier", candidate, "--data", str(args.data), "--name", f"{args.name}_rgb"]
        )
    checks = baseline_checks(_figures(args.name), candidate) + rgb_checks(
        _figures(f"{args.name}_rgb")["results"], reference, args.tolerance
    )
    if args.json:
        print(json.dumps([asdict(check) for check in checks], indent=1))
    else:
        for check in checks:
            print(f"{'pass' if check.passed else 'FAIL'}  {check.name}: {check.detail}")
    sys.exit(0 if all(check.passed for check in checks) else 1)


if __name__ == "__main__":
    main()
