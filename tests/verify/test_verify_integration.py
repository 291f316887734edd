"""The verify pipeline with the real shipped models: the embedded verifier, spaCy (when the
[nlp] extra is installed) and the bundled SmolLM2 for the consistency layer."""

from __future__ import annotations

from pathlib import Path

import pytest

from veracity.verify import AnswerVerifier, StreamVerifier, make_verifier
from veracity.verify.consistency import ConsistencyLayer
from veracity.verify.gather import source_chunks, source_documents

pytestmark = pytest.mark.integration

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
SOURCE = EXAMPLES / "sample_corpus" / "biology" / "waggle_dance.md"


@pytest.fixture(scope="module")
def verifier() -> AnswerVerifier:
    sources = source_chunks(source_documents([SOURCE]))
    return AnswerVerifier(make_verifier("embedded"), sources=sources).load()


def test_the_sample_answer_gets_the_expected_verdicts(verifier: AnswerVerifier) -> None:
    answer = (EXAMPLES / "answer_to_check.md").read_text(encoding="utf-8")
    report = verifier.run(answer)
    labels = {v.claim.text: v.label for v in report.verdicts}
    assert labels["He shared the Nobel Prize in Physiology or Medicine in 1983."] == \
        "contradicted"
    assert labels["For food closer than about 50 metres, a forager performs a round dance "
                  "instead."] == "supported"
    assert labels["The waggle dance is also performed by bumblebees to recruit nestmates."] == \
        "unsupported"
    assert [s.reason for s in report.skipped] == ["greeting"]
    wrong_year = next(v for v in report.verdicts if "1983" in v.claim.text)
    year = next(value for value in wrong_year.values if value.text == "1983")
    assert (year.status, year.found) == ("mismatch", "1973")
    document = source_documents([SOURCE])[0]
    assert year.evidence is not None
    assert year.evidence.of(document.text) == "1973"
    for verdict in report.verdicts:
        for cited in verdict.citations:
            assert document.text[cited.start:cited.end] == cited.text
    assert report.failures == 0


def test_streaming_gives_the_same_verdicts(verifier: AnswerVerifier) -> None:
    answer = (EXAMPLES / "answer_to_check.md").read_text(encoding="utf-8")
    whole = verifier.run(answer)
    pieces = [answer[i:i + 17] for i in range(0, len(answer), 17)]
    streamed = [v.label for s in StreamVerifier(verifier).run(pieces) for v in s.verdicts]
    assert streamed == [v.label for v in whole.verdicts]


def test_consistency_with_smollm2_scores_every_claim() -> None:
    pytest.importorskip("llama_cpp")
    from veracity.generate.chat import make_chat

    scorer = make_verifier("embedded")
    layer = ConsistencyLayer(make_chat("llamacpp", scorer=scorer), scorer, samples=3,
                             temperature=1.0, max_tokens=48)
    sources = source_chunks(source_documents([SOURCE]))
    verifier = AnswerVerifier(scorer, sources=sources, layers=("nli", "consistency"),
                              consistency=layer)
    report = verifier.run("Karl von Frisch decoded the waggle dance.",
                          question="Who decoded the honeybee waggle dance?")
    finding = report.verdicts[0].layer("consistency")
    assert finding is not None
    assert finding.error is None
    assert finding.score is None or 0.0 <= finding.score <= 1.0
    assert report.calls["chat"] == 3
    assert len(set(layer.plan)) == 3  # three seeds: the samples are reproducible, not identical
