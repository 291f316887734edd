"""``Answer.from_dict`` and ``Report.from_dict`` rebuild what ``to_dict()`` wrote, on answers and
reports made by the real pipelines over fakes, and name the field of bad input."""

from __future__ import annotations

import json
from typing import Any

import pytest

from veracity._json import strict_json
from veracity.config import VerifyConfig
from veracity.errors import InputError
from veracity.generate.ask import Asker
from veracity.generate.grounded import GroundedGenerator
from veracity.retrieve.abstain import Abstainer, make_signal
from veracity.retrieve.memory import MemoryBM25
from veracity.testing import (
    FailingPairScorer,
    OverlapSpanDetector,
    ScriptedChatModel,
    TablePairScorer,
)
from veracity.types import Answer, Chunk, Report
from veracity.verify.gather import source_chunks, source_documents
from veracity.verify.pipeline import make_answer_verifier

pytestmark = pytest.mark.unit

DANCE = Chunk(
    "bees.md#0",
    "bees.md",
    0,
    "Bees dance to show where food is.",
    0,
    33,
    title="Bees",
    section=("Behaviour",),
    page=1,
    page_end=2,
)
STING = Chunk("bees.md#1", "bees.md", 1, "Worker bees sting once.", 34, 57, title="Bees")
TABLE = {
    (DANCE.text, "Bees dance."): (0.9, 0.0, 0.1),
    (STING.text, "Worker bees sting once."): (0.95, 0.0, 0.05),
    (STING.text, "Bees sing."): (0.1, 0.8, 0.1),
}


def _answer(reply: str, *, threshold: float = 0.0) -> Answer:
    generator = GroundedGenerator(ScriptedChatModel([reply]), TablePairScorer(TABLE))
    abstainer = Abstainer(make_signal("top_bm25"), threshold)
    return Asker(MemoryBM25([DANCE, STING]), generator, k=2, abstainer=abstainer).run(
        "What do bees do?"
    )


ANSWERS = {
    # cited, uncited, an invalid marker and a contradicted sentence
    "answered": lambda: _answer(
        "Bees dance [2]. Worker bees sting once [1]. Bees sing [1]. Bees fly. Bees hum [7]."
    ),
    "refused": lambda: _answer("I don't know."),
    "abstained": lambda: _answer("never asked", threshold=1e9),
}


@pytest.mark.parametrize("kind", ANSWERS)
def test_an_answer_comes_back_from_its_dict(kind: str) -> None:
    answer = ANSWERS[kind]()
    assert answer.status == kind
    assert Answer.from_dict(answer.to_dict()) == answer


def test_the_answer_has_every_part_worth_rebuilding() -> None:
    answer = ANSWERS["answered"]()
    statuses = {sentence.status for sentence in answer.sentences}
    assert {"supported", "contradicted", "invalid_citation"} <= statuses
    assert all((answer.sources, answer.citations, answer.invalid_citations))
    assert None not in (answer.abstention, answer.provenance)


@pytest.mark.parametrize("kind", ANSWERS)
def test_an_answer_comes_back_from_its_json(kind: str) -> None:
    answer = ANSWERS[kind]()
    assert Answer.from_dict(json.loads(strict_json(answer.to_dict()))) == answer


SOURCES = [
    "Honey bees perform a waggle dance to show other workers where food is.",
    "A honey bee colony can hold about 60,000 workers in summer.",
    "Bumblebees do not perform a waggle dance.",
]
CLAIMS = {
    (SOURCES[0], "Honey bees perform a waggle dance."): (0.9, 0.02, 0.08),
    (SOURCES[2], "Bumblebees perform a waggle dance."): (0.05, 0.8, 0.15),
}
TEXT = (
    "Honey bees perform a waggle dance. A colony can hold about 90,000 workers. "
    "Bumblebees perform a waggle dance. I hope this helps!"
)


def _report(**options: Any) -> Report:
    scorer = options.pop("scorer", TablePairScorer(CLAIMS))
    config = VerifyConfig().with_options(  # each source read on its own: the table's premises
        window="passage", **{name: options.pop(name) for name in ("layers",) if name in options}
    )
    verifier = make_answer_verifier(
        scorer, config, sources=source_chunks(source_documents(texts=SOURCES)), **options
    )
    return verifier.run(TEXT, question="What do bees do?")


REPORTS = {
    "layers": lambda: _report(),
    "spans": lambda: _report(spans=OverlapSpanDetector()),
    "failed": lambda: _report(scorer=FailingPairScorer(), layers=("nli",)),
}


@pytest.mark.parametrize("kind", REPORTS)
def test_a_report_comes_back_from_its_dict(kind: str) -> None:
    report = REPORTS[kind]()
    assert Report.from_dict(report.to_dict()) == report


def test_the_reports_have_every_part_worth_rebuilding() -> None:
    report, spans, failed = (make() for make in REPORTS.values())
    assert {"supported", "contradicted"} <= {verdict.label for verdict in report.verdicts}
    assert all((report.skipped, report.timings, report.calls))
    assert any(verdict.values for verdict in report.verdicts)
    assert spans.span_detector is not None
    assert all(verdict.unsupported_spans is not None for verdict in spans.verdicts)
    assert failed.failures


@pytest.mark.parametrize("kind", REPORTS)
def test_a_report_comes_back_from_its_json(kind: str) -> None:
    # a score that could not be computed is nan, written null, read back as nan (and nan is
    # never equal to itself, so compare what the two reports write)
    report = REPORTS[kind]()
    again = Report.from_dict(json.loads(strict_json(report.to_dict())))
    assert strict_json(again.to_dict()) == strict_json(report.to_dict())


def _without(data: dict[str, Any], *path: str | int) -> dict[str, Any]:
    *inner, last = path
    target: Any = data
    for step in inner:
        target = target[step]
    del target[last]
    return data


def _with(data: dict[str, Any], value: object, *path: str | int) -> dict[str, Any]:
    *inner, last = path
    target: Any = data
    for step in inner:
        target = target[step]
    target[last] = value
    return data


@pytest.mark.parametrize(
    ("broken", "message"),
    [
        (lambda d: _without(d, "text"), "answer: missing key 'text'"),
        (
            lambda d: _without(d, "sources", 0, "chunk_index"),
            "answer.sources[0]: missing key 'chunk_index'",
        ),
        (
            lambda d: _with(d, "yes", "abstained"),
            "answer.abstained: expected true or false, got 'yes'",
        ),
        (
            lambda d: _with(d, "fine", "sentences", 1, "status"),
            "answer.sentences[1].status: expected one of supported, ",
        ),
        (
            lambda d: _with(d, [9, 2], "sentences", 0, "span"),
            "answer.sentences[0].span: invalid span [9, 2)",
        ),
        (
            lambda d: _with(d, [[0, 3], [1]], "citations", 0, "evidence"),
            "answer.citations[0].evidence[1]: expected [start, end], got [1]",
        ),
        (
            lambda d: _with(d, "1", "sources", 1, "rank"),
            "answer.sources[1].rank: expected an integer, got '1'",
        ),
    ],
)
def test_a_bad_answer_dict_names_the_field(broken: Any, message: str) -> None:
    data = json.loads(strict_json(ANSWERS["answered"]().to_dict()))
    with pytest.raises(InputError) as caught:
        Answer.from_dict(broken(data))
    assert message in str(caught.value)


@pytest.mark.parametrize(
    ("broken", "message"),
    [
        (lambda d: _without(d, "claims"), "report: missing key 'claims'"),
        (
            lambda d: _without(d, "claims", 0, "layers", 0, "flagged"),
            "report.claims[0].layers[0]: missing key 'flagged'",
        ),
        (
            lambda d: _with(d, "wrong", "claims", 0, "label"),
            "report.claims[0].label: expected one of supported, contradicted",
        ),
        (
            lambda d: _with(d, {"verifier": "many"}, "calls"),
            "report.calls.verifier: expected an integer, got 'many'",
        ),
        (
            lambda d: _with(d, [1, "x"], "claims", 0, "markers"),
            "report.claims[0].markers[1]: expected an integer, got 'x'",
        ),
    ],
)
def test_a_bad_report_dict_names_the_field(broken: Any, message: str) -> None:
    data = json.loads(strict_json(REPORTS["layers"]().to_dict()))
    with pytest.raises(InputError) as caught:
        Report.from_dict(broken(data))
    assert message in str(caught.value)


@pytest.mark.parametrize("reader", [Answer.from_dict, Report.from_dict])
def test_a_dict_that_is_not_an_object_is_refused(reader: Any) -> None:
    with pytest.raises(InputError, match="expected an object, got"):
        reader(["not", "an", "object"])
