"""ConsistencyLayer on a scripted chat model and a table of verifier probabilities."""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence

import pytest

from veracity import defaults
from veracity.errors import ClaimTooLongError, GenerationError, InputError, OptionError
from veracity.models.chat.base import Decoding
from veracity.prompts import available, load_prompt
from veracity.testing import ScriptedChatModel, ScriptExhaustedError, TablePairScorer
from veracity.types import Claim, PairScore, PairScores, Span
from veracity.verify.consistency import (
    LAYER,
    ConsistencyLayer,
    ConsistencyResult,
    inconsistency,
)

pytestmark = pytest.mark.unit

QUESTION = "Who discovered the waggle dance?"
Probs = tuple[float, float, float]


def claim(index: int, text: str) -> Claim:
    return Claim(index, text, Span(0, len(text)), index)


X, Y, Z = claim(0, "X is true."), claim(1, "Y is true."), claim(2, "Z is true.")

# Probabilities chosen to be exact in binary, so the expected scores are exact too.
TABLE: dict[tuple[str, str], Probs] = {
    # X: ratios 0.25 and 2/3, sample C is silent (P(s) = P(c) = 0) -> (0.25 + 2/3) / 2
    ("A", X.text): (0.75, 0.25, 0.0),
    ("B", X.text): (0.25, 0.5, 0.25),
    ("C", X.text): (0.0, 0.0, 1.0),
    # Y: ratios 1, 0.5, 0.75 -> 0.75; mean P(contradicted) 7/12 beats 3/12 and 2/12
    ("A", Y.text): (0.0, 0.5, 0.5),
    ("B", Y.text): (0.5, 0.5, 0.0),
    ("C", Y.text): (0.25, 0.75, 0.0),
    # Z: ratio 0.75 everywhere, but P(neither) dominates -> unsupported
    ("A", Z.text): (0.125, 0.375, 0.5),
    ("B", Z.text): (0.125, 0.375, 0.5),
    ("C", Z.text): (0.125, 0.375, 0.5),
}


class FailingPairScorer:
    """A table scorer whose listed pairs come back as failures (``error`` set, nan)."""

    model_id = "failing-table"

    def __init__(
        self, table: Mapping[tuple[str, str], Probs], failing: set[tuple[str, str]]
    ) -> None:
        self.table = TablePairScorer(table, default=None)
        self.failing = failing
        self.calls: list[int] = []

    def load(self) -> FailingPairScorer:
        return self

    def run(self, premises: Sequence[str], hypotheses: Sequence[str]) -> PairScores:
        self.calls.append(len(premises))
        scores = []
        for premise, hypothesis in zip(premises, hypotheses, strict=True):
            if (premise, hypothesis) in self.failing:
                scores.append(PairScore.failure("unreadable reply", window=Span(0, len(premise))))
            else:
                scores.append(self.table.run([premise], [hypothesis]).scores[0])
        return PairScores(tuple(scores), self.model_id, "0")


#: The options of Decoding that ``run`` takes as keywords.
DECODING = ("temperature", "seed", "max_tokens")


def run(
    replies: Sequence[str | Exception],
    claims: Sequence[Claim] = (X, Y, Z),
    table: Mapping[tuple[str, str], Probs] = TABLE,
    **options: object,
) -> tuple[ConsistencyResult, ScriptedChatModel, TablePairScorer]:
    chat = ScriptedChatModel(replies, model_id="sampler")
    scorer = TablePairScorer(table, default=None)
    decoding = {name: options.pop(name) for name in DECODING if name in options}
    if decoding:
        decoding.setdefault("temperature", defaults.CONSISTENCY_TEMPERATURE)
        options["decoding"] = Decoding(**decoding)  # type: ignore[arg-type]
    layer = ConsistencyLayer(chat, scorer, **options)  # type: ignore[arg-type]
    return layer.run(QUESTION, claims), chat, scorer


# --- scores and labels --------------------------------------------------------------------------


def test_inconsistency_is_the_mean_ratio_over_samples() -> None:
    result, _, _ = run(["A", "B", "C"], samples=3)
    x, y, z = result.results
    assert x.score == pytest.approx((0.25 + 2 / 3) / 2)
    assert y.score == pytest.approx(0.75)
    assert z.score == pytest.approx(0.75)
    assert [r.layer for r in result.results] == [LAYER] * 3


def test_labels_follow_threshold_and_dominant_probability() -> None:
    result, _, _ = run(["A", "B", "C"], samples=3)
    x, y, z = result.results
    assert (x.label, x.flagged) == ("supported", False)
    assert (y.label, y.flagged) == ("contradicted", True)
    assert (z.label, z.flagged) == ("unsupported", True)
    assert result.flagged == (1, 2)
    assert "1 silent" in x.detail
    assert all(r.error is None for r in result.results)


def test_threshold_is_inclusive_and_configurable() -> None:
    table = {(s, X.text): (0.5, 0.5, 0.0) for s in "ABC"}
    at, _, _ = run(["A", "B", "C"], claims=[X], table=table, samples=3, threshold=0.5)
    assert at.results[0].score == 0.5
    # a tie of supported and contradicted is not a contradiction
    assert (at.results[0].flagged, at.results[0].label) == (True, "unsupported")
    above, _, _ = run(["A", "B", "C"], claims=[X], table=table, samples=3, threshold=0.75)
    assert (above.results[0].flagged, above.results[0].label) == (False, "supported")


def test_claim_no_sample_mentions_gets_no_score_and_is_not_flagged() -> None:
    table = {(s, X.text): (0.0, 0.0, 1.0) for s in "ABC"}
    result, _, _ = run(["A", "B", "C"], claims=[X], table=table, samples=3)
    only = result.results[0]
    assert (only.score, only.label, only.flagged, only.error) == (None, "unchecked", False, None)
    assert "no sample supports or contradicts" in only.detail


def test_inconsistency_function_leaves_out_failed_and_silent_pairs() -> None:
    span = Span(0, 1)
    assert (
        inconsistency(
            [
                PairScore(0.75, 0.25, 0.0, span),
                PairScore(0.0, 0.0, 1.0, span),
                PairScore.failure("x", window=span),
            ]
        )
        == 0.25
    )
    assert inconsistency([PairScore(0.0, 0.0, 1.0, span)]) is None
    assert inconsistency([]) is None


# --- sampling and batching ----------------------------------------------------------------------


def test_sample_i_uses_seed_plus_i_at_the_temperature() -> None:
    result, chat, _ = run(["A", "B", "C"], samples=3, seed=7, temperature=0.75, max_tokens=64)
    assert [r.seed for r in chat.requests] == [7, 8, 9]
    assert [r.temperature for r in chat.requests] == [0.75] * 3
    assert [r.max_tokens for r in chat.requests] == [64] * 3
    assert result.seeds == (7, 8, 9)
    assert result.temperatures == (0.75, 0.75, 0.75)
    assert result.samples == ("A", "B", "C")


def test_requests_use_the_closed_book_prompt() -> None:
    _, chat, _ = run(["A", "B", "C"], samples=3)
    prompt = load_prompt("consistency_v1")
    system, user = chat.requests[0].messages
    assert (system.role, system.content) == ("system", prompt.system)
    assert user.content == prompt.render(question=QUESTION)
    assert QUESTION in user.content


def test_every_pair_is_scored_in_one_batch() -> None:
    result, _, scorer = run(["A", "B", "C"], samples=3)
    assert scorer.calls == [9]
    assert result.calls == {"chat": 3, "verifier": 9}


def test_defaults_come_from_defaults_module() -> None:
    layer = ConsistencyLayer(ScriptedChatModel([]), TablePairScorer({}))
    assert layer.samples == defaults.CONSISTENCY_SAMPLES
    assert layer.temperature == defaults.CONSISTENCY_TEMPERATURE
    assert layer.threshold == defaults.CONSISTENCY_THRESHOLD
    assert layer.plan == tuple(
        (defaults.CONSISTENCY_TEMPERATURE, defaults.CONSISTENCY_SEED + i)
        for i in range(defaults.CONSISTENCY_SAMPLES)
    )


def test_provenance() -> None:
    result, _, _ = run(["A", "B", "C"], samples=3)
    assert (result.model, result.scorer, result.prompt) == ("sampler", "table", "consistency_v1@1")
    assert (result.mode, result.threshold, result.question) == ("samples", 0.5, QUESTION)
    assert set(result.timings) == {"sample", "score"}
    with pytest.raises(dataclasses.FrozenInstanceError):
        result.failures = 3  # type: ignore[misc]


def test_no_claims_means_no_model_calls() -> None:
    chat = ScriptedChatModel([])
    scorer = TablePairScorer({})
    result = ConsistencyLayer(chat, scorer).run(QUESTION, [])
    assert result.results == ()
    assert chat.requests == []
    assert scorer.calls == []


# --- warnings -----------------------------------------------------------------------------------


def test_no_warnings_in_the_ordinary_case() -> None:
    result, _, _ = run(["A", "B", "C"], samples=3)
    assert result.warnings == ()


def test_temperature_zero_warns_that_nothing_can_be_detected() -> None:
    result, _, _ = run(["A", "B", "C"], samples=3, temperature=0.0)
    assert any("temperature=0" in w and "cannot detect" in w for w in result.warnings)


def test_identical_samples_warn() -> None:
    result, _, _ = run(["A", "A", "A"], samples=3)
    assert any("identical" in w and "cannot detect" in w for w in result.warnings)


@pytest.mark.parametrize(("samples", "warned"), [(1, True), (2, True), (3, False)])
def test_fewer_than_three_samples_warn(samples: int, warned: bool) -> None:
    replies = ["A", "B", "C"][:samples]
    result, _, _ = run(replies, samples=samples)
    assert any("below 3" in w for w in result.warnings) is warned


# --- failures -----------------------------------------------------------------------------------


def test_failed_sample_is_recorded_and_the_rest_are_scored() -> None:
    result, chat, scorer = run(["A", GenerationError("server said 500"), "C"], samples=3)
    assert len(chat.requests) == 3
    assert result.failures == 1
    assert result.samples == ("A", "C")
    assert result.seeds == (0, 2)
    assert any("sample 2 of 3" in w and "server said 500" in w for w in result.warnings)
    assert scorer.calls == [6]
    # X over A only (C is silent): 0.25; Y over A and C: (1 + 0.75) / 2
    assert result.results[0].score == pytest.approx(0.25)
    assert result.results[1].score == pytest.approx(0.875)


def test_empty_reply_counts_as_a_failed_sample() -> None:
    result, _, _ = run(["A", "  ", "C"], samples=3)
    assert result.failures == 1
    assert any("came back empty" in w for w in result.warnings)


def test_every_sample_failing_labels_every_claim_error() -> None:
    result, _, scorer = run([GenerationError("down")] * 3, samples=3)
    assert scorer.calls == []
    assert result.failures == 3
    assert result.samples == ()
    assert [(r.label, r.flagged, r.score) for r in result.results] == [("error", False, None)] * 3
    assert all(r.error for r in result.results)
    assert any("every one of the 3 samples failed" in w for w in result.warnings)


def test_other_exceptions_are_not_swallowed() -> None:
    with pytest.raises(ScriptExhaustedError):
        run(["A"], samples=3)


def test_failed_pairs_are_left_out_and_counted() -> None:
    chat = ScriptedChatModel(["A", "B", "C"])
    failing = {("B", X.text), ("A", Y.text), ("B", Y.text), ("C", Y.text)}
    scorer = FailingPairScorer(TABLE, failing)
    result = ConsistencyLayer(chat, scorer, samples=3).run(QUESTION, [X, Y])
    x, y = result.results
    assert result.pair_failures == 4
    assert scorer.calls == [6]
    assert x.score == pytest.approx(0.25)  # A only: B failed, C silent
    assert "1 failed" in x.detail
    assert (y.label, y.score, y.flagged) == ("error", None, False)
    assert y.error is not None
    assert "unreadable reply" in y.error


# --- two-temperature mode -----------------------------------------------------------------------


def test_two_temperature_regenerates_once_at_the_second_temperature() -> None:
    result, chat, scorer = run(["B"], mode="two_temperature", second_temperature=1.25, seed=4)
    assert [(r.temperature, r.seed) for r in chat.requests] == [(1.25, 4)]
    assert (result.samples, result.temperatures, result.seeds) == (("B",), (1.25,), (4,))
    assert result.mode == "two_temperature"
    assert scorer.calls == [3]
    assert [r.score for r in result.results] == pytest.approx([2 / 3, 0.5, 0.75])
    assert result.warnings == ()  # one sample is the design of this mode, not a mistake


def test_two_temperature_at_zero_warns() -> None:
    result, _, _ = run(["B"], mode="two_temperature", second_temperature=0.0)
    assert any("second_temperature=0" in w for w in result.warnings)


def test_two_temperature_needs_second_temperature() -> None:
    with pytest.raises(OptionError, match="second_temperature is needed"):
        ConsistencyLayer(ScriptedChatModel([]), TablePairScorer({}), mode="two_temperature")


def test_second_temperature_without_its_mode_is_refused() -> None:
    with pytest.raises(OptionError, match="mode='two_temperature'"):
        ConsistencyLayer(ScriptedChatModel([]), TablePairScorer({}), second_temperature=1.0)


# --- prompt and validation ----------------------------------------------------------------------


def test_prompt_ships_with_id_and_version() -> None:
    assert "consistency_v1" in available()
    prompt = load_prompt("consistency_v1")
    assert (prompt.id, prompt.version, prompt.ref) == ("consistency_v1", 1, "consistency_v1@1")
    assert prompt.fields == ("question",)
    assert "briefly" in prompt.user


def test_a_prompt_with_other_fields_is_refused_at_load() -> None:
    layer = ConsistencyLayer(ScriptedChatModel([]), TablePairScorer({}), prompt="judge_v1")
    with pytest.raises(OptionError, match="only field is"):
        layer.load()


@pytest.mark.parametrize("question", ["", "   "])
def test_empty_question_is_an_input_error(question: str) -> None:
    layer = ConsistencyLayer(ScriptedChatModel([]), TablePairScorer({}))
    with pytest.raises(InputError, match="empty"):
        layer.run(question, [X])


@pytest.mark.parametrize("claims", [X, [claim(0, " ")], ["X is true."]])
def test_bad_claims_are_input_errors(claims: object) -> None:
    layer = ConsistencyLayer(ScriptedChatModel([]), TablePairScorer({}))
    with pytest.raises(InputError, match="claim"):
        layer.run(QUESTION, claims)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("option", "value"),
    [
        ("samples", 0),
        ("samples", True),
        ("temperature", -0.1),
        ("temperature", 2.5),
        ("mode", "greedy"),
        ("seed", -1),
        ("max_tokens", 0),
        ("threshold", 0.0),
        ("threshold", 1.5),
    ],
)
def test_bad_options_name_themselves(option: str, value: object) -> None:
    with pytest.raises(OptionError, match=rf"^{option}="):
        run([], **{option: value})  # type: ignore[arg-type]


def test_chat_and_scorer_must_fit_their_protocols() -> None:
    with pytest.raises(OptionError, match=r"^chat="):
        ConsistencyLayer(object(), TablePairScorer({}))  # type: ignore[arg-type]
    with pytest.raises(OptionError, match=r"^scorer="):
        ConsistencyLayer(ScriptedChatModel([]), object())  # type: ignore[arg-type]


def test_a_claim_too_long_for_the_verifier_fails_alone() -> None:
    class ShortWindow(TablePairScorer):
        def run(self, premises: Sequence[str], hypotheses: Sequence[str]) -> PairScores:
            if any(len(h) > 20 for h in hypotheses):
                raise ClaimTooLongError("the claim does not fit the window: split it")
            return super().run(premises, hypotheses)

    scorer = ShortWindow({("Bees dance.", "Bees dance."): (0.9, 0.05, 0.05)}, default=None)
    layer = ConsistencyLayer(ScriptedChatModel(["Bees dance."] * 3), scorer, samples=3)
    result = layer.run(
        "What do bees do?",
        [claim(0, "Bees dance."), claim(1, "Bees dance in figure eights daily.")],
    )
    short, long = result.results
    assert (short.label, short.flagged, short.error) == ("supported", False, None)
    assert long.label == "error"
    assert long.error is not None
    assert "split it" in long.error
    assert result.pair_failures == 3
