"""Issue 43's false findings of the knowledge rules, as real-looking pairs from documents that
ship on a Debian machine, and real contradictions of the same shapes that the rules must still
catch. Every span a finding reports lies inside its own text."""

from __future__ import annotations

import pytest

from veracity.rules.layer import KnowledgeLayer
from veracity.types import Chunk, Claim, Span, ValueCheck

pytestmark = pytest.mark.unit

DPKG_LOCKS = (
    "Database Locking\n----------------\n\n"
    "Any frontend needing to make sure no write operation is currently happening,\n"
    "and no other frontend is running should first acquire the frontend lock at\n"
    "«<admindir>/lock-frontend», and then acquire the dpkg database lock at\n"
    "«<admindir>/lock». When the frontend invokes dpkg, it should set the\n"
    "environment variable DPKG_FRONTEND_LOCKED (to prevent dpkg from acquiring\n"
    "the frontend lock), and then release the dpkg database lock, which will be\n"
    "acquired by dpkg itself."
)
BASE_PASSWD_COPYRIGHT = (
    "Upstream-Name: base-passwd\nUpstream-Contact: Colin Watson <cjwatson@debian.org>\n\n"
    "Files: *\nCopyright: Copyright 1999-2002 Wichert Akkerman <wichert@deephackmode.org>\n"
    " Copyright 2002, 2003, 2004 Colin Watson <cjwatson@debian.org>\nLicense: GPL-2"
)
GZIP_NAME = (
    "       -N --name\n"
    "              When  compressing,  always save the original file name and\n"
    "              timestamp; this is the default. When decompressing, restore the\n"
    "              timestamp of the origi-\n"
    "              nal file if present."
)
ZSTD_SMALL_DATA = (
    "## The case for Small Data compression\n\nPrevious charts provide results applicable to "
    "typical file and stream scenarios (several MB). Small data comes with different "
    "perspectives.\n\nThe smaller the amount of data to compress, the more difficult it is to "
    "compress. To solve this situation, Zstd offers a __training mode__. The result of this "
    'training is stored in a file called "dictionary".\nUsing this dictionary, the '
    "compression ratio achievable on small data improves dramatically."
)
ED = (
    "GNU ed is a line-oriented text editor. It is used as a tool in shell scripts, and it is "
    "the standard text editor in the sense that it is the original editor for Unix."
)
GZIP_NEWS_PART = (
    "** Changes in behavior\n\n"
    "  'gzip -l' no longer misreports file lengths 4 GiB and larger.\n\n"
    "  'zless' is no longer installed on platforms lacking 'less'.\n\n"
    "** Bug fixes\n\n"
    "  Configure-time options like --program-prefix now work.\n\n\n"
    "* Noteworthy changes in release 1.11 (2021-09-03) [stable]\n\n"
    "** Performance improvements\n\n"
    "  IBM Z platforms now support hardware-accelerated deflation.\n\n\n"
    "* Noteworthy changes in release 1.10 (2018-12-29) [stable]"
)
GZIP_NEWS_HEAD = (
    "GNU gzip NEWS                                    -*- outline -*-\n\n"
    "* Noteworthy changes in release 1.12 (2022-04-07) [stable]\n\n"
    "** Changes in behavior\n\n"
    "  'gzip -l' no longer misreports file lengths 4 GiB and larger.\n\n\n"
    "* Noteworthy changes in release 1.11 (2021-09-03) [stable]\n\n"
    "** Performance improvements\n\n"
    "  IBM Z platforms now support hardware-accelerated deflation."
)
CSCOPE_R = "       -R     Recurse subdirectories during search for source files."
ARCHIVER = (
    "When extracting an archive, the tool will by default not overwrite existing files; use "
    "--overwrite to replace them."
)
PIP_CERTIFICATES = (
    "By default, pip uses the CA bundle of certifi to verify HTTPS certificates. This does not "
    "use the system certificate store."
)

#: (case, premise, claim): true claims, or claims the source does not state; never contradicted.
SILENT = [
    (
        "'frontend' is no denial of 'no other frontend'",
        DPKG_LOCKS,
        "A frontend should first acquire the frontend lock and then the dpkg database lock.",
    ),
    (
        "'no write operation' on both sides",
        DPKG_LOCKS,
        "Any frontend needing to make sure that no write operation is happening should first "
        "acquire the frontend lock.",
    ),
    (
        "a copyright line's year is no value of the claim's",
        BASE_PASSWD_COPYRIGHT,
        "Colin Watson has maintained base-passwd since 2000.",
    ),
    (
        "'origi-\\nnal' is 'original'",
        GZIP_NAME,
        "With --name, gunzip restores the timestamp of the original file when decompressing.",
    ),
    (
        "'compression' against 'different': words are no values",
        ZSTD_SMALL_DATA,
        "zstd comes with compression dictionaries for small data.",
    ),
    (
        "'standard' against 'tool': words are no values",
        ED,
        "ed is used as the standard editor in shell scripts.",
    ),
    (
        "'not even' on both sides",
        "zstd --list does not decompress the file, not even partly: it reads the frame headers.",
        "zstd --list does not even decompress the file.",
    ),
    (
        "a version from an older entry of the same NEWS file",
        GZIP_NEWS_PART,
        "The noteworthy changes in release 1.12 include that 'zless' is no longer installed on "
        "platforms lacking 'less'.",
    ),
    (
        "an option from another command's page",
        CSCOPE_R,
        "ctags recurses into subdirectories with --recurse.",
    ),
    (
        "a negation moved within the sentence (the issue's wording)",
        ARCHIVER,
        "When extracting, the tool will not overwrite existing files by default.",
    ),
    (
        "a negation moved past an aside",
        "By default, when extracting, the tool will not, unless --overwrite is given, overwrite "
        "existing files.",
        "When extracting, the tool will not overwrite existing files by default.",
    ),
    (
        "a near-verbatim true sentence with a version and a date",
        GZIP_NEWS_HEAD,
        "gzip 1.12 was released on 2022-04-07 as a stable release.",
    ),
    (
        "a negation of the same verb for another option",
        "dpkg --remove does not remove configuration files, but --purge removes them.",
        "dpkg --purge removes configuration files.",
    ),
    (
        "a negation that scopes over a condition",
        "xz does not keep the input files unless --keep is given.",
        "xz keeps the input files when --keep is given.",
    ),
]

#: (case, premise, claim, kind, claim words, evidence words): contradictions the rules catch.
CAUGHT = [
    (
        "the system certificate store",
        PIP_CERTIFICATES,
        "By default, pip uses the system certificate store for HTTPS.",
        "negation",
        "uses",
        "does not use",
    ),
    (
        "before / after",
        "The bridge was built before the war.",
        "The bridge was built after the war.",
        "antonym",
        "after",
        "before",
    ),
    (
        "a release date",
        GZIP_NEWS_HEAD,
        "gzip 1.11 was released on 2021-09-30.",
        "date",
        "2021-09-30",
        "2021-09-03",
    ),
]


def run(claim: str, premise: str, offset: int = 300) -> tuple[str, str, list[ValueCheck]]:
    """The layer's label and detail for ``claim`` against ``premise`` (a passage at ``offset``
    of its document), and its checks, each span checked against its own text."""
    chunk = Chunk("doc#0", "doc", 0, premise, offset, offset + len(premise))
    result = KnowledgeLayer(entities=False).run(
        [Claim(0, claim, Span(0, len(claim)), 0)], [[chunk]]
    )
    document = " " * offset + premise
    for check in result.values[0]:
        assert 0 <= check.span.start <= check.span.end <= len(claim)
        assert check.span.of(claim) == check.text
        if check.evidence is not None:
            assert offset <= check.evidence.start <= check.evidence.end <= len(document)
            assert check.evidence.of(document) == check.found
    return result.results[0].label, result.results[0].detail, list(result.values[0])


@pytest.mark.parametrize(("case", "premise", "claim"), SILENT, ids=[c[0] for c in SILENT])
def test_the_rules_stay_silent(case: str, premise: str, claim: str) -> None:
    label, detail, checks = run(claim, premise)
    assert label != "contradicted", f"{case}: {detail}"
    assert "contradicts" not in detail
    assert [c for c in checks if c.status == "mismatch"] == []


@pytest.mark.parametrize(
    ("case", "premise", "claim", "kind", "said", "found"), CAUGHT, ids=[c[0] for c in CAUGHT]
)
def test_real_contradictions_are_still_caught(
    case: str, premise: str, claim: str, kind: str, said: str, found: str
) -> None:
    label, _, checks = run(claim, premise)
    assert label == "contradicted", case
    mismatch = next(c for c in checks if c.status == "mismatch")
    assert (mismatch.finding, mismatch.text, mismatch.found, mismatch.aligned) == (
        kind,
        said,
        found,
        True,
    )
    assert mismatch.sentence is not None
    assert mismatch.evidence is not None
    assert mismatch.sentence.start <= mismatch.evidence.start < mismatch.sentence.end


def test_a_value_no_source_states_is_not_stated_not_contradicted() -> None:
    label, detail, checks = run(
        "Colin Watson has maintained base-passwd since 2000.", BASE_PASSWD_COPYRIGHT
    )
    assert label == "unsupported"
    assert detail == "value not stated in the evidence: '2000'"
    (year,) = checks
    assert (year.finding, year.status, year.found, year.aligned) == (
        "date",
        "absent",
        "2004",
        False,
    )


def test_a_version_of_another_entry_is_named_but_not_aligned() -> None:
    _, detail, checks = run(
        "The noteworthy changes in release 1.12 include that 'zless' is no longer installed on "
        "platforms lacking 'less'.",
        GZIP_NEWS_PART,
    )
    assert detail == "value not stated in the evidence: '1.12'"
    version = next(c for c in checks if c.text == "1.12")
    assert (version.status, version.aligned) == ("absent", False)


def test_hyphenated_words_are_read_joined_and_reported_as_written() -> None:
    # Only joined do "origi-\nnal com-\npressed" state the claim's words, so only joined is
    # the sentence aligned with the claim; the evidence is quoted as the document writes it.
    premise = "After the check, the origi-\n   nal com-\n   pressed archive is not deleted."
    label, _, checks = run("The original compressed archive is deleted after the check.", premise)
    assert label == "contradicted"
    (negation,) = checks
    assert (negation.kind, negation.text, negation.found) == (
        "negation",
        "deleted",
        "is not deleted",
    )
    assert negation.sentence is not None
    assert negation.sentence.of(" " * 300 + premise) == premise


def test_a_sentence_about_another_subject_does_not_outweigh_a_negation() -> None:
    """ "Honey bees perform a waggle dance" states three of the claim's four words and agrees;
    "Bumblebees do not perform a waggle dance" states all four and denies it."""
    from veracity.rules.polarity import polarity_checks
    from veracity.types import Chunk

    texts = [
        "Honey bees perform a waggle dance to show other workers where food is.",
        "Bumblebees do not perform a waggle dance.",
    ]
    chunks = [Chunk(f"t{i}#0", f"t{i}", 0, text, 0, len(text)) for i, text in enumerate(texts)]
    found = polarity_checks("Bumblebees perform a waggle dance.", chunks)
    assert [(c.kind, c.found, c.doc_id) for c in found] == [("negation", "do not perform", "t1")]
    # a passage that restates the whole claim still outweighs another's negation
    same = "Bumblebees perform a waggle dance."
    chunks.append(Chunk("t2#0", "t2", 0, same, 0, len(same)))
    assert polarity_checks("Bumblebees perform a waggle dance.", chunks) == []
