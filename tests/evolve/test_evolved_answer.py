"""The evolved answer through the grounded-answer checks, on fakes."""

from __future__ import annotations

import json

import pytest

from veracity.errors import InputError
from veracity.evolve import Evolver, Fitness, GeneticConfig, GroundedEvolver, check_member
from veracity.generate.check import CitationChecker
from veracity.testing import OverlapRelevanceScorer, ScriptedChatModel, TablePairScorer
from veracity.types import Chunk, Hit

pytestmark = pytest.mark.unit

QUERY = "why do honeybees dance and sing"
BEES = "Honeybees dance to tell nestmates where flowers are."
WASPS = "Wasps build paper nests from chewed wood."
ANSWER = "Honeybees dance to show where flowers are. Wasps build paper nests. Bees sing."


def hit(doc: str, text: str, start: int, rank: int) -> Hit:
    return Hit(
        Chunk(f"{doc}#0", doc, 0, text, start, start + len(text), title=doc), 1.0, rank, "rerank"
    )


HITS = [hit("bees.md", BEES, 10, 1), hit("wasps.md", WASPS, 0, 2)]
TABLE = {
    (BEES, "Honeybees dance to show where flowers are."): (0.9, 0.05, 0.05),
    (WASPS, "Wasps build paper nests."): (0.8, 0.1, 0.1),
}


def grounded(replies: list[str]) -> GroundedEvolver:
    evolver = Evolver(
        ScriptedChatModel(replies, model_id="scripted"),
        Fitness(OverlapRelevanceScorer()),
        GeneticConfig(offspring=1, max_iterations=1, seed=4),
    )
    return GroundedEvolver(evolver, CitationChecker(TablePairScorer(TABLE), tau=0.5))


def test_each_sentence_of_the_evolved_answer_is_attached_to_the_seed_it_rests_on() -> None:
    evolved = grounded([ANSWER]).run(QUERY, HITS)
    assert evolved.evolution.best.text == ANSWER  # the rewrite beats the seeds on relevance
    answer = evolved.answer
    assert [s.status for s in answer.sentences] == [
        "citation_attached",
        "citation_attached",
        "uncited",
    ]
    first, second = (s.citations[0] for s in answer.sentences[:2])
    assert (first.doc_id, first.start, first.end, first.attached) == ("bees.md", 10, 62, True)
    assert second.doc_id == "wasps.md"
    assert second.support == pytest.approx(0.8)
    assert answer.sentences[2].support == pytest.approx(0.0)
    assert answer.sources == tuple(HITS)
    provenance = answer.provenance
    assert provenance is not None
    assert (provenance.model, provenance.prompt_id, provenance.verifier) == (
        "scripted",
        evolved.evolution.best.prompt.split("@")[0],
        "table",
    )
    assert (provenance.temperature, provenance.seed) == (0.7, evolved.evolution.best.seed)


def test_the_trace_carries_the_checked_answer() -> None:
    evolved = grounded([ANSWER]).run(QUERY, HITS)
    payload = json.loads(json.dumps(evolved.to_dict()))
    assert payload["best"] == evolved.evolution.best.id
    assert [s["status"] for s in payload["answer"]["sentences"]][:2] == ["citation_attached"] * 2
    assert payload["answer"]["citations"][0]["doc_id"] == "bees.md"
    assert evolved.failures == 0


def test_a_seed_that_stays_best_is_checked_too() -> None:
    checker = CitationChecker(TablePairScorer({(BEES, BEES): (0.95, 0.0, 0.05)}))
    evolution = grounded(["Wasps nest."]).evolver.run(QUERY, [h.chunk.text for h in HITS])
    best = evolution.members[0]
    answer = check_member(QUERY, best, HITS, checker)
    assert answer.sentences[0].status == "citation_attached"
    assert answer.provenance is not None
    assert answer.provenance.model == "seed"


def test_bad_stages_are_refused() -> None:
    with pytest.raises(InputError, match="Evolver"):
        GroundedEvolver("evolver", CitationChecker(TablePairScorer({})))  # type: ignore[arg-type]
