"""The shipped reranker (int8 ONNX with its aligner and combiner), on real text."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from veracity.assets import RERANKER_DIR, VERIFIER_DIR
from veracity.errors import ModelError
from veracity.models.relevance import RelevanceScorer, make_reranker
from veracity.models.relevance.shipped import EmbeddedReranker

pytestmark = pytest.mark.integration

QUERY = "how do honeybees tell each other where food is"
PASSAGES = [
    "Beeswax melts at about 62 to 64 degrees Celsius.",
    "Honeybees tell each other where food is with the waggle dance: the angle of the run shows "
    "the direction of the flowers and its length their distance.",
    "Varroa mites are the most damaging parasite of honeybee colonies.",
]
LONG = (
    " ".join(f"Paragraph {i} is about the history of beekeeping in region {i}." for i in range(40))
    + " "
    + PASSAGES[1]
)


@pytest.fixture(scope="module")
def reranker() -> EmbeddedReranker:
    return EmbeddedReranker().load()


def test_the_shipped_reranker_ranks_the_answering_passage_first(reranker: EmbeddedReranker) -> None:
    assert isinstance(reranker, RelevanceScorer)
    scores = reranker.run(QUERY, PASSAGES)
    logits = scores.logits()
    assert logits.index(max(logits)) == 1
    assert scores.model_id == "veracity-reranker-minilm-l6"
    assert all(0.0 < score.relevance < 1.0 for score in scores.scores)
    # 0.2.0's combiner, fit on the development sets, beats each feature on each of them
    # (held out), so the guard keeps it and nothing is noted
    assert reranker.fallback is None
    assert scores.model_version == "0.2.0+combined"
    assert scores.notes == ()
    assert EmbeddedReranker(guarded=False).load().run(QUERY, PASSAGES).logits() == logits


def test_a_score_does_not_depend_on_the_passages_beside_it(reranker: EmbeddedReranker) -> None:
    together = reranker.run(QUERY, PASSAGES).logits()
    alone = [reranker.run(QUERY, [passage]).logits()[0] for passage in PASSAGES]
    # The aligner embeds the passages of one call in one padded batch, so a logit may differ
    # in its last bits (seen: 5.392678610133779 against 5.39267861013378), never more.
    assert together == pytest.approx(alone, rel=1e-12, abs=1e-12)
    assert reranker.run(QUERY, PASSAGES).logits() == together  # deterministic


def test_a_long_passage_is_scored_by_its_best_window_and_says_so(
    reranker: EmbeddedReranker,
) -> None:
    scores = reranker.run(QUERY, [LONG])
    assert scores.windowed == 1
    assert "waggle dance" in scores.scores[0].window.of(LONG)


def test_the_registry_gives_the_shipped_reranker() -> None:
    assert make_reranker("embedded").load().model_id == "veracity-reranker-minilm-l6"


def test_a_missing_or_wrong_model_folder_says_what_to_do(tmp_path: Path) -> None:
    with pytest.raises(ModelError, match="export-reranker"):
        EmbeddedReranker(model_dir=tmp_path).load()
    with pytest.raises(ModelError, match="no reranker"):
        EmbeddedReranker(model_dir=VERIFIER_DIR).load()
    broken = tmp_path / "combined"
    shutil.copytree(RERANKER_DIR, broken, ignore=shutil.ignore_patterns("model.onnx"))
    (broken / "model.onnx").symlink_to(RERANKER_DIR / "model.onnx")
    config = json.loads((broken / "config.json").read_text())
    config["combiner"]["features"] = ["logit"]
    (broken / "config.json").write_text(json.dumps(config))
    with pytest.raises(ModelError, match="re-export"):
        EmbeddedReranker(model_dir=broken).load()


def test_a_missing_model_file_is_named(tmp_path: Path) -> None:
    shutil.copy(RERANKER_DIR / "config.json", tmp_path / "config.json")
    with pytest.raises(ModelError, match="ONNX model file not found"):
        EmbeddedReranker(model_dir=tmp_path).load()


def _guarded_folder(folder: Path, cosine_figure: float) -> Path:
    """The shipped reranker's files, its config with a guard whose cosine ranks ``cosine_figure``
    on one set (the reranker 70.0)."""
    folder.mkdir()
    (folder / "model.onnx").symlink_to(RERANKER_DIR / "model.onnx")
    config = json.loads((RERANKER_DIR / "config.json").read_text())
    config["guard"] = {
        "figures": {
            "dev": {"reranker": 70.0, "logit": 50.0, "alignment": 60.0, "cosine": cosine_figure}
        },
        "calibration": {"logit": [1.0, 0.0], "alignment": [5.0, -2.0], "cosine": [8.0, -4.0]},
        "source": "test figures",
    }
    (folder / "config.json").write_text(json.dumps(config))
    return folder


def test_a_reranker_that_loses_to_its_cosine_ranks_by_it_and_says_so(
    reranker: EmbeddedReranker, tmp_path: Path
) -> None:
    combined = EmbeddedReranker(guarded=False).load()
    guarded = EmbeddedReranker(model_dir=_guarded_folder(tmp_path / "r", 72.0)).load()
    assert guarded.fallback is not None
    assert guarded.fallback.feature == "cosine"
    assert guarded.version.endswith("+cosine")
    scores = guarded.run(QUERY, PASSAGES)
    assert scores.notes == guarded.notes
    assert "ranks by its cosine feature alone" in scores.notes[0]
    assert "on dev 70.00 against cosine 72.00" in scores.notes[0]
    features = reranker.features([(QUERY, p) for p in PASSAGES])
    assert scores.logits() == pytest.approx(list(8.0 * features[:, 2] - 4.0), abs=1e-9)
    # the combiner stays where it wins, and when the guard is switched off
    kept = EmbeddedReranker(model_dir=_guarded_folder(tmp_path / "k", 69.0)).load()
    assert kept.fallback is None
    assert kept.run(QUERY, PASSAGES).logits() == combined.run(QUERY, PASSAGES).logits()
    unguarded = EmbeddedReranker(model_dir=tmp_path / "r", guarded=False).load()
    assert unguarded.run(QUERY, PASSAGES).logits() == combined.run(QUERY, PASSAGES).logits()


def test_an_unreadable_guard_says_how_to_write_it_again(tmp_path: Path) -> None:
    folder = _guarded_folder(tmp_path / "r", 72.0)
    config = json.loads((folder / "config.json").read_text())
    del config["guard"]["figures"]["dev"]["reranker"]
    (folder / "config.json").write_text(json.dumps(config))
    with pytest.raises(ModelError, match="rerank_guard"):
        EmbeddedReranker(model_dir=folder).load()
