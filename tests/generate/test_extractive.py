"""The extractive answerer, the generator that answers with it, and ``--llm extractive``."""

from __future__ import annotations

import dataclasses

import pytest

from veracity.errors import InputError, OptionError
from veracity.generate.ask import Asker
from veracity.generate.extractive import (
    ExtractiveAnswerer,
    ExtractiveGenerator,
    cite,
    content_terms,
)
from veracity.generate.grounded import GroundedGenerator
from veracity.generate.stream import StreamingAsker
from veracity.generate.writers import WRITERS, make_generator, make_writer
from veracity.retrieve.memory import MemoryBM25
from veracity.testing import ScriptedChatModel, TablePairScorer
from veracity.types import Answer, Chunk, Hit

pytestmark = pytest.mark.unit

BEES = (
    "Honeybees live in colonies. A colony has one queen. "
    "Honeybee wings beat about 230 times per second."
)
MITES = "Varroa mites weaken colonies. Oxalic acid treatment controls varroa mites in winter."
QUEEN = "How long does a queen live? The queen lives for three to four years."


def test_picks_the_sentence_that_answers_with_its_exact_span() -> None:
    passages = [BEES, MITES]
    answer = ExtractiveAnswerer(max_sentences=1).run("How fast do honeybee wings beat?", passages)
    assert answer.answered
    [sentence] = answer.sentences
    assert sentence.passage == 0
    assert sentence.span.of(passages[0]) == sentence.text
    assert sentence.text == "Honeybee wings beat about 230 times per second."
    assert sentence.supported is None
    assert sentence.score == sentence.lexical
    assert answer.text == sentence.text
    assert answer.model_id == "extractive"


def test_sentences_come_best_first_across_passages_and_at_most_n() -> None:
    answer = ExtractiveAnswerer(max_sentences=2).run(
        "What treatment controls varroa mites?", [BEES, MITES]
    )
    assert [s.passage for s in answer.sentences] == [1, 1]
    assert answer.sentences[0].text.startswith("Oxalic acid treatment")
    assert answer.sentences[0].score > answer.sentences[1].score
    assert len(answer.sentences) == 2


def test_questions_in_the_passage_are_never_chosen() -> None:
    answer = ExtractiveAnswerer().run("How long does a queen live?", [QUEEN])
    assert [s.text for s in answer.sentences] == ["The queen lives for three to four years."]


def test_nothing_qualifies_gives_an_empty_answer_not_a_guess() -> None:
    answer = ExtractiveAnswerer().run("Who painted the Mona Lisa?", [BEES, MITES])
    assert not answer.answered
    assert answer.text == ""
    assert answer.candidates == 0


def test_min_score_filters_weak_sentences() -> None:
    question = "Do honeybee queens sting beekeepers in winter?"
    loose = ExtractiveAnswerer(min_score=0.0).run(question, [BEES])
    strict = ExtractiveAnswerer(min_score=0.9).run(question, [BEES])
    assert loose.answered
    assert not strict.answered


def test_repeated_sentences_are_kept_once() -> None:
    answer = ExtractiveAnswerer().run("How fast do honeybee wings beat?", [BEES, BEES])
    texts = [s.text for s in answer.sentences]
    assert len(texts) == len(set(texts))
    assert answer.sentences[0].passage == 0


def test_runs_are_deterministic() -> None:
    answerer = ExtractiveAnswerer()
    first = answerer.run("What controls varroa mites?", [BEES, MITES, QUEEN])
    assert answerer.run("What controls varroa mites?", [BEES, MITES, QUEEN]) == first


def test_an_injected_scorer_reranks_in_one_batch() -> None:
    question = "Which insects form colonies?"
    plain = ExtractiveAnswerer(max_sentences=1, min_score=0.0).run(question, [BEES, MITES])
    # Lexical overlap ties the colony sentences (passage order decides); the scorer does not.
    scorer = TablePairScorer(
        {
            ("Varroa mites weaken colonies.", question): (0.95, 0.0, 0.05),
            ("Honeybees live in colonies.", question): (0.05, 0.0, 0.95),
        },
        default=(0.1, 0.1, 0.8),
    )
    ranked = ExtractiveAnswerer(
        max_sentences=1, min_score=0.0, scorer=scorer, scorer_weight=0.5
    ).run(question, [BEES, MITES])
    assert plain.sentences[0].text == "Honeybees live in colonies."
    assert ranked.sentences[0].text == "Varroa mites weaken colonies."
    assert ranked.sentences[0].supported == pytest.approx(0.95)
    assert ranked.sentences[0].score == pytest.approx(
        0.5 * ranked.sentences[0].lexical + 0.5 * 0.95
    )
    assert scorer.calls == [ranked.candidates]
    assert ranked.model_id == "extractive+table"


def test_markdown_headings_are_never_chosen() -> None:
    passage = "## Bee space and its width\n\nA bee space is about 6 to 9 mm wide."
    answer = ExtractiveAnswerer(min_score=0.0).run("How wide is a bee space?", [passage])
    assert [s.text for s in answer.sentences] == ["A bee space is about 6 to 9 mm wide."]


def test_more_of_the_answering_passage_is_kept_where_a_loose_match_elsewhere_is_not() -> None:
    question = "How wide is a bee space?"
    answering = "A bee space is about 8 mm wide. Bees fill a wider space with comb."
    elsewhere = "Bees glue a narrower space with propolis."
    scorer = TablePairScorer(
        {("A bee space is about 8 mm wide.", question): (0.9, 0.0, 0.1)}, default=(0.1, 0.0, 0.9)
    )
    answer = ExtractiveAnswerer(min_score=0.0, scorer=scorer).run(question, [answering, elsewhere])
    assert [s.text for s in answer.sentences] == [
        "A bee space is about 8 mm wide.",
        "Bees fill a wider space with comb.",
    ]
    weaker = answer.sentences[1].score
    assert weaker < 0.6 * answer.sentences[0].score  # kept all the same: the same passage
    everything = ExtractiveAnswerer(min_score=0.0, scorer=scorer, other_passage_share=0.0).run(
        question, [answering, elsewhere]
    )
    assert [s.passage for s in everything.sentences] == [0, 0, 1]


def test_a_weak_sentence_of_another_passage_is_left_out() -> None:
    question = "When do queens and drones mate?"
    passages = ["Queens mate in early summer.", "Drones die after they mate."]
    scorer = TablePairScorer(
        {(passages[0], question): (1.0, 0.0, 0.0), (passages[1], question): (0.0, 0.0, 1.0)}
    )
    strict = ExtractiveAnswerer(min_score=0.0, scorer=scorer).run(question, passages)
    loose = ExtractiveAnswerer(min_score=0.0, scorer=scorer, other_passage_share=0.0).run(
        question, passages
    )
    # "drones" is new, but the sentence scores under 0.7 of the first one's score
    assert strict.sentences[1:] == ()
    assert strict.sentences[0].score * 0.7 > loose.sentences[1].score
    assert [s.passage for s in loose.sentences] == [0, 1]


def test_the_passage_ranking_breaks_near_ties() -> None:
    question = "What do varroa mites weaken?"
    passages = [
        "Varroa mites weaken honeybee colonies over winter.",
        "Varroa mites weaken colonies.",
    ]
    scorer = TablePairScorer(
        {(passages[0], question): (0.8, 0.0, 0.2), (passages[1], question): (0.9, 0.0, 0.1)}
    )
    by_score = ExtractiveAnswerer(max_sentences=1, scorer=scorer, rank_penalty=0.0).run(
        question, passages
    )
    ranked = ExtractiveAnswerer(max_sentences=1, scorer=scorer, rank_penalty=0.1).run(
        question, passages
    )
    assert by_score.sentences[0].passage == 1
    assert ranked.sentences[0].passage == 0
    assert ranked.sentences[0].score == pytest.approx(0.9)  # the penalty only orders


@pytest.mark.parametrize(
    ("options", "needle"),
    [
        ({"max_sentences": 0}, "max_sentences=0"),
        ({"rank_penalty": 2.0}, "rank_penalty"),
        ({"other_passage_share": -1.0}, "other_passage_share"),
        ({"min_score": 1.5}, "min_score=1.5"),
        ({"scorer_weight": -0.1}, "scorer_weight"),
        ({"max_sentences": 5, "max_candidates": 4}, "max_candidates=4"),
    ],
)
def test_invalid_options_are_refused(options: dict[str, object], needle: str) -> None:
    with pytest.raises(OptionError, match=needle):
        ExtractiveAnswerer(**options)  # type: ignore[arg-type]


def test_bad_input_is_refused() -> None:
    answerer = ExtractiveAnswerer()
    with pytest.raises(InputError, match="empty"):
        answerer.run("  ", [BEES])
    with pytest.raises(InputError, match="not one string"):
        answerer.run("q", BEES)
    with pytest.raises(InputError, match="passage 1"):
        answerer.run("q", [BEES, 3])  # type: ignore[list-item]


def test_results_are_frozen() -> None:
    answer = ExtractiveAnswerer().run("How fast do honeybee wings beat?", [BEES])
    with pytest.raises(dataclasses.FrozenInstanceError):
        answer.question = "x"  # type: ignore[misc]


def test_content_terms_drop_stop_words_and_stem() -> None:
    assert content_terms("What treatments control the mites?") == ["treatment", "control", "mite"]


@pytest.mark.parametrize(
    ("sentence", "cited"),
    [
        ("Bees dance.", "Bees dance [2]."),
        ("Bees dance", "Bees dance [2]"),
        ('He said "bees dance."', 'He said "bees dance [2]."'),
        ("Bees dance at dawn![4][5]", "Bees dance at dawn [2]!"),
        ("Founded in 1889 [3].", "Founded in 1889 [2]."),
        # attached to a word: the source's own words, an index (Harden-2 #8)
        ("The least item is heap[0].", "The least item is heap[0] [2]."),
        ("Bees dance[4][5] at dawn!", "Bees dance[4][5] at dawn [2]!"),
        ("Bees (Apis) dance?)", "Bees (Apis) dance [2]?)"),
    ],
)
def test_cite_puts_the_marker_before_the_final_punctuation(sentence: str, cited: str) -> None:
    assert cite(sentence, 2) == cited


# --- the generator: answers from hits, no chat model ------------------------------------------


def _hits(*texts: str) -> list[Hit]:
    return [
        Hit(Chunk(f"d#{i}", f"doc{i}", i, text, 0, len(text)), 1.0, i + 1, "bm25")
        for i, text in enumerate(texts)
    ]


#: Supports the one sentence the tests expect; every other pair is "neither".
SUPPORTS = {
    (premise, claim): (0.9, 0.0, 0.1)
    for premise, claim in [
        (
            "Honeybee wings beat about 230 times per second.",
            "Honeybee wings beat about 230 times per second.",
        ),
        ("Ants march.\n[2] Bees dance at dawn.", "Bees dance at dawn."),
        ("Bees dance at dawn. Ants march.", "Bees dance at dawn."),
    ]
}


def _generator(
    answerer: ExtractiveAnswerer | None = None, *, refusal: str = "I don't know"
) -> ExtractiveGenerator:
    scorer = TablePairScorer(SUPPORTS)
    return ExtractiveGenerator(answerer or ExtractiveAnswerer(), scorer, refusal=refusal)


def test_the_generator_cites_each_sentence_with_its_hits_number() -> None:
    generator = _generator(ExtractiveAnswerer(max_sentences=1))
    hits = _hits("Honeybees live in colonies.", "Honeybee wings beat about 230 times per second.")
    answer = generator.run("How fast do honeybee wings beat?", hits)
    assert answer.text == "Honeybee wings beat about 230 times per second [2]."
    assert [c.doc_id for c in answer.citations] == ["doc1"]
    assert answer.sentences[0].status == "supported"
    provenance = answer.provenance
    assert provenance is not None
    # no prompt was written: none is named
    assert (provenance.model, provenance.prompt_id, provenance.seed) == ("extractive", "", None)
    assert provenance.verifier == "table"


def test_the_generator_reads_the_passages_as_they_are_not_a_prompt() -> None:
    # a passage whose own lines look like context blocks stays one passage
    hits = _hits("Ants march.\n[2] Bees dance at dawn.")
    assert _generator().write("When do bees dance?", hits) == "Bees dance at dawn [1]."


def test_the_generator_refuses_when_nothing_answers() -> None:
    hits = _hits("Ants march.")
    answer = _generator().run("Who painted the Mona Lisa?", hits)
    assert (answer.text, answer.refused) == ("I don't know", True)
    assert _generator(refusal="No idea.").write("Who painted the Mona Lisa?", hits) == "No idea."


def test_the_generator_checks_its_options_and_input() -> None:
    with pytest.raises(OptionError, match="refusal"):
        _generator(refusal=" ")
    with pytest.raises(InputError, match="ExtractiveAnswerer"):
        ExtractiveGenerator(object(), TablePairScorer({}))  # type: ignore[arg-type]
    with pytest.raises(InputError, match="no hits"):
        _generator().write("Who dances?", [])
    with pytest.raises(InputError, match="empty"):
        _generator().write(" ", _hits("Bees dance."))


def test_an_asker_streams_the_generators_sentences_then_the_answer() -> None:
    retriever = MemoryBM25([Chunk("d#0", "d", 0, "Bees dance at dawn. Ants march.", 0, 31)])
    asker = Asker(retriever, _generator(), k=1)
    items = list(StreamingAsker(asker).run("When do bees dance?"))
    assert isinstance(items[-1], Answer)
    assert items[-1].text == "Bees dance at dawn [1]."
    assert [i.status for i in items] == ["supported", "answered"]


# --- the writer of --llm ----------------------------------------------------------------------


def test_extractive_names_the_answerer_and_uses_the_verifier_it_is_given() -> None:
    writer = make_writer("extractive", scorer=TablePairScorer({}))
    assert isinstance(writer, ExtractiveAnswerer)
    assert writer.model_id == "extractive+table"
    assert make_writer("extractive").model_id == "extractive"
    assert isinstance(make_generator(writer, TablePairScorer({})), ExtractiveGenerator)


@pytest.mark.parametrize(("spec", "model"), [("extractive:x", None), ("extractive", "m")])
def test_extractive_takes_no_argument(spec: str, model: str | None) -> None:
    with pytest.raises(OptionError, match=r"^llm="):
        make_writer(spec, model=model)


def test_other_specs_are_chat_models_made_by_the_factory_given() -> None:
    made: list[tuple[str, str | None]] = []

    def factory(spec: str, model: str | None) -> ScriptedChatModel:
        made.append((spec, model))
        return ScriptedChatModel(["Bees dance [1]."])

    writer = make_writer("openai:http://127.0.0.1:9/v1", model="m", chat=factory)
    assert made == [("openai:http://127.0.0.1:9/v1", "m")]
    assert isinstance(make_generator(writer, TablePairScorer({})), GroundedGenerator)
    assert WRITERS == ("extractive", "llamacpp", "openai")
    with pytest.raises(OptionError, match="one of extractive, llamacpp, openai") as caught:
        make_writer("gpt", chat=factory)
    assert "--llm openai:http://" in str(caught.value)
    assert made == [("openai:http://127.0.0.1:9/v1", "m")]
