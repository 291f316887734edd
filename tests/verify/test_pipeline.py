"""AnswerVerifier end to end on fakes: claims, evidence, layers, combination, report."""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

import pytest

from veracity import defaults
from veracity.config import VerifyConfig
from veracity.decision import FEATURES, Decision
from veracity.errors import ClaimTooLongError, InputError, OptionError
from veracity.rules import KnowledgeLayer
from veracity.testing import ScriptedChatModel, TablePairScorer
from veracity.types import Chunk, PairScore, PairScores, Span
from veracity.verify.claims import ClaimExtractor
from veracity.verify.gather import EvidenceGatherer, source_chunks, source_documents
from veracity.verify.nli import NLILayer
from veracity.verify.pipeline import AnswerVerifier, make_answer_verifier
from veracity.verify.rules import LayerCombiner
from veracity.verify.stream import StreamVerifier

pytestmark = pytest.mark.unit

SOURCES = [
    "Honey bees perform a waggle dance to show other workers where food is.",
    "A honey bee colony can hold about 60,000 workers in summer.",
    "Bumblebees do not perform a waggle dance.",
]
_WORD = re.compile(r"[a-z0-9,]+")


class WordScorer:
    """P(contradicted) 0.8 when the premise says "do not" and holds the claim's first three
    words; else P(supported) 0.9 when it holds every word of the claim; else neither."""

    model_id = "words"

    def __init__(self) -> None:
        self.calls: list[int] = []

    def load(self) -> WordScorer:
        return self

    def run(self, premises: Sequence[str], hypotheses: Sequence[str]) -> PairScores:
        self.calls.append(len(premises))
        scores = []
        for premise, claim in zip(premises, hypotheses, strict=True):
            have = set(_WORD.findall(premise.lower()))
            words = _WORD.findall(claim.lower().rstrip("."))
            if "do not" in premise.lower() and set(words[:3]) <= have:
                probs = (0.05, 0.8, 0.15)
            elif set(words) <= have:
                probs = (0.9, 0.02, 0.08)
            else:
                probs = (0.05, 0.05, 0.9)
            scores.append(PairScore(*probs, window=Span(0, len(premise))))
        return PairScores(tuple(scores), self.model_id, "1")


def _chunks() -> tuple[Chunk, ...]:
    return source_chunks(source_documents(texts=SOURCES))


def test_report_labels_each_claim_with_evidence_and_summary() -> None:
    scorer = WordScorer()
    answer = (
        "Honey bees perform a waggle dance. A colony can hold about 90,000 workers. "
        "Bumblebees perform a waggle dance. I hope this helps!"
    )
    # each passage read on its own: one passage's citation, another's anti-citation
    report = make_answer_verifier(
        scorer, VerifyConfig().with_options(window="passage"), sources=_chunks()
    ).run(answer)
    labels = {v.claim.text: v.label for v in report.verdicts}
    assert labels["Honey bees perform a waggle dance."] == "supported"
    assert labels["Bumblebees perform a waggle dance."] == "contradicted"
    wrong_number = next(v for v in report.verdicts if "90,000" in v.claim.text)
    assert wrong_number.flagged
    knowledge = wrong_number.layer("knowledge")
    assert knowledge is not None
    assert knowledge.flagged
    assert report.summary["claims"] == 3
    assert report.summary["skipped"] == 1
    assert report.skipped[0].text == "I hope this helps!"
    supported = next(v for v in report.verdicts if v.label == "supported")
    assert supported.citations[0].doc_id == "text-1"
    contradicted = next(v for v in report.verdicts if v.claim.text.startswith("Bumblebees"))
    assert contradicted.anti_citations[0].doc_id == "text-3"
    # the knowledge layer's 90,000 against 60,000 is one input of the decision, beside a
    # reading that says the passage is silent
    assert wrong_number.decision is not None
    assert wrong_number.decision.inputs["value_mismatch"] == 1.0
    assert wrong_number.values[0].found is not None
    for verdict in report.verdicts:
        assert answer[verdict.claim.span.start : verdict.claim.span.end].strip()
    assert len(scorer.calls) == 1  # one batched verifier call for every claim and passage
    assert report.calls["verifier_calls"] == 1
    assert set(report.timings) >= {"claims", "evidence", "nli", "knowledge"}


def test_layers_and_rules_change_the_verdict_but_keep_every_finding() -> None:
    answer = "A colony can hold about 90,000 workers."
    nli_only = make_answer_verifier(
        WordScorer(), VerifyConfig().with_options(layers=("nli",)), sources=_chunks()
    ).run(answer)
    assert [r.layer for r in nli_only.verdicts[0].layers] == ["nli"]
    both_all = make_answer_verifier(
        WordScorer(), VerifyConfig().with_options(rule="all"), sources=_chunks()
    ).run(answer)
    assert [r.layer for r in both_all.verdicts[0].layers] == ["nli", "knowledge"]
    assert both_all.rule == "all"
    cascade = make_answer_verifier(
        WordScorer(),
        VerifyConfig().with_options(rule="cascade", layers=("knowledge", "nli")),
        sources=_chunks(),
    )
    assert cascade.run(answer).verdicts[0].flagged


def test_cited_passages_are_the_evidence_of_citing_claims() -> None:
    bees, colony, _ = _chunks()
    report = make_answer_verifier(WordScorer(), VerifyConfig().with_options(layers=("nli",))).run(
        "Honey bees perform a waggle dance [2].", cited={1: bees, 2: colony}
    )
    verdict = report.verdicts[0]
    assert verdict.claim.markers == (2,)
    assert [j.chunk_id for j in verdict.evidence] == [colony.id]
    assert verdict.evidence[0].cited
    assert verdict.label == "unsupported"


def test_an_attached_marker_cites_over_numbered_blocks_and_is_text_without() -> None:
    # Harden-2 #8: heap[5] is text in an answer with no blocks; dance[2] cites over blocks
    bees, colony, _ = _chunks()
    cited = make_answer_verifier(WordScorer(), VerifyConfig().with_options(layers=("nli",))).run(
        "Honey bees perform a waggle dance[2].", cited={1: bees, 2: colony}
    )
    assert cited.verdicts[0].claim.markers == (2,)
    assert cited.verdicts[0].claim.text == "Honey bees perform a waggle dance."
    plain = make_answer_verifier(
        WordScorer(), VerifyConfig().with_options(layers=("nli",)), sources=_chunks()
    ).run("Honey bees perform a waggle dance[2].")
    assert plain.verdicts[0].claim.markers == ()
    assert plain.verdicts[0].claim.text == "Honey bees perform a waggle dance[2]."


def test_bad_input_is_refused_with_the_fix() -> None:
    verifier = make_answer_verifier(WordScorer(), sources=_chunks())
    with pytest.raises(InputError, match="answer is empty"):
        verifier.run("   ")
    with pytest.raises(InputError, match="no sources"):
        make_answer_verifier(WordScorer()).run("Bees dance.")
    with pytest.raises(OptionError, match="nli, knowledge, consistency"):
        make_answer_verifier(
            WordScorer(), VerifyConfig().with_options(layers=("vibes",)), sources=_chunks()
        )
    with pytest.raises(OptionError, match="chat model"):
        make_answer_verifier(
            WordScorer(),
            VerifyConfig().with_options(layers=("nli", "consistency")),
            sources=_chunks(),
        )


def test_consistency_layer_needs_the_question_and_uses_the_chat_model() -> None:
    chat = ScriptedChatModel(["Honey bees perform a waggle dance."] * 5)
    verifier = make_answer_verifier(
        WordScorer(),
        VerifyConfig().with_options(llm="scripted", layers=("nli", "consistency")),
        sources=_chunks(),
        chat=chat,
    )
    with pytest.raises(InputError, match="question"):
        verifier.run("Honey bees perform a waggle dance.")
    report = verifier.run("Honey bees perform a waggle dance.", question="What do bees do?")
    consistency = report.verdicts[0].layer("consistency")
    assert consistency is not None
    assert not consistency.flagged
    assert report.calls["chat"] == 5


def test_stream_verifies_each_sentence_once_it_is_complete() -> None:
    verifier = make_answer_verifier(
        WordScorer(),
        VerifyConfig().with_options(layers=("nli",), window="passage"),
        sources=_chunks(),
    )
    pieces = ["Honey bees perform a wag", "gle dance. Bumblebees perform", " a waggle dance."]
    seen: list[tuple[int, str]] = []

    def deltas():
        for piece in pieces:
            yield piece
            seen.append((len(streamed), piece))

    streamed = []
    for sentence in StreamVerifier(verifier).run(deltas()):
        streamed.append(sentence)
    assert [(s.index, s.verdicts[0].label) for s in streamed] == [
        (0, "supported"),
        (1, "contradicted"),
    ]
    # The first sentence was reported before the last piece arrived.
    assert seen[1] == (1, pieces[1])
    text = "".join(pieces)
    assert [s.span.of(text) for s in streamed] == [
        "Honey bees perform a waggle dance.",
        "Bumblebees perform a waggle dance.",
    ]


def test_a_claim_longer_than_the_window_is_a_failed_claim_not_a_score() -> None:
    class ShortWindow(WordScorer):
        def run(self, premises: Sequence[str], hypotheses: Sequence[str]) -> PairScores:
            if any(len(h) > 40 for h in hypotheses):
                raise ClaimTooLongError("the claim is 12 tokens; the window holds 8: split it")
            return super().run(premises, hypotheses)

    answer = (
        "Honey bees perform a waggle dance. Honey bees perform a waggle dance to show "
        "other workers where food is."
    )
    report = make_answer_verifier(
        ShortWindow(),
        VerifyConfig().with_options(layers=("nli",), window="passage"),
        sources=_chunks(),
    ).run(answer)
    assert [v.label for v in report.verdicts] == ["supported", "error"]
    failed = report.verdicts[1].layers[0]
    assert failed.error is not None
    assert "split it" in failed.error
    assert report.failures == 1
    assert report.summary["failed"] == 1


def test_a_heading_source_never_makes_a_true_claim_contested() -> None:
    from veracity.testing import TablePairScorer

    claim = "The waggle dance was decoded by Karl von Frisch."
    heading = "# The Waggle Dance and Foraging"
    passage = "Karl von Frisch decoded the waggle dance of honey bees."
    wrong = "Karl von Frisch won the Nobel Prize in 1983."
    scorer = TablePairScorer(
        {
            (heading, claim): (0.11, 0.58, 0.31),
            (passage, claim): (0.60, 0.00, 0.40),
            (passage, wrong): (0.05, 0.20, 0.75),
            (heading, wrong): (0.02, 0.90, 0.08),
        },
        default=None,
    )
    sources = source_chunks(source_documents(texts=[heading, passage]))
    verifier = make_answer_verifier(
        scorer, VerifyConfig().with_options(layers=("nli",), window="passage"), sources=sources
    )
    report = verifier.run(claim)
    verdict = report.verdicts[0]
    assert (verdict.label, verdict.contested, verdict.anti_citations) == ("supported", False, ())
    assert report.summary["contested"] == 0
    payload = report.to_dict()["claims"][0]
    assert {e["text"]: e["cannot_state"] for e in payload["evidence"]} == {
        heading: "heading",
        passage: None,
    }
    # the heading's 0.90 cannot make a wrong claim contradicted either
    assert verifier.run(wrong).verdicts[0].label == "unsupported"


# --- composed of its parts; the factory passes chat wherever it is used ------------------------

DECOMPOSED = (
    '{"claims": [{"sentence": 1, "text": "Honey bees perform a waggle dance."}, '
    '{"sentence": 1, "text": "Bumblebees perform a waggle dance."}]}'
)
DECONTEXTUALIZED = (
    '{"claims": ["Honey bees perform a waggle dance.", "Bumblebees perform a waggle dance."]}'
)
COMPOUND = "Honey bees and bumblebees perform a waggle dance."


def test_chat_reaches_the_claim_extractor_when_llm_claims_are_asked_for() -> None:
    chat = ScriptedChatModel([DECOMPOSED, DECONTEXTUALIZED], model_id="tiny-chat")
    report = make_answer_verifier(
        WordScorer(),
        VerifyConfig().with_options(llm="scripted", layers=("nli",), claims="llm"),
        sources=_chunks(),
        chat=chat,
    ).run(COMPOUND)
    assert len(chat.requests) == 2
    assert report.claims_method == "llm"
    assert [v.claim.text.lower() for v in report.verdicts] == [
        "honey bees perform a waggle dance.",
        "bumblebees perform a waggle dance.",
    ]


def test_chat_writes_the_retrieval_questions_when_the_query_is_a_question() -> None:
    chat = ScriptedChatModel(["How many workers does a colony hold?"], model_id="asker")
    many = source_chunks(
        source_documents(
            texts=[*SOURCES, "Wasps sting.", "Ants march.", "Moths fly at night.", "Ticks bite."]
        )
    )
    verifier = make_answer_verifier(
        WordScorer(),
        VerifyConfig().with_options(llm="scripted", layers=("nli",), query="question", k=2),
        sources=many,
        chat=chat,
    )
    report = verifier.run("A honey bee colony can hold about 60,000 workers in summer.")
    assert len(chat.requests) == 1
    assert report.query_mode.startswith("question:question_v1")
    assert report.verdicts[0].evidence[0].query == "How many workers does a colony hold?"


def test_decompose_off_keeps_a_compound_sentence_one_claim() -> None:
    verifier = make_answer_verifier(
        WordScorer(),
        VerifyConfig().with_options(layers=("nli",), decompose=False),
        sources=_chunks(),
    )
    assert len(verifier.run(COMPOUND).verdicts) == 1
    composed = AnswerVerifier(
        NLILayer(WordScorer()),
        EvidenceGatherer(sources=_chunks()),
        claims=ClaimExtractor(decompose=False),
    )
    assert len(composed.run(COMPOUND).verdicts) == 1
    assert (
        len(
            AnswerVerifier(NLILayer(WordScorer()), EvidenceGatherer(sources=_chunks()))
            .run(COMPOUND)
            .verdicts
        )
        == 2
    )


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"chat": ScriptedChatModel([])}, "a chat model only where one is used"),
        ({"config": {"llm": "scripted", "claims": "llm"}}, "a chat model to write the claims"),
        ({"knowledge": KnowledgeLayer(), "config": {"layers": "nli"}}, "only when layers include"),
    ],
)
def test_parts_that_contradict_the_config_are_refused(
    options: dict[str, Any], message: str
) -> None:
    config = VerifyConfig().with_options(**options.pop("config", {}))
    with pytest.raises(OptionError, match=message):
        make_answer_verifier(WordScorer(), config, sources=_chunks(), **options)


def test_a_rule_and_the_layers_given_must_agree() -> None:
    nli, evidence = NLILayer(WordScorer()), EvidenceGatherer(sources=_chunks())
    with pytest.raises(OptionError, match="knowledge, which was not given"):
        AnswerVerifier(nli, evidence, rule=LayerCombiner("any", order=("nli", "knowledge")))
    with pytest.raises(OptionError, match="knowledge was given but the rule does not decide"):
        AnswerVerifier(
            nli, evidence, knowledge=KnowledgeLayer(), rule=LayerCombiner("any", order=("nli",))
        )
    with pytest.raises(InputError, match="nli must be a NLILayer"):
        AnswerVerifier(WordScorer(), evidence)  # type: ignore[arg-type]


def test_one_window_per_claim_reads_one_pair_per_claim() -> None:
    scorer = WordScorer()
    answer = "Honey bees perform a waggle dance. Bumblebees perform a waggle dance."
    report = make_answer_verifier(
        scorer, VerifyConfig().with_options(layers=("nli",), window="claim"), sources=_chunks()
    ).run(answer)
    assert scorer.calls == [2]  # two claims, three passages each, one pair per claim
    first = report.verdicts[0]
    # The fake read the window whole: every passage, each judged with the window's one reading.
    assert [j.text for j in first.evidence] == [c.text for c in _chunks()]
    assert len({(j.supported, j.contradicted) for j in first.evidence}) == 1
    for judged in first.evidence:  # its spans are its own passage's, in document coordinates
        assert judged.evidence == (Span(judged.start, judged.end),)


def test_noisy_or_reads_each_passage_on_its_own_by_default() -> None:
    verifier = make_answer_verifier(
        WordScorer(), VerifyConfig().with_options(aggregation="noisy_or"), sources=_chunks()
    )
    assert verifier.nli.window == "passage"
    with pytest.raises(OptionError, match="window='passage'"):
        make_answer_verifier(
            WordScorer(),
            VerifyConfig().with_options(aggregation="noisy_or", window="claim"),
            sources=_chunks(),
        )


def test_a_claim_window_makes_each_claim_one_verifier_pair() -> None:
    answer = "Honey bees perform a waggle dance. A colony can hold about 90,000 workers."
    scorer = WordScorer()
    report = make_answer_verifier(
        scorer, VerifyConfig().with_options(layers=("nli",), window="claim"), sources=_chunks()
    ).run(answer)
    assert defaults.NLI_WINDOW == "passage"  # the default reads each passage on its own
    assert len(report.verdicts) == 2
    assert scorer.calls == [2]  # one batched call, one (window, claim) pair per claim
    assert report.calls["verifier_pairs"] == 2


def test_every_verdict_is_the_decision_s_and_carries_its_inputs() -> None:
    """With the default rule, a claim's label is the one decision's, whatever the layers' own
    labels say; with rule="any" the layers decide and the decision is still reported."""
    # a decision that reads only the network's best support: supported above 0.5
    decision = Decision(
        tuple(4.0 if f == "support_logit" else 0.0 for f in FEATURES),
        0.0,
        tuple(1.0 if f == "value_mismatch" else 0.0 for f in FEATURES),
        -0.5,
        "test",
    )
    answer = "A colony can hold about 90,000 workers."
    source = ("A colony can hold about 60,000 workers.",)
    table = {(source[0], answer): (0.9, 0.05, 0.05)}
    decided = AnswerVerifier(
        NLILayer(TablePairScorer(table)),
        EvidenceGatherer(sources=source_chunks(source_documents(texts=source))),
        knowledge=KnowledgeLayer(),
        rule=LayerCombiner("decision", order=("nli", "knowledge"), decision=decision),
    ).run(answer)
    layered = AnswerVerifier(
        NLILayer(TablePairScorer(table)),
        EvidenceGatherer(sources=source_chunks(source_documents(texts=source))),
        knowledge=KnowledgeLayer(),
        rule=LayerCombiner("any", order=("nli", "knowledge"), decision=decision),
    ).run(answer)
    verdict = decided.verdicts[0]
    assert verdict.layer("knowledge") is not None
    assert verdict.layer("knowledge").label == "contradicted"  # type: ignore[union-attr]
    assert verdict.decision is not None
    assert verdict.decision.inputs["value_mismatch"] == 1.0
    assert verdict.label == verdict.decision.label == "supported"  # the network's weight wins
    assert decided.rule == "decision test"
    assert layered.verdicts[0].label == "contradicted"  # any: the rule's finding overrules
    assert layered.verdicts[0].decision == verdict.decision
