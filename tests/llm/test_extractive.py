"""The extractive answerer, its prompt parser and its ChatModel adapter."""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence

import pytest

from veracity.errors import ClaimTooLongError, GenerationError, InputError, OptionError
from veracity.llm import (
    ChatRequest,
    ExtractiveAnswerer,
    ExtractiveReplier,
    Message,
    StreamingChatModel,
)
from veracity.llm.extractive import cite, content_terms, parse_prompt_blocks
from veracity.testing import TablePairScorer
from veracity.types import PairScore, PairScores, Span

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


# --- the prompt parser --------------------------------------------------------------------

GROUNDED = (
    "Context blocks:\n\n[1] Honeybees live in colonies.\n\n[2] Honeybee wings beat about 230 "
    "times per second.\nThey hum.\n\n[3] Varroa mites weaken colonies.\n\n"
    "Question: How fast do honeybee wings beat?\n\n"
    "Answer using only the context blocks above and cite them as [n] after each sentence."
)


def test_parses_the_grounded_prompt() -> None:
    blocks = parse_prompt_blocks(GROUNDED)
    assert blocks.numbers == (1, 2, 3)
    assert blocks.texts[1] == "Honeybee wings beat about 230 times per second.\nThey hum."
    assert blocks.texts[2] == "Varroa mites weaken colonies."
    assert blocks.question == "How fast do honeybee wings beat?"


def test_question_before_the_blocks_and_unlabelled_questions() -> None:
    first = parse_prompt_blocks("Q: Who dances?\n[1] Bees dance.\n[2] Ants march.")
    assert first.question == "Who dances?"
    assert first.texts == ("Bees dance.", "Ants march.")
    leading = parse_prompt_blocks("Who dances?\n\n[1] Bees dance.")
    assert leading.question == "Who dances?"
    assert leading.texts == ("Bees dance.",)
    trailing = parse_prompt_blocks("[1] Bees dance.\n\n[2] Ants march.\n\nWho dances?")
    assert trailing.question == "Who dances?"
    assert trailing.texts[1] == "Ants march."


def test_source_labels_are_split_off_and_out_of_order_numbers_stay_in_their_block() -> None:
    prompt = (
        "[1] (Bees (insects) — Dance, page 3) Bees dance.\nSee:\n[3] Smith 2001.\n\n"
        "[2] (Ants) Ants march.\n\n[3] (Note) Nothing here.\n\n[5] (x) y\n\n"
        "Question: Who dances?"
    )
    blocks = parse_prompt_blocks(prompt)
    assert blocks.numbers == (1, 2, 3)
    assert blocks.sources == ("Bees (insects) — Dance, page 3", "Ants", "Note")
    assert blocks.texts[0] == "Bees dance.\nSee:\n[3] Smith 2001."
    assert blocks.texts[2] == "Nothing here.\n\n[5] (x) y"
    assert parse_prompt_blocks("[1] (only a label)\nQ: q").texts == ("(only a label)",)


def test_a_label_inside_a_block_belongs_to_the_block() -> None:
    faq = "[1] Q: Do bees sleep?\nA: Yes.\n[2] Bees dance.\n\nQuestion: Do bees sleep?"
    blocks = parse_prompt_blocks(faq)
    assert blocks.texts[0] == "Q: Do bees sleep?\nA: Yes."
    assert blocks.question == "Do bees sleep?"


@pytest.mark.parametrize(
    ("prompt", "needle"),
    [
        ("Is the sky blue?", "numbered context blocks"),
        ("[1] Bees dance.", "no question"),
    ],
)
def test_unusable_prompts_raise(prompt: str, needle: str) -> None:
    with pytest.raises(GenerationError, match=needle):
        parse_prompt_blocks(prompt)


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


# --- the ChatModel adapter ------------------------------------------------------------------


def test_chat_replies_with_cited_sentences() -> None:
    chat = ExtractiveReplier(ExtractiveAnswerer(max_sentences=1))
    response = chat.run(
        ChatRequest((Message("system", "Cite [n]."), Message("user", GROUNDED)), seed=3)
    )
    assert response.text == "Honeybee wings beat about 230 times per second [2]."
    assert (response.model, response.seed, response.temperature) == ("extractive", 3, 0.0)
    assert isinstance(chat, StreamingChatModel)


def test_chat_keeps_the_prompts_block_numbers() -> None:
    prompt = "[4] Ants march.\n[5] Bees dance at dawn.\nQuestion: When do bees dance?"
    assert ExtractiveReplier().run(ChatRequest.of(prompt)).text == "Bees dance at dawn [5]."


def test_chat_answers_a_grounded_prompt_with_source_labels() -> None:
    # The shape of generate's grounded prompt: labelled blocks, a question, then instructions.
    prompt = (
        "Context blocks:\n\n"
        "[1] (Bees — Anatomy) Honeybee wings beat about 230 times per second.\n\n"
        "[2] (Mites, page 2) Varroa mites weaken colonies.\n\n"
        "Question: How fast do honeybee wings beat?\n\n"
        "Answer using only the context blocks above and cite them as [n] after each "
        'sentence. If they do not contain the answer, reply exactly "I don\'t know".'
    )
    reply = ExtractiveReplier().run(ChatRequest.of(prompt)).text
    assert reply == "Honeybee wings beat about 230 times per second [1]."


def test_chat_refuses_when_nothing_answers() -> None:
    prompt = "[1] Ants march.\n\nQuestion: Who painted the Mona Lisa?"
    assert ExtractiveReplier().run(ChatRequest.of(prompt)).text == "I don't know"
    assert ExtractiveReplier(refusal="No idea.").run(ChatRequest.of(prompt)).text == "No idea."


def test_chat_stream_joins_to_the_same_text() -> None:
    chat = ExtractiveReplier()
    request = ChatRequest.of(
        f"[1] {BEES}\n[2] {MITES}\nQuestion: What do varroa mites do to honeybee colonies?"
    )
    pieces = list(chat.stream(request))
    assert len(pieces) >= 2
    assert "".join(pieces) == chat.run(request).text


def test_chat_raises_on_a_prompt_without_blocks() -> None:
    with pytest.raises(GenerationError, match="numbered context blocks"):
        ExtractiveReplier().run(ChatRequest.of("Summarize bees."))
    with pytest.raises(OptionError, match="refusal"):
        ExtractiveReplier(refusal=" ")


class _ShortClaims:
    """A scorer that reads claims of at most ``limit`` words, like a verifier's claim budget."""

    model_id = "short-claims"

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.claims: list[str] = []

    def load(self) -> _ShortClaims:
        return self

    def run(self, premises: Sequence[str], hypotheses: Sequence[str]) -> PairScores:
        self.claims += hypotheses
        longest = max(len(claim.split()) for claim in hypotheses)
        if longest > self.limit:
            raise ClaimTooLongError(
                f"the claim has {longest} tokens", tokens=longest, budget=self.limit
            )
        return PairScores(
            tuple(PairScore(0.9, 0.0, 0.1, window=Span(0, len(p))) for p in premises),
            self.model_id,
            "1",
        )


STORY = " ".join(["I have kept bees in my garden for three years and the wings look odd."] * 6)


def test_a_long_question_is_compared_by_its_asking_sentence() -> None:
    scorer = _ShortClaims(limit=20)
    question = f"{STORY} Which mite damages honeybee colonies most?"
    answer = ExtractiveAnswerer(scorer=scorer).run(
        question, ["Varroa mites damage honeybee colonies most of all."]
    )
    assert answer.text == "Varroa mites damage honeybee colonies most of all."
    assert set(scorer.claims) == {"Which mite damages honeybee colonies most?"}


def test_a_question_too_long_to_compare_says_the_question_is_the_problem() -> None:
    question = "Which mite " + " ".join(["really"] * 80) + " damages honeybee colonies?"
    with pytest.raises(InputError, match="the question is too long") as caught:
        ExtractiveAnswerer(scorer=_ShortClaims(limit=20)).run(
            question, ["Varroa mites damage honeybee colonies."]
        )
    assert "claims" not in str(caught.value)
    assert "fewer words" in str(caught.value)


def test_navigation_headings_tables_and_code_are_never_chosen() -> None:
    passage = (
        "Next: Thread Safety, Previous: The Closure API, Up: Using libffi [Index]\n\n"
        "## Closure API\n\n| closure | ffi_closure_alloc |\n| free | ffi_closure_free |\n\n"
        "```c\nffi_closure *closure = ffi_closure_alloc(sizeof(ffi_closure), &code);\n"
        "```\n\nA closure is allocated with ffi_closure_alloc and freed with "
        "ffi_closure_free."
    )
    answer = ExtractiveAnswerer(max_sentences=3).run(
        "How is a closure allocated and freed?", [passage]
    )
    assert [s.text for s in answer.sentences] == [
        "A closure is allocated with ffi_closure_alloc and freed with ffi_closure_free."
    ]
    [sentence] = answer.sentences
    assert sentence.span.of(passage) == sentence.text
