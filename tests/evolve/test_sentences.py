"""GAuGE's offline operators: genomes of source sentences, bred without a model (fakes)."""

from __future__ import annotations

import random

import pytest

from veracity.errors import InputError, OptionError
from veracity.evolve import (
    OPERATORS,
    Compress,
    Cross,
    Evolver,
    Fitness,
    GeneticConfig,
    GroundedEvolver,
    Mutate,
    ParentCheck,
    RougeBonus,
    Trim,
    build_pool,
)
from veracity.evolve.sentences import render, trims
from veracity.generate.check import CitationChecker
from veracity.testing import OverlapRelevanceScorer, ScriptedChatModel, TablePairScorer
from veracity.types import Chunk, Hit

pytestmark = pytest.mark.unit

QUERY = "why do honeybees dance"
SEEDS = [
    "## Dance\nThe waggle dance tells honeybees where food is. It was decoded by Karl von "
    "Frisch.\n\n| dance | meaning |\n|---|---|",
    "Next: Wax, Previous: Hives, Up: Bees\n\nHoneybees dance in the dark hive, which is "
    "crowded. Wasps build paper nests.",
    "The waggle dance tells the honeybees where food is.",  # near-duplicate of seed 0
]


@pytest.fixture
def pool():
    return build_pool(QUERY, SEEDS, OverlapRelevanceScorer())


def test_the_pool_holds_prose_sentences_read_on_their_own_with_exact_spans(pool) -> None:
    frisch = next(g for g in pool.genes if "Frisch" in g.text)
    assert frisch.text == "The waggle dance was decoded by Karl von Frisch."  # not "It was"
    assert frisch.edits == ("decontextualized: 'It' -> 'The waggle dance'",)
    assert SEEDS[0][frisch.span.start : frisch.span.end] == "It was decoded by Karl von Frisch."
    for gene in pool.genes:
        source = SEEDS[gene.seed][gene.span.start : gene.span.end]
        assert "\n" not in gene.text
        assert not source.startswith(("#", "|", "Next:"))
    skipped = dict(pool.skipped)
    assert skipped["table row"] == 1
    assert skipped["navigation"] == 1
    assert skipped["duplicate"] == 1  # seed 2 says what seed 0 says
    # no word of the question, and three more relevant sentences are in
    assert skipped["off the question"] == 1
    assert "Wasps build paper nests." not in [g.text for g in pool.genes]
    everything = build_pool(QUERY, SEEDS, OverlapRelevanceScorer(), min_relevance=None)
    assert "Wasps build paper nests." in [g.text for g in everything.genes]
    assert all(g.seed != 2 for g in pool.genes)
    assert [g.relevance for g in pool.genes] == sorted(
        (g.relevance for g in pool.genes), reverse=True
    )


def test_a_sentence_that_points_back_to_one_unseen_is_left_out() -> None:
    seeds = [
        "A queen develops in 16 days. At peak she lays 2,000 eggs a day. These bees "
        "mate in the air. The queen mates with 12 to 20 drones."
    ]
    pool = build_pool(
        "how do queens develop and mate", seeds, OverlapRelevanceScorer(), min_relevance=None
    )
    assert [g.text for g in pool.genes] == [
        "A queen develops in 16 days.",
        "The queen mates with 12 to 20 drones.",
    ]
    assert dict(pool.skipped)["unresolved reference"] == 2


def test_a_seed_genome_is_its_sentences_in_source_order(pool) -> None:
    genome = pool.genome(0)
    assert [g.span.start for g in genome] == sorted(g.span.start for g in genome)
    assert render(genome) == (
        "The waggle dance tells honeybees where food is. The waggle "
        "dance was decoded by Karl von Frisch."
    )
    assert pool.genome(2) == ()


def test_cross_keeps_the_most_relevant_sentences_of_both_parents(pool) -> None:
    a, b = pool.genome(0), pool.genome(1)
    for seed in range(10):
        child = Cross().breed([a, b], pool, random.Random(seed))
        assert child is not None
        union = sorted(a + b, key=lambda g: -g.relevance)
        assert list(child) == union[: len(child)]
        assert min(len(a), len(b)) <= len(child) <= len(a) + len(b)
    assert Cross(max_sentences=1).breed([a, b], pool, random.Random(0)) == (union[0],)


def test_mutate_adds_replaces_or_drops_with_the_next_most_relevant_sentence(pool) -> None:
    parent = pool.genome(0)
    missing = pool.best_missing(parent)
    assert missing is not None
    assert missing.seed == 1
    seen = set()
    for seed in range(30):
        child = Mutate().breed([parent], pool, random.Random(seed))
        assert child is not None
        keys = {g.key for g in child}
        if len(child) == len(parent) + 1:
            seen.add("add")
            assert missing.key in keys
        elif len(child) == len(parent) - 1:
            seen.add("drop")
            assert keys < {g.key for g in parent}
        else:
            seen.add("replace")
            assert missing.key in keys
    assert seen == {"add", "drop", "replace"}
    everything = tuple(pool.genes)
    assert (
        Mutate(max_sentences=len(everything)).breed([everything[:1]], pool, random.Random(0))
        is not None
    )
    lone = build_pool(
        QUERY, ["Honeybees dance to tell nestmates where food is."], OverlapRelevanceScorer()
    )
    assert Mutate().breed([lone.genome(0)], lone, random.Random(0)) is None


def test_trim_cuts_one_clause_and_records_it(pool) -> None:
    parent = pool.genome(1)
    child = Trim().breed([parent], pool, random.Random(0))
    assert child is not None
    assert render(child) == "Honeybees dance in the dark hive."
    [trimmed] = child
    assert trimmed.edits[-1] == "trimmed: 'which is crowded'"
    assert trimmed.key == parent[0].key  # it still cites its whole source sentence
    assert Trim().breed([child], pool, random.Random(0)) is None


def test_trims_lists_each_clause_once() -> None:
    options = [
        text for text, _ in trims("In 1852, Langstroth (a pastor) patented the hive, which spread.")
    ]
    assert options == [
        "In 1852, Langstroth patented the hive, which spread.",
        "Langstroth (a pastor) patented the hive, which spread.",
        "In 1852, Langstroth (a pastor) patented the hive.",
    ]
    assert trims("Bees dance, yes.") == []  # what is left would be too short


def test_compress_keeps_the_relevant_half_and_drops_clauses_off_the_question(pool) -> None:
    parent = (*pool.genome(1), *pool.genome(0))
    child = Compress().breed([parent], pool, random.Random(0))
    assert child is not None
    assert len(child) == (len(parent) + 1) // 2
    assert "which is crowded" not in render(child)
    assert all("honeybees" in g.text.lower() for g in child)
    assert "Frisch" not in render(child)
    assert Compress(max_words=4).breed([parent], pool, random.Random(0)) == child[:1]
    with pytest.raises(OptionError, match="max_words"):
        Compress(max_words=0)


def fitness() -> Fitness:
    return Fitness(OverlapRelevanceScorer(), RougeBonus(n=2), weight=10.0)


def test_the_loop_without_a_model_composes_an_answer_from_several_seeds() -> None:
    result = Evolver(None, fitness(), GeneticConfig(seed=1)).run(QUERY, SEEDS)
    assert result.calls == 0
    assert result.stop_reason in ("converged", "max_iterations")
    assert not result.failures
    best = result.best
    assert best.operator != "seed"
    assert len({g.seed for g in best.genes}) >= 2
    for member in result.members:
        assert member.text == render(member.genes)
        assert "#" not in member.text
        assert "|" not in member.text
    texts = [m.text for m in result.members]
    assert len(texts) == len(set(texts))  # a repeat is never added twice
    again = Evolver(None, fitness(), GeneticConfig(seed=1)).run(QUERY, SEEDS)
    assert again.best.text == best.text


def test_prompt_operators_need_a_model_and_prose_is_needed() -> None:
    with pytest.raises(OptionError, match="chat model"):
        Evolver(None, fitness(), operators=OPERATORS)
    with pytest.raises(InputError, match="prose"):
        Evolver(None, fitness()).run(QUERY, ["| a | b |\n| 1 | 2 |"])


def test_a_rewrite_its_parents_do_not_support_is_rejected_with_the_reason() -> None:
    seed = "Honeybees dance to tell nestmates where food is."
    good = "Honeybees dance to show nestmates where food is."
    bad = "Honeybees dance 300 times a day to tell nestmates where food is."
    table = TablePairScorer({(seed, good): (0.9, 0.0, 0.1), (seed, bad): (0.2, 0.1, 0.7)})
    for reply, kind in ((bad, "rejected"), (good, None)):
        chat = ScriptedChatModel([reply], model_id="scripted")
        result = Evolver(
            chat,
            fitness(),
            GeneticConfig(offspring=1, max_iterations=1),
            operators=OPERATORS[:1],
            gate=ParentCheck(table),
        ).run(QUERY, [seed])
        if kind is None:
            assert [m.text for m in result.members] == [seed, good]
            assert result.failures == ()
        else:
            [failure] = result.failures
            assert failure.kind == "rejected"
            assert failure.reply == bad
            assert "sentence 1" in failure.error
            assert "0.20 < tau 0.5" in failure.error
            assert result.errors == ()
            assert result.stop_reason == "all_failed"


def test_the_evolved_answer_cites_and_quotes_each_sentence_exactly() -> None:
    hits = [
        Hit(
            Chunk(f"d{i}#0", f"d{i}.md", 0, text, 100 * i, 100 * i + len(text)),
            1.0,
            i + 1,
            "rerank",
        )
        for i, text in enumerate(SEEDS[:2])
    ]
    table = {}
    pool = build_pool(QUERY, SEEDS[:2], OverlapRelevanceScorer())
    for gene in pool.genes:
        table[(SEEDS[gene.seed], gene.text)] = (0.9, 0.0, 0.1)
    evolver = GroundedEvolver(
        Evolver(None, fitness(), GeneticConfig(seed=1)), CitationChecker(TablePairScorer(table))
    )
    evolved = evolver.run(QUERY, hits)
    best = evolved.evolution.best
    assert evolved.answer.text == " ".join(f"{g.text[:-1]} [{g.seed + 1}]." for g in best.genes)
    assert all(s.status == "supported" for s in evolved.answer.sentences)
    for quote, gene in zip(evolved.quotes, best.genes, strict=True):
        chunk = hits[gene.seed].chunk
        document = " " * chunk.start + chunk.text  # the chunk's place in its document
        assert (
            document[quote.start : quote.end] == SEEDS[gene.seed][gene.span.start : gene.span.end]
        )
        assert quote.doc_id == chunk.doc_id
    assert evolved.to_dict()["quotes"][0]["marker"] == best.genes[0].seed + 1
    assert evolved.failures == 0
