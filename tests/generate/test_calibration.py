"""Threshold calibration for abstention F1, and saving it with an index generation."""

from __future__ import annotations

import json
import math
from typing import Any

import pytest

from veracity.corpus.index_dir import IndexDir
from veracity.errors import IndexNotFoundError, IndexStoreError, InputError
from veracity.retrieve.calibration import (
    StaleCalibrationError,
    calibrate,
    calibration_path,
    default_threshold,
    load_calibration,
    read_calibration,
    save_calibration,
)

pytestmark = pytest.mark.unit


def test_separable_values_get_a_perfect_threshold_between_the_classes():
    result = calibrate([0.1, 0.2, 0.8, 0.9], [True, True, False, False], signal="top_cosine")
    assert result.threshold == pytest.approx(0.5)
    assert (result.precision, result.recall, result.f1) == (1.0, 1.0, 1.0)
    assert (result.abstained, result.answered, result.answerable, result.unanswerable) == (
        2,
        2,
        2,
        2,
    )


def test_the_math_on_overlapping_classes():
    # values: unanswerable 0.1, 0.5; answerable 0.3, 0.7.
    result = calibrate([0.1, 0.5, 0.3, 0.7], [True, True, False, False], signal="top_bm25")
    points = {round(p.threshold, 6): p for p in result.curve}
    assert sorted(points) == [0.1, 0.2, 0.4, 0.6, round(math.nextafter(0.7, 1), 6)]
    # abstain below 0.6: 0.1, 0.5 (right) and 0.3 (wrong): P 2/3, R 1, F1 0.8; 0.7 answered.
    best = points[0.6]
    assert (best.precision, best.recall, best.abstained, best.answered) == (2 / 3, 1.0, 3, 1)
    assert best.f1 == pytest.approx(0.8)
    assert result.threshold == pytest.approx(0.6)
    assert result.f1 == pytest.approx(0.8)
    # abstain below 0.1: nothing abstains, precision and recall 0.
    assert (points[0.1].precision, points[0.1].recall, points[0.1].answered) == (0.0, 0.0, 2)
    # above every value: everything abstains, recall 1, precision 1/2.
    top = result.curve[-1]
    assert (top.precision, top.recall, top.abstained, top.answered) == (0.5, 1.0, 4, 0)


def test_ties_keep_more_answerable_questions_answered():
    # Below 0.15 abstains on the first question only (P 1, R 1/2); above 0.4 on all four
    # (P 1/2, R 1): both have F1 2/3, and the first still answers both answerable questions.
    result = calibrate([0.1, 0.2, 0.3, 0.4], [True, False, False, True], signal="s")
    tied = [p for p in result.curve if p.f1 == pytest.approx(2 / 3)]
    assert [p.answered for p in tied] == [2, 0]
    assert result.threshold == pytest.approx(0.15)
    assert result.answered == 2


def test_questions_without_a_value_are_left_out_and_counted():
    result = calibrate([0.1, None, 0.9, None], [True, True, False, False], signal="s")
    assert result.failed == 2
    assert (result.answerable, result.unanswerable) == (1, 1)


@pytest.mark.parametrize(
    ("values", "labels", "message"),
    [
        ([0.1, 0.2], [True], "2 signal values and 1 labels"),
        ([0.1, 0.2], [True, True], "0 answerable and 2 unanswerable"),
        ([0.1, None], [True, False], "0 answerable and 1 unanswerable"),
        ([0.1, math.nan], [True, False], "finite"),
        ([0.1, 0.2], [1, 0], "true or false"),
    ],
)
def test_bad_inputs_name_the_problem(values, labels, message):
    with pytest.raises(InputError, match=message):
        calibrate(values, labels, signal="s")


# --- saved with the index ---------------------------------------------------------------------


def make_index(path, content=None):
    index = IndexDir(path)
    with index.write() as new:
        new.write_manifest(
            {"counts": {"chunks": 0}} | ({} if content is None else {"content": content})
        )
    return index


def calibration():
    return calibrate([0.1, 0.2, 0.8, 0.9], [True, True, False, False], signal="top_cosine")


def test_saved_and_loaded_with_the_generation(tmp_path):
    index = make_index(tmp_path / "index")
    stored = save_calibration(index.path, calibration(), mode="hybrid", k=5, dev="dev.jsonl")
    assert stored.path == tmp_path / "index" / "calibration.json"
    assert stored.generation == "gen-000001"
    loaded = load_calibration(index.path)
    assert loaded is not None
    assert loaded.calibration == stored.calibration
    assert (loaded.generation, loaded.mode, loaded.k, loaded.dev) == (
        "gen-000001",
        "hybrid",
        5,
        "dev.jsonl",
    )
    assert "gen-000001" in loaded.source
    # atomic write: no temporary file is left next to it
    assert sorted(p.name for p in index.path.iterdir() if "calibration" in p.name) == [
        "calibration.json"
    ]
    assert json.loads(stored.path.read_text())["threshold"] == pytest.approx(0.5)


def test_saving_again_replaces_the_file(tmp_path):
    index = make_index(tmp_path / "index")
    save_calibration(index.path, calibration(), mode="hybrid", k=5)
    other = calibrate([0.3, 0.4], [True, False], signal="top_bm25")
    save_calibration(index.path, other, mode="bm25", k=3)
    loaded = load_calibration(index.path)
    assert loaded is not None
    assert loaded.calibration.signal == "top_bm25"
    assert loaded.k == 3


def test_a_calibration_of_another_generation_is_stale(tmp_path):
    index = make_index(tmp_path / "index")
    save_calibration(index.path, calibration(), mode="hybrid", k=5)
    make_index(index.path)  # re-index: a new generation
    with pytest.raises(StaleCalibrationError, match=r"gen-000001.*gen-000002") as caught:
        load_calibration(index.path)
    assert "veracity calibrate --index" in str(caught.value)
    assert caught.value.current == "gen-000002"
    assert isinstance(caught.value, IndexStoreError)
    # reading without the check still works, e.g. to show what was there
    stored = read_calibration(index.path)
    assert stored is not None
    assert stored.generation == "gen-000001"


def test_a_new_generation_of_the_same_content_keeps_the_calibration(tmp_path):
    index = make_index(tmp_path / "index", content="sha256:aa")
    save_calibration(index.path, calibration(), mode="hybrid", k=5)
    assert json.loads(calibration_path(index.path).read_text())["content"] == "sha256:aa"
    make_index(index.path, content="sha256:aa")
    loaded = load_calibration(index.path)
    assert loaded is not None
    assert (loaded.generation, loaded.content) == ("gen-000001", "sha256:aa")
    make_index(index.path, content="sha256:bb")
    with pytest.raises(StaleCalibrationError, match="content has changed"):
        load_calibration(index.path)


def test_a_floor_on_answered_questions_gives_the_best_f1_that_keeps_it():
    # values: unanswerable 0.1, 0.5; answerable 0.3, 0.7. Unconstrained, 0.6 wins (F1 0.8)
    # and answers one answerable question of two; asked to answer both, the best threshold
    # left is 0.2 (abstain on 0.1 only: P 1, R 1/2, F1 2/3).
    values, should = [0.1, 0.5, 0.3, 0.7], [True, True, False, False]
    assert calibrate(values, should, signal="s").answered == 1
    floored = calibrate(values, should, signal="s", min_answered=1.0)
    assert floored.threshold == pytest.approx(0.2)
    assert (floored.answered, floored.abstained) == (2, 1)
    assert floored.f1 == pytest.approx(2 / 3)
    assert calibrate(values, should, signal="s", min_answered=0.5).threshold == pytest.approx(0.6)
    bad: Any
    for bad in (-0.1, 1.5, True, "0.9"):
        with pytest.raises(InputError, match="min_answered"):
            calibrate(values, should, signal="s", min_answered=bad)


def test_the_shipped_default_answers_most_answerable_dev_questions():
    for signal in ("top_cosine", "top_support"):
        default = default_threshold(signal)
        assert default.answered is not None
        assert default.answered >= 0.9
        assert f"answers {default.answered:.0%}" in default.source


def test_the_shipped_default_thresholds_are_labelled():
    for signal in ("top_cosine", "top_support"):
        default = default_threshold(signal)
        assert 0.0 < default.threshold < 1.0
        assert default.source.startswith("the shipped default threshold, uncalibrated")
        assert "ClapNQ dev" in default.source
        assert "veracity calibrate --index DIR --dev questions.jsonl" in default.source
    with pytest.raises(InputError, match="no shipped default threshold for 'top_bm25'"):
        default_threshold("top_bm25")


def test_no_calibration_is_none(tmp_path):
    index = make_index(tmp_path / "index")
    assert load_calibration(index.path) is None
    assert read_calibration(index.path) is None


def test_a_damaged_calibration_says_how_to_fix_it(tmp_path):
    index = make_index(tmp_path / "index")
    calibration_path(index.path).write_text("{not json", encoding="utf-8")
    with pytest.raises(IndexStoreError, match="delete it and run `veracity calibrate"):
        load_calibration(index.path)
    calibration_path(index.path).write_text('{"format_version": 99}', encoding="utf-8")
    with pytest.raises(IndexStoreError, match="format_version 99"):
        read_calibration(index.path)


def test_saving_needs_an_index(tmp_path):
    with pytest.raises(IndexNotFoundError):
        save_calibration(tmp_path / "none", calibration(), mode="bm25", k=5)
