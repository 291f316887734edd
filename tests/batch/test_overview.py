"""The batch overview page on tiny records made here: counts, failures, breakdowns, escaping."""

from __future__ import annotations

import re
import sys
from html.parser import HTMLParser
from importlib.util import find_spec
from typing import Any

import pytest

from veracity import defaults
from veracity.assets import VERDICTS_CSS
from veracity.batch.overview import BatchOverview
from veracity.batch.overview_page import verdict_colours
from veracity.errors import InputError, MissingDependencyError, OptionError

pytestmark = pytest.mark.unit
needs_matplotlib = pytest.mark.skipif(
    find_spec("matplotlib") is None, reason="install the [report] extra: pip install -e '.[report]'"
)
HOSTILE = '<script>window.pwned = 1</script><img src=x onerror="alert(1)"> $\\frac{ & [/x]'


class Tags(HTMLParser):
    """Every element name and attribute of a page, as a browser's parser reads them."""

    def __init__(self) -> None:
        super().__init__()
        self.names: set[str] = set()
        self.attributes: list[tuple[str, str]] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.names.add(tag)
        self.attributes.extend((name, value or "") for name, value in attrs)


@pytest.fixture(scope="module", autouse=True)
def plots_imported() -> None:
    """matplotlib's first plot in a process takes seconds that no one test should count."""
    if find_spec("matplotlib") is not None:
        BatchOverview().run([record("warm", 1, ["supported"])])


def record(
    item_id: str,
    line: int,
    labels: list[str],
    *,
    supports: list[float | None] | None = None,
    answer: str | None = None,
    doc: str = "guide.md",
    **fields: Any,
) -> dict[str, Any]:
    """A verify-batch record of one claim per sentence, each with the given label."""
    supports = supports if supports is not None else [0.9] * len(labels)
    sentences = [f"Sentence {i} is a claim." for i in range(len(labels))]
    answer = answer if answer is not None else " ".join(sentences)
    claims, start = [], 0
    for index, (label, support) in enumerate(zip(labels, supports, strict=True)):
        end = start + len(sentences[index]) if index < len(sentences) else len(answer)
        claims.append(
            {
                "index": index,
                "text": sentences[index],
                "span": [start, end],
                "sentence": index,
                "label": label,
                "layers": [
                    {
                        "layer": "nli",
                        "label": label,
                        "flagged": label != "supported",
                        "score": None if support is None else 1.0 - support,
                        "detail": f"support {support}",
                        "error": "failed" if label == "error" else None,
                    }
                ],
                "citations": [{"doc_id": doc, "text": "x"}] if label == "supported" else [],
                "anti_citations": [{"doc_id": doc, "text": "x"}] if label == "contradicted" else [],
                "evidence": [],
            }
        )
        start = end + 1
    summary = {"claims": len(labels), "skipped": 0, "failed": labels.count("error")} | {
        name: labels.count(name)
        for name in ("supported", "contradicted", "unsupported", "unchecked")
    }
    return {
        "id": item_id,
        "line": line,
        "summary": summary,
        "answer": answer,
        "question": None,
        "claims": claims,
    } | fields


def failed(item_id: str | None, line: int, message: str = "line 3 has no answer") -> dict[str, Any]:
    return {"id": item_id, "line": line, "error": {"reason": "no_answer", "message": message}}


@needs_matplotlib
def test_counts_are_the_records_totals() -> None:
    records = [
        record("a", 1, ["supported", "contradicted"]),
        record("b", 2, ["unsupported", "supported", "unchecked"]),
        failed("c", 3),
    ]
    overview = BatchOverview().run(records)
    counts = overview.counts
    assert (counts["records"], counts["answers"], counts["errors"]) == (3, 2, 1)
    assert (
        counts["claims"],
        counts["supported"],
        counts["contradicted"],
        counts["unsupported"],
        counts["unchecked"],
    ) == (5, 2, 1, 1, 1)
    row = re.search(r"<th scope=\"row\">claims</th><td>(\d+)</td>", overview.html)
    assert row is not None
    assert row.group(1) == "5"


@needs_matplotlib
def test_failed_records_and_claims_are_failures_never_scores() -> None:
    records = [
        record("a", 1, ["supported", "error"], supports=[0.95, None]),
        failed("b", 2, 'line 2 (id \'b\') has no answer text; give "answer": "..."'),
        failed(None, 3),
    ]
    overview = BatchOverview(bins=4).run(records)
    assert overview.support.scored == 1  # the supported claim; the failed one has no score
    assert overview.support.unscored == 1
    assert overview.support.counts == (0, 0, 0, 1)
    assert overview.failures == 2 + 1  # two error records, one claim not judged
    assert overview.worst == ("id:a",)  # failed records are not answers to rank
    failures = overview.html[overview.html.index('id="failures"') :]
    assert "Failed records (2)" in failures
    assert "has no answer text; give &quot;answer&quot;" in failures


@needs_matplotlib
def test_hostile_text_is_escaped_and_the_page_loads_nothing() -> None:
    records = [
        record(
            HOSTILE,
            1,
            ["contradicted"],
            answer=HOSTILE + " Bees dance.",
            model=HOSTILE,
            doc=HOSTILE,
        ),
        failed(HOSTILE, 2, HOSTILE),
    ]
    records[0]["question"] = HOSTILE
    records[0]["claims"][0]["text"] = HOSTILE
    html = BatchOverview(by=["model"]).run(records).html
    assert "<script" not in html.lower()
    assert "<img" not in html.lower()
    assert "&lt;script&gt;window.pwned = 1&lt;/script&gt;" in html
    assert html.count("&lt;script&gt;") >= 5  # id, question, answer, claim, error message
    assert "$\\frac{" in html  # a dollar sign stays text in the plots, never mathtext
    tags = Tags()
    tags.feed(html)
    assert {"script", "img", "link", "iframe", "object", "embed", "image"} & tags.names == set()
    assert [a for a in tags.attributes if a[0] == "src" or a[0].startswith("on")] == []
    ids = {value for name, value in tags.attributes if name == "id"}
    assert {value for name, value in tags.attributes if name.endswith("href")} <= {
        f"#{name}" for name in ids
    }  # the plots' own markers, never a URL
    assert set(re.findall(r"url\(([^)]*)\)", html)) <= {f"#{name}" for name in ids}
    assert "@import" not in html
    assert "Content-Security-Policy\" content=\"default-src 'none'" in html


@needs_matplotlib
def test_labels_by_a_record_field_and_by_an_input_field() -> None:
    records = [
        record("a", 1, ["supported", "supported"], model="m1"),
        record("b", 2, ["contradicted"], model="m2"),
        record("c", 3, ["unsupported"]),
        failed("d", 4),
    ]
    inputs = {"id:a": {"team": "x"}, "id:b": {"team": "x"}, "id:d": {"team": "y"}}
    overview = BatchOverview(by=["model", "team"]).run(records, inputs=inputs)
    evidence, model, team = overview.breakdowns
    assert evidence.field == "evidence document"
    assert {row.value: (row.records, dict(row.labels)) for row in model.rows} == {
        "m1": (1, {"supported": 2}),
        "m2": (1, {"contradicted": 1}),
        "(missing)": (2, {"unsupported": 1}),
    }
    assert {row.value: (row.records, row.failed, row.claims) for row in team.rows} == {
        "x": (2, 0, 3),
        "y": (1, 1, 0),
        "(missing)": (1, 0, 1),
    }
    assert 'id="by-model"' in overview.html
    assert 'id="by-team"' in overview.html


@needs_matplotlib
def test_values_past_the_top_ones_are_summed_as_other(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(defaults, "OVERVIEW_TOP_VALUES", 2)
    records = [record(f"q{i}", i + 1, ["supported"], model=f"m{i % 4}") for i in range(7)]
    rows = BatchOverview(by=["model"]).run(records).breakdowns[1].rows
    assert [(row.value, row.records) for row in rows] == [
        ("m0", 2),
        ("m1", 2),
        ("(2 other values)", 3),
    ]


@needs_matplotlib
def test_a_field_no_record_has_is_an_error_listing_those_they_have() -> None:
    with pytest.raises(OptionError, match=r"the records have .*answer.*id.*line"):
        BatchOverview(by=["modle"]).run([record("a", 1, ["supported"], model="m1")])


@needs_matplotlib
def test_an_empty_batch_is_a_page_with_zeros() -> None:
    overview = BatchOverview(by=["model"]).run([])
    assert overview.counts["records"] == overview.counts["claims"] == 0
    assert overview.support.scored == 0
    assert overview.worst == ()
    assert "No claim has a support score." in overview.html
    assert "No answer with claims." in overview.html


@needs_matplotlib
def test_the_worst_answers_come_first_with_sentences_shaded_by_their_worst_claim() -> None:
    records = [
        record("good", 1, ["supported", "supported"]),
        record("half", 2, ["supported", "unsupported"]),
        record(
            "bad",
            3,
            ["contradicted", "supported"],
            supports=[0.1, 0.9],
            answer="Sentence 0 is a claim. Sentence 1 is a claim.",
        ),
    ]
    records[2]["claims"][1]["sentence"] = 0  # both claims in the first sentence
    overview = BatchOverview(worst=2).run(records)
    assert overview.worst == ("id:bad", "id:half")
    page = overview.html
    assert page.index("bad (line 3)") < page.index("half (line 2)")
    assert (
        '<span class="sentence verdict-contradicted">Sentence 0 is a claim.</span> '
        "Sentence 1 is a claim." in page
    )
    assert '<details class="claim verdict-contradicted"><summary>contradicted · Sentence 0' in page


@needs_matplotlib
def test_the_histogram_counts_support_into_bins() -> None:
    records = [record("a", 1, ["unsupported", "supported", "supported"], supports=[0.0, 0.5, 1.0])]
    support = BatchOverview(bins=2).run(records).support
    assert support.edges == (0.0, 0.5, 1.0)
    assert support.counts == (1, 2)


def test_the_page_uses_the_web_pages_verdict_colours() -> None:
    colours = verdict_colours(VERDICTS_CSS.read_text(encoding="utf-8"))
    assert set(colours) == {"supported", "contradicted", "unsupported", "unchecked", "error"}
    assert colours["contradicted"] == "#cf222e"


@needs_matplotlib
def test_the_shared_stylesheet_is_inlined() -> None:
    html = BatchOverview().run([record("a", 1, ["supported"])]).html
    assert VERDICTS_CSS.read_text(encoding="utf-8") in html


def test_a_record_that_is_not_one_names_its_position() -> None:
    with pytest.raises(
        InputError, match="record 2 is not a verify-batch record: it has no summary"
    ):
        BatchOverview().run([record("a", 1, []), {"id": "b", "line": 2}])


def test_options_are_checked_early() -> None:
    with pytest.raises(OptionError, match="a list of field names"):
        BatchOverview(by="model")
    with pytest.raises(OptionError, match="each field once"):
        BatchOverview(by=["model", "model"])
    with pytest.raises(OptionError, match="from 1 to 200"):
        BatchOverview(bins=0)


def test_without_matplotlib_the_error_names_the_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "matplotlib", None)  # import matplotlib now fails
    with pytest.raises(MissingDependencyError, match=r"pip install .veracity\[report\]."):
        BatchOverview().run([record("a", 1, ["supported"])])
