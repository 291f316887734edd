"""Where a claim sits in a passage: hyphenated line breaks joined, the aligned sentence, the
claim's clauses; and every span the knowledge rules report inside its own text."""

from __future__ import annotations

import json

import pytest

from veracity.rules.align import (
    aligned_sentences,
    claim_clause,
    join_hyphenated,
    passage_sentences,
)
from veracity.rules.layer import KnowledgeLayer
from veracity.types import Chunk, Claim, ClaimVerdict, LayerResult, Report, Span, ValueCheck

pytestmark = pytest.mark.unit


@pytest.mark.parametrize(
    ("text", "joined"),
    [
        ("the origi-\nnal file", "the original file"),
        ("the origi-\n      nal file", "the original file"),
        ("prompt\u2010\n              ing.", "prompting."),  # man's U+2010 hyphen
        ("a well-known file", "a well-known file"),  # no line break: kept
        ("see item A-\nB", "see item A-\nB"),  # an upper-case line start is no word's rest
        ("version 1-\n2", "version 1-\n2"),  # digits are no word
    ],
)
def test_hyphenated_line_breaks_are_joined(text: str, joined: str) -> None:
    assert join_hyphenated(text).text == joined


def test_joined_spans_map_back_to_the_text_as_written() -> None:
    text = "An origi-\n  nal file, a com-\npressed one, and more."
    joined = join_hyphenated(text)
    for word in ("original", "compressed", "file", "more"):
        start = joined.text.index(word)
        span = joined.source_span(Span(start, start + len(word)))
        written = span.of(text)
        assert written.replace("-\n  ", "").replace("-\n", "") == word
    assert joined.source_span(Span(0, 2)) == Span(0, 2)


def test_the_aligned_sentence_states_most_of_the_claims_other_words() -> None:
    passage = (
        "Copyright 2004 Colin Watson. The package base-passwd supplies the master copies of "
        "/etc/passwd. It was first uploaded in 1997."
    )
    claim = "base-passwd supplies the master copies of /etc/passwd since 1999."
    year = Span(claim.index("1999"), claim.index("1999") + 4)
    (aligned,) = aligned_sentences(claim, passage, skip=(year,))
    assert aligned.of(passage).startswith("The package base-passwd supplies")


def test_a_pronoun_sentence_counts_the_words_of_the_one_before() -> None:
    passage = "The Eiffel Tower is 330 metres tall. It was opened on 31 March 1889."
    claim = "The tower opened on 1 April 1889."
    date = Span(claim.index("1 April"), len(claim) - 1)
    assert [s.of(passage) for s in aligned_sentences(claim, passage, skip=(date,))] == [
        "It was opened on 31 March 1889."
    ]


def test_a_claim_that_joins_two_statements_is_read_clause_by_clause() -> None:
    claim = (
        "Brand was elected to the Isle of Wight Council in 1984 and was elected Member of "
        "Parliament for the Isle of Wight at the 1997 general election."
    )
    at = claim.index("1997")
    assert claim_clause(claim, Span(at, at + 4)).of(claim).startswith("was elected Member")
    at = claim.index("1984")
    assert claim_clause(claim, Span(at, at + 4)).of(claim).endswith("in 1984")
    short = "It aired in 2019 and ran."  # pieces too short to stand alone stay one clause
    at = short.index("2019")
    assert claim_clause(short, Span(at, at + 4)) == Span(0, len(short))


def test_a_long_line_spanning_sentence_is_read_line_by_line() -> None:
    lines = ["## A heading without a full stop", "By Robert Sargent on February 22, 2011"]
    lines.append(
        "Two fighters will collide in a title fight on April 9th, " * 6 + "in Albuquerque."
    )
    text = "\n".join(lines)
    assert [s.of(text) for s in passage_sentences(text)][:2] == lines[:2]


# --- the typed finding ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("kind", "unit", "finding"),
    [
        ("number", "", "number"),
        ("money", "usd", "number"),
        ("year", "", "date"),
        ("quantity", "s", "unit"),
        ("code", "version", "version"),
        ("code", "flag", "option"),
        ("code", "path", "code"),
        ("negation", "", "negation"),
        ("antonym", "", "antonym"),
        ("quantifier", "", "quantifier"),
        ("entity", "", "entity"),
    ],
)
def test_each_check_names_its_finding(kind: str, unit: str, finding: str) -> None:
    assert ValueCheck(kind, "x", Span(0, 1), "x", "mismatch", unit=unit).finding == finding


def test_a_finding_survives_a_report_round_trip() -> None:
    text = "gzip 1.11 was released on 2021-09-30."
    premise = "GNU gzip NEWS\n\n* Noteworthy changes in release 1.11 (2021-09-03) [stable]"
    claim = Claim(0, text, Span(0, len(text)), 0)
    layer = KnowledgeLayer(entities=False)
    result = layer.run([claim], [[Chunk("n#0", "NEWS", 0, premise, 0, len(premise))]])
    date = next(c for c in result.values[0] if c.kind == "date")
    payload = date.to_dict()
    header = [premise.index("*"), len(premise)]
    assert (payload["finding"], payload["aligned"], payload["sentence"]) == ("date", True, header)
    verdict = ClaimVerdict(
        claim,
        "contradicted",
        (LayerResult("knowledge", "contradicted", True, 1.0),),
        values=tuple(result.values[0]),
    )
    report = Report(text, (verdict,), layers=("knowledge",))
    back = Report.from_dict(json.loads(json.dumps(report.to_dict())))
    assert back.verdicts[0].values == result.values[0]
