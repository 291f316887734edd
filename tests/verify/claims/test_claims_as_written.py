"""A claim reads as its span is written unless an edit says otherwise: no silent recasing of
"gzip" or "iPhone", no silent respacing of "a .gz extension"."""

from __future__ import annotations

import re

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from veracity.testing import ScriptedChatModel
from veracity.text.citations import find_markers
from veracity.types import Claim, ClaimSet
from veracity.verify.claims import ClaimExtractor

pytestmark = pytest.mark.unit

_CAPITALISED = re.compile(r"capitalised: '([^']+)' -> '([^']+)'")
#: Edits that keep the span's words as they are (a cut, or an opening recased and recorded).
_KEEPING = re.compile(r"decomposed$|capitalised: ")
#: Tokens as a reader sees them: ".gz", ".NET", "x86", "3.5", "U.S" ("U.S." less its period).
_TOKEN = re.compile(r"\.?\w+(?:\.\w+)*")
#: Function words of the generated sentences: a decontextualized "the study" may recase them.
_FUNCTION = frozenset("the a an he she it they his her its their this that these those".split())


def as_written(span_text: str) -> str:
    """The oracle, written out apart from the code under test: the span less its citation
    markers (each with the whitespace before it; a space stays between two characters it
    separated unless the second is closing punctuation), list bullet and bold marks, whitespace
    runs made one space, trailing punctuation made one period. No other space is dropped."""
    text, position, pending = "", 0, False
    pieces: list[str | None] = []
    for marker in find_markers(span_text):
        pieces += [span_text[position : marker.span.start], None]
        position = marker.span.end
    for piece in [*pieces, span_text[position:]]:
        if piece is None:
            text, pending = text.rstrip(), True
            continue
        if pending and piece and text and not piece[0].isspace() and piece[0] not in ".,;:!?)]":
            text += " "
        pending = pending and not piece
        text += piece
    text = re.sub(r"\s+", " ", text).strip()
    text = re.sub(r"^(?:[-*•+]|\d+[.)]|#+)\s+", "", text).replace("**", "")
    body = text.strip().rstrip(",;:.!… ")
    return body + "." if body else ""


def expected_text(answer: str, claim: Claim) -> str | None:
    """What ``claim`` must read when its edits keep the span's words, else ``None``."""
    if not all(_KEEPING.match(edit) for edit in claim.edits):
        return None
    text = as_written(claim.span.of(answer))
    for edit in claim.edits:
        found = _CAPITALISED.match(edit)
        if found is not None:
            before, after = found.groups()
            assert text.startswith(before), (edit, text)
            assert after == before[0].upper() + before[1:], edit
            text = after + text[len(before) :]
    return text


def check(result: ClaimSet) -> None:
    answer = result.answer
    tokens = set(_TOKEN.findall(answer))
    for claim in result.claims:
        expected = expected_text(answer, claim)
        if expected is not None:
            assert claim.text == expected, (claim, claim.span.of(answer))
        # rewritten or not, no token of a claim is recased or respaced unrecorded
        recased = {found.group(2) for found in map(_CAPITALISED.match, claim.edits) if found}
        for token in _TOKEN.findall(claim.text):
            assert token in tokens or token in recased or token.lower() in _FUNCTION, (
                token,
                claim,
                answer,
            )


# --- sentences with code-like, mixed-case and dot-led tokens ----------------------------------

_SUBJECTS = st.sampled_from(
    [
        "gzip",
        "npm",
        "iPhone sales",
        "eBay",
        "x86 chips",
        "the .NET runtime",
        "Karl von Frisch",
        "the queen",
        "Bees",
        "he",
        "He",
        "It",
        "They",
        "This tool",
        "The company",
        "ffmpeg",
    ]
)
_PREDICATES = st.sampled_from(
    [
        "writes a .gz extension",
        "runs on .NET",
        "supports x86",
        "uses npm",
        "ships iPhone apps",
        "sells on eBay",
        "was born in 1886",
        "died in 1982",
        "compresses files",
        "reads .tar.gz files",
        "lays eggs",
        "is 3.5 m tall",
        "was founded in 1995",
        "dance",
        "calls gzip and npm",
    ]
)
_JOINERS = st.sampled_from([" and ", ", and ", "; ", ", but ", ", while "])
_NOISE = st.sampled_from(["", "", " [1]", " [2, 3]", "\n- ", " **", " .", "  "])


@st.composite
def _sentences(draw: st.DrawFn) -> str:
    text = f"{draw(_SUBJECTS)} {draw(_PREDICATES)}"
    for _ in range(draw(st.integers(0, 2))):
        subject = draw(st.one_of(st.just(""), _SUBJECTS.map(lambda s: s + " ")))
        text += f"{draw(_JOINERS)}{subject}{draw(_PREDICATES)}"
    return (
        draw(st.sampled_from(["", "- ", "**"]))
        + text
        + draw(_NOISE)
        + draw(st.sampled_from([".", ".", "!", ""]))
    )


_ANSWERS = st.lists(_sentences(), min_size=1, max_size=5).map(" ".join).filter(str.strip)


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_ANSWERS)
def test_rule_claims_read_as_their_spans_are_written_unless_an_edit_says_so(answer: str) -> None:
    check(ClaimExtractor().run(answer))


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_ANSWERS)
def test_without_decontextualization_claims_read_as_written_too(answer: str) -> None:
    check(ClaimExtractor(decontextualize=False).run(answer))
    check(ClaimExtractor(decompose=False, decontextualize=False).run(answer))


# --- the cases of the issue -------------------------------------------------------------------


@pytest.mark.parametrize(
    ("answer", "texts"),
    [
        ("gzip compresses files [1].", ["gzip compresses files."]),
        (
            "npm installs packages and resolves versions.",
            ["npm installs packages and resolves versions."],
        ),
        (
            "iPhone sales rose in 2020 and fell in 2021.",
            ["iPhone sales rose in 2020.", "iPhone sales fell in 2021."],
        ),
        (
            "eBay sells goods; iPhone users buy them.",
            ["eBay sells goods.", "iPhone users buy them."],
        ),
        ("Bees dance; x86 chips run hot.", ["Bees dance.", "x86 chips run hot."]),
        ("- gzip writes a .gz extension [1].", ["gzip writes a .gz extension."]),
        (
            "The library supports .NET and runs on x86.",
            ["The library supports .NET.", "The library runs on x86."],
        ),
    ],
)
def test_code_like_mixed_case_and_dot_led_tokens_are_kept_as_written(
    answer: str, texts: list[str]
) -> None:
    result = ClaimExtractor().run(answer)
    assert [claim.text for claim in result.claims] == texts
    assert not any(edit.startswith("capitalised") for c in result.claims for edit in c.edits)
    check(result)


def test_an_opening_function_word_is_capitalised_and_the_edit_recorded() -> None:
    answer = "Bees dance; the queen lays eggs [1]."
    first, second = ClaimExtractor().run(answer).claims
    assert (second.text, second.span.of(answer)) == ("The queen lays eggs.", "the queen lays eggs")
    assert second.edits == ("decomposed", "capitalised: 'the' -> 'The'")
    assert first.edits == ("decomposed",)


def test_a_pronoun_replaced_by_its_antecedent_is_recorded_as_written() -> None:
    claims = ClaimExtractor().run("Karl von Frisch was born in 1886 and he died in 1982.").claims
    assert claims[1].text == "Karl von Frisch died in 1982."
    assert claims[1].edits == ("decomposed", "decontextualized: 'he' -> 'Karl von Frisch'")


def test_the_llms_recasing_of_a_verbatim_claim_is_not_taken() -> None:
    answer = "gzip compresses files and npm installs packages [1]."
    reply = (
        '{"claims": [{"sentence": 1, "text": "Gzip compresses files."}, '
        '{"sentence": 1, "text": "Npm installs packages."}]}'
    )
    chat = ScriptedChatModel([reply])
    result = ClaimExtractor(chat=chat, decontextualize=False).run(answer)
    assert [(c.text, c.edits) for c in result.claims] == [
        ("gzip compresses files.", ("decomposed (llm)",)),
        ("npm installs packages.", ("decomposed (llm)",)),
    ]
    check(result)
