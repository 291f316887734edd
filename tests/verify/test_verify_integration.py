"""The verify pipeline with the real shipped models: the embedded verifier, spaCy (when the
[nlp] extra is installed) and the bundled SmolLM2 for the consistency layer."""

from __future__ import annotations

from pathlib import Path

import pytest

from veracity.config import VerifyConfig
from veracity.types import Chunk
from veracity.verify import AnswerVerifier, StreamVerifier, make_answer_verifier, make_verifier
from veracity.verify.consistency import ConsistencyLayer
from veracity.verify.gather import source_chunks, source_documents

pytestmark = pytest.mark.integration

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
SOURCE = EXAMPLES / "sample_corpus" / "biology" / "waggle_dance.md"


@pytest.fixture(scope="module")
def verifier() -> AnswerVerifier:
    sources = source_chunks(source_documents([SOURCE]))
    return make_answer_verifier(make_verifier("embedded"), sources=sources).load()


def test_the_true_round_dance_claim_is_supported(verifier: AnswerVerifier) -> None:
    answer = (EXAMPLES / "answer_to_check.md").read_text(encoding="utf-8")
    labels = {v.claim.text: v.label for v in verifier.run(answer).verdicts}
    assert (
        labels["For food closer than about 50 metres, a forager performs a round dance instead."]
        == "supported"
    )


def test_the_sample_answer_gets_the_expected_verdicts(verifier: AnswerVerifier) -> None:
    answer = (EXAMPLES / "answer_to_check.md").read_text(encoding="utf-8")
    report = verifier.run(answer)
    labels = {v.claim.text: v.label for v in report.verdicts}
    assert labels["He shared the Nobel Prize in Physiology or Medicine in 1983."] == "contradicted"
    assert (
        labels["The waggle dance is also performed by bumblebees to recruit nestmates."]
        == "unsupported"
    )
    assert [s.reason for s in report.skipped] == ["greeting"]
    wrong_year = next(v for v in report.verdicts if "1983" in v.claim.text)
    year = next(value for value in wrong_year.values if value.text == "1983")
    assert (year.status, year.found) == ("mismatch", "1973")
    document = source_documents([SOURCE])[0]
    assert year.evidence is not None
    assert year.evidence.of(document.text) == "1973"
    for verdict in report.verdicts:
        for cited in verdict.citations:
            assert document.text[cited.start : cited.end] == cited.text
    assert report.failures == 0


def test_streaming_gives_the_same_verdicts(verifier: AnswerVerifier) -> None:
    answer = (EXAMPLES / "answer_to_check.md").read_text(encoding="utf-8")
    whole = verifier.run(answer)
    pieces = [answer[i : i + 17] for i in range(0, len(answer), 17)]
    streamed = [v.label for s in StreamVerifier(verifier).run(pieces) for v in s.verdicts]
    assert streamed == [v.label for v in whole.verdicts]


def test_consistency_with_smollm2_scores_every_claim() -> None:
    pytest.importorskip("llama_cpp")
    from veracity.models.chat.base import Decoding
    from veracity.models.chat.registry import make_chat

    scorer = make_verifier("embedded")
    layer = ConsistencyLayer(
        make_chat("llamacpp"), scorer, samples=3, decoding=Decoding(1.0, max_tokens=48)
    )
    sources = source_chunks(source_documents([SOURCE]))
    verifier = make_answer_verifier(
        scorer,
        VerifyConfig().with_options(layers=("nli", "consistency"), llm="llamacpp"),
        sources=sources,
        consistency=layer,
    )
    report = verifier.run(
        "Karl von Frisch decoded the waggle dance.",
        question="Who decoded the honeybee waggle dance?",
    )
    finding = report.verdicts[0].layer("consistency")
    assert finding is not None
    assert finding.error is None
    assert finding.score is None or 0.0 <= finding.score <= 1.0
    assert report.calls["chat"] == 3
    assert len(set(layer.plan)) == 3  # three seeds: the samples are reproducible, not identical


def _chunk_of(document: str, text: str, index: int) -> Chunk:
    start = document.index(text)
    return Chunk(
        f"waggle_dance.md#{index}",
        "waggle_dance.md",
        index,
        text,
        start,
        start + len(text),
        title="The Waggle Dance and Foraging",
    )


@pytest.fixture(scope="module")
def frisch_sources() -> tuple[Chunk, Chunk]:
    """The sample corpus's H1 heading as a chunk of its own (as this chunker still makes it,
    and as any other index may), and the paragraph that says who decoded the dance."""
    document = SOURCE.read_text(encoding="utf-8")
    paragraph = next(
        block
        for block in document.split("\n\n")
        if block.startswith("The Austrian zoologist Karl von Frisch")
    )
    return (
        _chunk_of(document, "# The Waggle Dance and Foraging", 0),
        _chunk_of(document, f"## Who decoded it\n\n{paragraph}", 1),
    )


def test_a_heading_is_no_evidence_against_the_true_von_frisch_claim(
    frisch_sources: tuple[Chunk, Chunk],
) -> None:
    claim = "The waggle dance was decoded by the Austrian zoologist Karl von Frisch."
    verifier = make_answer_verifier(
        make_verifier("embedded"),
        VerifyConfig().with_options(layers=("nli",), k=2),
        sources=frisch_sources,
    )
    verdict = verifier.run(claim).verdicts[0]
    heading = next(j for j in verdict.evidence if j.chunk_id.endswith("#0"))
    assert heading.cannot_state == "heading"
    assert (verdict.label, verdict.contested, verdict.anti_citations) == ("supported", False, ())
    assert [j.chunk_id for j in verdict.citations] == ["waggle_dance.md#1"]


@pytest.mark.parametrize(
    "claim",
    [
        "Karl von Frisch won the Nobel Prize in 1983.",
        "He shared the Nobel Prize in Physiology or Medicine in 1983.",
    ],
)
def test_a_wrong_year_against_the_passage_is_still_contradicted(
    frisch_sources: tuple[Chunk, Chunk], claim: str
) -> None:
    verifier = make_answer_verifier(
        make_verifier("embedded"),
        VerifyConfig().with_options(layers=("nli",), k=2),
        sources=frisch_sources,
    )
    verdict = verifier.run(claim).verdicts[0]
    assert verdict.label == "contradicted"
    assert [j.chunk_id for j in verdict.anti_citations] == ["waggle_dance.md#1"]


def test_an_index_in_the_answer_is_compared_not_eaten() -> None:
    # Harden-2 #8: "heap[5]" was read as a citation and "…always heap." was found supported
    source = "A min-heap keeps its smallest item at the root: it is always heap[0]."
    chunk = Chunk("heap.txt#0", "heap.txt", 0, source, 0, len(source))
    verifier = make_answer_verifier(make_verifier("embedded"), sources=[chunk])
    verdict = verifier.run("The smallest item of a min-heap is always heap[5].").verdicts[0]
    assert verdict.claim.text == "The smallest item of a min-heap is always heap[5]."
    assert verdict.label == "contradicted"


def test_a_saved_report_reproduces_itself_with_the_shipped_models(tmp_path: Path) -> None:
    """`veracity verify --config report.json` on the bundled sample corpus gives the same report
    (timings apart) with the shipped verifier."""
    import json

    from typer.testing import CliRunner

    from veracity import cli

    app = cli.build_app()
    answer = EXAMPLES / "answer_to_check.md"
    first = CliRunner().invoke(
        app, ["verify", "--answer", str(answer), "--sources", str(SOURCE), "-k", "3", "--json"]
    )
    assert first.exit_code == 0, first.stderr
    saved = tmp_path / "report.json"
    saved.write_text(first.stdout, encoding="utf-8")
    again = CliRunner().invoke(app, ["verify", "--config", str(saved), "--json"])
    assert again.exit_code == 0, again.stderr
    before, after = json.loads(first.stdout), json.loads(again.stdout)
    before.pop("timings")
    after.pop("timings")
    assert after == before
    assert before["config"]["evidence"]["k"] == 3
