"""LLMJudgeVerifier on a scripted chat model; the reply parser as a table; the shipped prompt."""

from __future__ import annotations

import math

import pytest

from veracity.assets import load_tokenizer
from veracity.errors import GenerationError, OptionError
from veracity.models.pairs.base import PairScorer
from veracity.models.pairs.judge import (
    JUDGE_LABELS,
    JUDGE_REPLY_TOKENS,
    Judgement,
    LLMJudgeVerifier,
    parse_judgement,
)
from veracity.models.pairs.windows import EvidenceSelector
from veracity.prompts import available, load_prompt
from veracity.testing import ScriptedChatModel, ScriptExhaustedError
from veracity.types import PairScore, PairScores, Span

pytestmark = pytest.mark.unit

PREMISE = "The Eiffel Tower is in Paris. It was finished in 1889."
CLAIM = "The Eiffel Tower is in Paris."
FILLER = " ".join(f"Sentence {i} talks about subject number {i} in some detail." for i in range(30))
LONG = FILLER + " The answer is forty-two."


# --- the parser -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("reply", "label", "confidence"),
    [
        ("SUPPORTED", "SUPPORTED", None),
        ("supported", "SUPPORTED", None),
        ("  Contradicted.\n", "CONTRADICTED", None),
        ("**NOT_MENTIONED**", "NOT_MENTIONED", None),
        ("not mentioned", "NOT_MENTIONED", None),
        ("Not-Mentioned!", "NOT_MENTIONED", None),
        ('"SUPPORTED"', "SUPPORTED", None),
        ("`CONTRADICTED`", "CONTRADICTED", None),
        ('{"label": "SUPPORTED"}', "SUPPORTED", None),
        ('{"label": "contradicted", "confidence": 85}', "CONTRADICTED", 85.0),
        ('{"confidence": 12.5, "label": "NOT MENTIONED"}', "NOT_MENTIONED", 12.5),
        ('```json\n{"label": "NOT_MENTIONED", "confidence": 0}\n```', "NOT_MENTIONED", 0.0),
        ("```\nSUPPORTED\n```", "SUPPORTED", None),
    ],
)
def test_parser_accepts(reply: str, label: str, confidence: float | None) -> None:
    assert parse_judgement(reply) == Judgement(label, confidence)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("reply", "reason"),
    [
        ("", "empty"),
        ("  \n ", "empty"),
        ("```json\n```", "empty"),
        ("SUPPORTED or CONTRADICTED", "more than one label (CONTRADICTED, SUPPORTED)"),
        ("SUPPORTED. Also NOT_MENTIONED.", "more than one label"),
        ("I think it is SUPPORTED", "words besides the label"),
        ("NOT SUPPORTED", "words besides the label"),
        ("SUPPORTED SUPPORTED", "words besides the label"),
        ("SUPPORTED 90", "words besides the label"),
        ("UNSUPPORTED", "no label"),
        ("Yes.", "no label"),
        ('{"label": SUPPORTED}', "not valid JSON"),
        ('{"label": "SUPPORTED", "label": "CONTRADICTED"}', "repeats the key(s) label"),
        ('{"label": "MAYBE"}', "label 'MAYBE' is not one label"),
        ('{"label": "SUPPORTED or CONTRADICTED"}', "is not one label"),
        ('{"confidence": 50}', "label None is not one label"),
        ('{"label": ["SUPPORTED"]}', "is not one label"),
        ('{"label": "SUPPORTED", "confidence": 150}', "150 is not a number from 0 to 100"),
        ('{"label": "SUPPORTED", "confidence": -1}', "from 0 to 100"),
        ('{"label": "SUPPORTED", "confidence": "high"}', "from 0 to 100"),
        ('{"label": "SUPPORTED", "confidence": true}', "from 0 to 100"),
        ('{"label": "SUPPORTED", "confidence": NaN}', "from 0 to 100"),
        ('{"label": "SUPPORTED", "reason": "it says so"}', "key(s) reason besides"),
    ],
)
def test_parser_rejects_and_quotes_the_reply(reply: str, reason: str) -> None:
    with pytest.raises(GenerationError) as error:
        parse_judgement(reply)
    message = str(error.value)
    assert reason in message
    assert repr(reply) in message
    assert "SUPPORTED, CONTRADICTED, NOT_MENTIONED" in message


def test_parser_shortens_a_long_reply_in_its_message() -> None:
    with pytest.raises(GenerationError) as error:
        parse_judgement("x" * 1000)
    assert len(str(error.value)) < 600


@pytest.mark.parametrize(
    ("judgement", "expected"),
    [
        (Judgement("SUPPORTED"), (1.0, 0.0, 0.0)),
        (Judgement("CONTRADICTED"), (0.0, 1.0, 0.0)),
        (Judgement("NOT_MENTIONED"), (0.0, 0.0, 1.0)),
        (Judgement("CONTRADICTED", 80.0), (0.1, 0.8, 0.1)),
        (Judgement("NOT_MENTIONED", 100.0), (0.0, 0.0, 1.0)),
    ],
)
def test_labels_become_probabilities(
    judgement: Judgement, expected: tuple[float, float, float]
) -> None:
    assert judgement.probabilities() == pytest.approx(expected)


# --- the shipped prompt -----------------------------------------------------------------------


def test_the_judge_prompt_ships_with_its_id_version_and_fields() -> None:
    prompt = load_prompt("judge_v1")
    assert "judge_v1" in available()
    assert (prompt.id, prompt.version, prompt.ref) == ("judge_v1", 1, "judge_v1@1")
    assert prompt.fields == ("premise", "claim")
    assert prompt.labels == JUDGE_LABELS
    for label in JUDGE_LABELS:
        assert label in prompt.system
    text = prompt.render(premise="A {brace} premise.", claim="A claim.")
    assert "A {brace} premise." in text
    assert "A claim." in text


def test_render_names_missing_and_unknown_fields() -> None:
    with pytest.raises(OptionError, match=r"missing=\['claim'\], unknown=\['hypothesis'\]"):
        load_prompt("judge_v1").render(premise="p", hypothesis="h")


def test_unknown_prompt_lists_the_shipped_ones() -> None:
    judge = LLMJudgeVerifier(ScriptedChatModel([]), prompt="judge_v9")  # no I/O yet
    with pytest.raises(OptionError, match=r"prompt='judge_v9'.*judge_v1"):
        judge.load()


# --- the verifier -----------------------------------------------------------------------------


def test_default_request_is_temperature_zero_with_a_seed() -> None:
    chat = ScriptedChatModel(["SUPPORTED"], model_id="small-llm")
    result = LLMJudgeVerifier(chat).run([PREMISE], [CLAIM])
    (request,) = chat.requests
    assert request.temperature == 0.0
    assert request.seed == 0
    assert request.max_tokens == JUDGE_REPLY_TOKENS
    system, user = request.messages
    assert (system.role, system.content) == ("system", load_prompt("judge_v1").system)
    assert user.role == "user"
    assert PREMISE in user.content
    assert CLAIM in user.content
    assert result.model_id == "small-llm"
    assert result.model_version == "prompt judge_v1@1; temperature 0; seed 0"


def test_temperature_and_seed_reach_the_request_and_the_provenance() -> None:
    chat = ScriptedChatModel(["SUPPORTED"])
    result = LLMJudgeVerifier(chat, temperature=0.7, seed=42).run([PREMISE], [CLAIM])
    assert (chat.requests[0].temperature, chat.requests[0].seed) == (0.7, 42)
    assert result.model_version == "prompt judge_v1@1; temperature 0.7; seed 42"


def test_one_result_per_pair_in_order() -> None:
    chat = ScriptedChatModel(["SUPPORTED", "contradicted.", '{"label": "NOT_MENTIONED"}'])
    judge = LLMJudgeVerifier(chat)
    assert isinstance(judge, PairScorer)
    result = judge.run([PREMISE] * 3, [CLAIM, "It is in Rome.", "It is blue."])
    assert [s.label for s in result.scores] == ["supported", "contradicted", "neither"]
    assert (result.scores[0].supported, result.scores[0].neither) == (1.0, 0.0)
    assert result.failures == 0
    assert result.scores[0].window.of(PREMISE) == PREMISE


def test_a_confidence_sets_the_probabilities() -> None:
    chat = ScriptedChatModel(['{"label": "SUPPORTED", "confidence": 70}'])
    (score,) = LLMJudgeVerifier(chat).run([PREMISE], [CLAIM]).scores
    assert (score.supported, score.contradicted, score.neither) == pytest.approx((0.7, 0.15, 0.15))


def test_an_unreadable_reply_raises_by_default() -> None:
    chat = ScriptedChatModel(["SUPPORTED", "Well, it depends."])
    with pytest.raises(GenerationError) as error:
        LLMJudgeVerifier(chat).run([PREMISE, PREMISE], [CLAIM, CLAIM])
    message = str(error.value)
    assert "'Well, it depends.'" in message
    assert "pair 1, window 1 of 1" in message
    assert "prompt judge_v1@1" in message
    assert "on_error='record'" in message


def test_an_unreadable_reply_is_recorded_as_an_error_never_a_score() -> None:
    chat = ScriptedChatModel(["Well, it depends.", "SUPPORTED"])
    result = LLMJudgeVerifier(chat, on_error="record").run([PREMISE, PREMISE], [CLAIM, CLAIM])
    failed, fine = result.scores
    assert failed.label == "error"
    assert failed.error is not None
    assert "'Well, it depends.'" in failed.error
    assert all(math.isnan(p) for p in (failed.supported, failed.contradicted, failed.neither))
    assert fine.label == "supported"
    assert result.failures == 1


def test_a_failing_chat_model_is_raised_or_recorded() -> None:
    with pytest.raises(GenerationError, match=r"pair 0, window 1 of 1.*HTTP 500"):
        LLMJudgeVerifier(ScriptedChatModel([GenerationError("HTTP 500")])).run([PREMISE], [CLAIM])
    chat = ScriptedChatModel([GenerationError("HTTP 500")])
    (score,) = LLMJudgeVerifier(chat, on_error="record").run([PREMISE], [CLAIM]).scores
    assert score.label == "error"
    assert "HTTP 500" in (score.error or "")


def test_other_exceptions_are_never_recorded() -> None:
    judge = LLMJudgeVerifier(ScriptedChatModel([ValueError("bug")]), on_error="record")
    with pytest.raises(ValueError, match="bug"):
        judge.run([PREMISE], [CLAIM])
    with pytest.raises(ScriptExhaustedError):
        LLMJudgeVerifier(ScriptedChatModel([]), on_error="record").run([PREMISE], [CLAIM])


def _windows(premise: str, claim: str, max_tokens: int) -> list[str]:
    selector = EvidenceSelector(max_tokens=max_tokens, strategy="slide")
    return [window.text for window in selector.run(premise, claim)]


def test_long_premise_asks_once_per_window_and_keeps_the_best() -> None:
    claim = "The answer is forty-two."
    texts = _windows(LONG, claim, 64)
    assert len(texts) > 2
    replies = ["NOT_MENTIONED"] * len(texts)
    replies[-1] = "SUPPORTED"
    chat = ScriptedChatModel(replies)
    judge = LLMJudgeVerifier(chat, max_tokens=64, strategy="slide")
    (score,) = judge.run([LONG], [claim]).scores
    assert len(chat.requests) == len(texts)
    for request, text in zip(chat.requests, texts, strict=True):
        assert text in request.messages[-1].content
    assert (score.label, score.windows, score.window_index) == (
        "supported",
        len(texts),
        len(texts) - 1,
    )
    assert "forty-two" in score.window.of(LONG)


def test_a_contradicting_window_beats_silent_ones() -> None:
    claim = "Sentence 12 talks about subject number 13."
    texts = _windows(FILLER, claim, 64)
    replies = ["NOT_MENTIONED"] * len(texts)
    replies[1] = "CONTRADICTED"
    (score,) = (
        LLMJudgeVerifier(ScriptedChatModel(replies), max_tokens=64, strategy="slide")
        .run([FILLER], [claim])
        .scores
    )
    assert (score.label, score.window_index) == ("contradicted", 1)


def test_a_failed_window_fails_its_pair_and_stops_asking() -> None:
    claim = "The answer is forty-two."
    assert len(_windows(LONG, claim, 64)) > 2
    chat = ScriptedChatModel(["NOT_MENTIONED", "no idea", "SUPPORTED"])
    judge = LLMJudgeVerifier(chat, max_tokens=64, strategy="slide", on_error="record")
    result = judge.run([LONG, PREMISE], [claim, CLAIM])
    failed, fine = result.scores
    assert failed.label == "error"
    assert "window 2 of" in (failed.error or "")
    assert failed.window_index == 1
    assert fine.label == "supported"  # the third reply went to the second pair
    assert len(chat.requests) == 3


def test_windows_can_be_wider_than_a_cross_encoders() -> None:
    tokenizer = load_tokenizer()
    premise = " ".join(f"Fact {i} says that item {i} weighs {i} grams." for i in range(150))
    claim = "Item 7 weighs 7 grams."
    size = len(tokenizer.encode(premise, add_special_tokens=False).ids)
    assert 1000 < size < 2000
    wide = ScriptedChatModel(["SUPPORTED"])
    (score,) = LLMJudgeVerifier(wide).run([premise], [claim]).scores  # default 2048 tokens
    assert (score.windows, score.window.of(premise)) == (1, premise)
    narrow = ScriptedChatModel(["NOT_MENTIONED"] * 10)
    (score,) = (
        LLMJudgeVerifier(narrow, max_tokens=600, strategy="slide").run([premise], [claim]).scores
    )
    assert 2 < score.windows == len(narrow.requests)
    sizes = [
        len(
            tokenizer.encode(
                r.messages[-1].content.split('"""')[1].strip(), add_special_tokens=False
            ).ids
        )
        for r in narrow.requests
    ]
    assert all(size <= 600 for size in sizes)
    assert all(size > 512 for size in sizes[:-1])  # full windows are wider than 512


def test_load_is_idempotent_and_init_does_no_io() -> None:
    judge = LLMJudgeVerifier(ScriptedChatModel([]))
    assert judge._prompt is None
    assert judge.load() is judge
    selector = judge._selector
    assert judge.load()._selector is selector


@pytest.mark.parametrize(
    ("options", "needle"),
    [
        ({"on_error": "skip"}, "on_error='skip'.*raise, record"),
        ({"strategy": "all"}, "select, slide"),
        ({"max_tokens": 16}, "max_tokens=16"),
        ({"temperature": 3.0}, "temperature=3.0"),
        ({"reply_tokens": 0}, "reply_tokens=0"),
    ],
)
def test_bad_options_are_named(options: dict[str, object], needle: str) -> None:
    with pytest.raises(OptionError, match=needle):
        LLMJudgeVerifier(ScriptedChatModel([]), **options)  # type: ignore[arg-type]


def test_a_chat_model_is_required() -> None:
    with pytest.raises(OptionError, match="a ChatModel"):
        LLMJudgeVerifier("gpt-4")  # type: ignore[arg-type]


# --- error results in the shared types --------------------------------------------------------


def test_failure_results_are_labelled_and_counted() -> None:
    failed = PairScore.failure("reply 'x' unreadable", window=Span(0, 3))
    assert failed.label == "error"
    assert math.isnan(failed.supported)
    scores = PairScores((failed, PairScore(1.0, 0.0, 0.0, window=Span(0, 3))), "m", "1")
    assert scores.failures == 1
    with pytest.raises(ValueError, match="nan probabilities"):
        PairScore(0.5, 0.25, 0.25, window=Span(0, 3), error="x")
