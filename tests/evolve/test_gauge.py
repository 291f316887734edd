"""The GAuGE loop, its fitness and its operators, on fakes (no model is loaded)."""

from __future__ import annotations

import json
import random
import sys
from collections.abc import Sequence
from typing import Any

import pytest

from veracity.errors import (
    ClaimTooLongError,
    GenerationError,
    InputError,
    MissingDependencyError,
    OptionError,
)
from veracity.evolve import (
    OPERATORS,
    Evolver,
    Fitness,
    GeneticConfig,
    OneShotRAG,
    RougeBonus,
    SupportBonus,
    parse_rewrite,
)
from veracity.models.chat.base import ChatRequest, ChatResponse
from veracity.testing import OverlapRelevanceScorer, ScriptedChatModel, TablePairScorer
from veracity.text.segment import segment_answer
from veracity.types import PairScore, PairScores, Span

pytestmark = pytest.mark.unit

QUERY = "why do honeybees dance in the hive"
SEEDS = [
    "Honeybees dance to tell nestmates where flowers are.",
    "The waggle dance points to food.",
    "Wasps build paper nests.",
]
WORDS = ["honeybees", "dance", "hive", "food", "flowers", "nestmates", "sun", "wax"]


class VaryingChat:
    """A deterministic chat model: echoes the first passage of the prompt with one word, picked
    by the request's seed, added or dropped (a stand-in for a rewriter)."""

    model_id = "varying"

    def __init__(self) -> None:
        self.requests: list[ChatRequest] = []

    def run(self, request: ChatRequest) -> ChatResponse:
        self.requests.append(request)
        user = request.messages[-1].content
        marker = "Passage1: " if "Passage1: " in user else "Passage: "
        passage = user.split(marker, 1)[1].split("\n\n", 1)[0]
        rng = random.Random(request.seed)
        words = passage.split()
        if rng.random() < 0.5 and len(words) > 4:
            del words[rng.randrange(len(words))]
        else:
            words.insert(rng.randrange(len(words) + 1), rng.choice(WORDS))
        text = " ".join(words)
        return ChatResponse(
            text,
            self.model_id,
            completion_tokens=len(words),
            temperature=request.temperature,
            seed=request.seed,
        )


def rouge_fitness(weight: float = 10.0) -> Fitness:
    return Fitness(OverlapRelevanceScorer(), RougeBonus(n=2, top=2), weight=weight)


def evolve(seed: int = 0, fitness: Fitness | None = None, **config: int) -> tuple[Any, ...]:
    chat = VaryingChat()
    settings = {"offspring": 6, "max_iterations": 8, "max_calls": 60, **config}
    result = Evolver(chat, fitness or rouge_fitness(), GeneticConfig(seed=seed, **settings)).run(
        QUERY, SEEDS
    )
    return result, chat


# --- fitness ------------------------------------------------------------------------------------


def test_rouge2_bonus_is_the_stemmed_f1_against_the_top_seeds_joined() -> None:
    # Reference "bees dance in the hives. Ants march." has 6 bigrams, the candidate 3; two
    # shared after stemming ("bees dance", "dance in"): P = 2/3, R = 2/6, F = 4/9.
    bonus = RougeBonus(n=2, top=2)
    [score] = bonus.run(
        ["bee dancing in hives"], ["bees dance in the hives.", "Ants march.", "Never read."]
    )
    assert score == pytest.approx(4 / 9)


def test_every_member_seeds_included_is_scored_relevance_plus_weight_times_bonus() -> None:
    result, _ = evolve()
    bonus = RougeBonus(n=2, top=2)
    scorer = OverlapRelevanceScorer()
    for member in result.members:
        expected_bonus = bonus.run([member.text], SEEDS)[0]
        expected_rel = scorer.run(QUERY, [member.text]).logits()[0]
        assert member.fitness.bonus == pytest.approx(expected_bonus)
        assert member.fitness.relevance == pytest.approx(expected_rel)
        assert member.fitness.total == pytest.approx(expected_rel + 10 * expected_bonus)
    assert result.members[0].fitness.bonus > 0  # seeds get the bonus too, on the same scale


def test_support_bonus_is_the_verifiers_p_supported_by_the_top_seeds() -> None:
    premise = " ".join(SEEDS[:2])
    verifier = TablePairScorer({(premise, "Bees dance for food."): (0.9, 0.05, 0.05)})
    fitness = Fitness(OverlapRelevanceScorer(), SupportBonus(verifier, top=2), weight=2.0)
    [score] = fitness.run("bees dance", SEEDS, ["Bees dance for food."])
    assert score.bonus == pytest.approx(0.9)
    assert score.total == pytest.approx(1.0 + 2 * 0.9)
    assert verifier.calls == [1]


def test_bad_fitness_options_are_refused() -> None:
    with pytest.raises(OptionError, match=r"n=3"):
        RougeBonus(n=3)
    with pytest.raises(OptionError, match="weight"):
        Fitness(OverlapRelevanceScorer(), RougeBonus(), weight=-1)


def test_a_missing_rouge_score_names_the_evolve_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "rouge_score.rouge_scorer", None)
    with pytest.raises(MissingDependencyError, match=r"veracity\[evolve\]"):
        RougeBonus().run(["a b c"], ["a b c"])


# --- the loop -----------------------------------------------------------------------------------


def test_a_run_is_deterministic_for_a_seed() -> None:
    first, _ = evolve(seed=3)
    again, _ = evolve(seed=3)
    other, _ = evolve(seed=4)
    assert first.to_dict() == again.to_dict()
    assert [m.text for m in first.members] != [m.text for m in other.members]


def test_lambda_zero_is_gen2ir() -> None:
    zero, _ = evolve(seed=1, fitness=rouge_fitness(weight=0.0))
    gen2ir, _ = evolve(seed=1, fitness=Fitness(OverlapRelevanceScorer()))
    assert zero.to_dict() == gen2ir.to_dict()
    assert all(m.fitness.bonus == 0 for m in gen2ir.members)
    assert gen2ir.fitness == "relevance:overlap"


def test_the_population_is_elitist() -> None:
    result, _ = evolve(max_iterations=5)
    assert sorted(result.ranking) == [m.id for m in result.members]  # nothing was dropped
    best = [result.members[g.top[0]].fitness.total for g in result.generations]
    assert best == sorted(best)
    totals = [result.members[i].fitness.total for i in result.ranking]
    assert totals == sorted(totals, reverse=True)


def test_it_stops_when_the_top_two_neither_change_nor_reorder() -> None:
    chat = ScriptedChatModel(["Completely unrelated words about tax forms."] * 12)
    result = Evolver(chat, rouge_fitness(), GeneticConfig()).run(QUERY, SEEDS)
    assert result.stop_reason == "converged"
    assert len(result.generations) == 1
    assert result.calls == 12
    assert result.best.id == 0
    assert result.ranking[:2] == (0, 1)


def test_it_keeps_going_while_the_top_changes() -> None:
    chat = ScriptedChatModel(
        ["Honeybees dance in the hive to tell nestmates where food is."]
        + ["Completely unrelated words about tax forms."] * 23
    )
    result = Evolver(chat, Fitness(OverlapRelevanceScorer()), GeneticConfig()).run(QUERY, SEEDS)
    assert result.generations[0].top[0] == 3  # the first offspring took the lead
    assert result.stop_reason == "converged"
    assert len(result.generations) == 2


def test_the_model_call_cap_is_never_passed() -> None:
    result, chat = evolve(offspring=4, max_calls=6, max_iterations=10)
    assert result.calls == len(chat.requests) == 6
    assert result.stop_reason in ("max_calls", "converged")
    capped, _ = evolve(offspring=4, max_calls=100, max_iterations=1)
    assert capped.calls == 4
    assert capped.stop_reason in ("max_iterations", "converged")


@pytest.mark.parametrize(
    "name", ["offspring", "depth", "top_k", "max_iterations", "max_calls", "max_tokens"]
)
def test_a_budget_of_zero_is_an_error(name: str) -> None:
    with pytest.raises(OptionError, match=name):
        GeneticConfig(**{name: 0})


def test_every_member_records_its_provenance() -> None:
    result, chat = evolve()
    prompts = {op.name: op.prompt.ref for op in OPERATORS}
    offspring = [m for m in result.members if m.operator != "seed"]
    assert offspring
    barren = sum(g.barren for g in result.generations)  # a rewrite repeating a member
    assert len(offspring) + barren + len(result.failures) == len(chat.requests)
    by_seed = {request.seed: request for request in chat.requests}
    for member in offspring:
        request = by_seed[member.seed]
        assert member.prompt == prompts[member.operator]
        assert len(member.parents) == (2 if member.operator == "cross" else 1)
        assert all(p < member.id for p in member.parents)
        assert member.model == "varying"
        assert member.temperature == 0.7 == request.temperature
        assert member.seed == request.seed
        assert member.generation >= 1
    for seed in result.members[:3]:
        assert (seed.operator, seed.parents, seed.generation, seed.prompt) == ("seed", (), 0, "")
    assert {m.operator for m in offspring} == {"mutate", "steer", "cross"}


def test_parents_are_drawn_from_the_top_two() -> None:
    result, _ = evolve()
    for member in result.members[3:]:
        index = member.generation - 1
        top_before = result.generations[index - 1].top if index else (0, 1)
        assert set(member.parents) <= set(top_before)


def test_garbage_and_failing_replies_are_reported_failures_not_members() -> None:
    replies: list[str | Exception] = [
        "",
        "?? !!",
        GenerationError("server said 500"),
        "<|im_end|>",
        "Honeybees dance to show food.",
    ]
    chat = ScriptedChatModel(replies)
    result = Evolver(chat, rouge_fitness(), GeneticConfig(offspring=5, max_iterations=1)).run(
        QUERY, SEEDS
    )
    assert len(result.failures) == 4
    assert result.generations[0].failures == 4
    assert [m.text for m in result.members[3:]] == ["Honeybees dance to show food."]
    assert "server said 500" in result.failures[2].error
    assert all(f.generation == 1 and f.prompt.startswith("evolve_") for f in result.failures)


def test_a_generation_where_every_call_fails_stops_the_run() -> None:
    chat = ScriptedChatModel([""] * 3)
    result = Evolver(chat, rouge_fitness(), GeneticConfig(offspring=3)).run(QUERY, SEEDS)
    assert result.stop_reason == "all_failed"
    assert len(result.failures) == 3
    assert result.best.operator == "seed"


@pytest.mark.parametrize(
    ("query", "seeds"),
    [("", SEEDS), ("  ", SEEDS), (QUERY, []), (QUERY, "one passage"), (QUERY, ["ok", ""])],
)
def test_bad_input_is_refused(query: str, seeds: list[str]) -> None:
    with pytest.raises(InputError):
        Evolver(VaryingChat(), rouge_fitness()).run(query, seeds)


def test_the_trace_is_json_and_has_the_lineage() -> None:
    result, _ = evolve()
    data = json.loads(json.dumps(result.to_dict()))
    assert data["best"] == result.best.id
    assert len(data["members"]) == len(result.members)
    lineage = result.lineage(result.members[-1].id)
    assert lineage[0] is result.members[-1]
    assert lineage[-1].operator == "seed"


# --- operators and the baseline -----------------------------------------------------------------


@pytest.mark.parametrize(
    ("reply", "text"),
    [
        ("Bees dance for food.", "Bees dance for food."),
        ("Re-written passage: Bees dance for food.", "Bees dance for food."),
        ('  "Bees dance for food." </s>', "Bees dance for food."),
        ("Combined passage: Bees dance for food.", "Bees dance for food."),
    ],
)
def test_parse_rewrite_keeps_the_passage(reply: str, text: str) -> None:
    assert parse_rewrite(reply) == text


@pytest.mark.parametrize("reply", ["", "   ", "<|im_end|>", "1 2 3 4", "Passage:", "ok ok"])
def test_parse_rewrite_refuses_garbage(reply: str) -> None:
    with pytest.raises(GenerationError, match="nothing usable"):
        parse_rewrite(reply)


def test_operator_prompts_carry_the_query_and_parents() -> None:
    mutate, steer, cross = OPERATORS
    assert (
        QUERY
        not in mutate.request(QUERY, ("P one",), temperature=0.7, seed=1, max_tokens=None)
        .messages[-1]
        .content
    )
    assert (
        QUERY
        in steer.request(QUERY, ("P one",), temperature=0.7, seed=1, max_tokens=None)
        .messages[-1]
        .content
    )
    user = (
        cross.request(QUERY, ("P one", "P two"), temperature=0.7, seed=1, max_tokens=None)
        .messages[-1]
        .content
    )
    assert "Passage1: P one" in user
    assert "Passage2: P two" in user


def test_one_shot_rag_puts_every_seed_in_one_prompt() -> None:
    chat = ScriptedChatModel(["Honeybees dance to point at food."])
    member = OneShotRAG(chat, rouge_fitness()).run(QUERY, SEEDS)
    user = chat.requests[0].messages[-1].content
    assert all(f"[{i}] {s}" in user for i, s in enumerate(SEEDS, start=1))
    assert QUERY in user
    assert member.parents == (0, 1, 2)
    assert member.model == "scripted"
    assert member.fitness.total == rouge_fitness().run(QUERY, SEEDS, [member.text])[0].total
    with pytest.raises(GenerationError):
        OneShotRAG(ScriptedChatModel([""]), rouge_fitness()).run(QUERY, SEEDS)


# --- a candidate the fitness cannot score -------------------------------------------------------


class ShortClaimVerifier:
    """A verifier whose window holds claims of at most ``limit`` words: a longer one raises
    ClaimTooLongError for the whole batch, as the shipped verifier does."""

    model_id = "short-claims"

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.calls: list[int] = []

    def load(self) -> ShortClaimVerifier:
        return self

    def run(self, premises: Sequence[str], hypotheses: Sequence[str]) -> PairScores:
        self.calls.append(len(premises))
        for claim in hypotheses:
            if len(claim.split()) > self.limit:
                raise ClaimTooLongError(
                    f"the claim has {len(claim.split())} words",
                    tokens=len(claim.split()),
                    budget=self.limit,
                )
        return PairScores(
            tuple(PairScore(0.8, 0.1, 0.1, Span(0, len(p))) for p in premises), self.model_id, "1"
        )


def longest_sentence(text: str) -> int:
    return max(len(s.claim.split()) for s in segment_answer(text))


def support_fitness(limit: int) -> Fitness:
    return Fitness(OverlapRelevanceScorer(), SupportBonus(ShortClaimVerifier(limit)), weight=1.0)


def test_a_rewrite_too_long_for_the_verifier_is_a_reported_failure_not_an_abort() -> None:
    # The seeds have at most 8 words; VaryingChat adds or drops one word per rewrite, so the
    # rewrites of 9 words raise ClaimTooLongError in the support fitness.
    result, chat = evolve(fitness=support_fitness(8), max_iterations=3)
    scoring = [f for f in result.failures if "could not score" in f.error]
    assert scoring, "some rewrites must be too long for this verifier"
    assert all(
        longest_sentence(f.reply) > 8 and "ClaimTooLongError" not in f.error for f in scoring
    )
    assert all(longest_sentence(m.text) <= 8 for m in result.members)
    assert all(m.fitness.error is None for m in result.members)
    assert sum(g.failures for g in result.generations) == len(result.failures)
    barren = sum(g.barren for g in result.generations)  # a rewrite repeating a member
    assert len(result.members) + len(result.failures) + barren == len(SEEDS) + len(chat.requests)


def test_a_candidate_that_cannot_be_scored_gets_a_failure_score_the_others_keep_theirs() -> None:
    fitness = support_fitness(4)
    ok, long = fitness.run("bees", SEEDS, ["Bees dance for food.", "Bees dance to tell food."])
    assert ok.error is None
    assert ok.bonus == pytest.approx(0.8)
    assert long.error is not None
    assert "5 words" in long.error
    assert long.to_dict()["total"] is None


def test_a_seed_the_fitness_cannot_score_is_reported_and_left_out() -> None:
    fitness = support_fitness(6)  # the first seed has 8 words
    result = Evolver(VaryingChat(), fitness, GeneticConfig(offspring=2, max_iterations=1)).run(
        QUERY, SEEDS
    )
    [seed_failure] = [f for f in result.failures if f.operator == "seed"]
    assert (seed_failure.generation, seed_failure.reply) == (0, SEEDS[0])
    assert [m.text for m in result.members if m.operator == "seed"] == SEEDS[1:]
    with pytest.raises(InputError, match="none of the 3 seed passages could be scored"):
        Evolver(VaryingChat(), support_fitness(2), GeneticConfig()).run(QUERY, SEEDS)


def test_support_bonus_is_the_mean_over_the_factual_sentences() -> None:
    premise = " ".join(SEEDS[:2])
    verifier = TablePairScorer(
        {(premise, "Bees dance."): (0.9, 0.05, 0.05), (premise, "Bees eat wax."): (0.3, 0.3, 0.4)}
    )
    [bonus] = SupportBonus(verifier, top=2).run(["Bees dance. Bees eat wax. Is it?"], SEEDS)
    assert bonus == pytest.approx((0.9 + 0.3) / 2)
    assert verifier.calls == [2]  # one batch, the question not verified
