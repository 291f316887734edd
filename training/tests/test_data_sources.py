"""Public labelled sources: eval-overlap dropping, label mapping, sampling, cleaning."""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Mapping, Sequence
from pathlib import Path

import pytest

from veracity_training.data.sources import (
    PUBLIC_SOURCES,
    PublicSource,
    build_public,
    license_of,
    read_jsonl,
)
from veracity_training.data.text import detokenize

pytestmark = pytest.mark.unit


def _write(path: Path, rows: Sequence[Mapping[str, object]]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")


def test_read_jsonl_drops_rows_with_an_eval_overlap(tmp_path: Path) -> None:
    path = tmp_path / "x.jsonl"
    _write(path, [{"id": 1, "eval_overlap": []}, {"id": 2, "eval_overlap": ["wice"]}, {"id": 3}])
    stats: Counter[str] = Counter()
    assert [r["id"] for r in read_jsonl(path, stats=stats)] == [1, 3]
    assert stats["dropped_eval_overlap"] == 1


def test_label_mapping_follows_what_each_source_says() -> None:
    by_name = {s.name: s for s in PUBLIC_SOURCES}
    assert by_name["fever_rte_dev"].labels["not_entailment"] == "contradicted"  # NEI absent
    assert by_name["nli_misc_felipessalvatore/rte"].labels["not_entailment"] == "not_supported"
    assert by_name["nli_misc_felipessalvatore/scitail"].labels["not_entailment"] == "neither"
    assert by_name["summedits"].labels["0"] == "not_supported"
    assert by_name["sufficient_facts"].labels["NOT ENOUGH INFO"] == "neither"
    assert "nli_misc_felipessalvatore/qnli" not in by_name
    assert "nli_misc_felipessalvatore/snli" not in by_name


def test_build_public_samples_to_the_quota_and_cleans_text(tmp_path: Path) -> None:
    spec = PublicSource(
        "demo",
        "demo/demo.jsonl",
        4,
        {"SUPPORTS": "supported", "REFUTES": "contradicted"},
        tokenized=True,
        shares={"supported": 0.5, "contradicted": 0.5},
    )
    rows = [
        {
            "id": i,
            "premise": f"Telemundo -LRB- TV -RRB- was founded in {1950 + i} .",
            "hypothesis": f"telemundo was founded in {1950 + i} .",
            "label": "SUPPORTS" if i % 3 else "REFUTES",
            "eval_overlap": ["q2"] if i == 5 else [],
        }
        for i in range(12)
    ]
    rows.append({"id": 99, "premise": "p", "hypothesis": "h", "label": "NEI", "eval_overlap": []})
    _write(tmp_path / "demo" / "demo.jsonl", rows)
    stats: dict[str, Counter[str]] = {}
    out = build_public(tmp_path, seed=1, scale=1.0, stats=stats, specs=(spec,))
    assert len(out) == 4
    assert Counter(r.label for r in out) == {"supported": 2, "contradicted": 2}
    assert all("-LRB-" not in r.premise and " ." not in r.premise for r in out)
    assert all(r.hypothesis.startswith("Telemundo") for r in out)
    assert all(not r.id.endswith("-5") for r in out)
    assert stats["demo"]["dropped_eval_overlap"] == 1
    again = build_public(tmp_path, seed=1, scale=1.0, stats={}, specs=(spec,))
    assert [r.id for r in again] == [r.id for r in out]


def test_detokenize() -> None:
    assert detokenize("Kenneth `` Babyface '' Edmonds , born 1958 .") == (
        'Kenneth "Babyface" Edmonds, born 1958.'
    )
    assert detokenize("Phineas 's sister is fifteen - year - old ; she ca n't") == (
        "Phineas's sister is fifteen-year-old; she can't"
    )
    assert detokenize("at 13 : 14 CDT") == "at 13:14 CDT"


def test_license_of_reads_source_md(tmp_path: Path) -> None:
    (tmp_path / "SOURCE.md").write_text("# x\n- **License (as stated):** MIT (collection)\n")
    assert license_of(tmp_path) == "MIT (collection)"
