import math

import pytest

from veracity import defaults
from veracity.defaults import EvidenceWindow
from veracity.errors import OptionError
from veracity.testing import TablePairScorer
from veracity.types import Chunk, Claim, PairScore, PairScores, Span
from veracity.verify.gather import ClaimEvidence, EvidenceSet
from veracity.verify.nli import NLILayer, aggregate_support, join_passages

pytestmark = pytest.mark.unit

#: The tests written before one window per claim: each passage read on its own.
PASSAGE: EvidenceWindow = "passage"

A = Chunk("a.md#0", "a.md", 0, "Bees dance.", 100, 111, title="A", section=("Bees",), page=2)
B = Chunk("b.md#0", "b.md", 0, "Bees never dance.", 0, 17)
C = Chunk("c.md#0", "c.md", 0, "Ants walk.", 0, 10)


def _claim(i: int, text: str) -> Claim:
    return Claim(i, text, Span(0, len(text)), i)


def _evidence(*items: tuple[Claim, tuple[Chunk, ...]]) -> EvidenceSet:
    return EvidenceSet(
        tuple(
            ClaimEvidence(claim, passages, (False,) * len(passages), "q")
            for claim, passages in items
        ),
        "claim",
        len(items),
    )


def test_labels_citations_and_anti_citations_from_one_batched_call() -> None:
    dance, sting = _claim(0, "Bees dance."), _claim(1, "Bees sting.")
    scorer = TablePairScorer(
        {
            ("Bees dance.", "Bees dance."): (0.92, 0.02, 0.06),
            ("Bees never dance.", "Bees dance."): (0.05, 0.85, 0.10),
            ("Ants walk.", "Bees sting."): (0.10, 0.10, 0.80),
        }
    )
    result = NLILayer(scorer, window=PASSAGE).run(_evidence((dance, (A, B)), (sting, (C,))))
    assert scorer.calls == [3]
    first, second = result.results
    assert (first.label, first.flagged) == ("supported", False)
    assert first.score == pytest.approx(0.08)
    assert (second.label, second.flagged) == ("unsupported", True)
    assert [j.doc_id for j in result.citations[0]] == ["a.md"]
    assert [j.doc_id for j in result.anti_citations[0]] == ["b.md"]
    cited = result.citations[0][0]
    assert (cited.start, cited.end, cited.page, cited.section) == (100, 111, 2, ("Bees",))
    assert result.pairs == 3
    assert result.failures == 0


def test_evidence_spans_are_shifted_into_document_coordinates() -> None:
    class WithEvidence(TablePairScorer):
        def run(self, premises, hypotheses):
            return PairScores(
                tuple(
                    PairScore(0.9, 0.0, 0.1, Span(0, len(p)), evidence=(Span(0, 4),))
                    for p in premises
                ),
                "evidence",
                "0",
            )

    result = NLILayer(WithEvidence({}), window=PASSAGE).run(
        _evidence((_claim(0, "Bees dance."), (A,)))
    )
    judged = result.citations[0][0]
    assert judged.evidence == (Span(100, 104),)
    assert A.text[judged.evidence[0].start - A.start : judged.evidence[0].end - A.start] == "Bees"


def test_contradicted_needs_the_contradiction_to_beat_support() -> None:
    claim = _claim(0, "Bees dance.")
    scorer = TablePairScorer({("Bees never dance.", "Bees dance."): (0.3, 0.6, 0.1)})
    result = NLILayer(scorer, window=PASSAGE).run(_evidence((claim, (B,))))
    assert result.results[0].label == "contradicted"
    weak = TablePairScorer({("Bees never dance.", "Bees dance."): (0.3, 0.45, 0.25)})
    weakly = NLILayer(weak, window=PASSAGE).run(_evidence((claim, (B,))))
    assert weakly.results[0].label == "unsupported"


def test_no_passage_is_unsupported_and_failed_pairs_are_errors_not_scores() -> None:
    class Failing(TablePairScorer):
        def run(self, premises, hypotheses):
            return PairScores(
                tuple(PairScore.failure("reply unreadable", window=Span(0, 1)) for _ in premises),
                "failing",
                "0",
            )

    claim = _claim(0, "Bees dance.")
    empty = NLILayer(TablePairScorer({}), window=PASSAGE).run(_evidence((claim, ())))
    assert (empty.results[0].label, empty.results[0].score) == ("unsupported", 1.0)
    failed = NLILayer(Failing({}), window=PASSAGE).run(_evidence((claim, (A,))))
    finding = failed.results[0]
    assert finding.label == "error"
    assert finding.score is None
    assert not finding.flagged
    assert "reply unreadable" in (finding.error or "")
    assert failed.failures == 1
    assert failed.citations == ((),)


def test_noisy_or_corrects_for_background_and_caps_k() -> None:
    assert aggregate_support([0.6, 0.6], aggregation="noisy_or", background=0.2) == pytest.approx(
        0.75
    )
    # Many weak passages at the background rate add nothing.
    assert aggregate_support([0.1] * 20, aggregation="noisy_or", background=0.1) == 0.0
    capped = aggregate_support([0.9, 0.5, 0.5, 0.5], aggregation="noisy_or", k=1, background=0.0)
    assert capped == pytest.approx(0.9)
    assert aggregate_support([0.2, 0.7]) == 0.7
    assert aggregate_support([]) == 0.0
    assert not math.isnan(aggregate_support([0.99], aggregation="noisy_or"))


def test_noisy_or_layer_can_support_from_two_partial_passages() -> None:
    claim = _claim(0, "Bees dance.")
    scorer = TablePairScorer(
        {
            ("Bees dance.", "Bees dance."): (0.45, 0.0, 0.55),
            ("Ants walk.", "Bees dance."): (0.45, 0.0, 0.55),
        }
    )
    evidence = _evidence((claim, (A, C)))
    assert NLILayer(scorer, window=PASSAGE).run(evidence).results[0].label == "unsupported"
    noisy = NLILayer(scorer, aggregation="noisy_or", background=0.1, window=PASSAGE).run(evidence)
    assert noisy.results[0].label == "supported"


@pytest.mark.parametrize(
    ("option", "value"), [("aggregation", "mean"), ("tau", 1.5), ("background", 1.0), ("k", 0)]
)
def test_bad_options_are_refused(option: str, value: object) -> None:
    with pytest.raises(OptionError, match=option):
        NLILayer(TablePairScorer({}), **{option: value})  # type: ignore[arg-type]


# --- a passage that cannot state the claim never counts against it ---------------------------

CLAIM = "The waggle dance was decoded by Karl von Frisch."
HEADING = Chunk("w.md#0", "w.md", 0, "# The Waggle Dance and Foraging", 0, 31)
TRUE = Chunk(
    "w.md#1",
    "w.md",
    1,
    "Karl von Frisch decoded the waggle dance of honey bees.",
    33,
    88,
    section=("Who decoded it",),
)
OTHER = Chunk("h.md#0", "h.md", 0, "Hruschka invented the honey extractor in 1865.", 0, 46)
WRONG = Chunk("x.md#0", "x.md", 0, "Konrad Lorenz decoded the waggle dance.", 0, 39)


def test_a_heading_and_an_off_subject_passage_are_no_anti_citations() -> None:
    claim = _claim(0, CLAIM)
    scorer = TablePairScorer(
        {
            (HEADING.text, CLAIM): (0.11, 0.58, 0.31),
            (TRUE.text, CLAIM): (0.60, 0.00, 0.40),
            (OTHER.text, CLAIM): (0.11, 0.52, 0.37),
        }
    )
    result = NLILayer(scorer, window=PASSAGE).run(_evidence((claim, (HEADING, TRUE, OTHER))))
    assert result.results[0].label == "supported"
    assert [j.chunk_id for j in result.citations[0]] == ["w.md#1"]
    assert result.anti_citations == ((),)
    # the verifier's reading is kept as given, with the reason it does not count
    assert [(j.contradicted, j.cannot_state) for j in result.judgements[0]] == [
        (0.58, "heading"),
        (0.0, None),
        (0.52, "other subject"),
    ]


def test_only_fragments_against_a_claim_leave_it_unsupported_not_contradicted() -> None:
    claim = _claim(0, CLAIM)
    title = Chunk("w.md#2", "w.md", 2, "The Waggle Dance and Foraging", 0, 29)
    scorer = TablePairScorer(
        {(HEADING.text, CLAIM): (0.05, 0.90, 0.05), (title.text, CLAIM): (0.05, 0.90, 0.05)}
    )
    result = NLILayer(scorer, window=PASSAGE).run(_evidence((claim, (HEADING, title))))
    finding = result.results[0]
    assert (finding.label, finding.flagged) == ("unsupported", True)
    assert "contradicted" not in finding.detail
    assert [j.cannot_state for j in result.judgements[0]] == ["heading", "fragment"]
    assert result.anti_citations == ((),)


def test_a_statement_on_the_claims_subject_still_contradicts_it() -> None:
    claim = _claim(0, CLAIM)
    scorer = TablePairScorer(
        {(HEADING.text, CLAIM): (0.05, 0.95, 0.0), (WRONG.text, CLAIM): (0.05, 0.80, 0.15)}
    )
    result = NLILayer(scorer, window=PASSAGE).run(_evidence((claim, (HEADING, WRONG))))
    assert result.results[0].label == "contradicted"
    assert "0.80 by x.md#0" in result.results[0].detail  # not the heading's 0.95
    assert [j.chunk_id for j in result.anti_citations[0]] == ["x.md#0"]


def test_a_fragment_still_counts_for_support() -> None:
    claim = _claim(0, CLAIM)
    scorer = TablePairScorer({(HEADING.text, CLAIM): (0.8, 0.0, 0.2)})
    result = NLILayer(scorer, window=PASSAGE).run(_evidence((claim, (HEADING,))))
    assert result.results[0].label == "supported"
    assert [j.cannot_state for j in result.citations[0]] == ["heading"]


def test_the_section_path_names_the_subject_of_a_pronoun_paragraph() -> None:
    claim = _claim(0, "Karl von Frisch won the Nobel Prize in 1983.")
    text = "For this work he shared the 1973 prize with Lorenz."
    bare = Chunk("n.md#0", "n.md", 0, text, 0, len(text))
    placed = Chunk(
        "n.md#1", "n.md", 1, text, 0, len(text), title="Bees", section=("Karl von Frisch",)
    )
    scorer = TablePairScorer({(text, claim.text): (0.05, 0.9, 0.05)})
    result = NLILayer(scorer, window=PASSAGE).run(_evidence((claim, (bare, placed))))
    assert [j.cannot_state for j in result.judgements[0]] == ["other subject", None]
    assert [j.chunk_id for j in result.anti_citations[0]] == ["n.md#1"]
    assert result.results[0].label == "contradicted"


@pytest.mark.unit
def test_a_judgement_keeps_the_first_and_last_page_of_its_passage() -> None:
    spanning = Chunk("p.pdf#0", "p.pdf", 0, "Bees dance.", 0, 11, page=3, page_end=4)
    scorer = TablePairScorer({("Bees dance.", "Bees dance."): (0.9, 0.0, 0.1)})
    result = NLILayer(scorer, window=PASSAGE).run(
        _evidence((_claim(0, "Bees dance."), (spanning, A)))
    )
    first, second = result.judgements[0]
    assert (first.page, first.page_end) == (3, 4)
    assert (second.page, second.page_end) == (2, None)
    assert first.to_dict()["page_end"] == 4


# --- one window per claim ---------------------------------------------------------------------


def test_a_claim_reads_one_window_across_its_passages_and_each_keeps_its_spans() -> None:
    """One pair per claim; the passages the window drew on are judged with its reading and
    their own exact spans in document coordinates; a passage it skipped is not evidence."""
    dance, sting = _claim(0, "Bees dance."), _claim(1, "Bees sting.")
    joined, starts = join_passages([A.text, B.text, C.text])

    class Selecting(TablePairScorer):
        """Reads the first and last passage of a premise of three, as a selector would."""

        def run(self, premises, hypotheses):
            self.calls.append(len(premises))
            scores = []
            for premise in premises:
                last = premise.rfind("\n\n") + 2 if "\n\n" in premise else 0
                scores.append(
                    PairScore(
                        0.9,
                        0.05,
                        0.05,
                        Span(0, len(premise)),
                        evidence=(Span(0, 4), Span(last, len(premise))),
                    )
                )
            return PairScores(tuple(scores), "selecting", "0")

    scorer = Selecting({})
    result = NLILayer(scorer, window="claim").run(_evidence((dance, (A, B, C)), (sting, (C,))))
    assert scorer.calls == [2]
    assert result.pairs == 2
    first = result.judgements[0]
    assert [j.doc_id for j in first] == ["a.md", "c.md"]  # b.md was not read
    assert first[0].evidence == (Span(100, 104),)
    assert first[1].evidence == (Span(0, len(C.text)),)
    # c.md ("Ants walk.") was read but cannot state the claim: a.md is its citation
    assert first[1].cannot_state is not None
    assert [j.doc_id for j in result.citations[0]] == ["a.md"]
    assert joined[starts[2] :] == C.text
    assert result.results[0].label == "supported"


def test_a_claim_window_premise_is_its_passages_joined_by_blank_lines() -> None:
    dance = _claim(0, "Bees dance.")
    scorer = TablePairScorer(
        {(f"{A.text}\n\n{B.text}", "Bees dance."): (0.1, 0.8, 0.1)}, default=None
    )
    result = NLILayer(scorer, window="claim").run(_evidence((dance, (A, B))))
    assert result.results[0].label == "contradicted"
    # A scorer without evidence spans read the whole window: both passages, each whole.
    assert [(j.doc_id, j.evidence) for j in result.judgements[0]] == [
        ("a.md", (Span(100, 111),)),
        ("b.md", (Span(0, 17),)),
    ]
    assert [j.doc_id for j in result.anti_citations[0]] == ["a.md", "b.md"]


def test_a_failed_window_fails_every_passage_of_its_claim() -> None:
    class Failing(TablePairScorer):
        def run(self, premises, hypotheses):
            return PairScores(
                tuple(PairScore.failure("bad reply", window=Span(0, len(p))) for p in premises),
                "failing",
                "0",
            )

    result = NLILayer(Failing({}), window="claim").run(
        _evidence((_claim(0, "Bees dance."), (A, B)))
    )
    assert result.results[0].label == "error"
    assert [j.error for j in result.judgements[0]] == ["bad reply", "bad reply"]
    assert result.failures == 1


def test_noisy_or_needs_a_window_per_passage() -> None:
    with pytest.raises(OptionError, match="window='passage'"):
        NLILayer(TablePairScorer({}), aggregation="noisy_or", window="claim")
    with pytest.raises(OptionError, match="window"):
        NLILayer(TablePairScorer({}), window="page")  # type: ignore[arg-type]


def test_a_window_that_only_read_passages_unable_to_state_the_claim_still_cites_them() -> None:
    heading = Chunk("h.md#0", "h.md", 0, "# Bees", 0, 6)
    claim = _claim(0, "Bees dance.")
    scorer = TablePairScorer({}, default=(0.9, 0.05, 0.05))
    result = NLILayer(scorer, window="claim").run(_evidence((claim, (heading,))))
    assert result.judgements[0][0].cannot_state == "heading"
    assert [j.doc_id for j in result.citations[0]] == ["h.md"]


def test_a_window_reading_is_attributed_to_the_passages_that_say_the_claim() -> None:
    """One reading covers both passages the window drew on; only the one whose words are the
    claim's is its anti-citation, not the passage about tickets beside it."""
    claim = _claim(0, "The museum opens on Mondays.")
    museum = Chunk("m.md#0", "m.md", 0, "The museum does not open on Mondays.", 0, 36)
    tickets = Chunk("t.md#0", "t.md", 0, "Tickets for the museum cost ten euros.", 0, 38)
    scorer = TablePairScorer({}, default=(0.05, 0.9, 0.05))
    result = NLILayer(scorer, window="claim").run(_evidence((claim, (museum, tickets))))
    assert [j.doc_id for j in result.judgements[0]] == ["m.md", "t.md"]  # both were read
    assert [j.doc_id for j in result.anti_citations[0]] == ["m.md"]
    assert result.results[0].label == "contradicted"


def test_a_focused_window_reads_on_their_own_only_the_passages_that_say_the_claim() -> None:
    """The true passage and a false one both say the claim's words: each is read on its own,
    so the claim is cited and anti-cited; the passage about tickets is not read at all."""
    claim = _claim(0, "The museum opens on Mondays.")
    opens = Chunk("o.md#0", "o.md", 0, "The museum opens on Mondays at nine.", 0, 36)
    closed = Chunk("c.md#0", "c.md", 0, "The museum does not open on Mondays.", 0, 36)
    tickets = Chunk("t.md#0", "t.md", 0, "Tickets cost ten euros at the door.", 0, 35)
    scorer = TablePairScorer(
        {
            (opens.text, claim.text): (0.9, 0.05, 0.05),
            (closed.text, claim.text): (0.05, 0.9, 0.05),
        },
        default=None,
    )
    result = NLILayer(scorer, window="focused").run(_evidence((claim, (opens, tickets, closed))))
    assert result.pairs == 2
    assert [j.doc_id for j in result.judgements[0]] == ["o.md", "c.md"]
    assert [j.doc_id for j in result.citations[0]] == ["o.md"]
    assert [j.doc_id for j in result.anti_citations[0]] == ["c.md"]
    assert result.results[0].label == "supported"
    # with passage windows the same two are read, and the third besides
    assert (
        NLILayer(TablePairScorer({}, default=(0.1, 0.1, 0.8)), window="passage")
        .run(_evidence((claim, (opens, tickets, closed))))
        .pairs
        == 3
    )


def test_a_focused_window_reads_a_lone_passage_and_takes_noisy_or() -> None:
    claim = _claim(0, "Bees dance.")
    scorer = TablePairScorer({}, default=(0.9, 0.05, 0.05))
    layer = NLILayer(scorer, window="focused", aggregation="noisy_or")
    result = layer.run(_evidence((claim, (B,))))
    assert result.pairs == 1
    assert [j.doc_id for j in result.citations[0]] == ["b.md"]


def test_a_focused_window_chooses_with_the_selector_of_the_wrapped_scorer() -> None:
    from veracity.models.pairs.windows import EvidenceSelector

    class Inner(TablePairScorer):
        selector = EvidenceSelector(max_tokens=64)

    class Wrapper:
        model_id = "wrapper"

        def __init__(self, scorer: TablePairScorer) -> None:
            self.scorer = scorer

        def load(self) -> "Wrapper":
            return self

        def run(self, premises, hypotheses):
            return self.scorer.run(premises, hypotheses)

    inner = Inner({}, default=(0.9, 0.05, 0.05))
    layer = NLILayer(Wrapper(inner), window="focused")
    assert layer._selector() is Inner.selector
    default = NLILayer(TablePairScorer({}), window="focused")._selector()
    assert default.max_tokens == defaults.VERIFIER_MAX_TOKENS
