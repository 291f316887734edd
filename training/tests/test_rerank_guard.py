"""The reranker's guard: where it loses to a feature, what it falls back to, and how it is
written into a reranker folder from the bench's figures."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from veracity.errors import InputError, ModelError
from veracity.models.relevance.guard import RerankGuard
from veracity_training.rerank_guard import guard_section, main, write_combiner, write_guard

pytestmark = pytest.mark.unit

CALIBRATION = {"logit": (1.0, 0.0), "alignment": (5.0, -3.0), "cosine": (6.0, -4.0)}


def test_a_reranker_that_beats_every_feature_everywhere_keeps_its_combiner() -> None:
    guard = RerankGuard(
        {"a": {"reranker": 70.0, "logit": 60.0, "alignment": 65.0, "cosine": 69.9}},
        CALIBRATION,
        "test",
    )
    assert guard.losses() == []
    assert guard.fallback() is None


def test_a_tie_is_a_loss_and_the_fallback_is_the_best_feature_on_average() -> None:
    guard = RerankGuard(
        {
            "a": {"reranker": 70.0, "logit": 70.0, "alignment": 65.0, "cosine": 60.0},
            "b": {"reranker": 80.0, "logit": 60.0, "alignment": 79.0, "cosine": 78.0},
        },
        CALIBRATION,
        "bench x",
    )
    assert guard.losses() == [("a", "logit")]
    fallback = guard.fallback()
    assert fallback is not None
    assert fallback.feature == "alignment"  # mean 72.0, against logit 65.0 and cosine 69.0
    assert (fallback.slope, fallback.bias) == (5.0, -3.0)
    assert (
        fallback.reason
        == "its combined nDCG@10 was at or below a feature's alone on a 70.00 against logit "
        "70.00 (bench x)"
    )


def test_a_tie_at_a_perfect_ranking_is_no_loss() -> None:
    guard = RerankGuard(
        {
            "easy": {"reranker": 100.0, "logit": 93.0, "alignment": 99.3, "cosine": 100.0},
            "hard": {"reranker": 65.0, "logit": 52.0, "alignment": 62.6, "cosine": 63.5},
        },
        CALIBRATION,
        "bench x",
    )
    assert guard.losses() == []
    assert guard.fallback() is None
    assert guard.ceiling_ties() == ["easy"]
    assert "on every set (on easy it and a feature both rank perfectly)" in guard_section(guard)
    below = RerankGuard({"easy": {"reranker": 99.0, "cosine": 100.0}}, CALIBRATION, "bench x")
    assert below.losses() == [("easy", "cosine")]


def test_the_guard_reads_back_what_it_writes_and_names_a_bad_block() -> None:
    guard = RerankGuard({"a": {"reranker": 1.0, "cosine": 2.0}}, {"cosine": (1.0, 0.0)}, "s")
    assert RerankGuard.from_config(guard.to_config(), where="c.json") == guard
    with pytest.raises(ModelError, match=r"c\.json: the reranker's guard block cannot be read"):
        RerankGuard.from_config({"figures": {}}, where="c.json")
    with pytest.raises(ModelError, match="the guard needs the reranker's figure"):
        RerankGuard.from_config(
            {"figures": {"a": {"cosine": 2.0}}, "calibration": {}, "source": "s"}, where="c.json"
        )


def test_the_guard_is_written_from_the_bench_results(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    model = tmp_path / "reranker"
    model.mkdir()
    (model / "config.json").write_text(json.dumps({"model_id": "r", "labels": ["relevant"]}))
    (model / "CARD.md").write_text("# r\n\nTrained.\n")
    block = {
        "figures": {"dl19": {"reranker": 61.9, "logit": 52.3, "alignment": 62.6, "cosine": 63.5}},
        "calibration": {f: list(pair) for f, pair in CALIBRATION.items()},
    }
    bench = tmp_path / "rerank_fit.json"
    bench.write_text(
        json.dumps(
            {
                "name": "rerank_fit",
                "commit": "abc1234",
                "date": "2026-12-03T20:00:00+00:00",
                "figures": {"guard": block},
            }
        )
    )
    assert main(["--bench", str(bench), "--model-dir", str(model)]) == 0
    assert "falls back to cosine" in capsys.readouterr().out
    config = json.loads((model / "config.json").read_text())
    assert config["model_id"] == "r"  # the rest of the config is kept
    assert (
        config["guard"]["source"]
        == "bench rerank_fit at abc1234, development sets dl19, 2026-12-03"
    )
    assert config["guard"]["figures"]["dl19"]["cosine"] == 63.5
    card = (model / "CARD.md").read_text()
    assert card.startswith("# r\n\nTrained.\n\n<!-- guard -->\n## Guard")
    assert "| dl19 | 61.90 | 52.30 | 62.60 | 63.50 |" in card
    assert "so it ranks by cosine alone" in card
    main(["--bench", str(bench), "--model-dir", str(model)])  # written again: replaced
    assert (model / "CARD.md").read_text() == card
    bench.write_text(json.dumps({"name": "rerank_fit", "figures": {}}))
    assert main(["--bench", str(bench), "--model-dir", str(model)]) == 2
    assert "rerun bench/rerank_fit.py" in capsys.readouterr().err
    with pytest.raises(InputError, match=r"config\.json missing"):
        write_guard(tmp_path / "nowhere", block, "s")
    assert main(["--bench", str(tmp_path / "none.json"), "--model-dir", str(model)]) == 2
    assert "no bench results at" in capsys.readouterr().err


def test_a_combiner_fit_on_the_development_sets_replaces_the_shipped_one(tmp_path: Path) -> None:
    model = tmp_path / "reranker"
    model.mkdir()
    features = ["logit", "alignment", "cosine"]
    old = {"features": features, "weights": [0.7, 2.4, 4.1], "bias": -1.8, "fit_rows": "val"}
    (model / "config.json").write_text(
        json.dumps({"model_id": "r", "version": "0.1.0", "combiner": old})
    )
    (model / "CARD.md").write_text("# r 0.1.0\n\nTrained.\n")
    fit = {
        "features": features,
        "weights": [0.07, 6.7, 4.6],
        "bias": -8.6,
        "fit_rows": "pairwise on dev sets",
        "standardized_weights": [0.2, 0.9, 0.8],
    }
    write_combiner(model, fit, version="0.1.1", source="bench rerank_fit at abc1234")
    config = json.loads((model / "config.json").read_text())
    assert config["version"] == "0.1.1"
    assert config["combiner"] == {
        "features": features,
        "weights": [0.07, 6.7, 4.6],
        "bias": -8.6,
        "fit_rows": "pairwise on dev sets",
        "source": "bench rerank_fit at abc1234",
        "standardized_weights": [0.2, 0.9, 0.8],
    }
    card = (model / "CARD.md").read_text()
    assert card.startswith("# r 0.1.1\n\nTrained.\n\n<!-- combiner -->\n## Combiner")
    assert "logit +0.070, alignment +6.700, cosine +4.600, bias -8.600" in card
    assert "shares of its decision are logit 11%, alignment 47%, cosine 42%." in card
    with pytest.raises(InputError, match="are not this reranker's"):
        write_combiner(
            model, {**fit, "features": ["logit"]}, version="0.1.2", source="bench rerank_fit"
        )
