"""Issue 43, point 4: a sentence with nothing checkable is reported as not checkable, never
judged; real factual sentences from documentation stay claims."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import pytest

from veracity.testing import TablePairScorer
from veracity.types import NOT_CHECKABLE, PairScores, Report
from veracity.verify.claims import ClaimExtractor
from veracity.verify.gather import source_chunks, source_documents
from veracity.verify.pipeline import make_answer_verifier

pytestmark = pytest.mark.unit

#: Sentences of the issue's trials and their kin: none states anything a source could support.
NOT_CLAIMS = [
    ("docs.", "fragment"),
    ("Yes.", "fragment"),
    ("2.", "fragment"),
    ("b)", "fragment"),
    ("In 2019.", "fragment"),
    ("The default value.", "fragment"),
    ("The system works as documented.", "vague"),
    ("It works as expected.", "vague"),
    ("This is described in the docs.", "vague"),
    ("Everything works correctly.", "vague"),
    ("The program does what it says.", "vague"),
    ("It is what it is.", "vague"),
    ("שלום עולם, זה טקסט.", "unreadable"),
    ("מנהל החבילות מתקין חבילות.", "unreadable"),
    ("这是一个测试句子。", "unreadable"),
    ("Пакет устанавливает файлы.", "unreadable"),
    ("a" * 19_999, "unreadable"),
    ("aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa.", "unreadable"),
    ("## Installation", "heading"),
    ("**Key facts**", "heading"),
    ("-", "empty"),
    ("* ", "empty"),
]

#: Sentences copied from documentation that ships on Debian (README files, man pages) and from
#: the trials' true answers: each states something a source can support.
CLAIMS = [
    "dpkg is a tool to install, build, remove and manage Debian packages.",
    "The adduser package includes the adduser and deluser commands for creating and removing "
    "users and groups.",
    "This package supplies the master copies of /etc/passwd and /etc/group, in "
    "/usr/share/base-passwd.",
    "root is never removed or changed.",
    "apt is the main command-line package manager for Debian and its derivatives.",
    "/etc/shells is no longer a config file, but is maintained by the add-shell and remove-shell "
    "programs.",
    "The simple make compiles a version of bc with fixed parameters for the recursive "
    "multiplication algorithm.",
    "--with-readline tells bc to use the readline package.",
    "PyYAML is maintained by the YAML and Python communities.",
    "Run the ./.bootstrap script before building.",
    "The //! syntax marks inner doc comments in Rust.",
    "gzip compresses files.",
    "Bees dance.",
    "Einstein died.",
    "It works on Linux.",
    "The system works on 32-bit ARM.",
    "The tool is documented in man page tar(1).",
    "Version 2.0 works as documented.",
    "It is required.",
    "The Hebrew word שלום means peace.",
    "Worker bees develop in 21 days.",
    "By default, pip uses the operating system's certificate store for HTTPS.",
    "The bridge was built after the war.",
    "All users prefer the dark theme.",
]


@pytest.mark.parametrize(("sentence", "reason"), NOT_CLAIMS)
def test_a_sentence_with_nothing_checkable_is_skipped_with_its_reason(
    sentence: str, reason: str
) -> None:
    result = ClaimExtractor().run(sentence)
    assert result.claims == ()
    assert [skipped.reason for skipped in result.skipped] == [reason]
    assert result.skipped[0].checkable is (reason not in NOT_CHECKABLE)


@pytest.mark.parametrize("sentence", CLAIMS)
def test_a_real_factual_sentence_stays_one_checkable_claim(sentence: str) -> None:
    result = ClaimExtractor(decompose=False).run(sentence)
    assert result.skipped == ()
    assert len(result.claims) == 1


def test_a_not_checkable_sentence_beside_claims_is_reported_not_verified() -> None:
    answer = (
        "dpkg is a tool to install, build, remove and manage Debian packages [1]. docs. "
        "The system works as documented. שלום עולם, זה טקסט."
    )
    sources = source_chunks(source_documents(texts=["dpkg is a tool to install packages."]))
    seen: list[str] = []

    class Recording(TablePairScorer):
        def run(self, premises: Sequence[str], hypotheses: Sequence[str]) -> PairScores:
            seen.extend(hypotheses)
            return super().run(premises, hypotheses)

    scorer = Recording({}, default=(0.9, 0.05, 0.05))
    report = make_answer_verifier(scorer, sources=sources).run(answer)
    assert [verdict.claim.text for verdict in report.verdicts] == [
        "dpkg is a tool to install, build, remove and manage Debian packages."
    ]
    assert [(s.text, s.reason) for s in report.skipped] == [
        ("docs.", "fragment"),
        ("The system works as documented.", "vague"),
        ("שלום עולם, זה טקסט.", "unreadable"),
    ]
    assert set(seen) == {"dpkg is a tool to install, build, remove and manage Debian packages."}
    assert not any(verdict.label == "supported" for verdict in report.verdicts[1:])
    again = Report.from_dict(report.to_dict())
    assert [s.reason for s in again.skipped] == ["fragment", "vague", "unreadable"]


def test_the_page_names_the_same_not_checkable_reasons() -> None:
    import veracity

    script = Path(veracity.__file__).parent / "server" / "static" / "app.js"
    line = next(
        row for row in script.read_text(encoding="utf-8").splitlines() if "NOT_CHECKABLE =" in row
    )
    assert line == f"const NOT_CHECKABLE = {list(NOT_CHECKABLE)!r};".replace("'", '"')


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        ("Usage\n=====\n\nRun it daily.", [("Usage =====", "heading"), ("Run it daily.", None)]),
        (
            "Before reporting a bug, please\n------------------------------\nrun reportbug.",
            [("Before reporting a bug, please ---", "heading"), ("run reportbug.", None)],
        ),
        # a rule under a sentence is a rule, not a heading: the sentence stays a claim
        ("Bees dance.\n---\nWasps sting.", [("Bees dance.", None), ("---", "empty")]),
        # a run of "-" or "=" is not a run of one letter
        ("Bees dance ----------------------------------------.", [("Bees dance -", None)]),
    ],
)
def test_setext_headings_are_headings_and_rules_are_not_unreadable(
    answer: str, expected: list[tuple[str, str | None]]
) -> None:
    from veracity.verify.claims import split_answer

    found = [(sentence.text, sentence.skip) for sentence in split_answer(answer)]
    for (text, skip), (prefix, reason) in zip(found, expected, strict=False):
        assert text.startswith(prefix), found
        assert skip == reason, found
