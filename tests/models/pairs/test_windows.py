import itertools

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from veracity.errors import ClaimTooLongError, OptionError
from veracity.models.pairs.windows import EvidenceSelector

pytestmark = pytest.mark.unit

FACTS = [f"Fact {i}: the station number {i} opened in {1900 + i}." for i in range(40)]
PREMISE = " ".join(FACTS)


def test_short_premise_is_used_whole() -> None:
    premise = "  The sky is blue. Grass is green.  "
    (window,) = EvidenceSelector(max_tokens=64).run(premise, "Grass is green.")
    assert window.text == "The sky is blue. Grass is green."
    assert window.span.of(premise) == window.text


def test_select_keeps_the_claims_sentences_in_document_order() -> None:
    selector = EvidenceSelector(max_tokens=48)
    (window,) = selector.run(PREMISE, "Station number 31 opened in 1931 and number 7 in 1907.")
    assert "Fact 7:" in window.text
    assert "Fact 31:" in window.text
    assert window.text.index("Fact 7:") < window.text.index("Fact 31:")
    for span in window.spans:
        assert span.of(PREMISE) in window.text


def test_window_fits_the_model() -> None:
    selector = EvidenceSelector(max_tokens=48)
    claim = "Station number 31 opened in 1931."
    (window,) = selector.run(PREMISE, claim)
    encoding = selector.tokenizer.encode(window.text, claim)
    assert len(encoding.ids) <= 48


def test_slide_covers_the_premise_with_overlap() -> None:
    windows = EvidenceSelector(max_tokens=64, strategy="slide").run(PREMISE, "Fact.")
    assert len(windows) > 3
    assert windows[0].span.start == 0
    assert windows[-1].span.end == len(PREMISE)
    for before, after in itertools.pairwise(windows):
        assert after.span.start < before.span.end  # overlapping
        assert after.span.start > before.span.start  # moving forward


def test_a_sentence_longer_than_the_window_is_cut_at_token_boundaries() -> None:
    premise = " ".join(["word"] * 300) + "."
    windows = EvidenceSelector(max_tokens=64, strategy="slide").run(premise, "A claim.")
    assert len(windows) >= 5
    assert all(w.span.of(premise).startswith("word") for w in windows)
    assert windows[-1].span.end == len(premise)


def test_claim_too_long_is_an_error_not_a_truncation() -> None:
    with pytest.raises(ClaimTooLongError, match="split it into shorter claims"):
        EvidenceSelector(max_tokens=32).run("A premise.", " ".join(["claim"] * 40))


@pytest.mark.parametrize(("option", "value"), [("max_tokens", 8), ("strategy", "random")])
def test_bad_options_name_the_value(option: str, value: object) -> None:
    with pytest.raises(OptionError, match=option):
        EvidenceSelector(**{option: value})  # type: ignore[arg-type]


WORDS = [
    "unbelievably",
    "antidisestablishmentarianism",
    "bees",
    "x-ray",
    "3.14",
    "co-op",
    "naïve",
    "honeycombs",
    "Langstroth's",
    "(1852)",
    "pollination",
    "e.g.",
    "and",
    "the",
]


@settings(max_examples=60, deadline=None)
@given(
    st.lists(st.sampled_from(WORDS), min_size=5, max_size=120), st.sampled_from(["select", "slide"])
)
def test_joined_windows_never_exceed_the_window(words: list[str], strategy: str) -> None:
    # A long run-on sentence is cut inside words; joined again, the pieces can take more
    # tokens than counted one by one. Every pair must still fit.
    selector = EvidenceSelector(max_tokens=32, strategy=strategy)  # type: ignore[arg-type]
    claim = "Bees make honeycombs."
    claim_tokens = len(selector.tokenizer.encode(claim, add_special_tokens=False).ids)
    for window in selector.run(" ".join(words), claim):
        pair = selector.tokenizer.encode(window.text, claim)
        assert len(pair.ids) <= 32
        assert claim_tokens > 0
