"""GroundedGenerator and CitationChecker on a scripted chat model and a table verifier."""

from __future__ import annotations

import pytest

from veracity.errors import GenerationError, InputError, OptionError
from veracity.generate.check import CitationChecker, claim_parts
from veracity.generate.grounded import GroundedGenerator
from veracity.models.chat.base import ChatRequest
from veracity.prompts import load_prompt
from veracity.rules import KnowledgeLayer
from veracity.testing import NetworkDecision, ScriptedChatModel, TablePairScorer
from veracity.types import SENTENCE_STATUSES, Chunk, Hit, Span

from .failing_scorers import FailingScorer, ShortWindowScorer, WordBudgetScorer

pytestmark = pytest.mark.unit

WORKER = "Worker bees develop in 21 days from egg to adult."
QUEEN = "Queens develop in 16 days."
DRONE = "Drones develop in 24 days. Drones have no sting."
WAX = "Beeswax melts at about 62 to 64 degrees Celsius."
QUESTION = "How long do bees take to develop?"

TABLE = {
    (WORKER, "Workers take 21 days."): (0.95, 0.0, 0.05),
    (QUEEN, "Queens take 20 days."): (0.10, 0.30, 0.60),
    (QUEEN, "Queens take 30 days."): (0.10, 0.80, 0.10),
    (DRONE, "Drones take 24 days."): (0.90, 0.0, 0.10),
    (WAX, "Drones take 24 days."): (0.20, 0.0, 0.80),
    (QUEEN, "Queens are faster."): (0.70, 0.0, 0.30),
}
REPLY = (
    "Workers take 21 days [1]. "  # supported
    "Queens take 20 days [2]. "  # unsupported
    "Drones take 24 days. "  # citation attached (block 3)
    "Queens are faster [9]. "  # invalid citation, block 2 attached
    "Wax is yellow. "  # uncited
    "I hope this helps!"  # not factual
)


def generator(reply: str, scorer=None, **options) -> GroundedGenerator:
    chat = ScriptedChatModel([reply], model_id="scripted-llm")
    return GroundedGenerator(chat, scorer or TablePairScorer(TABLE), **options)


def test_every_status_in_one_answer(hits):
    answer = generator(REPLY).run(QUESTION, hits)
    assert [(s.claim, s.status) for s in answer.sentences] == [
        ("Workers take 21 days.", "supported"),
        ("Queens take 20 days.", "unsupported"),
        ("Drones take 24 days.", "citation_attached"),
        ("Queens are faster.", "invalid_citation"),
        ("Wax is yellow.", "uncited"),
        ("I hope this helps!", "not_factual"),
    ]
    assert [s.support for s in answer.sentences] == [0.95, 0.10, 0.90, 0.70, 0.0, None]
    assert [s.flagged for s in answer.sentences] == [False, True, False, True, True, False]
    assert answer.answered
    assert not answer.refused
    assert not answer.abstained


def test_a_sentence_its_citation_contradicts_is_marked_contradicted(hits):
    answer = generator("Queens take 30 days [2]. Queens take 20 days [2].").run(QUESTION, hits)
    first, second = answer.sentences
    assert (first.status, second.status) == ("contradicted", "unsupported")
    assert first.flagged
    assert first.citations[0].contradicted == 0.80
    assert first.to_dict()["citations"][0]["contradicted"] == 0.80
    strict = CitationChecker(TablePairScorer(TABLE), contradiction=0.9)
    assert strict.run("Queens take 30 days [2].", hits).sentences[0].status == "unsupported"
    with pytest.raises(OptionError, match="contradiction"):
        CitationChecker(TablePairScorer(TABLE), contradiction=1.5)


def test_written_and_attached_citations(hits):
    answer = generator(REPLY).run(QUESTION, hits)
    summary = [(c.marker, c.attached, c.support, c.span is None) for c in answer.citations]
    assert summary == [
        (1, False, 0.95, False),
        (2, False, 0.10, False),
        (3, True, 0.90, True),
        (2, True, 0.70, True),
    ]
    assert [(i.marker, i.reason) for i in answer.invalid_citations] == [
        ("9", "out of range: 4 blocks were given")
    ]
    assert answer.sentences[3].invalid == answer.invalid_citations


def test_citations_point_at_the_exact_source_passage(hits, docs):
    answer = generator(REPLY).run(QUESTION, hits)
    for citation in answer.citations:
        chunk = hits[citation.marker - 1].chunk
        assert docs[citation.doc_id].text[citation.start : citation.end] == chunk.text
        assert (citation.chunk_id, citation.title, citation.section, citation.page) == (
            chunk.id,
            chunk.title,
            chunk.section,
            chunk.page,
        )
        if citation.span is not None:
            assert citation.span.of(answer.text) == f"[{citation.marker}]"
    drone = answer.citations[2]
    assert (drone.doc_id, drone.section, drone.page) == ("guide.pdf", ("Biology", "Drones"), 2)
    for sentence in answer.sentences:
        assert sentence.span.of(answer.text) == sentence.text
    assert answer.invalid_citations[0].span.of(answer.text) == "[9]"


def test_all_pairs_go_to_the_verifier_in_one_batched_call(hits):
    scorer = TablePairScorer(TABLE)
    generator(REPLY, scorer).run(QUESTION, hits)
    # 2 written citations + 3 factual sentences without one, each against all 4 blocks.
    assert scorer.calls == [2 + 3 * 4]


def test_headings_and_code_are_not_factual(hits):
    scorer = TablePairScorer(TABLE)
    answer = generator("# Development [1]\n\n`Workers take 21 days.`", scorer).run(QUESTION, hits)
    assert [s.status for s in answer.sentences] == ["not_factual", "not_factual"]
    assert [c.support for c in answer.sentences[0].citations] == [None]
    assert scorer.calls == []


def test_repeated_pairs_are_scored_once(hits):
    scorer = TablePairScorer(TABLE)
    answer = generator("Workers take 21 days [1]. Workers take 21 days [1][1].", scorer).run(
        QUESTION, hits
    )
    assert scorer.calls == [1]
    assert [s.status for s in answer.sentences] == ["supported", "supported"]
    assert len(answer.sentences[1].citations) == 1


def test_a_sentence_is_supported_by_its_best_citation(hits):
    answer = generator("Workers take 21 days [2][1].").run(QUESTION, hits)
    sentence = answer.sentences[0]
    assert sentence.status == "supported"
    assert sentence.support == 0.95
    assert [(c.marker, c.support) for c in sentence.citations] == [(2, 0.0), (1, 0.95)]


def test_tau_decides_supported(hits):
    answer = generator("Workers take 21 days [1].", tau=0.96).run(QUESTION, hits)
    assert answer.sentences[0].status == "unsupported"
    assert answer.provenance is not None
    assert answer.provenance.tau == 0.96


def test_without_attach_uncited_sentences_are_not_scored(hits):
    scorer = TablePairScorer(TABLE)
    answer = generator("Drones take 24 days.", scorer, attach=False).run(QUESTION, hits)
    assert answer.sentences[0].status == "uncited"
    assert answer.sentences[0].support is None
    assert scorer.calls == []


def test_a_sentence_citing_only_missing_blocks_with_nothing_to_attach(hits):
    answer = generator("Wax is yellow [5].").run(QUESTION, hits)
    sentence = answer.sentences[0]
    assert sentence.status == "invalid_citation"
    assert sentence.citations == ()


def test_scorer_failures_are_reported_never_scored(hits):
    scorer = FailingScorer(TABLE, fail_on="Queens")
    answer = generator(
        "Workers take 21 days [1]. Queens take 20 days [2]. Queens rule.", scorer
    ).run(QUESTION, hits)
    worker, cited, uncited = answer.sentences
    assert worker.status == "supported"
    assert worker.failure is None
    assert cited.status == "error"
    assert cited.support is None
    assert cited.failure == (
        "the verifier could not score 1 of 1 pair(s): judge reply 'maybe' is not a label"
    )
    assert cited.citations[0].support is None
    assert cited.citations[0].error == "judge reply 'maybe' is not a label"
    assert uncited.status == "uncited"
    assert uncited.support is None
    assert uncited.failure is not None
    assert "4 of 4" in uncited.failure
    assert answer.failures == 2
    assert scorer.calls == [1 + 1 + 4]


def test_a_sentence_too_long_for_the_verifier_fails_alone(hits):
    long_claim = "Workers " + "really " * 20 + "take 21 days"
    scorer = ShortWindowScorer(limit=60)
    answer = generator(f"{long_claim} [1]. Workers take 21 days [1].", scorer).run(QUESTION, hits)
    first, second = answer.sentences
    assert first.status == "error"
    assert first.failure is not None
    assert "longer than 60 characters" in first.failure
    assert second.status == "supported"
    assert second.support == 0.9
    # the batch, one call per sentence, then the failed one alone to read its length (the
    # scorer gives none, so it is not read in parts)
    assert scorer.calls == [2, 1, 1, 1]


def test_a_refusal_is_an_answer_marked_refused_and_not_verified(hits):
    scorer = TablePairScorer(TABLE)
    answer = generator("I don't know.", scorer).run(QUESTION, hits)
    assert answer.refused
    assert not answer.answered
    assert answer.refusal is not None
    assert answer.refusal.pattern == "en.dont_know"
    assert answer.sentences == ()
    assert answer.citations == ()
    assert answer.sources == hits
    assert scorer.calls == []


def test_the_request_shows_numbered_blocks_and_the_instruction(hits):
    gen = generator("Workers take 21 days [1].", temperature=0.3, seed=7, max_tokens=64)
    gen.run(QUESTION, hits)
    request: ChatRequest = gen.chat.requests[0]  # type: ignore[attr-defined]
    prompt = load_prompt("grounded_v1")
    system, user = request.messages
    assert (system.role, system.content) == ("system", prompt.system)
    assert "[1] (Beekeeping Guide — Biology > Development, page 1) " + WORKER in user.content
    assert "[3] (Beekeeping Guide — Biology > Drones, page 2) " + DRONE in user.content
    assert "[4] (Beeswax) " + WAX in user.content
    assert f"Question: {QUESTION}" in user.content
    assert 'reply exactly "I don\'t know"' in user.content
    assert (request.temperature, request.seed, request.max_tokens) == (0.3, 7, 64)


def test_provenance(hits):
    answer = generator("Workers take 21 days [1].").run(QUESTION, hits)
    p = answer.provenance
    assert p is not None
    assert (p.model, p.prompt, p.temperature, p.seed, p.verifier, p.verifier_version) == (
        "scripted-llm",
        "grounded_v1@1",
        0.0,
        0,
        "table",
        "0",
    )
    assert answer.timings.generate >= 0
    assert answer.timings.verify >= 0
    assert answer.timings.retrieve == 0.0


def test_every_status_is_known():
    assert set(SENTENCE_STATUSES) == {
        "supported",
        "contradicted",
        "unsupported",
        "invalid_citation",
        "uncited",
        "citation_attached",
        "not_factual",
        "error",
    }


@pytest.mark.parametrize(
    ("options", "name"),
    [
        ({"tau": 1.5}, "tau"),
        ({"temperature": -1}, "temperature"),
        ({"seed": "zero"}, "seed"),
        ({"max_tokens": 0}, "max_tokens"),
        ({"prompt": ""}, "prompt"),
    ],
)
def test_options_are_validated(options, name):
    with pytest.raises(OptionError, match=f"^{name}="):
        generator("x", **options)


def test_an_unknown_prompt_names_the_shipped_ones(hits):
    with pytest.raises(OptionError, match="grounded_v1"):
        generator("x", prompt="nope").load()


def test_a_prompt_without_the_fields_is_refused(hits):
    with pytest.raises(OptionError, match="question and context"):
        generator("x", prompt="judge_v1").load()


def test_bad_inputs(hits):
    with pytest.raises(InputError, match="no hits"):
        generator("x").run(QUESTION, ())
    with pytest.raises(InputError, match="empty"):
        generator("x").run("  ", hits)
    with pytest.raises(InputError, match="ChatModel"):
        GroundedGenerator(object(), TablePairScorer({}))  # type: ignore[arg-type]
    with pytest.raises(InputError, match="PairScorer"):
        GroundedGenerator(ScriptedChatModel([]), object())  # type: ignore[arg-type]


def test_an_empty_reply_is_a_generation_error(hits):
    with pytest.raises(GenerationError, match="empty reply"):
        generator("   ").run(QUESTION, hits)


def test_the_checker_reads_any_answer(hits):
    checked = CitationChecker(TablePairScorer(TABLE)).run("Workers take 21 days [1].", hits)
    assert (checked.pairs, checked.failures, checked.calls) == (1, 0, 1)
    assert checked.sentences[0].span == Span(0, len("Workers take 21 days [1]."))


def test_the_source_s_own_index_survives_ask() -> None:
    # Harden-2 #8: the extractive reply and the checker ate "[0]" of the source's heap[0]
    from veracity.generate.extractive import ExtractiveAnswerer, ExtractiveGenerator
    from veracity.types import Chunk, Hit

    source = "The smallest item of a min-heap is always heap[0]."
    hit = Hit(Chunk("heap.txt#0", "heap.txt", 0, source, 0, len(source)), 1.0, 1, "bm25")
    generator = ExtractiveGenerator(ExtractiveAnswerer(), TablePairScorer({}))
    reply = generator.write("Which item of a min-heap is the smallest?", [hit])
    assert reply == "The smallest item of a min-heap is always heap[0] [1]."
    checked = CitationChecker(TablePairScorer({(source, source): (0.9, 0.0, 0.1)})).run(
        reply, [hit]
    )
    sentence = checked.sentences[0]
    assert sentence.claim == source
    assert [c.marker for c in sentence.citations] == [1]
    assert checked.invalid == ()
    assert sentence.status == "supported"


LONG_SOURCE = (
    "Worker bees develop in 21 days from egg to adult, and they clean cells, feed "
    "larvae, build comb, guard the entrance and forage for nectar and pollen."
)


def long_hit(text: str = LONG_SOURCE) -> list[Hit]:
    return [Hit(Chunk("long#0", "long", 0, text, 0, len(text)), 1.0, 1, "bm25")]


def test_a_sentence_too_long_for_the_verifier_is_read_in_parts_and_says_so():
    scorer = WordBudgetScorer(budget=10)
    checked = CitationChecker(scorer).run(LONG_SOURCE + " [1]", long_hit())
    [sentence] = checked.sentences
    assert sentence.status == "supported"
    assert sentence.failure is None
    assert sentence.note is not None
    # 27 words at 80% of a 10-word budget: 4 parts
    assert "read in 4 parts" in sentence.note
    assert "27 tokens" in sentence.note
    assert "at most 10" in sentence.note
    assert checked.failures == 0


def test_a_long_sentence_is_unsupported_when_one_part_is():
    scorer = WordBudgetScorer(budget=10)
    claim = LONG_SOURCE.replace("pollen", "propolis")
    # the parts' readings decide here, not the shipped decision's word coverage
    checked = CitationChecker(scorer, decision=NetworkDecision()).run(claim + " [1]", long_hit())
    [sentence] = checked.sentences
    assert sentence.status == "unsupported"
    assert sentence.support == pytest.approx(0.1)
    never = LONG_SOURCE.replace("forage for", "never forage for")
    [contradicted] = (
        CitationChecker(scorer, decision=NetworkDecision()).run(never + " [1]", long_hit())
    ).sentences
    assert contradicted.status == "contradicted"


def test_claim_parts_keep_every_word_in_order_and_cut_at_clauses():
    parts = claim_parts(LONG_SOURCE, 3)
    assert len(parts) == 3
    assert " ".join(parts).split() == LONG_SOURCE.split()
    assert parts[0].endswith(",")  # the cut falls on the clause boundary after "adult,"
    assert claim_parts("Bees dance.", 1) == ["Bees dance."]
    assert claim_parts("Bees dance.", 5) == ["Bees", "dance."]


def test_the_knowledge_rules_weigh_in_when_the_checker_has_them(hits):
    # The table reads the 12-day claim as fairly supported by the 21-day passage; the value
    # rule finds 12 against 21 in the aligned sentence and the decision reads that finding.
    claim = "Worker bees develop in 12 days from egg to adult."
    scorer = TablePairScorer({(WORKER, claim): (0.7, 0.1, 0.2)})
    reply = claim[:-1] + " [1]."
    plain = CitationChecker(scorer).run(reply, hits).sentences[0]
    ruled = CitationChecker(scorer, rules=KnowledgeLayer(ner="rules")).run(reply, hits)
    sentence = ruled.sentences[0]
    assert plain.status == "supported"
    assert plain.checks == ()
    assert sentence.status == "contradicted"
    assert [(c.kind, c.text, c.status, c.found, c.aligned) for c in sentence.checks] == [
        ("quantity", "12 days", "mismatch", "21 days", True)
    ]
    assert sentence.decision is not None
    assert sentence.decision.inputs["value_mismatch"] == 1.0
    assert sentence.to_dict()["checks"][0]["status"] == "mismatch"


def test_a_generator_takes_a_whole_checker_but_not_its_thresholds_twice(hits):
    checker = CitationChecker(TablePairScorer(TABLE), tau=0.9, rules=KnowledgeLayer(ner="rules"))
    made = GroundedGenerator(ScriptedChatModel(["Workers take 21 days [1]."]), checker)
    assert made.checker is checker
    assert made.tau == 0.9
    with pytest.raises(OptionError, match=r"^tau=.*Set tau on the checker"):
        GroundedGenerator(ScriptedChatModel([]), checker, tau=0.5)
    copy = checker.with_scorer(TablePairScorer({}))
    assert (copy.tau, copy.rules, copy.attach) == (0.9, checker.rules, checker.attach)
    with pytest.raises(OptionError, match=r"^rules="):
        CitationChecker(TablePairScorer(TABLE), rules=object())  # type: ignore[arg-type]
