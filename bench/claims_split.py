"""Claims that are claims: not-checkable sentences and exact spans, before and after.

    nice -n 10 .venv/bin/python bench/claims_split.py [--before 3e084eb]

Runs the rule-based claim extractor (``ClaimExtractor()``, the default of ``verify``) on

- every answer of LFQA-Verification dev (the six annotation files; an answer is its annotated
  sentences joined by a space, as ``verify_lfqa`` builds it), and counts the annotated
  sentences that become *not checkable* (every sentence the splitter makes of them skipped
  for a reason of ``veracity.types.NOT_CHECKABLE``), by annotators' label, and the claims whose
  span does not slice exactly the text the verifier reads;
- twenty hand-made answers with code, paths, URLs, versions, lists and man-page whitespace
  (the issue's three splitting failures first): the claims whose span is not exact;
- a hand-made table of non-claims ("docs.", "The system works as documented.", other
  scripts, runs of one letter, bare list numbers, headings) and of real factual sentences
  copied from documentation that ships on Debian: how many of each are judged as claims.

A span is *exact* when the claim's text is its span as written, less only the documented
differences (citation markers with the whitespace before them, a list bullet, bold marks,
whitespace runs made one space, the end mark made one period) and the edits it records (an
opening recased, a reference replaced); a claim rewritten otherwise (a subject copied) spans
its sentence by design and is counted apart. The oracle is written here, apart from the code.

``--before REF`` measures the same on the code of commit ``REF`` (``git archive`` into a
temporary folder, run in a subprocess) and writes both side by side.
"""

from __future__ import annotations

import argparse
import ast
import functools
import json
import os
import re
import shlex
import subprocess
import sys
import tempfile
from collections import Counter
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _report import REPO, add_allow_dirty, write_result

DEFAULT_DATA = Path(os.environ.get("VERACITY_DATA", REPO.parent / "shared" / "data"))
#: The reasons of a not-checkable sentence (``veracity.types.NOT_CHECKABLE``, spelled out so
#: the script also measures code from before they existed).
NOT_CHECKABLE = ("fragment", "vague", "unreadable")

#: Sentences with nothing a source could support (the issue's trials and their kin).
NON_CLAIMS = [
    "docs.",
    "Docs.",
    "Yes.",
    "No.",
    "Sure.",
    "2.",
    "b)",
    "iii.",
    "In 2019.",
    "The default value.",
    "Not really.",
    "Mostly.",
    "See above.",
    "The system works as documented.",
    "It works as expected.",
    "This is described in the docs.",
    "Everything works correctly.",
    "The program does what it says.",
    "It is what it is.",
    "The tool works.",
    "It runs fine.",
    "That is explained in the manual.",
    "שלום עולם, זה טקסט.",
    "מנהל החבילות מתקין חבילות.",
    "这是一个测试句子。",
    "软件包管理器安装软件。",
    "Пакет устанавливает файлы.",
    "Το πακέτο εγκαθιστά αρχεία.",
    "حزمة البرامج تثبت الملفات.",
    "a" * 19_999,
    "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa.",
    "zzzzzzzzzzzzzzzzzzzz zzzzzzzzzzzzzzzzzzzz",
    "## Installation",
    "**Key facts**",
    "-",
    "* ",
]

#: Real factual sentences, copied from documentation that ships on Debian (README files, man
#: pages) and from the issue's trials: each must stay a claim.
REAL_CLAIMS = [
    "dpkg is a tool to install, build, remove and manage Debian packages.",
    "The adduser package includes the adduser and deluser commands for creating and removing "
    "users and groups.",
    "This package supplies the master copies of /etc/passwd and /etc/group, in "
    "/usr/share/base-passwd.",
    "It also supplies the utility update-passwd.",
    "root is never removed or changed.",
    "Debian reserves that range for future use.",
    "apt is the main command-line package manager for Debian and its derivatives.",
    "apt-cache is used for querying available information about installed as well as "
    "available packages.",
    "/etc/shells is no longer a config file, but is maintained by the add-shell and "
    "remove-shell programs.",
    "The simple make compiles a version of bc with fixed parameters for the recursive "
    "multiplication algorithm.",
    "--with-readline tells bc to use the readline package.",
    "adduser honors the distinction between dynamically allocated system users and groups.",
    "PyYAML is maintained by the YAML and Python communities.",
    "Run the ./.bootstrap script before building.",
    "The //! syntax marks inner doc comments in Rust.",
    "gzip compresses files.",
    "Bees dance.",
    "It works on Linux.",
    "Version 2.0 works as documented.",
    "It is required.",
    "By default, pip uses the operating system's certificate store for HTTPS.",
    "The Debian adduser package contains the master versions of /etc/passwd.",
    "The bridge was built after the war.",
    "All users prefer the dark theme.",
    "The sky is blue.",
    "tar will not overwrite existing files by default.",
]

#: Answers with code, paths, URLs, versions, lists and man-page whitespace (the issue's three
#: failures first): each claim's span must slice exactly what the verifier reads.
SPAN_ANSWERS = [
    "Run the ./.bootstrap script before building [1].",
    "The //! syntax marks inner doc comments in Rust.",
    "PyYAML is maintained by the YAML and Python communities.",
    "The $? variable holds the exit status of the last command.",
    "The ? wildcard matches exactly one character.",
    "Edit ~/.bashrc, then run source ~/.bashrc [2].",
    "The __init__.py file marks a package, and __main__.py runs it.",
    "Python 3.11.7 was released on 2023-12-04 (see https://www.python.org/downloads/).",
    "GNU tar 1.34 reads .tar.gz, .tar.xz and .tar.zst archives.",
    "Use `ls -la` to list hidden files . It also shows permissions.",
    "ls  -l\n       lists files in the long format [3].",
    "The default is 4 KiB , e.g. on x86 and ARM.",
    "- **apt-get** installs packages [1].\n- **apt-cache** queries them [2].",
    "1. dpkg installs .deb files.\n2. apt resolves their dependencies.",
    "The file /etc/default/grub sets GRUB_TIMEOUT=5 by default.",
    "It was written by J. R. Hacker et al. in 1999 and is maintained by Debian.",
    "See man(1) and ls(1) for details; both ship with the man-db package.",
    "The C:\\Users folder holds each user's profile on Windows.",
    "Options such as --no-preserve-root and -rf are dangerous.",
    "The U.S. mirror at http://ftp.us.debian.org/debian/ is the default.",
]

_CAPITALISED = re.compile(r"capitalised: '([^']+)' -> '([^']+)'$")
#: The rules write both sides with repr(): "'It'", or '"PayPal's"' when it holds a "'".
_REPLACED = re.compile(r"decontextualized: ('[^']+'|\"[^\"]+\") -> ('[^']+'|\"[^\"]+\")$")
_KEEPING = re.compile(r"decomposed$|capitalised: |decontextualized: ['\"]")


@functools.cache
def _oracle() -> Any:
    """``as_written`` of the property test (tests/verify/claims/test_claims_spans.py): the span
    as the verifier should read it. One definition, so that this figure and the test agree."""
    import importlib.util

    path = REPO / "tests" / "verify" / "claims" / "test_claims_spans.py"
    spec = importlib.util.spec_from_file_location("claims_spans_oracle", path)
    if spec is None or spec.loader is None:
        raise FileNotFoundError(f"{path} not found: run the bench from a checkout with its tests")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.as_written


def span_kind(answer: str, text: str, span_text: str, edits: tuple[str, ...]) -> str:
    """``exact``, ``rewritten`` (spans its sentence by design), ``not exact: reference
    replaced`` (a claim whose reference was replaced does not read as its span: before the
    span was kept, it was the whole sentence's) or ``not exact: characters changed``."""
    if not all(_KEEPING.match(edit) for edit in edits):
        return "rewritten"
    expected = _oracle()(span_text)
    for edit in edits:
        if (found := _CAPITALISED.match(edit)) is not None and expected.startswith(found[1]):
            expected = found[2] + expected[len(found[1]) :]
        elif (found := _REPLACED.match(edit)) is not None:
            original, replacement = map(ast.literal_eval, found.groups())
            at = re.search(rf"(?<!\w){re.escape(original)}(?!\w)", expected)
            if at is not None:
                expected = expected[: at.start()] + replacement + expected[at.end() :]
    if text == expected:
        return "exact"
    if any(edit.startswith("decontextualized") for edit in edits):
        return "not exact: reference replaced"
    return "not exact: characters changed"


def load_lfqa(data: Path) -> list[dict[str, Any]]:
    rows = []
    for path in sorted((data / "lfqa_verification_dev" / "annotations").glob("*.json")):
        for question in json.loads(path.read_text(encoding="utf-8")):
            annotations = question["annotations"]
            rows.append(
                {
                    "sentences": [str(a["answer"]).strip() for a in annotations],
                    "supported": [list(a["labels"]).count("supported") >= 2 for a in annotations],
                }
            )
    return rows


def measure(data: Path) -> dict[str, Any]:
    """The figures of the code on ``sys.path`` (this tree's, or the one ``--before`` made)."""
    from veracity.verify.claims import ClaimExtractor, split_answer

    extractor = ClaimExtractor()
    reasons: Counter[str] = Counter()
    spans: Counter[str] = Counter()
    examples: dict[str, list[str]] = {"not exact": [], "not checkable": []}
    sentences = not_checkable = not_checkable_supported = 0
    for row in load_lfqa(data):
        answer = " ".join(row["sentences"])
        starts, position = [], 0
        for sentence in row["sentences"]:
            starts.append(position)
            position += len(sentence) + 1
        pieces = split_answer(answer)
        for number, start in enumerate(starts):
            end = starts[number + 1] if number + 1 < len(starts) else len(answer)
            mine = [p for p in pieces if start <= p.span.start < end]
            sentences += 1
            if mine and all(p.skip in NOT_CHECKABLE for p in mine):
                not_checkable += 1
                not_checkable_supported += row["supported"][number]
                label = "supported" if row["supported"][number] else "not supported"
                examples["not checkable"].append(f"{row['sentences'][number]!r} ({label})")
        result = extractor.run(answer)
        reasons.update(skipped.reason for skipped in result.skipped)
        for claim in result.claims:
            kind = span_kind(answer, claim.text, claim.span.of(answer), claim.edits)
            spans[kind] += 1
            if kind.startswith("not exact") and len(examples["not exact"]) < 20:
                examples["not exact"].append(f"{claim.span.of(answer)!r} -> {claim.text!r}")
    span_claims = [
        (answer, claim) for answer in SPAN_ANSWERS for claim in extractor.run(answer).claims
    ]
    span_kinds = Counter(
        span_kind(answer, claim.text, claim.span.of(answer), claim.edits)
        for answer, claim in span_claims
    )
    for answer, claim in span_claims:
        kind = span_kind(answer, claim.text, claim.span.of(answer), claim.edits)
        if kind.startswith("not exact") and len(examples["not exact"]) < 20:
            examples["not exact"].insert(0, f"{claim.span.of(answer)!r} -> {claim.text!r}")
    hand: dict[str, Any] = {
        "span_answers": len(SPAN_ANSWERS),
        "span_claims": len(span_claims),
        "span_kinds": dict(span_kinds),
    }
    for name, table in (("non_claims", NON_CLAIMS), ("real_claims", REAL_CLAIMS)):
        judged = [bool(extractor.run(text).claims) for text in table]
        hand[name] = len(table)
        hand[f"{name}_judged"] = sum(judged)
    return {
        "lfqa_sentences": sentences,
        "lfqa_not_checkable": not_checkable,
        "lfqa_not_checkable_supported": not_checkable_supported,
        "lfqa_skip_reasons": dict(reasons),
        "lfqa_claims": sum(spans.values()),
        "lfqa_spans": dict(spans),
        "examples": examples,
        **hand,
    }


def measure_before(ref: str, data: Path) -> dict[str, Any]:
    """:func:`measure` on the code of commit ``ref``, in a subprocess."""
    with tempfile.TemporaryDirectory() as folder:
        archive = subprocess.run(
            ["git", "archive", ref, "src"], cwd=REPO, capture_output=True, check=True
        )
        subprocess.run(["tar", "-x", "-C", folder], input=archive.stdout, check=True)
        env = dict(os.environ, PYTHONPATH=str(Path(folder) / "src"))
        done = subprocess.run(
            [sys.executable, __file__, "--measure-only", "--data", str(data)],
            env=env,
            capture_output=True,
            text=True,
            check=True,
        )
    return dict(json.loads(done.stdout))


def table(before: dict[str, Any] | None, after: dict[str, Any], ref: str | None) -> str:
    def cell(figures: dict[str, Any] | None, key: str, total: str) -> str:
        if figures is None:
            return "–"
        if key == "span_exact":
            value = figures["span_kinds"].get("exact", 0)
        elif key in figures:
            value = figures[key]
        else:
            value = figures["lfqa_spans"].get(key, 0)
        return f"{value:,} of {figures[total]:,}"

    columns = [(f"before ({ref})", before), ("after", after)] if before else [("now", after)]
    rows = [
        ("LFQA dev sentences not checkable", "lfqa_not_checkable", "lfqa_sentences"),
        (
            "… of them supported by 2 of 3 annotators",
            "lfqa_not_checkable_supported",
            "lfqa_not_checkable",
        ),
        (
            "LFQA dev claims whose span slices exactly what the verifier reads",
            "exact",
            "lfqa_claims",
        ),
        (
            "… not: characters changed, dropped or added",
            "not exact: characters changed",
            "lfqa_claims",
        ),
        (
            "… not: a reference replaced, and the span the whole sentence",
            "not exact: reference replaced",
            "lfqa_claims",
        ),
        (
            "LFQA dev claims rewritten (a subject copied: the sentence's span)",
            "rewritten",
            "lfqa_claims",
        ),
        ("hand-made answers with code, paths and URLs: claims", "span_claims", "span_claims"),
        ("… whose span slices exactly what the verifier reads", "span_exact", "span_claims"),
        ("hand-made non-claims judged as claims", "non_claims_judged", "non_claims"),
        (
            "real factual sentences from documentation judged as claims",
            "real_claims_judged",
            "real_claims",
        ),
    ]
    lines = [
        "| | " + " | ".join(name for name, _ in columns) + " |",
        "| --- |" + " ---: |" * len(columns),
    ]
    for label, key, total in rows:
        lines.append(f"| {label} | " + " | ".join(cell(f, key, total) for _, f in columns) + " |")
    notes = [
        "",
        "Not checkable: the sentences skipped as `fragment`, `vague` or `unreadable`; they are "
        "reported, never judged. Exact: the claim reads as its span is written, less only "
        "citation markers, a list bullet, bold marks, whitespace runs, the end mark and the "
        "edits it records (the oracle is in the script).",
    ]

    def reasons(figures: dict[str, Any]) -> str:
        counts = sorted(figures["lfqa_skip_reasons"].items())
        return ", ".join(f"{reason} {count}" for reason, count in counts) or "none"

    skips = f"{reasons(after)} (before: {reasons(before)})" if before else reasons(after)
    notes += ["", f"Pieces the splitter made of LFQA dev answers and skipped, by reason: {skips}."]
    listed = after["examples"]["not checkable"]
    if listed:
        notes += ["", "The LFQA dev sentences now not checkable: " + "; ".join(listed) + "."]
    if before and before["examples"]["not exact"]:
        notes += [
            "",
            "Spans that were not exact before (hand-made answers first): "
            + "; ".join(f"`{example}`" for example in before["examples"]["not exact"][:12])
            + ".",
        ]
    return "\n".join(lines + notes)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA)
    parser.add_argument("--before", help="a commit to measure beside the code of this tree")
    parser.add_argument("--measure-only", action="store_true", help=argparse.SUPPRESS)
    add_allow_dirty(parser)
    args = parser.parse_args(argv)
    if args.measure_only:
        json.dump(measure(args.data), sys.stdout)
        return
    after = measure(args.data)
    before = measure_before(args.before, args.data) if args.before else None
    figures = {"after": after, "before": before, "before_commit": args.before}
    command = "python bench/claims_split.py " + shlex.join(sys.argv[1:] if argv is None else argv)
    write_result(
        "claims_split",
        figures,
        table(before, after, args.before),
        command,
        allow_dirty=args.allow_dirty,
    )


if __name__ == "__main__":
    main()
