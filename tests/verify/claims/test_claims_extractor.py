"""ClaimExtractor end to end: realistic answers, spans, markers, the LLM path, failures."""

from __future__ import annotations

import json
import re

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from veracity.errors import GenerationError, InputError, OptionError
from veracity.models.chat.base import Decoding
from veracity.testing import ScriptedChatModel
from veracity.text.grammar import finish
from veracity.types import ClaimSet, Span
from veracity.verify.claims import ClaimExtractor

pytestmark = pytest.mark.unit

ANSWER = """Great question! Here is a summary of what the documents say:

## Karl von Frisch

Karl von Frisch was an Austrian ethologist [1]. He was born in Vienna in 1886 and died in \
Munich in 1982 [1, 2]. This researcher decoded the waggle dance of honey bees, e.g. the \
direction of food [2]. In 1973, he won the Nobel Prize [3].

Honey bees live in colonies of about 50,000 workers; the queen lays up to 2,000 eggs a day [4]. \
Dr. Seeley measured 3.5 dances per minute. The U.S. imports bees each year.

- Worker bees develop in 21 days [5].
- Drones have no sting.

```python
print("bees")
```

I think this is fascinating. Let me know if you have more questions!"""


@pytest.fixture(scope="module")
def result() -> ClaimSet:
    return ClaimExtractor().run(ANSWER)


def test_a_realistic_answer_becomes_atomic_self_contained_claims(result: ClaimSet) -> None:
    assert [c.text for c in result.claims] == [
        "Karl von Frisch was an Austrian ethologist.",
        "Karl von Frisch was born in Vienna in 1886.",
        "Karl von Frisch died in Munich in 1982.",
        "Karl von Frisch decoded the waggle dance of honey bees, e.g. the direction of food.",
        "In 1973, Karl von Frisch won the Nobel Prize.",
        "Honey bees live in colonies of about 50,000 workers.",
        "The queen lays up to 2,000 eggs a day.",
        "Dr. Seeley measured 3.5 dances per minute.",
        "The U.S. imports bees each year.",
        "Worker bees develop in 21 days.",
        "Drones have no sting.",
    ]
    assert [c.index for c in result.claims] == list(range(11))
    assert (result.method, result.model, result.prompt) == ("rules", None, None)
    assert result.sentences == 15


def test_skipped_sentences_keep_their_reason_and_text(result: ClaimSet) -> None:
    assert [(s.sentence, s.reason, s.text) for s in result.skipped] == [
        (0, "greeting", "Great question!"),
        (1, "meta", "Here is a summary of what the documents say:"),
        (2, "heading", "## Karl von Frisch"),
        (12, "code", '```python\nprint("bees")\n```'),
        (13, "opinion", "I think this is fascinating."),
        (14, "greeting", "Let me know if you have more questions!"),
    ]
    for skipped in result.skipped:
        assert skipped.span.of(ANSWER) == skipped.text


def test_markers_stay_attached_to_every_claim_of_their_sentence(result: ClaimSet) -> None:
    assert [c.markers for c in result.claims] == [
        (1,),
        (1, 2),
        (1, 2),
        (2,),
        (3,),
        (4,),
        (4,),
        (),
        (),
        (5,),
        (),
    ]


def test_spans_are_parts_when_verbatim_or_decontextualized_and_sentences_when_rewritten(
    result: ClaimSet,
) -> None:
    claims = result.claims
    # a whole sentence, markers included
    assert claims[0].span.of(ANSWER) == "Karl von Frisch was an Austrian ethologist [1]."
    # parts cut out verbatim
    assert claims[5].span.of(ANSWER) == "Honey bees live in colonies of about 50,000 workers"
    assert claims[6].span.of(ANSWER) == "the queen lays up to 2,000 eggs a day"
    assert claims[5].edits == ("decomposed",)
    assert claims[6].edits == ("decomposed", "capitalised: 'the' -> 'The'")
    # a part whose reference was replaced keeps its span; the edit records the replacement
    assert claims[1].span.of(ANSWER) == "He was born in Vienna in 1886"
    assert claims[1].edits == ("decomposed", "decontextualized: 'He' -> 'Karl von Frisch'")
    # rewritten claims point at their whole sentence
    sentence = "He was born in Vienna in 1886 and died in Munich in 1982 [1, 2]."
    assert claims[2].span.of(ANSWER) == sentence
    assert claims[2].edits == (
        "decomposed",
        "subject copied: 'He'",
        "decontextualized: 'He' -> 'Karl von Frisch'",
    )
    assert claims[3].edits == ("decontextualized: 'This researcher' -> 'Karl von Frisch'",)
    assert claims[9].span.of(ANSWER) == "- Worker bees develop in 21 days [5]."


def test_steps_can_be_switched_off() -> None:
    answer = "Karl von Frisch was born in 1886 and he died in 1982."
    assert [c.text for c in ClaimExtractor(decompose=False).run(answer).claims] == [answer]
    assert [c.text for c in ClaimExtractor(decontextualize=False).run(answer).claims] == [
        "Karl von Frisch was born in 1886.",
        "He died in 1982.",
    ]
    plain = ClaimExtractor(decompose=False, decontextualize=False).run("Bees dance. They sing.")
    assert [(c.text, c.edits) for c in plain.claims] == [("Bees dance.", ()), ("They sing.", ())]


def test_a_heading_stops_pronouns_from_looking_back() -> None:
    answer = "Karl von Frisch studied bees.\n\n# Ants\n\nThey march in lines."
    assert [c.text for c in ClaimExtractor().run(answer).claims] == [
        "Karl von Frisch studied bees.",
        "They march in lines.",
    ]


def test_an_answer_with_nothing_to_check_has_no_claims() -> None:
    result = ClaimExtractor().run("Sure! What would you like to know?")
    assert result.claims == ()
    assert [s.reason for s in result.skipped] == ["greeting", "question"]


@pytest.mark.parametrize("answer", ["", "   ", "\n\t"])
def test_an_empty_answer_is_refused_with_the_fix(answer: str) -> None:
    with pytest.raises(InputError, match="empty or only whitespace: pass the text"):
        ClaimExtractor().run(answer)


def test_a_non_string_answer_is_refused() -> None:
    with pytest.raises(InputError, match="must be a string, got bytes"):
        ClaimExtractor().run(b"Bees dance.")  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("options", "match"),
    [
        ({"on_error": "record"}, r"on_error='record' is not allowed: one of raise, rules"),
        ({"decompose": "yes"}, r"decompose='yes' is not allowed: True or False"),
        (
            {"chat": ScriptedChatModel([]), "decompose": False, "decontextualize": False},
            r"Drop chat=, or pass decompose=True",
        ),
        ({"chat": ScriptedChatModel([]), "decoding": {"temperature": 0}}, r"decoding="),
    ],
)
def test_bad_options_are_refused_at_construction(options: dict[str, object], match: str) -> None:
    with pytest.raises(OptionError, match=match):
        ClaimExtractor(**options)  # type: ignore[arg-type]


# --- the LLM path -----------------------------------------------------------------------------

LLM_ANSWER = (
    "Sure! Karl von Frisch was born in 1886 and he died in 1982 [1]. He won the Nobel Prize."
)
DECOMPOSED = json.dumps(
    {
        "claims": [
            {"sentence": 1, "text": "Karl von Frisch was born in 1886."},
            {"sentence": 1, "text": "He died in 1982."},
            {"sentence": 2, "text": "He won the Nobel Prize."},
        ]
    }
)
DECONTEXTUALIZED = json.dumps(
    {
        "claims": [
            "Karl von Frisch was born in 1886.",
            "Karl von Frisch died in 1982.",
            "Karl von Frisch won the Nobel Prize.",
        ]
    }
)


def test_with_a_chat_model_the_llm_decomposes_and_decontextualizes() -> None:
    chat = ScriptedChatModel([DECOMPOSED, DECONTEXTUALIZED], model_id="tiny-chat")
    result = ClaimExtractor(chat=chat, decoding=Decoding(seed=3)).run(LLM_ANSWER)
    assert (result.method, result.model) == ("llm", "tiny-chat")
    assert result.prompt == "decompose_v1@1, decontextualize_v1@1"
    assert [(c.text, c.sentence, c.markers) for c in result.claims] == [
        ("Karl von Frisch was born in 1886.", 1, (1,)),
        ("Karl von Frisch died in 1982.", 1, (1,)),
        ("Karl von Frisch won the Nobel Prize.", 2, ()),
    ]
    first, second, third = result.claims
    assert first.span.of(LLM_ANSWER) == "Karl von Frisch was born in 1886"
    assert first.edits == ("decomposed (llm)",)
    assert second.span.of(LLM_ANSWER) == (
        "Karl von Frisch was born in 1886 and he died in 1982 [1]."
    )
    assert second.edits == ("decomposed (llm)", "decontextualized (llm)")
    assert third.edits == ("decontextualized (llm)",)
    assert [r.seed for r in chat.requests] == [3, 3]
    # the skipped greeting is never sent
    assert "Sure!" not in chat.requests[0].messages[-1].content


def test_an_unreadable_reply_raises_naming_the_prompt_and_the_fix() -> None:
    chat = ScriptedChatModel(["Here are the claims: Karl von Frisch was born in 1886."])
    with pytest.raises(GenerationError) as caught:
        ClaimExtractor(chat=chat).run(LLM_ANSWER)
    message = str(caught.value)
    assert "prompt decompose_v1@1" in message
    assert "'Here are the claims: Karl von Frisch" in message
    assert "on_error='rules'" in message


def test_on_error_rules_falls_back_and_says_so_in_every_claim() -> None:
    chat = ScriptedChatModel(["not json", DECONTEXTUALIZED], model_id="tiny-chat")
    result = ClaimExtractor(chat=chat, on_error="rules").run(LLM_ANSWER)
    assert [c.text for c in result.claims] == [
        "Karl von Frisch was born in 1886.",
        "Karl von Frisch died in 1982.",
        "Karl von Frisch won the Nobel Prize.",
    ]
    note = "llm reply unreadable (decompose_v1@1); rules used"
    assert all(c.edits[-1] == note for c in result.claims)
    assert result.claims[0].edits == ("decomposed", note)
    assert (result.method, result.prompt) == ("llm", "decontextualize_v1@1")


def test_when_every_llm_step_fails_the_method_is_rules() -> None:
    chat = ScriptedChatModel(["nope", '{"claims": ["only one"]}'])
    result = ClaimExtractor(chat=chat, on_error="rules").run(LLM_ANSWER)
    assert (result.method, result.model, result.prompt) == ("rules", None, None)
    assert [c.text for c in result.claims][1] == "Karl von Frisch died in 1982."
    assert result.claims[1].edits[-2:] == (
        "llm reply unreadable (decompose_v1@1); rules used",
        "llm reply unreadable (decontextualize_v1@1); rules used",
    )


def test_the_llm_is_not_asked_when_nothing_is_left_to_check() -> None:
    chat = ScriptedChatModel([])
    result = ClaimExtractor(chat=chat).run("Hello! What would you like to know?")
    assert result.claims == ()
    assert chat.requests == []


# --- spans, for any answer --------------------------------------------------------------------

_SUBJECTS = st.sampled_from(
    [
        "Karl von Frisch",
        "He",
        "he",
        "It",
        "They",
        "This researcher",
        "The company",
        "Honey bees",
        "Dr. Smith",
        "The U.S.",
        "the queen",
        "Bees",
        "Its value",
        "Marie Curie",
    ]
)
_PREDICATES = st.sampled_from(
    [
        "was born in 1886",
        "died in 1982",
        "dance",
        "sing",
        "won the Nobel Prize",
        "lays eggs",
        "is 3.5 m tall",
        "has 50 states",
        "studied bees, e.g. honey bees",
        "can sting",
        "was founded in 1976",
        "live in colonies",
        "étudie les abeilles",
    ]
)
_JOINERS = st.sampled_from([" and ", ", and ", "; ", ", but ", " and then ", ", while "])
_NOISE = st.sampled_from(
    [
        "",
        "",
        "",
        " [1]",
        " [2, 3]",
        " [1-2]",
        "\n",
        "\n\n",
        "\n- ",
        "\n1. ",
        "\n# Bees\n",
        " **",
        " `x` ",
        "\n```\ncode. more\n```\n",
        " Sure!",
        " I think this is fascinating.",
        " What else?",
        " U.S.",
        " e.g.",
        " Dr.",
        " 3.5",
    ]
)


@st.composite
def _sentences(draw: st.DrawFn) -> str:
    text = f"{draw(_SUBJECTS)} {draw(_PREDICATES)}"
    for _ in range(draw(st.integers(0, 2))):
        joiner = draw(_JOINERS)
        subject = draw(st.one_of(st.just(""), _SUBJECTS.map(lambda s: s + " ")))
        text += f"{joiner}{subject}{draw(_PREDICATES)}"
    return text + draw(_NOISE) + draw(st.sampled_from([".", ".", "!", "", "?"])) + draw(_NOISE)


_ANSWERS = st.lists(_sentences(), min_size=1, max_size=6).map(" ".join).filter(str.strip)
_REWRITES = ("decontextualized", "subject copied")


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_ANSWERS)
def test_every_span_lies_in_the_answer_and_verbatim_claims_hold_their_words(answer: str) -> None:
    result = ClaimExtractor().run(answer)
    assert result.answer == answer
    assert len(result.claims) + len(result.skipped) >= 1 or not re.search(r"\w", answer)
    sentences = {s.sentence for s in result.skipped}
    for skipped in result.skipped:
        assert 0 <= skipped.span.start <= skipped.span.end <= len(answer)
        assert skipped.span.of(answer) == skipped.text
    for claim in result.claims:
        assert 0 <= claim.span.start < claim.span.end <= len(answer)
        assert claim.sentence not in sentences
        assert 0 <= claim.sentence < result.sentences
        assert claim.text.endswith(".")
        assert all(isinstance(m, int) and m >= 1 for m in claim.markers)
        if not any(edit.startswith(_REWRITES) for edit in claim.edits):
            words = re.findall(r"\w+", claim.text.lower())
            held = re.findall(r"\w+", Span(claim.span.start, claim.span.end).of(answer).lower())
            assert _in_order(words, held), (claim, claim.span.of(answer))


def _in_order(words: list[str], held: list[str]) -> bool:
    position = 0
    for word in words:
        try:
            position = held.index(word, position) + 1
        except ValueError:
            return False
    return True


_SCRAPS = st.sampled_from(
    [
        *"abcXYZ .,;:!?[]()0123-\n`*#'\"’é",
        "He ",
        "It ",
        "and ",
        "The ",
        "was ",
        "Dr. ",
        "e.g. ",
        "This researcher ",
        "[1] ",
    ]
)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(_SCRAPS, min_size=1, max_size=60).map("".join).filter(str.strip))
def test_any_text_gives_claims_and_skips_that_cover_distinct_sentences(answer: str) -> None:
    result = ClaimExtractor().run(answer)
    skipped = [s.sentence for s in result.skipped]
    claimed = {c.sentence for c in result.claims}
    assert len(skipped) == len(set(skipped))
    assert not claimed & set(skipped)
    assert len(claimed) + len(skipped) <= result.sentences
    for claim in result.claims:
        assert 0 <= claim.span.start < claim.span.end <= len(answer)
        assert re.search(r"\w", claim.text)


def test_an_answer_longer_than_the_limit_is_refused_before_any_work() -> None:
    from veracity import defaults

    limit = defaults.VERIFY_MAX_ANSWER_CHARS
    with pytest.raises(
        InputError,
        match=rf"{limit + 1:,} characters long, more than the "
        rf"{limit:,} verified at once: split it",
    ):
        ClaimExtractor().run("x" * (limit + 1))
    assert ClaimExtractor().run("Bees dance. " + "y" * (limit - 12)).sentences == 2


def test_chinese_sentences_are_not_checkable_and_keep_their_own_full_stop() -> None:
    # Harden-2 #14: the claim read "…230次。." with a stray full stop. Issue 43: the shipped
    # models read English, so a sentence in another script is reported, not judged.
    answer = "蜜蜂的翅膀每秒振动约230次。工蜂寿命约六周！Bees dance!"
    claims = ClaimExtractor().run(answer)
    assert [c.text for c in claims.claims] == ["Bees dance."]
    assert [(s.text, s.reason) for s in claims.skipped] == [
        ("蜜蜂的翅膀每秒振动约230次。", "unreadable"),
        ("工蜂寿命约六周！", "unreadable"),
    ]
    assert finish("工蜂寿命约六周！") == "工蜂寿命约六周。"
