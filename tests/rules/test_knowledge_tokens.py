"""Code-like tokens: paths, URLs, identifiers, flags, versions and quoted strings."""

from __future__ import annotations

import doctest
import itertools

import pytest

import veracity.rules.tokens as tokens_module
from veracity.rules import TOKEN_CLASSES, compare_tokens, extract_tokens
from veracity.types import Span


def tokens(text: str) -> list[tuple[str, str, str]]:
    found = extract_tokens(text)
    for token in found:
        assert token.span.of(text) == token.text
        assert token.kind == "code"
        assert token.unit in TOKEN_CLASSES
    return [(t.unit, t.text, t.value) for t in found]


def one(text: str) -> tuple[str, str]:
    found = extract_tokens(text)
    assert len(found) == 1, found
    return found[0].unit, found[0].value


@pytest.mark.unit
@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("The shell is /bin/bash.", ("path", "/bin/bash")),
        ("Edit ~/.bashrc first", ("path", "~/.bashrc")),
        ("run ./configure now", ("path", "./configure")),
        (r"It lives in C:\Windows\System32 today", ("path", r"c:\windows\system32")),
        ("see src/veracity/cli.py", ("path", "src/veracity/cli.py")),
        ("Edit squid.conf and restart", ("path", "squid.conf")),
        ("Get it from https://www.gnu.org/software/gzip/.", ("url", "gnu.org/software/gzip")),
        ("See www.squid-cache.org for more", ("url", "squid-cache.org")),
        ("Write to bug-gzip@gnu.org.", ("email", "bug-gzip@gnu.org")),
        ("Pass --level=9 to it", ("flag", "--level=9")),
        ("Use rm -rf with care", ("flag", "-rf")),
        ("Version 1.2.13 fixed it", ("version", "1.2.13")),
        ("It shipped as v2.0 in spring", ("version", "2.0")),
        ("Set cache_effective_user first", ("symbol", "cache_effective_user")),
        ("Call getElementById on it", ("symbol", "getelementbyid")),
        ("It was written in JavaScript", ("symbol", "javascript")),
        ("Use os.path.join here", ("symbol", "os.path.join")),
        ("Use re.compile() here", ("symbol", "re.compile")),
        ("Squid runs as user www-data", ("name", "www-data")),
        ("Run the command apt-get first", ("name", "apt-get")),
        ("The text is in utf-8 always", ("name", "utf-8")),
        ("Its user is `sync` here", ("name", "sync")),
        ("The default user is 'proxy' here", ("name", "proxy")),
        ('The motto is "In God We Trust."', ("quoted", "in god we trust")),
        ("Type `gzip -9 file` to compress", ("quoted", "gzip -9 file")),
        ("Type `/bin/sh` to start", ("path", "/bin/sh")),
    ],
)
def test_each_class_is_found_and_normalised(text: str, expected: tuple[str, str]) -> None:
    assert one(text) == expected


@pytest.mark.unit
def test_configuration_lines_and_assignments_give_their_values() -> None:
    text = "# TAG: cache_effective_user\n# cache_effective_user proxy\nuser=nobody here"
    assert tokens(text) == [
        ("symbol", "cache_effective_user", "cache_effective_user"),
        ("symbol", "cache_effective_user", "cache_effective_user"),
        ("name", "proxy", "proxy"),
        ("name", "nobody", "nobody"),
    ]


@pytest.mark.unit
def test_a_passwd_line_gives_its_paths() -> None:
    assert tokens("sync:x:4:65534:sync:/bin:/bin/sync") == [
        ("path", "/bin", "/bin"),
        ("path", "/bin/sync", "/bin/sync"),
    ]


@pytest.mark.unit
@pytest.mark.parametrize(
    "text",
    [
        "It is a well-known, long-term fact.",
        "A third-party library and the long-term users of an open-source package.",
        "It works.so then it goes.in the end, in the U.S.A. and the U.S.S.R.",
        "In the U.S. and/or the UK, e.g. at 24/7 service, at 90 km/h.",
        "McDonald's and DiCaprio and MacArthur are names.",
        "It works.then you go - fast - and stop.",
        "The TCP/IP stack and the input/output port.",
        "Bees make honey from nectar, and the queen lays eggs.",
        "He didn't say it's 'n' stuff.",
    ],
)
def test_prose_has_no_tokens(text: str) -> None:
    assert tokens(text) == []


@pytest.mark.unit
def test_numbers_stay_values_and_quoted_values_are_not_tokens() -> None:
    assert tokens("Python 3.11 costs $5 and grew '45%' in 2022.") == []
    assert tokens("Run gzip -9 on it") == []  # "-9" is a negative number of values


@pytest.mark.unit
def test_spans_do_not_overlap() -> None:
    text = "Fetch https://example.com/a/b.tar.gz or `/usr/bin/env python3` via user=www-data."
    found = extract_tokens(text)
    for first, second in itertools.pairwise(found):
        assert first.span.end <= second.span.start
    assert [(t.unit, t.text) for t in found] == [
        ("url", "https://example.com/a/b.tar.gz"),
        ("quoted", "/usr/bin/env python3"),
        ("name", "www-data"),
    ]
    assert found[0].span == Span(6, 36)


# --- comparison ---------------------------------------------------------------------------------


def relation(claim: str, evidence: str) -> str:
    return compare_tokens(extract_tokens(claim)[0], extract_tokens(evidence)[0])


@pytest.mark.unit
@pytest.mark.parametrize(
    ("claim", "evidence", "expected"),
    [
        ("/bin/bash", "/bin/sync", "conflict"),
        ("/bin/bash", "/bin/bash", "match"),
        ("edit squid.conf now", "/etc/squid/squid.conf", "match"),
        ("/etc/squid/squid.conf", "edit squid.conf now", "vaguer"),
        ("/bin", "/bin/sync", "incomparable"),
        ("/bin/sync", "/bin", "incomparable"),
        ("user www-data", "user=proxy", "conflict"),
        ("user www-data", "/bin/sync", "incomparable"),
        ("https://gnu.org/software/gzip/", "www.gnu.org/software/gzip", "match"),
        ("gnu.org", "https://gnu.org/software/gzip", "match"),
        ("https://gnu.org/software/gzip", "gnu.org", "vaguer"),
        ("gnu.org", "fsf.org", "conflict"),
        ("v1.2", "1.2.13", "match"),
        ("1.2.13", "v1.2", "vaguer"),
        ("1.2.13", "1.2.4", "conflict"),
        ("--best", "--fast", "conflict"),
        ("-r", "-R", "conflict"),
        ("CamelCase", "camelCase", "match"),
        ('"In God We Trust"', "'in god  we trust'", "match"),
    ],
)
def test_tokens_compare_within_their_class(claim: str, evidence: str, expected: str) -> None:
    assert relation(claim, evidence) == expected


@pytest.mark.unit
def test_docstring_examples_run() -> None:
    result = doctest.testmod(tokens_module)
    assert result.attempted >= 4
    assert result.failed == 0
